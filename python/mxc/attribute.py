"""mx.AttrScope: attributes given to every symbol created inside the scope
(MXNet 1.9.1's mxnet.attribute.AttrScope).

    with mx.AttrScope(ctx_group='dev1'):
        fc = mx.sym.FullyConnected(data, num_hidden=10)   # __ctx_group__ = 'dev1'

The scope's attributes are merged under the ones a Variable or operator is
given with attr= (those win), and nested scopes add to the outer one's.
"""
import threading

from .base import _ClassProperty, _ClassPropertyMeta

__all__ = ["AttrScope"]


class AttrScope(metaclass=_ClassPropertyMeta):
    """Attributes for the symbols created in a `with` block; values must be
    strings (as MXNet requires). `AttrScope.current` is the calling thread's
    scope, a class property that can be assigned, as MXNet's."""

    _current = threading.local()

    def __init__(self, **kwargs):
        self._old_scope = None
        for value in kwargs.values():
            if not isinstance(value, str):
                raise ValueError("Attributes need to be string")
        self._attr = kwargs

    def get(self, attr):
        """The scope's attributes updated with `attr` (a dict or None)."""
        if self._attr:
            ret = self._attr.copy()
            if attr:
                ret.update(attr)
            return ret
        return attr if attr else {}

    def __enter__(self):
        self._old_scope = AttrScope.current
        attr = self._old_scope._attr.copy()
        attr.update(self._attr)
        self._attr = attr
        AttrScope._current.value = self
        return self

    def __exit__(self, ptype, value, trace):
        assert self._old_scope
        AttrScope._current.value = self._old_scope

    def _get_current(cls):
        cur = getattr(AttrScope._current, "value", None)
        if cur is None:
            cur = AttrScope()
            AttrScope._current.value = cur
        return cur

    def _set_current(cls, value):
        AttrScope._current.value = value

    current = _ClassProperty(_get_current, _set_current)
