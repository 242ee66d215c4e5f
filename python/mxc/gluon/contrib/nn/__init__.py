"""gluon.contrib.nn: Concurrent, HybridConcurrent, Identity (MXNet 1.9.1)."""
from ...nn import Sequential, HybridSequential, Identity


class Concurrent(Sequential):
    """Runs every child on the input; concatenates the outputs along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def forward(self, x):
        from .... import ndarray as nd
        return nd.concat(*[block(x) for block in self._children.values()], dim=self.axis)


class HybridConcurrent(HybridSequential):
    """Runs every child on the input; concatenates the outputs along `axis`."""

    def __init__(self, axis=-1, prefix=None, params=None):
        super().__init__(prefix=prefix, params=params)
        self.axis = axis

    def hybrid_forward(self, F, x):
        return F.concat(*[block(x) for block in self._children.values()], dim=self.axis)
