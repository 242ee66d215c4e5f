"""mxc: MXNet 1.x's Python API on the mxc compiler.

    import mxc as mx
    x = mx.nd.array([[1, 2], [3, 4]])
    y = mx.nd.FullyConnected(x, mx.nd.ones((3, 2)), mx.nd.zeros(3), num_hidden=3)
    net = mx.sym.FullyConnected(mx.sym.var('data'), num_hidden=10, name='fc1')
    exe = net.simple_bind(mx.cpu(), data=(4, 2))

Symbols and imperative operators are compiled by the mxc compiler (JIT,
cached in memory and on disk); see docs/python.md for what is implemented
and what differs from MXNet 1.x.
"""
from . import _mxc
from .base import MXNetError, NameManager
from .attribute import AttrScope
from . import attribute
from . import name
from .context import Context, cpu, gpu, cpu_pinned, current_context
from . import context
from . import ndarray
from . import ndarray as nd
from . import symbol
from . import symbol as sym
from . import random
from . import autograd
from . import initializer
from . import initializer as init
from . import lr_scheduler
from . import optimizer
from . import metric
from . import io
from . import recordio
from . import image
from . import image as img
from . import model
from . import callback
from . import monitor
from . import monitor as mon
from . import module
from . import module as mod
from . import profiler
from . import gluon
from . import kvstore
from . import kvstore as kv
from . import onnx
from . import contrib
from . import runtime
from . import engine
from . import operator
from . import rnn
from . import util
from . import visualization
from . import visualization as viz
from .util import is_np_shape, set_np_shape, np_shape, use_np_shape
from .ndarray import NDArray, waitall
from .symbol import Symbol
from .executor import Executor

__version__ = "0.1.0"

__all__ = ["MXNetError", "NameManager", "AttrScope", "attribute", "name", "Context", "cpu", "gpu", "cpu_pinned",
           "current_context",
           "nd", "ndarray", "sym", "symbol", "random", "autograd", "NDArray", "Symbol",
           "Executor", "waitall", "init", "initializer", "lr_scheduler", "optimizer",
           "metric", "io", "recordio", "image", "img", "model", "callback", "module", "mod", "profiler", "kv", "kvstore",
           "viz", "visualization"]
