#!/usr/bin/env python3
"""Writes small MXNet .params files (V2 records, as MXNet 1.x writes them) for
the CLI tests, from the byte layout in docs/formats.md -- and broken variants.

usage: make_params.py KIND OUT NAME=d0,d1,... [NAME=...]
KIND: good | truncated | bad-magic | bad-record-magic | past-end
Arrays are float32 filled with 0.01 * index.
"""
import struct
import sys

LIST_MAGIC = 0x112
V2_MAGIC = 0xF993FAC9


def record(shape):
    out = struct.pack("<I", V2_MAGIC)
    out += struct.pack("<i", 0)                  # storage type: default (dense)
    out += struct.pack("<I", len(shape))         # ndim
    out += b"".join(struct.pack("<q", d) for d in shape)
    out += struct.pack("<ii", 1, 0)              # context: cpu(0)
    out += struct.pack("<i", 0)                  # type flag: float32
    n = 1
    for d in shape:
        n *= d
    out += b"".join(struct.pack("<f", 0.01 * i) for i in range(n))
    return out


def main():
    kind, path = sys.argv[1], sys.argv[2]
    arrays = []
    for spec in sys.argv[3:]:
        name, dims = spec.split("=")
        arrays.append((name, [int(d) for d in dims.split(",")]))
    data = struct.pack("<QQ", LIST_MAGIC, 0)
    data += struct.pack("<Q", len(arrays))
    records = [record(shape) for _, shape in arrays]
    if kind == "bad-record-magic":
        records[0] = struct.pack("<I", 0xDEADBEEF) + records[0][4:]
    if kind == "past-end":
        # The first record claims a huge first dimension: its data runs past
        # the end of the file.
        first = arrays[0][1]
        records[0] = record(first)[:12] + struct.pack("<q", 1 << 40) + record(first)[20:]
    data += b"".join(records)
    data += struct.pack("<Q", len(arrays))
    for name, _ in arrays:
        b = name.encode()
        data += struct.pack("<Q", len(b)) + b
    if kind == "truncated":
        data = data[: len(data) // 2]
    if kind == "bad-magic":
        data = struct.pack("<Q", 0x113) + data[8:]
    with open(path, "wb") as f:
        f.write(data)


if __name__ == "__main__":
    main()
