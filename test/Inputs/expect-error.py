#!/usr/bin/env python3
"""Runs a command that must fail cleanly on bad input.

usage: expect-error.py STATUS -- COMMAND...

Passes (exit 0) only if COMMAND exits with exactly STATUS (not a signal, so
no crash or abort) and writes exactly one line to stderr; that line is
printed to stdout for FileCheck.
"""
import subprocess
import sys


def main():
    want = int(sys.argv[1])
    assert sys.argv[2] == "--"
    p = subprocess.run(sys.argv[3:], capture_output=True, text=True)
    lines = p.stderr.splitlines()
    print(p.stderr, end="")
    if p.returncode != want:
        print(f"expect-error: exit status {p.returncode}, expected {want}")
        return 1
    if len(lines) != 1:
        print(f"expect-error: {len(lines)} lines on stderr, expected 1")
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
