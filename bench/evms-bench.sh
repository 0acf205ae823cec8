#!/usr/bin/env bash
# evms-bench.sh [runs=3]: the EVMS policies' costs (BENCHMARKS.md, "EVMS policies").
#   soft_fault_loop  ns per iteration of bench/native/soft_fault_loop.c under each mode: a
#                    reference fault alone (read, write), plus a write-protect (dirty) fault,
#                    plus a trailing-segment re-reference fault (segq, CLOCK trail, lead 8)
#   sort             wall time of sort --parallel=1 over 200,000 random lines (4.7 MB) native
#                    and under --policy fifo, segq --trail fifo, clock (EVMS 512)
# Prints every run and the median. One core at a time; the machine's other load shows in the spread.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
bench_need_jar
bench_tmp
bench_cc sfl "$here/native/soft_fault_loop.c"
sort_input

loop() { # label, mode, policy args...
  local label=$1 mode=$2; shift 2
  local all=()
  for _ in $(seq "$runs"); do
    rm -rf "$out/t"
    all+=("$("$root/faultline" record -q -o "$out/t" --scope api --evms 16 "$@" -- "$out/sfl" "$mode" 40000 8 |
      sed -n 's/.*ns_per_iteration=\([0-9]*\).*/\1/p')")
  done
  printf '%-40s %8s ns   (%s)\n' "$label" "$(printf '%s\n' "${all[@]}" | median)" "${all[*]}"
}
loop "fifo: read (reference + write-protect)" new
loop "fifo: write (reference)" write
loop "fifo: read, then write (+ WP fault)" dirty
loop "clock lead 8: read" new --policy clock --lead 8
loop "clock lead 8: read + re-reference" reref --policy clock --lead 8

sorted "sort, native"
sorted "sort, fifo" --policy fifo
sorted "sort, segq --trail fifo" --policy segq --trail fifo
sorted "sort, clock" --policy clock
