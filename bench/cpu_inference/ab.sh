#!/usr/bin/env bash
# ab.sh ROUNDS "A settings" "B settings" NET:BATCH... - paired A/B of `mxc run`
# latency (docs/benchmarks.md): for each round and network, one `mxc run
# --warmup 3 --repeat 20` with A's and one with B's settings (the order
# alternates by round); prints "round net batch A|B median min" lines, then
# summary.py's per-network table (median of each side, paired B/A ratios).
# A setting is a list of VAR=value words given to `env`: environment
# variables (MXC_CONV_KEEP_WEIGHTS=0) or LD_LIBRARY_PATH=DIR to run another
# build's libmxc_runtime.so under the same mxc; words starting with "--" are
# options of `mxc run` (--no-blocked-layout). Model files from run.sh
# (.work/<net>-symbol.json, -0000.params, -x<batch>.npy).
#   bench/cpu_inference/ab.sh 4 "MXC_CONV_KEEP_WEIGHTS=0" "" resnet18:1 mobilenet-v2:1
set -euo pipefail
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
MXC="${MXC:-$HERE/../../build/bin/mxc}"
rounds=$1 a=$2 b=$3
shift 3
cd "$HERE/.work"
out=$(mktemp)
for r in $(seq "$rounds"); do
  for nb in "$@"; do
    net=${nb%:*} batch=${nb#*:}
    order="A B"
    [ $((r % 2)) = 0 ] && order="B A"
    for side in $order; do
      settings=$a
      [ "$side" = B ] && settings=$b
      envs=() opts=()
      for word in $settings; do
        if [[ $word == --* ]]; then opts+=("$word"); else envs+=("$word"); fi
      done
      line=$(env "${envs[@]}" "$MXC" run "$net-symbol.json" --params "$net-0000.params" \
        --shape "data=$batch,3,224,224" --input "data=$net-x$batch.npy" \
        --warmup 3 --repeat 20 "${opts[@]}" 2>&1 | grep '^latency:')
      med=$(sed 's/.*median \([0-9.]*\) ms.*/\1/' <<<"$line")
      min=$(sed 's/.*min \([0-9.]*\) ms.*/\1/' <<<"$line")
      echo "$r $net $batch $side $med $min" | tee -a "$out"
    done
  done
done
python3 "$HERE/ab_summary.py" "$out"
rm -f "$out"
