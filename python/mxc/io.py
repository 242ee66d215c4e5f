"""mx.io: DataDesc, DataBatch, DataIter, NDArrayIter, CSVIter, MNISTIter,
ResizeIter and PrefetchingIter (MXNet 1.x).

NDArrayIter batches arrays held in memory along their first axis, with
shuffling (numpy's global generator, as MXNet: np.random.seed makes it
reproducible) and MXNet's three ways to end an epoch whose size is not a
multiple of the batch size (last_batch_handle): 'pad' (the last batch is
completed with samples from the start, and `pad` says how many),
'discard' (the incomplete batch is dropped) and 'roll_over' (its samples
open the next epoch's first batch).
"""
from collections import OrderedDict, namedtuple

import numpy as np

from .base import MXNetError
from .ndarray import NDArray


class DataDesc(namedtuple("DataDesc", ["name", "shape"])):
    """A named input with its shape, dtype and layout."""

    def __new__(cls, name, shape, dtype=np.float32, layout="NCHW"):
        ret = super().__new__(cls, name, tuple(shape))
        ret.dtype = dtype
        ret.layout = layout
        return ret

    def __repr__(self):
        return "DataDesc[%s,%s,%s,%s]" % (self.name, self.shape, self.dtype, self.layout)

    @staticmethod
    def get_batch_axis(layout):
        if layout is None:
            return 0
        return layout.find("N")

    @staticmethod
    def get_list(shapes, types):
        if types is not None:
            type_dict = dict(types)
            return [DataDesc(x[0], x[1], type_dict[x[0]]) for x in shapes]
        return [DataDesc(x[0], x[1]) for x in shapes]


class DataBatch:
    """One batch: lists of NDArrays `data` and `label`, `pad` (samples at the
    end that only fill the batch), `index`, and optionally the descriptions."""

    def __init__(self, data, label=None, pad=None, index=None, bucket_key=None,
                 provide_data=None, provide_label=None):
        if data is not None and not isinstance(data, (list, tuple)):
            raise MXNetError("Data must be list of NDArrays")
        if label is not None and not isinstance(label, (list, tuple)):
            raise MXNetError("Label must be list of NDArrays")
        self.data = data
        self.label = label
        self.pad = pad
        self.index = index
        self.bucket_key = bucket_key
        self.provide_data = provide_data
        self.provide_label = provide_label

    def __str__(self):
        data_shapes = [d.shape for d in self.data]
        label_shapes = [l.shape for l in self.label] if self.label else None
        return "{}: data shapes: {} label shapes: {}".format(
            self.__class__.__name__, data_shapes, label_shapes)


class DataIter:
    """Base class of the iterators: iteration yields DataBatch objects until
    the epoch ends; reset() starts the next epoch."""

    def __init__(self, batch_size=0):
        self.batch_size = batch_size

    def __iter__(self):
        return self

    def reset(self):
        pass

    def next(self):
        if self.iter_next():
            return DataBatch(data=self.getdata(), label=self.getlabel(),
                             pad=self.getpad(), index=self.getindex())
        raise StopIteration

    def __next__(self):
        return self.next()

    def iter_next(self):
        pass

    def getdata(self):
        pass

    def getlabel(self):
        pass

    def getindex(self):
        return None

    def getpad(self):
        pass


