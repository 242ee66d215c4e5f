"""mx.recordio: MXNet's RecordIO files (dmlc-core's format, the one im2rec
and ImageRecordIter use), read and written in Python.

A file is a sequence of records, each a 4-byte magic 0xced7230a, a 4-byte
little-endian word (upper 3 bits: a continuation flag, lower 29: the
length) and the data padded to 4 bytes. As dmlc-core's writer does, data
that holds the magic at a 4-byte aligned offset is split there into parts
(flags 1 first, 2 middle, 3 last; 0 a whole record) with the magic left
out, and the reader puts it back, so files interoperate with MXNet's.
MXIndexedRecordIO adds the text index MXNet writes ("key\\tposition" lines).
pack / unpack are MXNet's image-record headers (IRHeader); pack_img /
unpack_img need OpenCV (cv2), as MXNet's do.
"""
import numbers
import os
import struct
from collections import namedtuple

import numpy as np

from .base import MXNetError

_MAGIC = 0xced7230a
_MAGIC_BYTES = struct.pack("<I", _MAGIC)
_LEN_MASK = (1 << 29) - 1


class MXRecordIO:
    """A RecordIO file opened for reading ('r') or writing ('w')."""

    def __init__(self, uri, flag):
        self.uri = os.fspath(uri)
        self.flag = flag
        self.handle = None
        self.is_open = False
        self.open()

    def open(self):
        if self.flag == "w":
            self.handle = open(self.uri, "wb")
            self.writable = True
        elif self.flag == "r":
            try:
                self.handle = open(self.uri, "rb")
            except OSError as e:
                raise MXNetError("recordio: cannot open '%s': %s" % (self.uri, e.strerror))
            self.writable = False
        else:
            raise ValueError("recordio: invalid flag %r (expected 'r' or 'w')" % (self.flag,))
        self.is_open = True

    def __del__(self):
        self.close()

    def __getstate__(self):
        """Pickled without the open file, as MXNet's: pickling closes this
        object (reopening a writer would truncate what it wrote); the
        unpickled copy reopens the file (from the start)."""
        was_open = self.is_open
        self.close()
        d = dict(self.__dict__)
        d["is_open"] = was_open
        d["handle"] = None
        return d

    def __setstate__(self, d):
        self.__dict__ = d
        was_open = d["is_open"]
        self.is_open = False
        self.handle = None
        if was_open:
            self.open()

    def close(self):
        if getattr(self, "is_open", False):
            self.handle.close()
            self.is_open = False
            self.handle = None

    def reset(self):
        """Back to the start of the file (a file opened for writing is
        truncated)."""
        self.close()
        self.open()

    def _check(self, writing):
        if not self.is_open:
            raise MXNetError("recordio: '%s' is closed" % self.uri)
        if writing != self.writable:
            raise MXNetError("recordio: '%s' is open for %s" % (
                self.uri, "writing" if self.writable else "reading"))

    def write(self, buf):
        """Appends one record (bytes)."""
        self._check(True)
        buf = bytes(buf)
        if len(buf) > _LEN_MASK:
            raise MXNetError("recordio: a record holds less than 2^29 bytes, got %d" % len(buf))
        out, start = [], 0
        for i in range(0, len(buf) - len(buf) % 4, 4):
            if buf[i:i + 4] == _MAGIC_BYTES:
                out.append(struct.pack("<II", _MAGIC, ((1 if start == 0 else 2) << 29) | (i - start)))
                out.append(buf[start:i])
                start = i + 4
        rest = len(buf) - start
        out.append(struct.pack("<II", _MAGIC, ((3 if start else 0) << 29) | rest))
        out.append(buf[start:])
        out.append(b"\0" * (-rest % 4))
        self.handle.write(b"".join(out))

    def _part(self):
        head = self.handle.read(8)
        if not head:
            return None, None
        if len(head) < 8:
            raise MXNetError("recordio: '%s' ends inside a record header at byte %d"
                             % (self.uri, self.handle.tell() - len(head)))
        magic, lrec = struct.unpack("<II", head)
        if magic != _MAGIC:
            raise MXNetError("recordio: '%s': bad magic 0x%08x at byte %d (not a RecordIO "
                             "file, or a corrupt one)" % (self.uri, magic, self.handle.tell() - 8))
        n = lrec & _LEN_MASK
        start = self.handle.tell()
        data = self.handle.read(n)
        if len(data) < n:
            raise MXNetError("recordio: '%s' ends inside a record of %d bytes starting at byte %d"
                             % (self.uri, n, start - 8))
        self.handle.read(-n % 4)
        return lrec >> 29, data

    def read(self):
        """The next record (bytes), None at the end of the file."""
        self._check(False)
        flag, data = self._part()
        if flag is None or flag == 0:
            return data
        if flag != 1:
            raise MXNetError("recordio: '%s': a record continues without its start at byte %d"
                             % (self.uri, self.handle.tell()))
        parts = [data]
        while True:
            flag, data = self._part()
            if flag not in (2, 3):
                raise MXNetError("recordio: '%s': a split record is not continued at byte %d"
                                 % (self.uri, self.handle.tell()))
            parts.append(data)
            if flag == 3:
                return _MAGIC_BYTES.join(parts)

    def tell(self):
        """The byte position of the next record."""
        return self.handle.tell()

    def seek(self, pos):
        self._check(False)
        self.handle.seek(pos)


