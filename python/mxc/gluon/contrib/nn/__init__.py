"""gluon.contrib.nn: Concurrent, HybridConcurrent, Identity, SyncBatchNorm
(MXNet 1.9.1)."""
import warnings

from ...nn import BatchNorm, Sequential, HybridSequential, Identity
from ....base import MXNetError


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


class SyncBatchNorm(BatchNorm):
    """MXNet's cross-device synchronised BatchNorm (the same parameters and
    arguments). mxc runs one device per process, where the synchronised
    statistics are the batch's own: the layer is BatchNorm over axis 1 (its
    graph, and an export, hold a BatchNorm node, not _contrib_SyncBatchNorm).
    num_devices > 1 raises: nothing here would exchange the statistics."""

    def __init__(self, in_channels=0, num_devices=None, momentum=0.9, epsilon=1e-5,
                 center=True, scale=True, use_global_stats=False, beta_initializer="zeros",
                 gamma_initializer="ones", running_mean_initializer="zeros",
                 running_variance_initializer="ones", **kwargs):
        super().__init__(axis=1, momentum=momentum, epsilon=epsilon, center=center,
                         scale=scale, use_global_stats=use_global_stats,
                         beta_initializer=beta_initializer, gamma_initializer=gamma_initializer,
                         running_mean_initializer=running_mean_initializer,
                         running_variance_initializer=running_variance_initializer,
                         in_channels=in_channels, **kwargs)
        if num_devices is None:
            warnings.warn("Caution using SyncBatchNorm: if not using all the GPUs, please "
                          "mannually set num_devices", UserWarning)
            num_devices = 1
        if int(num_devices) != 1:
            raise MXNetError("SyncBatchNorm: num_devices=%s: mxc synchronises batch statistics "
                             "across no devices (one device per process; use num_devices=1)"
                             % num_devices)
        self._num_devices = 1