def _init_data(data, allow_empty, default_name):
    """data -> [(name, NDArray)] as MXNet's NDArrayIter names them."""
    if data is None:
        data = []
    if isinstance(data, (np.ndarray, NDArray)):
        data = [data]
    if isinstance(data, list):
        if not allow_empty and not data:
            raise MXNetError("NDArrayIter: no data")
        if len(data) == 1:
            data = OrderedDict([(default_name, data[0])])
        else:
            data = OrderedDict([("_%d_%s" % (i, default_name), d) for i, d in enumerate(data)])
    if not isinstance(data, dict):
        raise MXNetError("Input must be NDArray, numpy.ndarray, a list of them or dict with "
                         "them as values")
    out = []
    for k, v in data.items():
        if isinstance(v, NDArray):
            arr = v._host_data()
        else:
            try:
                # as MXNet's array(v): other sources become float32 NDArrays
                # (an h5py dataset keeps its type)
                h5 = type(v).__module__.startswith("h5py")
                arr = np.asarray(v) if h5 else np.asarray(v, dtype=np.float32)
            except Exception:
                raise MXNetError("Invalid type '%s' for %s, should be NDArray or numpy.ndarray"
                                 % (type(v), k))
        out.append((k, arr))
    return out


class NDArrayIter(DataIter):
    """Iterates over arrays (NDArray, numpy, a list or a dict of them) in
    batches of batch_size along the first axis."""

    def __init__(self, data, label=None, batch_size=1, shuffle=False,
                 last_batch_handle="pad", data_name="data", label_name="softmax_label"):
        super().__init__(batch_size)
        if last_batch_handle not in ("pad", "discard", "roll_over"):
            raise MXNetError("last_batch_handle must be 'pad', 'discard' or 'roll_over', got '%s'"
                             % last_batch_handle)
        self.data = _init_data(data, allow_empty=False, default_name=data_name)
        self.label = _init_data(label, allow_empty=True, default_name=label_name)
        # As MXNet's: the first data array sets the sample count; a longer
        # array is read for its first n samples, a shorter one is an error.
        n = self.data[0][1].shape[0]
        for k, v in self.data + self.label:
            if v.shape[0] < n:
                raise MXNetError("NDArrayIter: '%s' has %d samples, '%s' %d"
                                 % (k, v.shape[0], self.data[0][0], n))
        if batch_size <= 0:
            raise MXNetError("NDArrayIter: batch_size must be positive")
        self.shuffle = shuffle
        self.last_batch_handle = last_batch_handle
        self.num_source = n
        self.idx = np.arange(n)
        self.num_data = n
        if last_batch_handle == "discard":
            self.num_data = n - n % batch_size
            if self.num_data == 0:
                raise MXNetError("NDArrayIter: batch_size %d is larger than the %d samples with "
                                 "last_batch_handle='discard'" % (batch_size, n))
        self._cache = None  # roll_over: the previous epoch's leftover (data, label)
        self.cursor = -batch_size
        if shuffle:
            np.random.shuffle(self.idx)

    @property
    def provide_data(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.data]

    @property
    def provide_label(self):
        return [DataDesc(k, (self.batch_size,) + v.shape[1:], v.dtype) for k, v in self.label]

    def __len__(self):
        """Batches per epoch (at most; roll_over's may be one fewer)."""
        if self.last_batch_handle == "discard":
            return self.num_data // self.batch_size
        if self.last_batch_handle == "roll_over":
            return self.num_data // self.batch_size
        return -(-self.num_data // self.batch_size)

    def hard_reset(self):
        """Back to the first epoch (drops roll_over's leftover)."""
        if self.shuffle:
            np.random.shuffle(self.idx)
        self.cursor = -self.batch_size
        self._cache = None

    def reset(self):
        if self.shuffle:
            np.random.shuffle(self.idx)
        if self.last_batch_handle == "roll_over" and \
                self.num_data - self.batch_size < self.cursor < self.num_data:
            # the leftover of this epoch opens the next one
            left = self.num_data - self.cursor
            self.cursor = -left - self.batch_size
        else:
            self.cursor = -self.batch_size
            self._cache = None

    def iter_next(self):
        self.cursor += self.batch_size
        return self.cursor < self.num_data

    def next(self):
        if not self.iter_next():
            raise StopIteration
        if self.last_batch_handle == "roll_over" and \
                self.cursor + self.batch_size > self.num_data:
            # keep the incomplete last batch for the next epoch
            self._cache = ([v[self.idx[self.cursor:]] for _, v in self.data],
                           [v[self.idx[self.cursor:]] for _, v in self.label])
            raise StopIteration
        data = self.getdata()
        label = self.getlabel()
        return DataBatch(data=data, label=label, pad=self.getpad(), index=None,
                         provide_data=self.provide_data, provide_label=self.provide_label)

    def _batchify(self, sources, which):
        if self.cursor >= self.num_data:
            raise MXNetError("NDArrayIter: DataIter needs reset.")
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            if self._cache is None:
                raise MXNetError("NDArrayIter: roll_over without a leftover batch")
            cached = self._cache[which]
            end = self.cursor + self.batch_size
            return [NDArray(np.concatenate([c, v[self.idx[:end]]], axis=0))
                    for c, (_, v) in zip(cached, sources)]
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            pad = self.batch_size - self.num_data + self.cursor
            sel = np.concatenate([self.idx[self.cursor:], self.idx[:pad]])
            # (more padding than samples: wrap around as often as needed)
            if sel.shape[0] < self.batch_size:
                sel = np.resize(np.concatenate([self.idx[self.cursor:], self.idx]),
                                self.batch_size)
            return [NDArray(v[sel]) for _, v in sources]
        end = min(self.cursor + self.batch_size, self.num_data)
        return [NDArray(v[self.idx[self.cursor:end]]) for _, v in sources]

    def getdata(self):
        return self._batchify(self.data, 0)

    def getlabel(self):
        return self._batchify(self.label, 1)

    def getpad(self):
        if self.last_batch_handle == "pad" and self.cursor + self.batch_size > self.num_data:
            return self.cursor + self.batch_size - self.num_data
        if self.last_batch_handle == "roll_over" and -self.batch_size < self.cursor < 0:
            return -self.cursor
        return 0

    def getindex(self):
        return None


class CSVIter(DataIter):
    """MXNet 1.9.1's CSVIter over local files: each row of data_csv is one
    sample reshaped to data_shape; label_csv's rows are the labels (zeros
    without it). Batches are (batch_size,) + data_shape and (batch_size,)
    labels ((batch_size,) + label_shape when label_csv has label_shape
    (2,) or more), both of `dtype` (float32, int32 or int64).

    An epoch's incomplete last batch: round_batch=True (default) fills it
    from the start of the data and the next epoch starts after those
    samples; round_batch=False leaves the previous batch's samples in the
    unused rows. Either way `pad` says how many rows only fill the batch, as
    MXNet. The files are read at construction (prefetch_buffer is ignored).
    """

    def __init__(self, data_csv, data_shape, label_csv=None, label_shape=(1,), batch_size=1,
                 round_batch=True, prefetch_buffer=4, ctx="cpu", dtype=None,
                 data_name="data", label_name="softmax_label", **kwargs):
        super().__init__(batch_size)
        dt = np.dtype(dtype or "float32")
        if dt not in (np.float32, np.int32, np.int64):
            raise MXNetError("CSVIter: dtype must be float32, int32 or int64, got %s" % dt)
        self._dtype = dt
        data_shape = tuple(int(d) for d in data_shape)
        self._data = self._read(data_csv, data_shape, "data_csv")
        if label_csv is not None and label_csv != "NULL":
            label_shape = tuple(int(d) for d in label_shape)
            self._label = self._read(label_csv, label_shape, "label_csv")
            if self._label.shape[0] != self._data.shape[0]:
                raise MXNetError("CSVIter: %s has %d rows, %s has %d" % (
                    label_csv, self._label.shape[0], data_csv, self._data.shape[0]))
            if label_shape == (1,):
                self._label = self._label.reshape(-1)
        else:
            self._label = np.zeros((self._data.shape[0],), dtype=dt)
        if batch_size < 1:
            raise MXNetError("CSVIter: batch_size must be positive")
        self.round_batch = bool(round_batch)
        self.data_name, self.label_name = data_name, label_name
        self._batch_data = np.zeros((batch_size,) + data_shape, dtype=dt)
        self._batch_label = np.zeros((batch_size,) + self._label.shape[1:], dtype=dt)
        self._batch_index = np.zeros((batch_size,), dtype=np.uint64)
        self._cursor = 0
        self._overflow = 0
        self._pad = 0

    def _read(self, path, shape, what):
        size = int(np.prod(shape))
        rows = []
        with open(path) as f:
            for lineno, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                values = line.split(",")
                if len(values) != size:
                    raise MXNetError("CSVIter: %s line %d has %d values, %s %s needs %d" % (
                        path, lineno, len(values), what.split("_")[0] + "_shape", shape, size))
                rows.append(values)
        if not rows:
            raise MXNetError("CSVIter: %s has no rows" % path)
        try:
            arr = np.array(rows, dtype=self._dtype)
        except ValueError:
            arr = np.array(rows, dtype=np.float64).astype(self._dtype)
        return arr.reshape((len(rows),) + shape)

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, self._batch_data.shape, self._dtype.type)]

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, self._batch_label.shape, self._dtype.type)]

    def reset(self):
        self._cursor = self._overflow if self.round_batch else 0
        self._overflow = 0

    def iter_next(self):
        n = self._data.shape[0]
        if self._cursor >= n:
            return False
        take = min(self.batch_size, n - self._cursor)
        rows = np.arange(self._cursor, self._cursor + take)
        self._batch_data[:take] = self._data[rows]
        self._batch_label[:take] = self._label[rows]
        self._batch_index[:take] = rows
        self._pad = self.batch_size - take
        if self._pad and self.round_batch:
            extra = np.arange(self._pad) % n
            self._batch_data[take:] = self._data[extra]
            self._batch_label[take:] = self._label[extra]
            self._batch_index[take:] = extra
            self._overflow = self._pad
        self._cursor += take
        return True

    def next(self):
        if self.iter_next():
            return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=self.getpad(),
                             index=self.getindex(), provide_data=self.provide_data,
                             provide_label=self.provide_label)
        raise StopIteration

    def getdata(self):
        from .ndarray import array
        return array(self._batch_data, dtype=self._dtype)

    def getlabel(self):
        from .ndarray import array
        return array(self._batch_label, dtype=self._dtype)

    def getindex(self):
        return self._batch_index.copy()

    def getpad(self):
        return self._pad


