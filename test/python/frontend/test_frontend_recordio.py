"""mx.recordio: dmlc-core's RecordIO format (checked byte for byte against
MXNet 1.9.1's writer during development, both ways), the index, the image
record headers, and errors that name the file and byte offset."""
import struct

import numpy as np
import pytest

import mxc as mx

MAGIC = struct.pack("<I", 0xced7230a)
RECORDS = [b"", b"a", b"abcd", MAGIC, b"xx" + MAGIC + b"yy", b"abcd" + MAGIC + MAGIC + b"efg",
           MAGIC * 3 + b"z", bytes(range(256)) * 3]


def test_round_trip(tmp_path):
    f = str(tmp_path / "x.rec")
    w = mx.recordio.MXRecordIO(f, "w")
    for r in RECORDS:
        w.write(r)
    w.close()
    r = mx.recordio.MXRecordIO(f, "r")
    assert [r.read() for _ in RECORDS] == RECORDS
    assert r.read() is None
    r.reset()
    assert r.read() == RECORDS[0]


def test_layout(tmp_path):
    # a whole record: magic, length, data, padding; the magic at an aligned
    # offset splits it into a first (flag 1) and a last (flag 3) part
    f = str(tmp_path / "x.rec")
    w = mx.recordio.MXRecordIO(f, "w")
    w.write(b"abcde")
    w.write(b"wxyz" + MAGIC + b"12")
    w.close()
    want = (MAGIC + struct.pack("<I", 5) + b"abcde\0\0\0" +
            MAGIC + struct.pack("<I", (1 << 29) | 4) + b"wxyz" +
            MAGIC + struct.pack("<I", (3 << 29) | 2) + b"12\0\0")
    assert open(f, "rb").read() == want


def test_indexed(tmp_path):
    idx, rec = str(tmp_path / "x.idx"), str(tmp_path / "x.rec")
    w = mx.recordio.MXIndexedRecordIO(idx, rec, "w")
    for i, r in enumerate(RECORDS):
        w.write_idx(i, r)
    w.close()
    r = mx.recordio.MXIndexedRecordIO(idx, rec, "r")
    assert r.keys == list(range(len(RECORDS)))
    for i in reversed(r.keys):
        assert r.read_idx(i) == RECORDS[i]
    with pytest.raises(KeyError):
        r.read_idx(99)


def test_pack_unpack():
    label = np.array([1.5, -2.0, 3.25], np.float32)
    s = mx.recordio.pack((0, label, 7, 9), b"payload")
    assert len(s) == 24 + 12 + 7
    header, body = mx.recordio.unpack(s)
    assert header.flag == 3 and header.id == 7 and header.id2 == 9 and body == b"payload"
    np.testing.assert_array_equal(header.label, label)
    header, body = mx.recordio.unpack(mx.recordio.pack((5, 2.5, 1, 2), b"q"))
    assert header == (0, 2.5, 1, 2) and body == b"q"


def test_errors(tmp_path):
    f = str(tmp_path / "bad.rec")
    open(f, "wb").write(MAGIC + struct.pack("<I", 4) + b"abcd" + b"\1\2\3\4" + bytes(4))
    r = mx.recordio.MXRecordIO(f, "r")
    assert r.read() == b"abcd"
    with pytest.raises(mx.MXNetError, match="bad magic 0x04030201 at byte 12"):
        r.read()
    open(f, "wb").write(MAGIC + struct.pack("<I", 40) + b"abcd")
    with pytest.raises(mx.MXNetError, match="ends inside a record of 40 bytes"):
        mx.recordio.MXRecordIO(f, "r").read()
    with pytest.raises(mx.MXNetError, match="cannot open"):
        mx.recordio.MXRecordIO(str(tmp_path / "missing.rec"), "r")
    w = mx.recordio.MXRecordIO(str(tmp_path / "w.rec"), "w")
    with pytest.raises(mx.MXNetError, match="open for writing"):
        w.read()


def test_pickling_keeps_what_was_written(tmp_path):
    import pickle
    f = str(tmp_path / "p.rec")
    w = mx.recordio.MXRecordIO(f, "w")
    w.write(b"first")
    state = pickle.dumps(w)        # closes w (MXNet's); nothing is truncated
    assert not w.is_open
    r = mx.recordio.MXRecordIO(f, "r")
    assert r.read() == b"first"
    r2 = pickle.loads(pickle.dumps(r))
    assert r2.read() == b"first"
    assert pickle.loads(state).flag == "w"
