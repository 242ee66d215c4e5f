"""gluon.data samplers (MXNet 1.9.1)."""
import numpy as np

from ...base import MXNetError


class Sampler:
    """Base class: an iterable of indices."""

    def __iter__(self):
        raise NotImplementedError

    def __len__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """0, 1, ..., length - 1 (from `start`)."""

    def __init__(self, length, start=0):
        self._length = length
        self._start = start

    def __iter__(self):
        return iter(range(self._start, self._start + self._length))

    def __len__(self):
        return self._length


class RandomSampler(Sampler):
    """A random permutation of 0 .. length - 1 (numpy's global generator,
    as MXNet)."""

    def __init__(self, length):
        self._length = length

    def __iter__(self):
        indices = np.arange(self._length)
        np.random.shuffle(indices)
        return iter(indices.tolist())

    def __len__(self):
        return self._length


class FilterSampler(Sampler):
    """The indices of the dataset's samples for which fn(sample) is true."""

    def __init__(self, fn, dataset):
        self._fn = fn
        self._dataset = dataset
        self._indices = [i for i, sample in enumerate(dataset) if fn(sample)]

    def __iter__(self):
        return iter(self._indices)

    def __len__(self):
        return len(self._indices)


class IntervalSampler(Sampler):
    """0, interval, 2 * interval, ..., then 1, 1 + interval, ... (rollover)."""

    def __init__(self, length, interval, rollover=True):
        if interval > length:
            raise MXNetError("Interval {} must be smaller than length {}".format(interval, length))
        self._length = length
        self._interval = interval
        self._rollover = rollover

    def __iter__(self):
        for i in range(self._interval if self._rollover else 1):
            for j in range(i, self._length, self._interval):
                yield j

    def __len__(self):
        return self._length if self._rollover else len(range(0, self._length, self._interval))


class BatchSampler(Sampler):
    """Groups a sampler's indices into batches. last_batch: 'keep' (a
    smaller last batch), 'discard', or 'rollover' (the remainder starts the
    next epoch)."""

    def __init__(self, sampler, batch_size, last_batch="keep"):
        self._sampler = sampler
        self._batch_size = batch_size
        self._last_batch = last_batch
        self._prev = []
        if last_batch not in ("keep", "discard", "rollover"):
            raise MXNetError("last_batch must be one of 'keep', 'discard', or 'rollover', but "
                             "got %s" % last_batch)

    def __iter__(self):
        batch, self._prev = self._prev, []
        for i in self._sampler:
            batch.append(i)
            if len(batch) == self._batch_size:
                yield batch
                batch = []
        if batch:
            if self._last_batch == "keep":
                yield batch
            elif self._last_batch == "rollover":
                self._prev = batch

    def __len__(self):
        if self._last_batch == "keep":
            return (len(self._sampler) + self._batch_size - 1) // self._batch_size
        if self._last_batch == "discard":
            return len(self._sampler) // self._batch_size
        return (len(self._prev) + len(self._sampler)) // self._batch_size
