"""mx.engine: MXNet 1.x's engine properties (set_bulk_size, bulk).

MXNet bundles up to `size` imperative operations into one engine
operation; mxc's engine runs each pushed operation on its own (elementwise
chains are fused when a graph is compiled instead), so the size is kept,
per thread as in MXNet, and reported back, but does not change how
operations are scheduled.
"""
import threading

__all__ = ["set_bulk_size", "bulk"]

_local = threading.local()


def set_bulk_size(size):
    """Sets the bulk size of this thread; returns the previous one (0 at first)."""
    prev = getattr(_local, "size", 0)
    _local.size = int(size)
    return prev


class _BulkScope:
    """with mx.engine.bulk(size): the bulk size inside, the previous one after."""

    def __init__(self, size):
        self._size = size
        self._old_size = None

    def __enter__(self):
        self._old_size = set_bulk_size(self._size)
        return self

    def __exit__(self, ptype, value, trace):
        set_bulk_size(self._old_size)


def bulk(size):
    """A scope with bulk size `size` (see the module's note)."""
    return _BulkScope(size)
