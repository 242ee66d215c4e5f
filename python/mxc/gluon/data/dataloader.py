"""gluon.data.DataLoader (MXNet 1.9.1's arguments).

num_workers > 0 runs the dataset's __getitem__ and the batchify function in
worker processes (thread_pool=True: threads). The workers are fresh
interpreters (multiprocessing 'spawn', not MXNet's fork: a forked child
would inherit the engine's locks without its threads), so the dataset and
a batchify_fn must be picklable (NDArrays pickle as their values; lambdas
do not pickle). Workers build numpy batches and send them back pickled; the
main process makes the NDArrays (MXNet passes shared-memory NDArrays).
pin_memory puts the batches on cpu_pinned(pin_device_id): page-locked host
memory where there is a GPU (their copies to it run asynchronously), plain
host memory without one; auto_reload is accepted (the workers live as long
as the loader).
"""
import multiprocessing
import multiprocessing.pool
import time

import numpy as np

from ...base import MXNetError
from ... import ndarray as nd
from ...context import cpu
from ...ndarray import NDArray
from . import sampler as _sampler


def _as_numpy(x):
    return x.asnumpy() if isinstance(x, NDArray) else np.asarray(x)


def _np_batchify(data):
    """Batches as numpy (what the workers return)."""
    if isinstance(data[0], NDArray):
        return np.stack([d.asnumpy() for d in data])
    if isinstance(data[0], np.ndarray):
        return np.stack(data)
    if isinstance(data[0], tuple):
        return [_np_batchify(list(i)) for i in zip(*data)]
    return np.asarray(data)


def _to_nd(x):
    if isinstance(x, np.ndarray):
        return nd.array(x, ctx=cpu(), dtype=x.dtype)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_nd(i) for i in x)
    return x


def default_batchify_fn(data):
    """Stacks the samples: NDArrays / numpy arrays / numbers into one NDArray
    on the CPU (as MXNet's, whatever the default context), tuples
    element-wise into a list of them."""
    if isinstance(data[0], NDArray):
        return nd.array(np.stack([d.asnumpy() for d in data]), ctx=cpu(), dtype=data[0].dtype)
    if isinstance(data[0], tuple):
        return [default_batchify_fn(list(i)) for i in zip(*data)]
    a = np.asarray(data)
    return nd.array(a, ctx=cpu(), dtype=a.dtype)


default_mp_batchify_fn = default_batchify_fn


def _pickleable(x):
    """NDArrays as tagged numpy arrays (they do not pickle)."""
    if isinstance(x, NDArray):
        return ("__mxc_nd__", x.asnumpy())
    if isinstance(x, list):
        return [_pickleable(i) for i in x]
    if isinstance(x, tuple):
        return tuple(_pickleable(i) for i in x)
    return x


def _unpickled(x):
    if isinstance(x, tuple) and len(x) == 2 and isinstance(x[0], str) and x[0] == "__mxc_nd__":
        return nd.array(x[1], ctx=cpu(), dtype=x[1].dtype)
    if isinstance(x, list):
        return [_unpickled(i) for i in x]
    if isinstance(x, tuple):
        return tuple(_unpickled(i) for i in x)
    return x


_worker_dataset = None
_worker_batchify = None


def _worker_initializer(dataset, batchify_fn):
    global _worker_dataset, _worker_batchify
    _worker_dataset = dataset
    _worker_batchify = batchify_fn


def _worker_fn(samples):
    if _worker_batchify is None:
        return ("np", _np_batchify([_worker_dataset[i] for i in samples]))
    return ("obj", _pickleable(_worker_batchify([_worker_dataset[i] for i in samples])))


def _on(x, ctx):
    """Batch `x` with its NDArrays on context `ctx` (pin_memory)."""
    if isinstance(x, NDArray):
        return x.as_in_context(ctx)
    if isinstance(x, (list, tuple)):
        return type(x)(_on(i, ctx) for i in x)
    return x


def _thread_worker_fn(samples, batchify_fn, dataset):
    return batchify_fn([dataset[i] for i in samples])


