#!/usr/bin/env bash
# startup-bench.sh [runs=15] [NAME=CHECKOUT ...]: what a command of the faultline launcher costs
# from start to exit, the whole process (the launcher's bash, the JVM, the command), for the
# commands researchers run in loops: --version, --help, info of a small trace (that of `true`,
# recorded once by each checkout), and record -q -- true. Each checkout must be built (mvn -q
# package -DskipTests); without one named, this one. Within a run the commands and checkouts
# alternate, so that a load that comes and goes falls on each alike; the load average before and
# after is printed with the results. Wall times mean something only on a quiet machine; the CPU
# seconds (user and system, the process and its children) say less of the load, though not
# nothing (caches, the frequency).
#
# Rows: command, checkout, min and median wall seconds, min and median CPU seconds, every run's
# wall seconds.
#   bench/startup-bench.sh 15 before=/tmp/before after=.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=15
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
[[ $# -gt 0 ]] || set -- "this=$root"
for c in "$@"; do
  [[ $c == *=* && -x ${c#*=}/faultline && -f ${c#*=}/tools/target/faultline.jar ]] \
    || { echo "$bench_name: $c is not NAME=CHECKOUT of a built checkout (mvn -q package -DskipTests there)" >&2; exit 2; }
done
bench_tmp
for c in "$@"; do
  "${c#*=}/faultline" record -q -o "$out/true-${c%%=*}" -- true \
    || { echo "$bench_name: ${c#*=}/faultline cannot record here" >&2; exit 1; }
done
cases=(version help info record)
# "WALL CPU" seconds of CMD ARGS..., its output discarded (bash's time: real, user + sys)
timed() {
  local TIMEFORMAT='%3R %3U %3S' t
  t=$({ time "$@" > /dev/null 2>&1; } 2>&1)
  awk '{printf "%.3f %.3f\n", $1, $2 + $3}' <<< "$t"
}
run_case() { # CASE CHECKOUT_DIR NAME
  case $1 in
    version) timed "$2/faultline" --version ;;
    help) timed "$2/faultline" --help ;;
    info) timed "$2/faultline" info "$out/true-$3" ;;
    record) rm -rf "$out/t"; timed "$2/faultline" record -q -o "$out/t" -- true ;;
  esac
}
declare -A row cpu
echo "$bench_name: runs=$runs, $(machine) (before)"
for ((i = 1; i <= runs; i++)); do
  for k in "${cases[@]}"; do
    for c in "$@"; do
      read -r w u < <(run_case "$k" "${c#*=}" "${c%%=*}")
      row[$k/${c%%=*}]+=" $w"
      cpu[$k/${c%%=*}]+=" $u"
    done
  done
done
echo "$bench_name: $(machine) (after)"
least() { tr ' ' '\n' | grep . | sort -n | head -1; }
middle() { tr ' ' '\n' | grep . | median; }
printf '%-8s %-10s %7s %7s %8s %8s  %s\n' command checkout min median cpu-min cpu-med "wall of each run"
for k in "${cases[@]}"; do
  for c in "$@"; do
    r=${row[$k/${c%%=*}]} u=${cpu[$k/${c%%=*}]}
    printf '%-8s %-10s %7s %7s %8s %8s  (%s)\n' "$k" "${c%%=*}" "$(least <<< "$r")" "$(middle <<< "$r")" \
      "$(least <<< "$u")" "$(middle <<< "$u")" "${r# }"
  done
done
