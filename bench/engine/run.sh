#!/usr/bin/env bash
# run.sh OLD_TREE NEW_TREE [ROUNDS] [REPEAT] [WARMUP] - issue 11's benchmarks
# (docs/benchmarks.md, "Execution through the engine (issue 11)"): batch-1
# inference of ResNet-18 and Inception-BN with `mxc run`, and a Module training
# step (bench/train/bench.py's mxc worker, --mxc-api module) of LeNet and
# ResNet-18 at 32x32, the tree before the plan-on-the-engine change (OLD_TREE,
# e.g. a worktree of 2276ce2) against the one after (NEW_TREE), side by side in
# one run. Each tree must be built (scripts/build.sh mxc mxc-python): it uses
# <tree>/build/bin/mxc and <tree>/build/python_packages.
#
# Inference configurations (thread settings):
#   old  OPENBLAS_NUM_THREADS=2 | =1            (one packed call, BLAS threads)
#   new  default (1 engine worker x 2 kernel threads on 2 cores)
#        MXC_CPU_WORKER_NTHREADS=2 OMP_NUM_THREADS=1 (2 workers x 1; idle
#          workers join the other's parallel loops: work-sharing)
#        the same with MXC_ENGINE_SHARE_LOOPS=0 (w2k1-noshare: branch
#          overlap alone, against w1k1)
#        MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=2 (1 worker x 2, explicit)
#        MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=1 (1 x 1: against old =1)
# Every round runs each (model, configuration) once in a new process
# (`mxc run --repeat REPEAT --warmup WARMUP`, its median), in an order rotated
# per round so old and new interleave; the table gives the median over rounds
# of those medians and the min-max of the round medians. Each tree has its own
# MXC_CACHE_DIR (warmed first, so no round compiles). `uptime` is logged per
# round. Training: TRAIN_ROUNDS (default 5) rounds, each running the worker
# of each (tree, threads) once, --warmup 3 --steps TRAIN_STEPS (default 10).
# Results (raw lines) go to $OUT (default bench/engine/.work/results.txt);
# the tables are printed at the end by summarize.py (all rounds; pass
# --from-round K to summarize.py to drop disturbed first rounds). Profiles:
# trace_stats.py (per-pass statistics of an MXC_PROFILE trace: steps,
# overlap, gaps) and plan_dag.py (critical path and a 2-worker schedule of a
# plan's dependency DAG). The 2026-12-01 results are in results/.
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
ROOT="$(cd "$HERE/../.." && pwd)"
OLD="$(cd "${1:?OLD_TREE}" && pwd)"; NEW="$(cd "${2:?NEW_TREE}" && pwd)"
ROUNDS="${3:-7}"; REPEAT="${4:-30}"; WARMUP="${5:-5}"
TRAIN_ROUNDS="${TRAIN_ROUNDS:-5}"; TRAIN_STEPS="${TRAIN_STEPS:-10}"
PY="${PYTHON:-$ROOT/.venv/bin/python}"
WORK="$HERE/.work"; mkdir -p "$WORK"
OUT="${OUT:-$WORK/results.txt}"; : > "$OUT"
for m in resnet18 inception-bn; do
  [ -f "$WORK/$m-symbol.json" ] || python3 "$ROOT/tools/zoo/mxnet_zoo.py" "$m" -o "$WORK/$m-symbol.json"
done
log() { echo "$*" | tee -a "$OUT"; }
log "# $(date -u '+%Y-%m-%d %H:%M UTC') old=$(git -C "$OLD" rev-parse --short HEAD) new=$(git -C "$NEW" rev-parse --short HEAD) rounds=$ROUNDS repeat=$REPEAT warmup=$WARMUP"
log "# $(uname -srm); $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ //'); nproc $(nproc)"

# name|tree|env
CONFIGS=(
  "old-blas2|$OLD|OPENBLAS_NUM_THREADS=2"
  "old-blas1|$OLD|OPENBLAS_NUM_THREADS=1"
  "new-default|$NEW|"
  "new-w2k1|$NEW|MXC_CPU_WORKER_NTHREADS=2 OMP_NUM_THREADS=1"
  "new-w2k1-noshare|$NEW|MXC_CPU_WORKER_NTHREADS=2 OMP_NUM_THREADS=1 MXC_ENGINE_SHARE_LOOPS=0"
  "new-w1k2|$NEW|MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=2"
  "new-w1k1|$NEW|MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=1"
)
# NEW_IM2COL=1: also the new tree with the old tree's convolution algorithm
# (MXC_CONV_IMPL=im2col: im2col + OpenBLAS GEMM instead of oneDNN, which came
# after 2276ce2), so that old/new measures the execution path and not the
# kernels; with bulk execution on (default) and off, and 2 workers with a
# shared pool of 2 kernel threads (w2k2). The im2col configurations compile
# with --no-blocked-layout (a config's 4th field: options of `mxc run`), as
# the old tree did: blocked tensors between convolutions (mx-propagate-conv-
# layout, after 2276ce2) are oneDNN's layout, which the im2col path converts
# back to NCHW around every convolution.
if [ "${NEW_IM2COL:-0}" = 1 ]; then
  CONFIGS+=(
    "im2col-w1k2|$NEW|MXC_CONV_IMPL=im2col MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=2|--no-blocked-layout"
    "im2col-w1k1|$NEW|MXC_CONV_IMPL=im2col MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=1|--no-blocked-layout"
    "im2col-w1k1-nobulk|$NEW|MXC_CONV_IMPL=im2col MXC_CPU_WORKER_NTHREADS=1 OMP_NUM_THREADS=1 MXC_EXEC_BULK_EXEC_INFERENCE=0|--no-blocked-layout"
    "new-w2k2|$NEW|MXC_CPU_WORKER_NTHREADS=2 OMP_NUM_THREADS=2"
  )
