#!/usr/bin/env python3
"""Checks the table of `mxc memory-report` (read on stdin).

usage: check-memory-order.py [--min-saving F]

Fails (exit 1, one line on stderr) unless none >= inplace >= both,
none >= coshare >= both >= lower-bound > 0, and both saves at least
F x (default 1.2) against none, i.e. co-sharing really happened.
"""
import re
import sys


def main():
    min_saving = 1.2
    if len(sys.argv) == 3 and sys.argv[1] == "--min-saving":
        min_saving = float(sys.argv[2])
    rows = {}
    for line in sys.stdin:
        m = re.match(r"^\s+(none|inplace|coshare|both|lower-bound)\s+([0-9.]+) MB", line)
        if m:
            rows[m.group(1)] = float(m.group(2))
    want = ["none", "inplace", "coshare", "both", "lower-bound"]
    missing = [w for w in want if w not in rows]
    if missing:
        sys.exit("missing rows: %s (got %s)" % (missing, rows))
    n, i, c, b, lb = (rows[w] for w in want)
    checks = [
        (n >= i, "none >= inplace"),
        (n >= c, "none >= coshare"),
        (i >= b, "inplace >= both"),
        (c >= b, "coshare >= both"),
        (b >= lb, "both >= lower-bound"),
        (lb > 0, "lower-bound > 0"),
        (n >= min_saving * b, "none >= %g x both" % min_saving),
    ]
    failed = [what for ok, what in checks if not ok]
    if failed:
        sys.exit("memory-report order violated: %s in %s" % (", ".join(failed), rows))
    print("order ok:", " >= ".join("%s %.2f" % (w, rows[w]) for w in want))


if __name__ == "__main__":
    main()
