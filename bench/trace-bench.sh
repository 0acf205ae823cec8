#!/usr/bin/env bash
# trace-bench.sh [runs=3] [scale=1] NAME=CHECKOUT NAME=CHECKOUT: what a trace takes and what
# writing it costs the recorder, under two checkouts of faultline (each built: mvn -q package
# -DskipTests), for the demo, sort --parallel=2, xz -T2 and the 3-thread JVM program (lib.sh's
# workloads; scale multiplies the inputs, sort's four times over, so that its trace of some
# 180,000 references is not mostly Chronicle's own 68 KiB of header and index), each recorded by
# both checkouts in turn within each run (issue 39: format 3 against format 4 in one run).
#
# Per program and checkout, the median over the runs (and every run) of:
#   refs      trapped references (the header's references)
#   B/ref     the queue files' bytes (what the trace takes on disk and what cp copies) per reference
#   packed    faultline pack's file (tar + zstd) per reference
#   cpu       the recorder's CPU (its JVM's user + system time, from /proc/PID/stat every 20 ms
#             until it exits: the last 20 ms at most are not counted) per million references;
#             the traced program's CPU is its own process's, not counted
#
#   bench/trace-bench.sh 3 1 before=/tmp/before after=.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=3
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
scale=1
if [[ ${1:-} =~ ^[0-9]+$ ]]; then scale=$1; shift; fi
bench_two_checkouts "$@"
bench_tmp
programs=(demo sort xz jvm)
workloads demo xz jvm
scale=$((scale * 4)) workloads sort
tick=$(getconf CLK_TCK)

# recorder_cpu FAULTLINE DIR COMMAND...: records COMMAND into DIR; prints the recorder's CPU in ms
recorder_cpu() {
  local faultline=$1 dir=$2; shift 2
  "$faultline" record -q -o "$dir" -- "$@" > /dev/null 2>&1 &
  local pid=$! last=0 now
  while [[ -r /proc/$pid/stat ]]; do
    now=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null || echo "$last")
    [[ -n $now ]] && last=$now
    sleep 0.02
  done
  wait "$pid" || true
  echo $(( last * 1000 / tick ))
}

declare -A row
echo "$bench_name: runs=$runs, scale=$scale, $(machine)"
for ((i = 1; i <= runs; i++)); do
  for p in "${programs[@]}"; do
    for c in "$@"; do
      name=${c%%=*}
      faultline=${c#*=}/faultline
      rm -rf "$out/t" "$out/t.flt"
      # shellcheck disable=SC2046
      cpu=$(recorder_cpu "$faultline" "$out/t" $(command_of "$p"))
      refs=$(sed -n 's/^references=//p' "$out/t/header.properties")
      bytes=$(du -sb --apparent-size "$out/t/queue" | cut -f1)
      "$faultline" pack -o "$out/t.flt" "$out/t" > /dev/null
      packed=$(stat -c %s "$out/t.flt")
      row[$p/$name/refs]+=" $refs"
      row[$p/$name/bytes]+=" $(awk -v b="$bytes" -v r="$refs" 'BEGIN{printf "%.2f", b / r}')"
      row[$p/$name/packed]+=" $(awk -v b="$packed" -v r="$refs" 'BEGIN{printf "%.2f", b / r}')"
      row[$p/$name/cpu]+=" $(awk -v c="$cpu" -v r="$refs" 'BEGIN{printf "%.0f", c * 1e6 / r}')"
    done
  done
done
med() { tr ' ' '\n' <<< "$1" | grep . | median; }
printf '%-6s %-8s %10s %8s %8s %14s   (every run: B/ref | packed | cpu)\n' program build refs B/ref packed "cpu ms/M refs"
for p in "${programs[@]}"; do
  for c in "$@"; do
    k=$p/${c%%=*}
    printf '%-6s %-8s %10s %8s %8s %14s   (%s |%s |%s)\n' "$p" "${c%%=*}" "$(med "${row[$k/refs]}")" \
      "$(med "${row[$k/bytes]}")" "$(med "${row[$k/packed]}")" "$(med "${row[$k/cpu]}")" \
      "${row[$k/bytes]# }" "${row[$k/packed]}" "${row[$k/cpu]}"
  done
done
