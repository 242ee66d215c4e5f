"""Compares the .npy files of two output trees (fused vs unfused run)."""
import os
import sys

import numpy as np

a_root, b_root = sys.argv[1], sys.argv[2]
for sub in sorted(os.listdir(a_root)):
    for name in sorted(os.listdir(os.path.join(a_root, sub))):
        a = np.load(os.path.join(a_root, sub, name))
        b = np.load(os.path.join(b_root, sub, name))
        ok = a.shape == b.shape and np.allclose(a, b, rtol=1e-5, atol=1e-6)
        print(f"{sub}/{name} {'same' if ok else 'DIFFERENT'}"
              f" (max abs diff {np.abs(a - b).max() if a.shape == b.shape else 'shape'})")