class MXIndexedRecordIO(MXRecordIO):
    """A RecordIO file with MXNet's text index of record positions (one
    "key\\tposition" line per record), for random access by key."""

    def __init__(self, idx_path, uri, flag, key_type=int):
        self.idx_path = os.fspath(idx_path)
        self.idx = {}
        self.keys = []
        self.key_type = key_type
        self.fidx = None
        super().__init__(uri, flag)

    def open(self):
        super().open()
        self.idx, self.keys = {}, []
        if self.flag == "w":
            self.fidx = open(self.idx_path, "w")
        else:
            self.fidx = open(self.idx_path, "r")
            for line in self.fidx:
                fields = line.strip().split("\t")
                if len(fields) < 2:
                    continue
                key = self.key_type(fields[0])
                self.idx[key] = int(fields[1])
                self.keys.append(key)

    def close(self):
        if getattr(self, "is_open", False) and self.fidx is not None:
            self.fidx.close()
            self.fidx = None
        super().close()

    def __getstate__(self):
        d = super().__getstate__()
        d["fidx"] = None
        return d

    def seek(self, idx):
        """Positions the reader at the record of key `idx`."""
        if idx not in self.idx:
            raise KeyError("recordio: no record with key %r in '%s'" % (idx, self.idx_path))
        super().seek(self.idx[idx])

    def read_idx(self, idx):
        """The record of key `idx`."""
        self.seek(idx)
        return self.read()

    def write_idx(self, idx, buf):
        """Appends a record under key `idx`."""
        key = self.key_type(idx)
        pos = self.tell()
        self.write(buf)
        self.fidx.write("%s\t%d\n" % (str(key), pos))
        self.idx[key] = pos
        self.keys.append(key)


IRHeader = namedtuple("HEADER", ["flag", "label", "id", "id2"])
"""An image record's header: flag (0, or the number of float labels), label
(a float, or the labels), id, id2."""

_IR_FORMAT = "IfQQ"
_IR_SIZE = struct.calcsize(_IR_FORMAT)


def pack(header, s):
    """An image record: `header` (IRHeader or a 4-tuple) then the bytes `s`.
    A label array is stored after the header (flag = its size)."""
    header = IRHeader(*header)
    if isinstance(header.label, numbers.Number):
        header = header._replace(flag=0)
    else:
        label = np.asarray(header.label, dtype=np.float32)
        header = header._replace(flag=label.size, label=0)
        s = label.tobytes() + s
    return struct.pack(_IR_FORMAT, *header) + s


def unpack(s):
    """(IRHeader, the payload bytes) of an image record."""
    if len(s) < _IR_SIZE:
        raise MXNetError("recordio.unpack: a record of %d bytes has no %d-byte header"
                         % (len(s), _IR_SIZE))
    header = IRHeader(*struct.unpack(_IR_FORMAT, s[:_IR_SIZE]))
    s = s[_IR_SIZE:]
    if header.flag > 0:
        header = header._replace(label=np.frombuffer(s, np.float32, header.flag))
        s = s[header.flag * 4:]
    return header, s


def _cv2():
    try:
        import cv2
    except ImportError:
        raise ImportError("mx.recordio.pack_img / unpack_img encode and decode images with "
                          "OpenCV (cv2), which is not installed")
    return cv2


def unpack_img(s, iscolor=-1):
    """(IRHeader, the decoded image) of an image record (needs cv2)."""
    header, s = unpack(s)
    img = _cv2().imdecode(np.frombuffer(s, dtype=np.uint8), iscolor)
    return header, img


def pack_img(header, img, quality=95, img_fmt=".jpg"):
    """An image record of `img` encoded as JPEG / PNG (needs cv2)."""
    cv2 = _cv2()
    fmt = img_fmt.upper()
    if fmt in (".JPG", ".JPEG"):
        params = [cv2.IMWRITE_JPEG_QUALITY, quality]
    elif fmt == ".PNG":
        params = [cv2.IMWRITE_PNG_COMPRESSION, quality]
    else:
        raise ValueError("pack_img: img_fmt must be .jpg or .png, got %r" % img_fmt)
    ok, buf = cv2.imencode(img_fmt, img, params)
    if not ok:
        raise MXNetError("pack_img: encoding the image failed")
    return pack(header, buf.tobytes())
