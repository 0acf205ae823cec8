#!/usr/bin/env bash
# pipeline-bench.sh [runs=50]: traces of many short processes are whole (BENCHMARKS.md,
# "Pipelines", issue 24). Records a shell's pipelines, 60 processes that fork and exec,
#     bash -c 'for i in $(seq 1 20); do echo $i | cat | wc -c >/dev/null; done'
# runs times per engine, and counts the recordings that did not exit 0 and the traces that
# faultline info cannot read (corrupt, truncated: it exits non-zero); both must be 0. Prints
# per engine those counts, the median wall time of a recording and the native run's.
#   ENGINES="uffd sigbus" KEEP=/tmp/dir bench/pipeline-bench.sh 20   (KEEP: copies of unreadable traces)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-50}
bench_need_jar
bench_tmp
script='for i in $(seq 1 20); do echo $i | cat | wc -c >/dev/null; done'
echo "$(machine); $runs recordings per engine of: bash -c '$script'"
native=()
for _ in $(seq 5); do native+=("$(walltime bash -c "$script")"); done
printf '%-10s %8s s median wall time   (%s)\n' "native" "$(printf '%s\n' "${native[@]}" | median)" "${native[*]}"
read -r -a engines <<< "${ENGINES:-uffd sigbus mprotect}"
for engine in "${engines[@]}"; do
  failed=0 unreadable=0 times=()
  for _ in $(seq "$runs"); do
    rm -rf "$out/t"
    s=$EPOCHREALTIME
    "$root/faultline" record -q --engine "$engine" -o "$out/t" -- bash -c "$script" > /dev/null 2> "$out/err" \
      || { failed=$((failed + 1)); sed 's/^/  record: /' "$out/err"; }
    e=$EPOCHREALTIME
    times+=("$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f", e - s}')")
    "$root/faultline" info "$out/t" > /dev/null 2> "$out/err" \
      || { unreadable=$((unreadable + 1)); sed 's/^/  info: /' "$out/err"
           [ -n "${KEEP:-}" ] && cp -r "$out/t" "$KEEP/unreadable-$engine-$unreadable"; }
  done
  printf '%-10s %3d of %d recordings failed, %3d unreadable; %8s s median wall time\n' \
    "$engine" "$failed" "$runs" "$unreadable" "$(printf '%s\n' "${times[@]}" | median)"
done
