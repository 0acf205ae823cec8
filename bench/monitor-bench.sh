#!/usr/bin/env bash
# monitor-bench.sh: what `faultline monitor` (DAMON's vaddr operations set through the agent)
# costs a program, with the kernel's default attributes (sampling 5 ms, aggregation 100 ms,
# 10 to 1000 regions). No timing is asserted anywhere; these numbers are for BENCHMARKS.md.
#
# For each program, RUNS rounds, native and monitored alternating; per row the median of:
#   native    wall time of the program alone (/usr/bin/time -f %e)
#   monitored the record's duration_ns: from the program's start under the agent to its exit
#             (the monitor's own JVM start-up is not counted)
#   faults    every fault the agent handled (first touches of registered memory + access checks)
#   checks    access-check faults alone, and per second of monitoring: bounded by
#             regions / sampling interval whatever the program's size
#
#   bench/monitor-bench.sh [runs=3] [scale=1]
# Needs: mvn -q package -DskipTests first (the launcher's jar), sort, java.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
runs=${1:-3}
scale=${2:-1}
[[ -f "$root/tools/target/faultline.jar" ]] || { echo "monitor-bench: build first: mvn -q package -DskipTests" >&2; exit 2; }
out=$(mktemp -d /tmp/monitor-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

demo="$root/native-shims/target/classes/native/linux-x86_64/faultline-demo"
javac -d "$out" "$here/workloads/Workers.java"
head -c $((3000000 * scale)) /dev/urandom | base64 | awk '{print NR % 7919, $0}' > "$out/sort.txt"

command_of() {
  case $1 in
    demo) echo "$demo" ;;
    sort) echo "sort --parallel=2 -S 8M -k2,2 -k1,1n $out/sort.txt" ;;
    jvm) echo "java -Xmx256m -XX:+UseG1GC -cp $out Workers 200000" ;;
  esac
}
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }
field() { sed -n "s/.*$1 \([0-9,]*\).*/\1/p" | tr -d ,; }

echo "monitor-bench: runs=$runs scale=$scale, $(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-6s %10s %10s %8s %12s %12s %10s\n' program native_s monitor_s ratio faults checks checks/s
for p in demo sort jvm; do
  cmd=$(command_of "$p")
  nat="" mon="" flt="" chk=""
  for ((i = 1; i <= runs; i++)); do
    /usr/bin/time -f %e -o "$out/t" $cmd > /dev/null 2>&1
    nat+=" $(cat "$out/t")"
    rm -rf "$out/rec"
    "$root/faultline" monitor -o "$out/rec" -- $cmd > /dev/null 2> "$out/err"
    mon+=" $(sed -n 's/^duration_ns=//p' "$out/rec/header.properties" | awk '{printf "%.3f", $1 / 1e9}')"
    flt+=" $(field 'faults' < "$out/err")"
    chk+=" $(sed -n 's/.*(\([0-9,]*\) of them access checks.*/\1/p' "$out/err" | tr -d ,)"
  done
  n=$(tr ' ' '\n' <<< "$nat" | grep . | median)
  m=$(tr ' ' '\n' <<< "$mon" | grep . | median)
  f=$(tr ' ' '\n' <<< "$flt" | grep . | median)
  c=$(tr ' ' '\n' <<< "$chk" | grep . | median)
  printf '%-6s %10s %10s %8.3f %12s %12s %10.0f\n' "$p" "$n" "$m" "$(bc -l <<< "$m / $n")" "$f" "$c" "$(bc -l <<< "$c / $m")"
done
echo "load after: $(cut -d' ' -f1-3 /proc/loadavg)"
