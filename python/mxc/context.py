"""Devices: mx.cpu(), mx.gpu()."""
import threading

from . import _mxc
from .base import MXNetError


class _ContextMeta(type):
    """Context.default_ctx as MXNet's class property: the calling thread's
    current context, assignable."""

    @property
    def default_ctx(cls):
        return current_context()

    @default_ctx.setter
    def default_ctx(cls, value):
        cls._local.value = value


class Context(metaclass=_ContextMeta):
    """A device, as MXNet names it: Context('cpu', 0) prints cpu(0).
    gpu(i) runs where the runtime finds a CUDA driver and device i (docs/gpu.md
    says what runs there); without one, arrays and executors on it raise
    MXNetError."""

    devtype2str = {1: "cpu", 2: "gpu", 3: "cpu_pinned", 5: "cpu_shared"}
    devstr2type = {v: k for k, v in devtype2str.items()}
    _local = threading.local()
    _default_ctx = _local  # MXNet's name (test_utils.set_default_context sets .value)

    def __init__(self, device_type, device_id=0):
        if isinstance(device_type, Context):
            self.device_typeid = device_type.device_typeid
            self.device_id = device_type.device_id
        else:
            if device_type not in Context.devstr2type:
                raise MXNetError("unknown device type %r" % (device_type,))
            self.device_typeid = Context.devstr2type[device_type]
            self.device_id = device_id
        self._old = None

    @property
    def device_type(self):
        return Context.devtype2str[self.device_typeid]

    def __hash__(self):
        return hash((self.device_typeid, self.device_id))

    def __eq__(self, other):
        return (isinstance(other, Context) and
                self.device_typeid == other.device_typeid and
                self.device_id == other.device_id)

    def __repr__(self):
        return "%s(%d)" % (self.device_type, self.device_id)

    __str__ = __repr__

    def __enter__(self):
        self._old = current_context()
        Context._local.value = self
        return self

    def __exit__(self, *exc):
        Context._local.value = self._old

    def empty_cache(self):
        pass


def cpu(device_id=0):
    return Context("cpu", device_id)


def cpu_pinned(device_id=0):
    return Context("cpu_pinned", device_id)


def gpu(device_id=0):
    """A GPU context. It can be created and compared anywhere; putting data
    on it needs the GPU (MXNetError naming why otherwise). NDArrays,
    operators, autograd, executors, Module and Gluon run on any GPU, Module
    and Gluon also over several (docs/gpu.md)."""
    return Context("gpu", device_id)


def num_gpus():
    """The number of GPUs the CUDA driver reports: 0 on a machine without
    one, or in an mxc built without CUDA."""
    return _mxc.cuda_device_count()


def gpu_memory_info(device_id=0):
    """(free, total) bytes of memory on gpu(device_id), as MXNet's;
    MXNetError where there is no such GPU."""
    try:
        free, total = _mxc.cuda_memory_info(device_id)
    except RuntimeError as e:
        raise MXNetError(str(e)) from None
    return free, total


def _require_gpu(ctx, what=None):
    """MXNetError naming why `ctx` (a gpu context) cannot hold data here;
    with `what` (a feature that does not run on the GPU yet), the error says
    so even where the GPU exists."""
    try:
        _mxc.cuda_require_device(ctx.device_id)
    except RuntimeError as e:
        raise MXNetError(str(e)) from None
    if what is not None:
        raise MXNetError("%s on %s is not supported yet (docs/gpu.md says what runs on a GPU)"
                         % (what, ctx))


def current_context():
    cur = getattr(Context._local, "value", None)
    return cur if cur is not None else Context("cpu", 0)


def check_context(ctx, gpu=None):
    """The Context to use for `ctx` (None: the current one); MXNetError for
    a device without a back end, or a GPU without one. `gpu`: True where the
    caller runs on the GPU (arrays, imperative operators), else the name of
    what the caller is (an executor, ...) for the error."""
    ctx = current_context() if ctx is None else Context(ctx) if isinstance(ctx, str) else ctx
    if not isinstance(ctx, Context):
        raise MXNetError("expected a Context, got %r" % (ctx,))
    if ctx.device_type == "gpu":
        _require_gpu(ctx, None if gpu is True else gpu or "this")
    return ctx