class DataLoader:
    """Loads batches from a Dataset: batch_size + shuffle / sampler +
    last_batch ('keep', 'discard', 'rollover'), or batch_sampler; batchify_fn
    makes a batch of a list of samples."""

    def __init__(self, dataset, batch_size=None, shuffle=False, sampler=None,
                 last_batch=None, batch_sampler=None, batchify_fn=None,
                 num_workers=0, pin_memory=False, pin_device_id=0,
                 prefetch=None, thread_pool=False, timeout=120, auto_reload=False):
        self._dataset = dataset
        self._pin_memory = pin_memory
        self._pin_device_id = pin_device_id
        self._thread_pool = thread_pool
        self._timeout = timeout
        if batch_sampler is None:
            if batch_size is None:
                raise MXNetError("batch_size must be specified unless batch_sampler is specified")
            if sampler is None:
                if shuffle:
                    sampler = _sampler.RandomSampler(len(dataset))
                else:
                    sampler = _sampler.SequentialSampler(len(dataset))
            elif shuffle:
                raise MXNetError("shuffle must not be specified if sampler is specified")
            batch_sampler = _sampler.BatchSampler(sampler, batch_size,
                                                  last_batch if last_batch else "keep")
        elif batch_size is not None or shuffle or sampler is not None or last_batch is not None:
            raise MXNetError("batch_size, shuffle, sampler and last_batch must not be specified "
                             "if batch_sampler is specified.")
        self._batch_sampler = batch_sampler
        self._num_workers = num_workers if num_workers >= 0 else 0
        self._user_batchify = batchify_fn
        self._batchify_fn = batchify_fn if batchify_fn is not None else default_batchify_fn
        self._prefetch = max(0, int(prefetch) if prefetch is not None else 2 * self._num_workers)
        self._worker_pool = None
        if self._num_workers > 0:
            if self._thread_pool:
                self._worker_pool = multiprocessing.pool.ThreadPool(self._num_workers)
            else:
                # Fresh interpreters (spawn): a fork would copy the engine's
                # locks without its threads.
                ctx = multiprocessing.get_context("spawn")
                self._worker_pool = ctx.Pool(self._num_workers, initializer=_worker_initializer,
                                             initargs=(self._dataset, self._user_batchify))

    def __iter__(self):
        if not self._pin_memory:
            return self._batches()
        from ...context import cpu_pinned
        ctx = cpu_pinned(self._pin_device_id)
        return (_on(b, ctx) for b in self._batches())

    def _batches(self):
        if self._num_workers == 0:
            for batch in self._batch_sampler:
                yield self._batchify_fn([self._dataset[idx] for idx in batch])
            return
        pending = []
        it = iter(self._batch_sampler)

        def submit():
            try:
                samples = next(it)
            except StopIteration:
                return False
            if self._thread_pool:
                pending.append(self._worker_pool.apply_async(
                    _thread_worker_fn, (samples, self._batchify_fn, self._dataset)))
            else:
                pending.append(self._worker_pool.apply_async(_worker_fn, (samples,)))
            return True

        for _ in range(max(1, self._prefetch)):
            if not submit():
                break
        timed_out = False
        try:
            while pending:
                r = pending.pop(0)
                try:
                    got = r.get(self._timeout)
                except multiprocessing.TimeoutError:
                    timed_out = True
                    raise MXNetError("DataLoader: a worker took more than %d s (timeout) for "
                                     "a batch" % self._timeout)
                submit()
                if self._thread_pool:
                    yield got
                elif got[0] == "np":
                    yield _to_nd(got[1])
                else:
                    yield _unpickled(got[1])
        finally:
            # An iterator dropped early (or failing) lets the batches in
            # flight arrive first: Pool.terminate() (the DataLoader's
            # __del__) with a worker still sending a result larger than the
            # pipe's buffer deadlocks (the result handler stops reading, the
            # worker keeps the queue's lock; MXNet 1.9.1's
            # test_multi_worker_dataloader_release_pool hung on it). Threads
            # have no pipe; after a timeout the workers are stuck anyway; the
            # wait is bounded by one timeout in all.
            if not self._thread_pool and not timed_out and pending:
                deadline = time.monotonic() + (self._timeout or 120)
                for r in pending:
                    r.wait(max(0.0, deadline - time.monotonic()))

    def __len__(self):
        return len(self._batch_sampler)

    def __del__(self):
        pool = getattr(self, "_worker_pool", None)
        if pool is not None:
            pool.terminate()
            self._worker_pool = None
