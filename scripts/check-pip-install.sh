#!/usr/bin/env bash
# check-pip-install.sh - the user's route to the Python package, tested once:
# `pip install --no-build-isolation .` into the project venv, reusing the
# persistent build tree build/ (pyproject.toml: build-dir = "build"), so no
# compiler code is compiled a second time. Then `import mxc as mx` from
# outside the checkout must load the installed package (not the in-tree one)
# and run a small graph; the package is uninstalled again so that the tests
# keep using the in-tree build.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
PY="$ROOT/.venv/bin/python"
cleanup() { "$PY" -m pip uninstall -y -q mxc >/dev/null 2>&1 || true; }
trap cleanup EXIT
start=$(date +%s)
"$PY" -m pip install -q --no-build-isolation "$ROOT"
echo "pip install: $(( $(date +%s) - start )) s"
cd "$(mktemp -d)"
env -u PYTHONPATH "$PY" - "$ROOT" <<'PYEOF'
import os, sys
import numpy as np
import mxc as mx
root = sys.argv[1]
where = os.path.realpath(mx.__file__)
assert os.sep + "site-packages" + os.sep in where, \
    "imported the in-tree package, not the installed one: " + where
data = mx.sym.Variable("data")
net = mx.sym.FullyConnected(data, num_hidden=3, name="fc")
ex = net.simple_bind(mx.cpu(), data=(2, 4))
ex.arg_dict["data"][:] = np.arange(8, dtype=np.float32).reshape(2, 4)
ex.arg_dict["fc_weight"][:] = np.ones((3, 4), np.float32)
ex.arg_dict["fc_bias"][:] = np.zeros(3, np.float32)
out = ex.forward()[0].asnumpy()
assert np.allclose(out, [[6, 6, 6], [22, 22, 22]]), out
print("installed package OK:", where)
PYEOF
