#!/usr/bin/env bash
# monitor-ab.sh: two builds of faultline monitoring the same programs, runs alternating native /
# A / B, so that a change to the monitor is measured against its predecessor in one run (these
# machines drift by 10 % between runs). No timing is asserted anywhere; figures for BENCHMARKS.md.
#
#   bench/monitor-ab.sh A B [runs=6] [programs="touch jvm demo"]
#   ENGINE=sigbus bench/monitor-ab.sh ...   (monitor --engine ENGINE; the default engine otherwise)
# A and B are jars (run by this checkout's launcher) or checkouts (each run by its own launcher and
# jar, for a change to the launcher's JVM flags). Build each with mvn -q package -DskipTests
# (tools/target/faultline.jar) in its own checkout.
# Per program, the medians of: native wall time; each build's record duration_ns (the program's
# life under the agent), access-check faults, and the mean time from posting a request to its
# answer (since the agent times the sampling windows: a window's length, interval included).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
build() { # a jar, or a checkout with a built jar: its launcher and jar
  if [[ -d $1 && -f $1/faultline && -f $1/tools/target/faultline.jar ]]; then echo "$1/faultline $1/tools/target/faultline.jar"
  elif [[ -f $1 ]]; then echo "$root/faultline $1"
  else return 1; fi
}
[[ $# -ge 2 ]] && build "$1" > /dev/null && build "$2" > /dev/null || {
  echo "$bench_name: usage: $bench_name A B [runs] [programs] (A, B: a jar, or a checkout with tools/target/faultline.jar built)" >&2; exit 2; }
read -r launcher_a jar_a <<< "$(build "$1")"
read -r launcher_b jar_b <<< "$(build "$2")"
runs=${3:-6}
read -r -a programs <<< "${4:-touch jvm demo}"
scale=1
bench_tmp
workloads "${programs[@]}"

engine=()
[[ -n ${ENGINE:-} ]] && engine=(--engine "$ENGINE")
echo "monitor-ab: runs=$runs, A=$jar_a, B=$jar_b, engine ${ENGINE:-default}, $(machine)"
for p in "${programs[@]}"; do
  cmd=$(command_of "$p")
  nat="" da="" db="" ca="" cb="" ra="" rb=""
  for ((i = 1; i <= runs; i++)); do
    nat+=" $(walltime $cmd)"
    for v in a b; do
      jar=$jar_a launcher=$launcher_a; [[ $v == b ]] && jar=$jar_b launcher=$launcher_b
      rm -rf "$out/rec"
      FAULTLINE_JAR=$jar "$launcher" monitor "${engine[@]}" -o "$out/rec" -- $cmd > /dev/null 2> "$out/err"
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