fi
clean_env() { env -u OMP_NUM_THREADS -u OPENBLAS_NUM_THREADS -u MKL_NUM_THREADS \
  -u MXC_CPU_WORKER_NTHREADS -u MXNET_CPU_WORKER_NTHREADS -u MXC_KERNEL_NTHREADS \
  -u MXC_ENGINE -u MXNET_ENGINE_TYPE -u MXC_PROFILE -u MXC_CONV_IMPL \
  -u MXC_EXEC_BULK_EXEC_INFERENCE -u MXNET_EXEC_BULK_EXEC_INFERENCE \
  -u MXC_ENGINE_SHARE_LOOPS "$@"; }
cache_of() { [ "$1" = "$OLD" ] && echo "$WORK/cache-old" || echo "$WORK/cache-new"; }

infer() {  # config model -> "latency: ..." line
  local name tree envs opts; IFS='|' read -r name tree envs opts <<< "$1"
  # shellcheck disable=SC2086
  clean_env MXC_CACHE_DIR="$(cache_of "$tree")" MXC_QUIET=1 $envs \
    "$tree/build/bin/mxc" run "$WORK/$2-symbol.json" --shape data=1,3,224,224 \
    --repeat "$REPEAT" --warmup "$WARMUP" $opts | grep '^latency:'
}

# warm both caches (compiles once per tree and model)
for m in resnet18 inception-bn; do
  infer "${CONFIGS[0]}" "$m" >/dev/null; infer "${CONFIGS[2]}" "$m" >/dev/null
  for c in "${CONFIGS[@]}"; do [[ "$c" == im2col-w1k1\|* ]] && infer "$c" "$m" >/dev/null; done
done

n=${#CONFIGS[@]}
for ((r = 0; r < ROUNDS; r++)); do
  log "# round $r inference, uptime: $(uptime | sed 's/.*load average/load average/')"
  for m in resnet18 inception-bn; do
    for ((i = 0; i < n; i++)); do
      c="${CONFIGS[$(((i + r) % n))]}"
      log "INFER $m ${c%%|*} $(infer "$c" "$m")"
    done
  done
done

# training step: bench/train/bench.py's mxc worker (Module API), both trees
TRAIN=(
  "old-t2|$OLD|2|"
  "new-t2|$NEW|2|"
  "old-t1|$OLD|1|"
  "new-t1|$NEW|1|"
  "new-w2k1|$NEW|1|MXC_CPU_WORKER_NTHREADS=2"
)
if [ "${NEW_IM2COL:-0}" = 1 ]; then
  TRAIN+=(
    "im2col-t2|$NEW|2|MXC_CONV_IMPL=im2col"
    "im2col-t1|$NEW|1|MXC_CONV_IMPL=im2col"
  )
fi
train() {  # config model -> RESULT json
  local name tree th envs; IFS='|' read -r name tree th envs <<< "$1"
  # shellcheck disable=SC2086
  clean_env MXC_CACHE_DIR="$(cache_of "$tree")" MXC_QUIET=1 PYTHONPATH="$tree/build/python_packages" $envs \
    "$PY" -W ignore "$ROOT/bench/train/bench.py" --worker mxc --model "$2" --mxc-api module \
    --threads "$th" --warmup 3 --steps "$TRAIN_STEPS" | grep '^RESULT '
}
for m in lenet resnet18; do train "${TRAIN[0]}" "$m" >/dev/null; train "${TRAIN[1]}" "$m" >/dev/null; done
t=${#TRAIN[@]}
for ((r = 0; r < TRAIN_ROUNDS; r++)); do
  log "# round $r training, uptime: $(uptime | sed 's/.*load average/load average/')"
  for m in lenet resnet18; do
    for ((i = 0; i < t; i++)); do
      c="${TRAIN[$(((i + r) % t))]}"
      log "TRAIN $m ${c%%|*} $(train "$c" "$m")"
    done
  done
done
log "# end $(date -u '+%H:%M UTC'), uptime: $(uptime | sed 's/.*load average/load average/')"
"$PY" "$HERE/summarize.py" "$OUT"