# ResizeIter and PrefetchingIter: ported from Apache MXNet 1.9.1's
# python/mxnet/io/io.py (Apache License 2.0), the same logic.

class _BatchHolder(DataIter):
    """An iterator whose getdata/getlabel/getindex/getpad read the batch it
    holds in `current_batch` (ResizeIter, PrefetchingIter)."""

    def getdata(self):
        return self.current_batch.data

    def getlabel(self):
        return self.current_batch.label

    def getindex(self):
        return self.current_batch.index

    def getpad(self):
        return self.current_batch.pad


class ResizeIter(_BatchHolder):
    """`size` batches per epoch from `data_iter`, restarting it when it ends
    (reset_internal: reset() also resets it), as MXNet's ResizeIter."""

    def __init__(self, data_iter, size, reset_internal=True):
        super().__init__()
        self.data_iter = data_iter
        self.size = size
        self.reset_internal = reset_internal
        self.cur = 0
        self.current_batch = None
        self.provide_data = data_iter.provide_data
        self.provide_label = data_iter.provide_label
        self.batch_size = data_iter.batch_size
        if hasattr(data_iter, "default_bucket_key"):
            self.default_bucket_key = data_iter.default_bucket_key

    def reset(self):
        self.cur = 0
        if self.reset_internal:
            self.data_iter.reset()

    def iter_next(self):
        if self.cur == self.size:
            return False
        try:
            self.current_batch = self.data_iter.next()
        except StopIteration:
            self.data_iter.reset()
            self.current_batch = self.data_iter.next()
        self.cur += 1
        return True


