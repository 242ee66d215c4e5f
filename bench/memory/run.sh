#!/usr/bin/env bash
# run.sh [memory_table.py options] - the memory table of docs/memory.md:
# builds mxc (scripts/build.sh mxc; MXC_BUILD_DIR selects the tree), makes
# sure matplotlib is in .venv (requirements-dev.txt) and runs
# memory_table.py, which runs `mxc memory-report` on AlexNet, GoogLeNet and
# VGG-16 at batch 64, inference and training, prints the Markdown table and
# writes docs/memory.json and docs/memory.png. Takes about a minute (no code
# generation: the pipeline stops at the bufferized form).
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
cd "$ROOT"
BUILD="${MXC_BUILD_DIR:-$ROOT/build}"
MXC_JOBS="${MXC_JOBS:-2}" "$ROOT/scripts/build.sh" mxc >/dev/null
PY="$ROOT/.venv/bin/python"
"$PY" -c "import matplotlib" 2>/dev/null || "$PY" -m pip install --quiet matplotlib
exec "$PY" "$HERE/memory_table.py" --mxc "$BUILD/bin/mxc" "$@"
