#!/usr/bin/env bash
# monitor-bench.sh: what `faultline monitor` (DAMON's vaddr operations set through the agent)
# costs a program, with the kernel's default attributes (sampling 5 ms, aggregation 100 ms,
# 10 to 1000 regions). No timing is asserted anywhere; these numbers are for BENCHMARKS.md.
#
# For each program, RUNS rounds, native and monitored alternating; per row the median of:
#   native    wall time of the program alone (lib.sh's walltime: bash's microsecond clock)
#   monitored the record's duration_ns: from the program's start under the agent to its exit
#             (the monitor's own JVM start-up is not counted)
#   faults    every fault the agent handled (first touches of registered memory + access checks)
#   checks    access-check faults alone, and per second of monitoring: bounded by
#             regions / sampling interval whatever the program's size
#   us/check  (monitored - native) / checks: what one check cost the program, meaningful where
#             checks are most of the difference (touch: bench/native/hot_touch.c, every page hot)
#
#   bench/monitor-bench.sh [runs=3] [scale=1]
#   ENGINES="uffd sigbus" bench/monitor-bench.sh ...   (one row per program and engine, all in one run;
#                     sigbus: each check a SIGBUS in the touching thread, no handler hand-off)
# Needs: mvn -q package -DskipTests first (the launcher's jar), sort, java.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
scale=${2:-1}
bench_need_jar
bench_tmp
workloads demo sort jvm touch

field() { sed -n "s/.*$1 \([0-9,]*\).*/\1/p" | tr -d ,; }

read -r -a engines <<< "${ENGINES:-uffd}"
echo "monitor-bench: runs=$runs scale=$scale, engines ${engines[*]}, $(machine)"
printf '%-6s %-7s %10s %10s %8s %12s %12s %10s %9s\n' program engine native_s monitor_s ratio faults checks checks/s us/check
for p in demo sort jvm touch; do
 for e in "${engines[@]}"; do
  cmd=$(command_of "$p")
  nat="" mon="" flt="" chk=""
  for ((i = 1; i <= runs; i++)); do
    nat+=" $(walltime $cmd)"
    rm -rf "$out/rec"
    "$root/faultline" monitor --engine "$e" -o "$out/rec" -- $cmd > /dev/null 2> "$out/err"
    mon+=" $(sed -n 's/^duration_ns=//p' "$out/rec/header.properties" | awk '{printf "%.3f", $1 / 1e9}')"
    flt+=" $(field 'faults' < "$out/err")"
    chk+=" $(sed -n 's/.*(\([0-9,]*\) of them access checks.*/\1/p' "$out/err" | tr -d ,)"
  done
  n=$(tr ' ' '\n' <<< "$nat" | grep . | median)
  m=$(tr ' ' '\n' <<< "$mon" | grep . | median)
  f=$(tr ' ' '\n' <<< "$flt" | grep . | median)
  c=$(tr ' ' '\n' <<< "$chk" | grep . | median)
  printf '%-6s %-7s %10s %10s %8.3f %12s %12s %10.0f %9.0f\n' "$p" "$e" "$n" "$m" "$(bc -l <<< "$m / $n")" "$f" "$c" \
    "$(bc -l <<< "$c / $m")" "$(bc -l <<< "if ($c > 0) ($m - $n) * 1000000 / $c else 0")"
 done
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