class PrefetchingIter(_BatchHolder):
    """Prefetches the next batch of each of `iters` on a thread of its own
    and joins them into one batch (data and labels concatenated as lists);
    rename_data / rename_label map each iterator's names (a list of dicts),
    as MXNet's PrefetchingIter."""

    def __init__(self, iters, rename_data=None, rename_label=None):
        super().__init__()
        import threading
        if not isinstance(iters, list):
            iters = [iters]
        self.n_iter = len(iters)
        if self.n_iter == 0:
            raise MXNetError("PrefetchingIter: no iterators")
        self.iters = iters
        self.rename_data = rename_data
        self.rename_label = rename_label
        self.batch_size = self.provide_data[0][1][0]
        self.data_ready = [threading.Event() for _ in range(self.n_iter)]
        self.data_taken = [threading.Event() for _ in range(self.n_iter)]
        for e in self.data_taken:
            e.set()
        self.started = True
        self.current_batch = [None for _ in range(self.n_iter)]
        self.next_batch = [None for _ in range(self.n_iter)]

        def prefetch_func(self, i):
            while True:
                self.data_taken[i].wait()
                if not self.started:
                    break
                try:
                    self.next_batch[i] = self.iters[i].next()
                except StopIteration:
                    self.next_batch[i] = None
                self.data_taken[i].clear()
                self.data_ready[i].set()
        self.prefetch_threads = [threading.Thread(target=prefetch_func, args=[self, i], daemon=True)
                                 for i in range(self.n_iter)]
        for thread in self.prefetch_threads:
            thread.start()

    def __del__(self):
        self.started = False
        for e in getattr(self, "data_taken", ()):
            e.set()
        for thread in getattr(self, "prefetch_threads", ()):
            thread.join()

    def _renamed(self, which, renames):
        descs = [getattr(i, which) for i in self.iters]
        if renames is None:
            return sum(descs, [])
        return sum([[DataDesc(r[x.name], x.shape, x.dtype) if isinstance(x, DataDesc)
                     else DataDesc(*x) for x in d] for r, d in zip(renames, descs)], [])

    @property
    def provide_data(self):
        return self._renamed("provide_data", self.rename_data)

    @property
    def provide_label(self):
        return self._renamed("provide_label", self.rename_label)

    def reset(self):
        for e in self.data_ready:
            e.wait()
        for i in self.iters:
            i.reset()
        for e in self.data_ready:
            e.clear()
        for e in self.data_taken:
            e.set()

    def iter_next(self):
        for e in self.data_ready:
            e.wait()
        if self.next_batch[0] is None:
            for b in self.next_batch:
                if b is not None:
                    raise MXNetError("PrefetchingIter: number of entries mismatches between "
                                     "iterators")
            return False
        for b in self.next_batch:
            if b.pad != self.next_batch[0].pad:
                raise MXNetError("PrefetchingIter: number of entries mismatches between "
                                 "iterators")
        self.current_batch = DataBatch(sum([b.data for b in self.next_batch], []),
                                       sum([b.label for b in self.next_batch], []),
                                       self.next_batch[0].pad, self.next_batch[0].index,
                                       provide_data=self.provide_data,
                                       provide_label=self.provide_label)
        for e in self.data_ready:
            e.clear()
        for e in self.data_taken:
            e.set()
        return True

    def next(self):
        if self.iter_next():
            return self.current_batch
        raise StopIteration


