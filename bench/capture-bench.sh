#!/usr/bin/env bash
# capture-bench.sh: what one trapped reference costs, against the bare userfaultfd handoff
# measured in the same run. No timing is asserted anywhere; these numbers are for BENCHMARKS.md.
#
# Rows (median of RUNS runs, the programs alternating native / traced):
#   bare pinned   bench/native/bare_handoff, handler and faulting thread pinned to one CPU: the
#                 floor of a userfaultfd handoff on this machine (fault, move the oldest page
#                 out, move the faulting page back, wake)
#   bare free     the same, the scheduler placing both threads
#   agent_loop    the bare handoff's loop traced by the real agent and recorder (EVMS = window)
#   programs      the demo, sort --parallel=2, xz -T2 and a 3-thread JVM program, each traced
#                 with the default EVMS; cost per trapped reference = (traced wall time -
#                 native wall time) / trapped references, wall time of the program itself
#                 (/usr/bin/time inside the recording, so the recorder's start-up is not counted)
# Every agent row is measured for each handler placement: percpu (FAULTLINE_HANDLERS=percpu: a
# fault thread per CPU, opt-in) and single (the default: one handler thread).
#
#   bench/capture-bench.sh [runs=3] [scale=1]     (scale multiplies the programs' input sizes)
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc, xz, sort, java.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
scale=${2:-1}
refs=200000
window=16
bench_need_jar
bench_tmp

bench_cc bare_handoff "$here/native/bare_handoff.c"
bench_cc agent_loop "$here/native/agent_loop.c"
programs=(demo sort xz jvm)
workloads "${programs[@]}"

wall() { awk '{print $1}' "$1"; }   # /usr/bin/time -f %e output

declare -A bare agent native traced trefs
for placement in percpu single; do agent[$placement]=""; done
echo "capture-bench: runs=$runs scale=$scale, $(machine)"
for ((i = 1; i <= runs; i++)); do
  bare[pinned]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" same | ns)"
  bare[free]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" free | ns)"
  for placement in percpu single; do
    rm -rf "$out/trace"
    agent[$placement]+=" $(FAULTLINE_HANDLERS=$placement timeout 600 "$root/faultline" record -q --scope api \
        --evms "$window" -o "$out/trace" -- "$out/agent_loop" "$refs" "$window" free | ns)"
  done
  for p in "${programs[@]}"; do
    cmd=$(command_of "$p")
    /usr/bin/time -f %e -o "$out/time" $cmd > /dev/null 2>&1
    native[$p]+=" $(wall "$out/time")"
    for placement in percpu single; do
      rm -rf "$out/trace"
      FAULTLINE_HANDLERS=$placement timeout 1800 "$root/faultline" record -q -o "$out/trace" -- \
        /usr/bin/time -f %e -o "$out/time" $cmd > /dev/null 2> "$out/summary"
      traced[$p.$placement]+=" $(wall "$out/time")"
      trefs[$p.$placement]+=" $(references "$out/trace")"
    done
  done
done

mp=$(printf '%s\n' ${bare[pinned]} | median)
mf=$(printf '%s\n' ${bare[free]} | median)
printf '\n%-34s %12s %10s   %s\n' "row" "ns/ref" "/ pinned" "runs"
printf '%-34s %12s %10s   %s\n' "bare handoff, pinned" "$mp" "1.00" "${bare[pinned]}"
printf '%-34s %12s %10s   %s\n' "bare handoff, free" "$mf" "$(awk -v a="$mf" -v b="$mp" 'BEGIN{printf "%.2f", a/b}')" "${bare[free]}"
for placement in percpu single; do
  m=$(printf '%s\n' ${agent[$placement]} | median)
  printf '%-34s %12s %10s   %s\n' "agent_loop, $placement" "$m" "$(awk -v a="$m" -v b="$mp" 'BEGIN{printf "%.2f", a/b}')" "${agent[$placement]}"
done
for p in "${programs[@]}"; do
  mn=$(printf '%s\n' ${native[$p]} | median)
  for placement in percpu single; do
    mt=$(printf '%s\n' ${traced[$p.$placement]} | median)
    mr=$(printf '%s\n' ${trefs[$p.$placement]} | median)
    per=$(awk -v t="$mt" -v n="$mn" -v r="$mr" 'BEGIN{printf "%.0f", (t - n) * 1e9 / r}')
    printf '%-34s %12s %10s   native %ss, traced %ss, %s refs\n' "$p, $placement" "$per" \
      "$(awk -v a="$per" -v b="$mp" 'BEGIN{printf "%.2f", a/b}')" "$mn" "$mt" "$mr"
  done
done
