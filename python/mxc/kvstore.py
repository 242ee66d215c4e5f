"""mx.kv: MXNet 1.x's KVStore on the runtime's (runtime/include/mxc/runtime/kvstore.h).

    kv = mx.kv.create('local')          # or 'device', 'dist_sync', 'dist_async'
    kv.init(3, mx.nd.ones((2, 3)))
    kv.push(3, [g_cpu0, g_cpu1])        # summed on the machine (level 1)
    kv.pull(3, out=w)

push and pull are engine operations: they return at once and are ordered
with the operators that write the gradients and read the weights. The dist
types run over MPI (`mpirun -np 4 python train.py`, or tools/launch.py):
dist_sync all-reduces each push in one fixed order (every worker ends with
the same bits) and runs the updater on every worker; dist_async sends pushes
to server ranks, which apply the optimizer as they arrive. docs/distributed.md.
"""
import atexit
import pickle
import sys
import traceback
import warnings
import weakref

import numpy as np

from . import _mxc
from . import optimizer as _opt
from .base import MXNetError, MXNetValueError, atomic_write_bytes
from .ndarray import NDArray, _new_rt, _wrap_rt

__all__ = ["KVStoreBase", "KVStore", "TestStore", "create"]

_live = weakref.WeakSet()
_dist_used = [False]


def _finalize_all():
    for kv in list(_live):
        try:
            kv._handle.finalize()
        except MXNetError as e:  # pragma: no cover - reported, exit continues
            print("mxc kvstore: %s" % e, file=sys.stderr)
    if _dist_used[0]:
        _mxc.kv_finalize_mpi()


atexit.register(_finalize_all)


def _install_abort_hook(who):
    """An uncaught exception in one rank aborts the whole MPI job (MPI_Abort),
    so the other ranks never wait for it."""
    previous = sys.excepthook

    def hook(etype, value, tb):
        try:
            traceback.print_exception(etype, value, tb)
        finally:
            _mxc.kv_abort(1, "mxc: %s: uncaught %s, aborting the MPI job"
                          % (who, etype.__name__))
        previous(etype, value, tb)  # never reached

    sys.excepthook = hook


def _on_gpu(v):
    return isinstance(v, NDArray) and v._on_gpu()


# What the store sums (kvstore.cc's summable).
_SUMMABLE = {np.dtype(t) for t in ("float16", "float32", "float64", "int32", "int64")}


def _like(v, first):
    return v.shape == first.shape and v._sig[1] == first._sig[1]


def _gpu_sum(vals):
    """A 'device' store's level 1 on GPU values (MXNet's CommDevice): the
    values of one key on GPUs summed on the first one's device (the others
    copied there, then added by the compiled operator), so that one value a
    key goes to the host instead of one a device. The rest of the list
    follows unchanged (the host adds them after it: with CPU values between
    GPU ones, the order of the additions differs from the 'local' store's;
    float16 values are rounded after each add on the GPU). Values that are
    not all of one shape and summable dtype go to the store as they are (it
    names what is wrong)."""
    gpu = [v for v in vals if _on_gpu(v)]
    if len(gpu) < 2 or gpu[0]._sig[1] not in _SUMMABLE or \
            not all(_like(v, gpu[0]) for v in gpu[1:]):
        return vals
    from . import autograd
    target = gpu[0].context
    with autograd.pause():  # the store's arithmetic is not the model's
        total = gpu[0]
        for v in gpu[1:]:
            total = total + (v if v.context == target else v.as_in_context(target))
    return [total] + [v for v in vals if not _on_gpu(v)]


def _resync_states(updater, key):
    """An Updater's states of `key` move to its weight's device at the next
    update (the key's value moved between the host and a GPU)."""
    if isinstance(updater, _opt.Updater) and key in updater.states:
        updater.states_synced[key] = False


def _rt_of(arr, what, key):
    if not isinstance(arr, NDArray):
        raise MXNetError("%s of key %r: expected an NDArray, got %s"
                         % (what, key, type(arr).__name__))
    if arr._rt is None:  # numpy-backed view: give the store a runtime copy
        tmp = _new_rt(arr.shape, arr._np.dtype, arr.context)
        np.copyto(tmp._np, arr._data)
        return tmp._rt, tmp
    return arr._rt, None


