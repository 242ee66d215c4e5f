"""Summary of ab.sh's lines: per network and batch, the median and min of
each side's per-round medians, and the paired B/A ratio (median, min-max)."""
import collections
import statistics
import sys

med = collections.defaultdict(list)
low = collections.defaultdict(list)
for line in open(sys.argv[1]):
    p = line.split()
    if len(p) != 6:
        continue
    med[tuple(p[1:4])].append(float(p[4]))
    low[tuple(p[1:4])].append(float(p[5]))
print("| net | batch | A median (ms) | B median (ms) | paired B/A: median (min-max) | A min | B min |")
print("|---|---|---|---|---|---|---|")
for net, batch in sorted({k[:2] for k in med}):
    a, b = med[(net, batch, "A")], med[(net, batch, "B")]
    ratios = [y / x for x, y in zip(a, b)]
    print("| %s | %s | %.2f | %.2f | %.3f (%.3f-%.3f) | %.2f | %.2f |" % (
        net, batch, statistics.median(a), statistics.median(b), statistics.median(ratios),
        min(ratios), max(ratios), min(low[(net, batch, "A")]), min(low[(net, batch, "B")])))
