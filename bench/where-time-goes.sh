#!/usr/bin/env bash
# where-time-goes.sh: where a traced two-thread program's CPU time goes under each engine, from
# the leaf symbol of every sample of `perf record -a -g` (bench/perf-categories.awk). The
# program is xz -T2 (lib.sh's xz); its threads and the agent's handler threads share the name
# xz, and are told apart by their sample counts: under uffd the agent's guard is the busiest.
# No timing is asserted anywhere; the shares go into BENCHMARKS.md ("Engines").
#
#   bench/where-time-goes.sh [scale=1]
# Needs: mvn -q package -DskipTests first, perf, xz.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
scale=${1:-1}
bench_need_jar
bench_tmp
command -v perf > /dev/null || { echo "$bench_name: needs perf (apt-get install linux-perf)" >&2; exit 2; }
workloads xz
echo "where-time-goes: scale=$scale, $(machine)"
for e in uffd mprotect; do
  rm -rf "$out/t"
  perf record -q -a -g -o "$out/perf.data" -- "$root/faultline" record -q --engine "$e" -o "$out/t" -- \
    $(command_of xz) > /dev/null 2> "$out/err" || { cat "$out/err" >&2; exit 1; }
  echo "$e: $(references "$out/t") references in $(sed -n 's/^duration_ns=//p' "$out/t/header.properties" \
    | awk '{printf "%.2f s", $1 / 1e9}')"
  perf script -i "$out/perf.data" --comms xz -F tid,ip,sym,dso 2> /dev/null \
    | awk 'BEGIN { RS = "" } { split($0, l, "\n"); sub(/^[ \t]+/, "", l[2]); print l[1], l[2] }' > "$out/leaf"
  # busiest first: under uffd the guard, then the program's threads
  mapfile -t tids < <(awk '{print $1}' "$out/leaf" | sort | uniq -c | sort -rn | awk '$1 > 100 {print $2}')
  if [[ $e == uffd ]]; then
    echo " the agent's busiest handler thread (tid ${tids[0]}):"
    awk -v t="${tids[0]}" '$1 == t' "$out/leaf" | awk -f "$here/perf-categories.awk"
    echo " the program's threads:"
    awk -v t="${tids[0]}" '$1 != t' "$out/leaf" | awk -f "$here/perf-categories.awk"
  else
    echo " the program's threads (faults are handled on them):"
    awk -f "$here/perf-categories.awk" "$out/leaf"
  fi
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
