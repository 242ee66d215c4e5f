"""Compares a GPU run's outputs with the CPU backend's (scripts/gpu-check.sh).

    python3 test/gpu/compare.py REFDIR GOTDIR NAME RTOL ATOL [scaled] [kinks]

REFDIR holds, for each output the check compares, <output>.npy (the whole
reference) or <output>.sample.npz (arrays too big to carry: `idx`, the flat
indices of a fixed sample, `values` there, and `sum` / `l2` / `amax` of the
whole array in float64). GOTDIR holds the run's <output>.npy. An output
passes when |got - ref| <= ATOL + RTOL * |ref| element by element
(np.allclose), or, with `scaled` (gradients, whose small entries are sums that
cancel), when max |got - ref| <= RTOL * max |ref| + ATOL; a sampled output
also needs its sum within n times that bound and its L2 norm within sqrt(n)
times it (what n elements each within the bound allow: a corrupted region
the sample misses moves them further). With `kinks` (a deep ReLU network's
float32 gradients against float64 references), an output whose elements are
not all within the bound still passes if its relative L2 error is at most
3e-2: a ReLU input within float32 rounding of zero (ResNet-18's activations
carry errors of ~1e-6 after a dozen layers, and one of its 1.6M ReLU inputs
is within that of zero in a typical draw) may fall on the other side of the
kink than in float64, which gates one element's gradient off or on and moves
every gradient below it: in the GPU kernel emulation's run
(test/python/gpu/test_gpu_emulation.py) one such flip left a tenth of the
elements of the lower layers' gradients beyond 1e-3 of their scale, up to
5% of it, at relative L2 errors of 3e-3 to 1.5e-2. (The float64 ResNet-18
is compared element by element.) Prints a
line per output; exits 1 if any output is missing or differs.
Needs only numpy (it runs on the device machine).
"""
import glob
import os
import sys

import numpy as np


KINKS_L2 = 3e-2  # relative L2 error


def check(ref, got, rtol, atol, scaled, kinks=False, note=None):
    """(ok, max abs error) of got against ref (arrays of one shape). With
    `kinks`, elements beyond the bound are tolerated as the module's
    docstring says; `note` (a list) then gets what was tolerated."""
    ref64, got64 = ref.astype(np.float64), got.astype(np.float64)
    err = float(np.max(np.abs(ref64 - got64))) if ref.size else 0.0
    if ref.size and not np.all(np.isfinite(got64) == np.isfinite(ref64)):
        return False, err
    if scaled:
        scale = float(np.max(np.abs(ref64))) if ref.size else 0.0
        beyond = np.abs(ref64 - got64) > rtol * scale + atol
    else:
        beyond = ~np.isclose(got64, ref64, rtol=rtol, atol=atol, equal_nan=True)
    count = int(beyond.sum())
    if count == 0 or not kinks:
        return count == 0, err
    finite = np.isfinite(ref64)
    l2 = float(np.linalg.norm((ref64 - got64)[finite]))
    rel = l2 / max(float(np.linalg.norm(ref64[finite])), 1e-300)
    ok = rel <= KINKS_L2
    if note is not None:
        note.append("kinks: %d of %d beyond the bound, relative L2 error %.1e" %
                    (count, ref.size, rel))
    return ok, err


def compare(refdir, gotdir, name, rtol, atol, scaled=False, out=sys.stdout, kinks=False):
    """The number of outputs that are missing or differ."""
    bad = 0
    refs = sorted(glob.glob(os.path.join(refdir, "*.npy")) +
                  glob.glob(os.path.join(refdir, "*.sample.npz")))
    if not refs:
        print("%s: no reference outputs in %s" % (name, refdir), file=out)
        return 1
    for r in refs:
        base = os.path.basename(r)
        key = base[:-len(".sample.npz")] if base.endswith(".sample.npz") else base[:-4]
        g = os.path.join(gotdir, key + ".npy")
        if not os.path.exists(g):
            print("%s: %s missing" % (name, key), file=out)
            bad += 1
            continue
        got = np.load(g)
        if base.endswith(".sample.npz"):
            s = np.load(r)
            if got.size != int(s["size"]):
                print("%s: %s has %d elements, the reference %d" % (name, key, got.size,
                                                                    int(s["size"])), file=out)
                bad += 1
                continue
            note = []
            ok, err = check(s["values"], got.reshape(-1)[s["idx"]], rtol, atol, scaled, kinks,
                            note)
            g64 = got.astype(np.float64)
            tol = rtol * float(s["amax"]) + atol
            dsum = abs(float(g64.sum()) - float(s["sum"]))
            dl2 = abs(float(np.sqrt((g64 * g64).sum())) - float(s["l2"]))
            # The sum of n elements each within tol: within n * tol.
            ok = ok and dl2 <= tol * np.sqrt(got.size) and dsum <= tol * got.size
            what = "sampled %d of %d" % (len(s["idx"]), got.size)
        else:
            ref = np.load(r)
            if ref.shape != got.shape:
                print("%s: %s has shape %s, the reference %s" % (name, key, got.shape,
                                                                 ref.shape), file=out)
                bad += 1
                continue
            note = []
            ok, err = check(ref, got, rtol, atol, scaled, kinks, note)
            what = "all %d" % ref.size
        print("%s: %s %s (max abs error %.2g, %s%s)" % (name, key, "ok" if ok else "differs",
                                                        err, what, "".join("; " + n for n in note)),
              file=out)
        bad += 0 if ok else 1
    return bad


def save_reference(path_without_ext, array, max_whole=1 << 16, sample=4096, keep_float64=False):
    """Writes <path>.npy, or <path>.sample.npz for arrays over max_whole
    elements (a fixed sample of indices and the whole array's sum / l2 /
    amax)."""
    a = np.asarray(array)
    # float64 references are kept as float32 (half the bytes to carry):
    # rounding them costs 6e-8 relative, far inside every float32
    # tolerance; a float64 graph's are kept as they are.
    if a.dtype == np.float64 and not keep_float64:
        a = a.astype(np.float32)
    if a.size <= max_whole:
        np.save(path_without_ext + ".npy", a)
        return
    flat = a.reshape(-1).astype(np.float64)
    idx = np.sort(np.random.default_rng(0).choice(a.size, sample, replace=False))
    np.savez(path_without_ext + ".sample.npz", idx=idx, values=a.reshape(-1)[idx],
             size=np.int64(a.size), sum=flat.sum(), l2=np.sqrt((flat * flat).sum()),
             amax=np.abs(flat).max())


if __name__ == "__main__":
    ref, got, name, rtol, atol = sys.argv[1:6]
    flags = sys.argv[6:]
    sys.exit(1 if compare(ref, got, name, float(rtol), float(atol), "scaled" in flags,
                          kinks="kinks" in flags) else 0)
