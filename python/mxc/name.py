"""mx.name: automatic names of symbols (MXNet 1.x's mxnet.name).

    with mx.name.Prefix('mynet_'):
        net = mx.sym.FullyConnected(data, num_hidden=10)   # 'mynet_fullyconnected0'

NameManager and Prefix live in mxc.base (the Gluon blocks use them too).
"""
from .base import NameManager, Prefix

__all__ = ["NameManager", "Prefix"]
