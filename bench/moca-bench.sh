#!/usr/bin/env bash
# moca-bench.sh [runs=3]: what Moca's interval mode costs (BENCHMARKS.md, "Moca mode").
#   disabling   ns per page disabled at interval ends (the trace header's disable_ns / evictions)
#               for bench/native/moca_touch.c writing 1,000 pages in a loop for 2 s at a 10 ms
#               interval: contiguous (one UFFDIO_MOVE per interval) and every other page (one
#               move per page)
#   sort        wall time of sort --parallel=1 over 200,000 random lines (4.7 MB) native and
#               under --mode moca at 10, 50 and 200 ms, with the pages disabled and their cost;
#               and of record -- true, the recorder's own start and finish, which every traced run pays
# Prints every run and the median. One core at a time; the machine's other load shows in the spread.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
bench_need_jar
bench_tmp
bench_cc touch "$here/native/moca_touch.c"
sort_input
key() { sed -n "s/^$1=//p" "$2/header.properties"; }

disabling() { # label, stride
  local label=$1 stride=$2 all=()
  for _ in $(seq "$runs"); do
    rm -rf "$out/t"
    "$root/faultline" record -q -o "$out/t" --scope api --mode moca --interval 10ms -- "$out/touch" 1000 "$stride" 2 > /dev/null
    all+=("$(( $(key disable_ns "$out/t") / $(key evictions "$out/t") ))")
  done
  printf '%-44s %8s ns/page   (%s)\n' "$label" "$(printf '%s\n' "${all[@]}" | median)" "${all[*]}"
}
disabling "disabling 1,000 contiguous pages" 1
disabling "disabling 1,000 pages, every other page" 2

# what the last run's agents did: pages recorded, pages disabled and how long that took
disabled() {
  printf '%-44s %s\n' "" "pages $(key references "$out/s"), disabled $(key evictions "$out/s") in $(( $(key disable_ns "$out/s") / 1000000 )) ms (last run)"
}
sorted "sort, native"
startup=()
for _ in $(seq "$runs"); do
  s=$(date +%s%N); rm -rf "$out/s"; "$root/faultline" record -q -o "$out/s" --mode moca -- true; e=$(date +%s%N)
  startup+=("$(( (e - s) / 1000000 ))")
done
printf '%-44s %8s ms   (%s)\n' "record --mode moca -- true (the recorder)" "$(printf '%s\n' "${startup[@]}" | median)" "${startup[*]}"
sorted "sort, --mode moca --interval 10ms" --mode moca --interval 10ms
disabled
sorted "sort, --mode moca --interval 50ms" --mode moca --interval 50ms
disabled
sorted "sort, --mode moca --interval 200ms" --mode moca --interval 200ms
disabled
