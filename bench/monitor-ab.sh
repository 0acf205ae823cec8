#!/usr/bin/env bash
# monitor-ab.sh: two builds of faultline monitoring the same programs, runs alternating native /
# A / B, so that a change to the monitor is measured against its predecessor in one run (these
# machines drift by 10 % between runs). No timing is asserted anywhere; figures for BENCHMARKS.md.
#
#   bench/monitor-ab.sh A.jar B.jar [runs=6] [programs="touch jvm demo"]
# Build each jar with mvn -q package -DskipTests (tools/target/faultline.jar) in its own checkout.
# Per program, the medians of: native wall time; each build's record duration_ns (the program's
# life under the agent), access-check faults, and the mean time from posting a request to its
# answer (since the agent times the sampling windows: a window's length, interval included).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
[[ $# -ge 2 && -f $1 && -f $2 ]] || { echo "$bench_name: usage: $bench_name A.jar B.jar [runs] [programs]" >&2; exit 2; }
jar_a=$1 jar_b=$2
runs=${3:-6}
read -r -a programs <<< "${4:-touch jvm demo}"
scale=1
bench_tmp
workloads "${programs[@]}"

echo "monitor-ab: runs=$runs, A=$jar_a, B=$jar_b, $(machine)"
for p in "${programs[@]}"; do
  cmd=$(command_of "$p")
  nat="" da="" db="" ca="" cb="" ra="" rb=""
  for ((i = 1; i <= runs; i++)); do
    nat+=" $(walltime $cmd)"
    for v in a b; do
      jar=$jar_a; [[ $v == b ]] && jar=$jar_b
      rm -rf "$out/rec"
      FAULTLINE_JAR=$jar "$root/faultline" monitor -o "$out/rec" -- $cmd > /dev/null 2> "$out/err"
      d=$(sed -n 's/^duration_ns=//p' "$out/rec/header.properties" | awk '{printf "%.3f", $1 / 1e9}')
      c=$(sed -n 's/.*(\([0-9,]*\) of them access checks.*/\1/p' "$out/err" | tr -d ,)
      r=$(sed -n 's/.* (\([0-9]*\) us each on average.*/\1/p' "$out/err")
      eval "d$v+=' $d'; c$v+=' $c'; r$v+=' $r'"
    done
  done
  mn=$(printf '%s\n' $nat | median)
  ma=$(printf '%s\n' $da | median)
  mb=$(printf '%s\n' $db | median)
  printf '%-6s native %ss | A %ss (%s), checks %s, %s us a request | B %ss (%s), checks %s, %s us a request\n' \
    "$p" "$mn" "$ma" "$(ratio "$ma" "$mn")" "$(printf '%s\n' $ca | median)" "$(printf '%s\n' $ra | median)" \
    "$mb" "$(ratio "$mb" "$mn")" "$(printf '%s\n' $cb | median)" "$(printf '%s\n' $rb | median)"
  echo "       native:$nat  A:$da  B:$db"
done
