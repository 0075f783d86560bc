#!/usr/bin/env bash
# Two Node.js binaries on the same benches and inputs, one after the other per round, so both see the same machine:
# bench/core.ts and bench/worker-inprocess.ts; prints each run's figures and the B/A ratio of every calls/s figure
# (medians over the rounds, wall clock / CPU time).
#   bash bench/node-lines.sh /path/to/node-a /path/to/node-b [rounds]
set -euo pipefail
cd "$(dirname "$0")/.."
a=${1:?node binary A}
b=${2:?node binary B}
rounds=${3:-3}
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for ((r = 1; r <= rounds; r++)); do
  for bench in core worker-inprocess; do
    for side in a b; do
      bin=$a
      [[ $side == b ]] && bin=$b
      "$bin" --import tsx "bench/$bench.ts" >"$out/$bench.$side.$r"
    done
  done
done
echo "A: $("$a" --version) ($a)"
echo "B: $("$b" --version) ($b)"
for bench in core worker-inprocess; do
  echo "== bench/$bench.ts, $rounds rounds each, median of the runs' figures"
  # Each figure line: the label, then "<wall> / <cpu> calls/s".
  for side in a b; do
    cat "$out/$bench.$side".* | awk -v side="$side" '
      /calls\/s/ && !/^corpus/ {
        label = $0; sub(/ +[0-9,]+ \/ [0-9,]+ calls\/s.*/, "", label)
        match($0, /[0-9,]+ \/ [0-9,]+ calls\/s/); pair = substr($0, RSTART, RLENGTH)
        split(pair, p, " "); gsub(/,/, "", p[1]); gsub(/,/, "", p[3])
        print side "\t" label "\t" p[1] "\t" p[3]
      }'
  done >"$out/$bench.rows"
  awk -F'\t' '
    function median(list,   n, i, j, t, x) {
      n = split(list, x, " ")
      for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (x[j] < x[i]) { t = x[i]; x[i] = x[j]; x[j] = t }
      return x[int((n + 1) / 2)]
    }
    { key = $2; if (!(key in seen)) { seen[key] = 1; order[++k] = key }
      wall[$1, key] = wall[$1, key] " " $3; cpu[$1, key] = cpu[$1, key] " " $4 }
    END {
      for (i = 1; i <= k; i++) {
        key = order[i]
        wa = median(wall["a", key]); ca = median(cpu["a", key]); wb = median(wall["b", key]); cb = median(cpu["b", key])
        printf "%-38s A %9d / %9d   B %9d / %9d   B/A %.2f / %.2f\n", key, wa, ca, wb, cb, wb / wa, cb / ca
      }
    }' "$out/$bench.rows"
done