class KVStoreBase:
    """MXNet 1.9.1's abstract key-value store (mx.kv.KVStoreBase): what
    gluon.Trainer needs of a store (broadcast, pushpull, is_capable,
    set_optimizer, optimizer states, type / rank / num_workers). A subclass
    registered with `KVStoreBase.register` is created by mx.kv.create(<its
    class name, lower case>)."""

    OPTIMIZER = "optimizer"
    kv_registry = {}

    def broadcast(self, key, value, out, priority=0):
        raise NotImplementedError()

    def pushpull(self, key, value, out=None, priority=0):
        raise NotImplementedError()

    def set_optimizer(self, optimizer):
        raise NotImplementedError()

    def save_optimizer_states(self, fname, dump_optimizer=False):
        raise NotImplementedError()

    def load_optimizer_states(self, fname):
        raise NotImplementedError()

    @staticmethod
    def is_capable(capability):
        raise NotImplementedError()

    @property
    def type(self):
        raise NotImplementedError()

    @property
    def rank(self):
        raise NotImplementedError()

    @property
    def num_workers(self):
        raise NotImplementedError()

    @staticmethod
    def register(klass):
        """Registers a KVStoreBase subclass under its class name in lower
        case (a later class of that name replaces it, with a warning)."""
        if not isinstance(klass, type):
            raise MXNetError("KVStoreBase.register: expected a class, got %r" % (klass,))
        name = klass.__name__.lower()
        old = KVStoreBase.kv_registry.get(name)
        if old is not None:
            warnings.warn("WARNING: New kvstore %s.%s is overriding existing kvstore %s.%s"
                          % (klass.__module__, klass.__name__, old.__module__, old.__name__))
        KVStoreBase.kv_registry[name] = klass
        return klass


@KVStoreBase.register
class TestStore(KVStoreBase):
    """MXNet's 'teststore': a store in Python that sums the values pushed
    together (pushpull) and copies (broadcast); it runs no optimizer."""

    def broadcast(self, key, value, out, priority=0):
        for o in (out if isinstance(out, (list, tuple)) else [out]):
            o[:] = value

    def pushpull(self, key, value, out=None, priority=0):
        values = [value] if isinstance(value, NDArray) else list(value)
        total = values[0].copy()
        for v in values[1:]:
            total += v.as_in_context(total.context)
        targets = values if out is None else (out if isinstance(out, (list, tuple)) else [out])
        for o in targets:
            o[:] = total

    @staticmethod
    def is_capable(capability):
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return False
        raise MXNetValueError("Unknown capability: %s" % capability)

    @property
    def type(self):
        return "teststore"

    @property
    def rank(self):
        return 0

    @property
    def num_workers(self):
        return 1


