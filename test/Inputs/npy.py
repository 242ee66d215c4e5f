#!/usr/bin/env python3
"""Writes and prints .npy files for lit tests, with the standard library only.

usage: npy.py write FILE DESCR SHAPE VALUES   e.g. write a.npy '<f4' 2,3 1,2,3,4,5,6
       npy.py dump FILE                       prints "descr shape: v0 v1 ..." (%.6g)
"""
import struct
import sys

FORMATS = {"<f4": "f", "<f8": "d", "<i4": "i", "<i8": "q", "|u1": "B", "|i1": "b", "|b1": "?"}


def write(path, descr, shape, values):
    shape = tuple(int(d) for d in shape.split(",") if d)
    vals = [float(v) if descr.startswith("<f") else int(v) for v in values.split(",") if v]
    header = "{'descr': '%s', 'fortran_order': False, 'shape': %s, }" % (
        descr, "(%s)" % (", ".join(map(str, shape)) + ("," if len(shape) == 1 else "")))
    pad = 64 - (10 + len(header) + 1) % 64
    header += " " * (pad % 64) + "\n"
    with open(path, "wb") as f:
        f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(header)) + header.encode())
        f.write(struct.pack("<%d%s" % (len(vals), FORMATS[descr]), *vals))


def dump(path):
    data = open(path, "rb").read()
    assert data[:6] == b"\x93NUMPY", "bad magic"
    n = struct.unpack("<H", data[8:10])[0] if data[6] == 1 else struct.unpack("<I", data[8:12])[0]
    start = 10 if data[6] == 1 else 12
    header = eval(data[start:start + n].decode())  # a dict literal written by mxc
    fmt = FORMATS[header["descr"]]
    body = data[start + n:]
    count = len(body) // struct.calcsize(fmt)
    vals = struct.unpack("<%d%s" % (count, fmt), body)
    print("%s %s: %s" % (header["descr"], header["shape"], " ".join("%.6g" % v for v in vals)))


if __name__ == "__main__":
    if sys.argv[1] == "write":
        write(*sys.argv[2:6])
    else:
        dump(sys.argv[2])