def _open_idx(path):
    import gzip
    with open(path, "rb") as f:
        head = f.read(2)
    return gzip.open(path, "rb") if head == b"\x1f\x8b" else open(path, "rb")


class MNISTIter(DataIter):
    """MXNet 1.9.1's MNISTIter over local idx files (image: idx3 ubyte,
    label: idx1 ubyte; gzip-compressed files are read too): images as
    float32 pixel / 256 in (batch_size, 1, rows, cols) or, with flat=True,
    (batch_size, rows * cols); labels (batch_size,) float32. Only full
    batches (the remainder of an epoch is dropped), pad 0, as MXNet.
    num_parts / part_index take MXNet's contiguous part of the samples.
    shuffle (default True, once at construction, as MXNet) uses numpy's
    RandomState(seed): the same seed gives another order than MXNet's."""

    def __init__(self, image="./train-images-idx3-ubyte", label="./train-labels-idx1-ubyte",
                 batch_size=128, shuffle=True, flat=False, seed=0, silent=False, num_parts=1,
                 part_index=0, prefetch_buffer=4, data_name="data", label_name="softmax_label",
                 **kwargs):
        super().__init__(batch_size)
        import struct
        if batch_size < 1:
            raise MXNetError("MNISTIter: batch_size must be positive")
        if not 0 <= part_index < num_parts:
            raise MXNetError("MNISTIter: part_index must be in [0, num_parts)")

        def part(count):
            return (int(float(count) / num_parts * part_index),
                    int(float(count) / num_parts * (part_index + 1)))
        with _open_idx(image) as f:
            _, count, rows, cols = struct.unpack(">iiii", f.read(16))
            start, end = part(count)
            f.read(start * rows * cols)
            raw = f.read((end - start) * rows * cols)
        if len(raw) != (end - start) * rows * cols:
            raise MXNetError("MNISTIter: %s is shorter than its header says" % image)
        images = np.frombuffer(raw, dtype=np.uint8).reshape(end - start, rows, cols)
        with _open_idx(label) as f:
            _, lcount = struct.unpack(">ii", f.read(8))
            lstart, lend = part(lcount)
            f.read(lstart)
            labels = np.frombuffer(f.read(lend - lstart), dtype=np.uint8)
        if labels.shape[0] != images.shape[0]:
            raise MXNetError("MNISTIter: %d images in %s, %d labels in %s"
                             % (images.shape[0], image, labels.shape[0], label))
        if shuffle:
            order = np.random.RandomState(seed).permutation(images.shape[0])
            images, labels = images[order], labels[order]
        self._images = images.astype(np.float32) * np.float32(1.0 / 256.0)
        self._labels = labels.astype(np.float32)
        self._shape = (rows * cols,) if flat else (1, rows, cols)
        self.data_name, self.label_name = data_name, label_name
        self._loc = 0
        self._cur = None
        if not silent:
            import logging
            logging.info("MNISTIter: load %d images, shuffle=%d, shape=%s", images.shape[0],
                         int(bool(shuffle)), (batch_size,) + self._shape)

    @property
    def provide_data(self):
        return [DataDesc(self.data_name, (self.batch_size,) + self._shape, np.float32)]

    @property
    def provide_label(self):
        return [DataDesc(self.label_name, (self.batch_size,), np.float32)]

    def reset(self):
        self._loc = 0

    def iter_next(self):
        if self._loc + self.batch_size > self._images.shape[0]:
            return False
        self._cur = self._loc
        self._loc += self.batch_size
        return True

    def next(self):
        if self.iter_next():
            return DataBatch(data=[self.getdata()], label=[self.getlabel()], pad=0,
                             index=self.getindex(), provide_data=self.provide_data,
                             provide_label=self.provide_label)
        raise StopIteration

    def getdata(self):
        from .ndarray import array
        rows = self._images[self._cur:self._cur + self.batch_size]
        return array(rows.reshape((self.batch_size,) + self._shape))

    def getlabel(self):
        from .ndarray import array
        return array(self._labels[self._cur:self._cur + self.batch_size])

    def getindex(self):
        return np.zeros((self.batch_size,), dtype=np.uint64)   # MXNet's MNISTIter gives zeros

    def getpad(self):
        return 0