class KVStore(KVStoreBase):
    """A key-value store (MXNet 1.x's mx.kvstore.KVStore)."""

    def __init__(self, handle, name):
        self._handle = handle
        self._name = name
        self._updater = None
        self._key_type = None
        self._keys = {}  # str(key) -> the user's key
        # A 'device' store with an updater keeps a key pushed from GPUs on
        # the GPU its values are summed on (MXNet's KVStoreLocal moves the
        # stored weight to the merge buffer's device): str(key) -> that
        # value, which pull reads; the host store's is stale meanwhile.
        self._on_device = {}
        _live.add(self)

    # -- keys -------------------------------------------------------------------------
    def _key(self, key):
        if isinstance(key, (int, np.integer)) and not isinstance(key, bool):
            kind = int
        elif isinstance(key, str):
            kind = str
        else:
            raise MXNetError("kvstore keys are ints or strings, got %r" % (key,))
        if self._key_type is None:
            self._key_type = kind
        elif self._key_type is not kind:
            raise MXNetError("kvstore: key %r mixes %s keys with %s keys"
                             % (key, kind.__name__, self._key_type.__name__))
        s = str(key)
        self._keys.setdefault(s, key)
        return s

    @staticmethod
    def _pairs(key, value, what):
        """(key, [values]) pairs from MXNet's call forms: one key with a value
        or a list of values (one per device); a list of keys with a list of
        values or of value lists."""
        if isinstance(key, (list, tuple)):
            if not isinstance(value, (list, tuple)) or len(value) != len(key):
                raise MXNetError("%s: %d keys need a list of %d values"
                                 % (what, len(key), len(key)))
            return [(k, list(v) if isinstance(v, (list, tuple)) else [v])
                    for k, v in zip(key, value)]
        return [(key, list(value) if isinstance(value, (list, tuple)) else [value])]

    # -- API --------------------------------------------------------------------------
    @staticmethod
    def is_capable(capability):
        """The store runs an optimizer (set_optimizer: on push, or on the
        dist_async servers)."""
        if capability.lower() == KVStoreBase.OPTIMIZER:
            return True
        raise MXNetValueError("Unknown capability: %s" % capability)

    @property
    def type(self):
        return self._name

    @property
    def rank(self):
        return self._handle.rank

    @property
    def num_workers(self):
        return self._handle.num_workers

    def init(self, key, value):
        """Initialises keys (rank 0's values win in the dist types)."""
        for k, vals in self._pairs(key, value, "init"):
            s = self._key(k)
            rt, _keep = _rt_of(vals[0], "init", k)
            self._handle.init(s, rt)
            self._on_device.pop(s, None)

    def push(self, key, value, priority=0):
        """Pushes values (summed over the list of each key) into the store;
        a 'device' type sums the values on GPUs on the first one's device
        first (_gpu_sum)."""
        device = "device" in self._name
        for k, vals in self._pairs(key, value, "push"):
            s = self._key(k)
            if device:
                vals = _gpu_sum(vals)
                if self._update_on_gpu(s, k, vals):
                    continue
            rts, keep = [], []
            for v in vals:
                rt, tmp = _rt_of(v, "push", k)
                rts.append(rt)
                keep.append(tmp)
            self._handle.push(s, rts, int(priority))

    def _update_on_gpu(self, s, k, vals):
        """A 'device' store's push with an updater, of a key with a value on
        a GPU (or kept on one already): the values summed there (the GPU sum
        first, then the others copied and added in their order), the
        updater run on that sum and the key's value on the GPU (compiled
        updates stay on the device), which pulls then read. False where the
        store takes the push (another type, no updater, values all on the
        host, an optimizer that would update on host copies anyway)."""
        if self._name != "device" or self._updater is None:
            return False
        local = self._on_device.get(s)
        if local is None and not any(_on_gpu(v) for v in vals):
            return False
        first = next(v for v in vals if _on_gpu(v)) if local is None else local
        for v in vals:
            if not isinstance(v, NDArray) or v.shape != first.shape or \
                    v._sig[1] != first._sig[1] or v._sig[1] not in _SUMMABLE:
                return False  # the store names what is wrong
        key = self._keys.get(s, k)
        updater = self._updater
        if local is None and isinstance(updater, _opt.Updater) and \
                not updater.optimizer._updates_on_device(first, first):
            return False  # (numpy optimizers: the sum to the host, as before)
        target = first.context
        if local is None:  # the stored value, to the GPU once
            local = _new_rt(first.shape, first._sig[1], target)
            try:
                self._handle.pull(s, [local._rt], 0)
            except MXNetError as e:  # (an uninitialised key: the push's error)
                raise MXNetError(str(e).replace("pull of key", "push of key", 1)) from None
            self._on_device[s] = local
            _resync_states(updater, key)
        from . import autograd
        with autograd.pause():
            merged = None
            for v in vals:
                v = v if v.context == target else v.as_in_context(target)
                merged = v if merged is None else merged + v
            updater(key, merged, local)
        return True

    def _flush_device_values(self):
        """The keys kept on a GPU back into the host store (a push with no
        updater sets a key's value), before the updater changes."""
        if not self._on_device:
            return
        self._handle.set_updater(None)
        for s, local in self._on_device.items():
            self._handle.push(s, [local._rt], 0)
            _resync_states(self._updater, self._keys.get(s, s))
        self._on_device = {}

    def pull(self, key, out=None, priority=0, ignore_sparse=True):
        """Pulls the stored values into `out` (an array or a list per key)."""
        if out is None:
            raise MXNetError("pull: out is required")
        device = "device" in self._name
        for k, outs in self._pairs(key, out, "pull"):
            s = self._key(k)
            local = self._on_device.get(s)
            if local is not None:  # kept on a GPU (_update_on_gpu): copies from it
                for o in outs:
                    if not isinstance(o, NDArray):
                        raise MXNetError("pull of key %r: expected an NDArray, got %s"
                                         % (k, type(o).__name__))
                    if o.shape != local.shape:
                        raise MXNetError("pull of key %r: out has shape %s, the value %s"
                                         % (k, o.shape, local.shape))
                    if o is not local:
                        local.copyto(o)
                continue
            fan = []
            if device:  # one pull to the first GPU, copies from it to the others
                gpu = [o for o in outs if _on_gpu(o)]
                if len(gpu) > 1:
                    # (the others of its shape and dtype: the store checks
                    # the rest, and the first itself listed again)
                    fan = [o for o in gpu[1:] if o is not gpu[0] and _like(o, gpu[0])]
                    outs = [o for o in outs if not any(o is f for f in fan)]
            rts, back = [], []
            for o in outs:
                rt, tmp = _rt_of(o, "pull", k)
                rts.append(rt)
                if tmp is not None:
                    back.append((o, tmp))
            self._handle.pull(s, rts, int(priority))
            for o, tmp in back:  # numpy-backed outs: copied when done
                o[:] = tmp
            for o in fan:  # device to device, after the pull (the arrays' variables)
                gpu[0].copyto(o)

    def pushpull(self, key, value, out=None, priority=0):
        """push then pull (into `value` itself when out is None)."""
        self.push(key, value, priority)
        self.pull(key, value if out is None else out, priority)

    def broadcast(self, key, value, out, priority=0):
        """init with `value`, then pull into `out`."""
        self.init(key, value)
        self.pull(key, out, priority)

    def row_sparse_pull(self, key, out=None, priority=0, row_ids=None):
        raise MXNetError("row_sparse_pull: mxc has no sparse storage")

    def set_gradient_compression(self, compression_params):
        raise MXNetError("set_gradient_compression: not supported by mxc")

    def set_optimizer(self, optimizer):
        """Runs `optimizer` in the store: on the servers (dist_async, the
        optimizer is pickled and sent), else on this process for every push."""
        if not isinstance(optimizer, _opt.Optimizer):
            raise MXNetError("set_optimizer: expected an Optimizer")
        if self._name == "dist_async":
            try:
                body = pickle.dumps(optimizer)
            except Exception as e:
                raise MXNetError("set_optimizer: the optimizer cannot be pickled "
                                 "for the servers: %s" % e) from None
            self._handle.send_command_to_servers(0, body)
            self._updater = _opt.get_updater(optimizer)  # for save/load of states
            return
        self._set_updater(_opt.get_updater(optimizer))

    def _set_updater(self, updater):
        """updater(key, recv, stored) on NDArrays, called for every push."""
        self._flush_device_values()
        self._updater = updater
        if updater is None:
            self._handle.set_updater(None)
            return
        self._handle.set_updater(self._wrap_updater(updater))

    def _wrap_updater(self, updater):
        keys = self._keys

        def call(key, recv, stored):
            r = _wrap_rt(recv, np.dtype(recv.dtype), None)
            w = _wrap_rt(stored, np.dtype(stored.dtype), None)
            updater(keys.get(key, _server_key(key)), r, w)

        return call

    def _barrier(self):
        self._handle.barrier()

    def barrier(self):
        """Blocks until every worker reached it."""
        self._handle.barrier()

    def _send_command_to_servers(self, head, body):
        if isinstance(body, str):
            body = body.encode()
        self._handle.send_command_to_servers(int(head), body)

    def save_optimizer_states(self, fname, dump_optimizer=False):
        """The updater's states (this process's; on dist_async the servers
        hold theirs, and this saves the worker's copy of the optimizer)."""
        if self._updater is None:
            raise MXNetError("save_optimizer_states: no optimizer is set")
        atomic_write_bytes(fname, self._updater.get_states(dump_optimizer))

    def load_optimizer_states(self, fname):
        if self._updater is None:
            raise MXNetError("load_optimizer_states: no optimizer is set")
        with open(fname, "rb") as f:
            self._updater.set_states(f.read())

    def _run_server(self):
        """A dist_async server rank: serve until every worker is done."""
        store = self

        def command(head, body):
            if head == 0:  # set_optimizer: the updater for this store's pushes
                optimizer = pickle.loads(body)
                store._updater = _opt.get_updater(optimizer)
                return store._wrap_updater(store._updater)
            raise MXNetError("unknown server command %d" % head)

        self._handle.run_server(command)

    def __repr__(self):
        return "<KVStore %s rank %d of %d>" % (self._name, self.rank, self.num_workers)


def _server_key(key):
    """A server sees string keys; ints come back as ints (as the workers' keys)."""
    return int(key) if key.lstrip("-").isdigit() else key


def create(name="local"):
    """A KVStore of type `name`: local, device, dist_sync, dist_device_sync,
    dist_async (MXNet 1.x's mx.kv.create). On a dist_async server rank this
    call serves the workers and then exits the process, as MXNet's servers do."""
    if not isinstance(name, str):
        raise MXNetError("kvstore: the type must be a string")
    klass = KVStoreBase.kv_registry.get(name.lower())
    if klass is not None:
        return klass()
    handle = _mxc.KVStore.create(name)
    kv = KVStore(handle, name)
    if name.startswith("dist"):
        _dist_used[0] = True
        _install_abort_hook(("rank %d" % handle.rank) if handle.is_worker
                            else ("server %d" % handle.rank))
        if not handle.is_worker:
            kv._run_server()
            _finalize_all()
            sys.exit(0)
    return kv
