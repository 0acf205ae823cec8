#!/usr/bin/env bash
# engine-bench.sh: what one trapped reference costs under each engine (record --engine uffd and
# --engine mprotect), against the floors of both mechanisms measured in the same run. No timing
# is asserted anywhere; these numbers are for BENCHMARKS.md, measured on a quiet machine.
#
# Rows (median of RUNS runs):
#   bare handoff, pinned   bench/native/bare_handoff, handler and faulting thread on one CPU:
#                          the userfaultfd floor (fault, move the oldest out, move back, wake)
#   bare handoff, free     the same, the scheduler placing both threads
#   mprotect loop          bench/native/mprotect_loop: the thread's own SIGSEGV handler enables
#                          the page and disables the oldest (FIFO): the mprotect floor
#   agent_loop, ENGINE     the same access loop traced by the real agent and recorder (scope api,
#                          EVMS = window), for each engine
#   demo, ENGINE           the bundled demo traced with the default EVMS: (traced wall time -
#                          native wall time) / trapped references
#   jvm, ENGINE            the same for a multi-threaded JVM (bench/workloads/Workers.java: three
#                          pool threads, G1, -Xmx256m; the command of capture-bench.sh)
#
#   bench/engine-bench.sh [runs=3] [refs=200000]
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
refs=${2:-200000}
window=16
bench_need_jar
bench_tmp

bench_cc bare_handoff "$here/native/bare_handoff.c"
bench_cc mprotect_loop "$here/native/mprotect_loop.c"
bench_cc agent_loop "$here/native/agent_loop.c"
engines=(uffd mprotect)
programs=(demo jvm)
workloads jvm

declare -A row native traced trefs
echo "engine-bench: runs=$runs refs=$refs, $(machine)"
for ((i = 1; i <= runs; i++)); do
  row[pinned]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" same | ns)"
  row[free]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" free | ns)"
  row[loop]+=" $(timeout 300 "$out/mprotect_loop" "$refs" "$window" | ns)"
  for e in "${engines[@]}"; do
    rm -rf "$out/trace"
    row[agent.$e]+=" $(timeout 600 "$root/faultline" record -q --engine "$e" --scope api --evms "$window" \
      -o "$out/trace" -- "$out/agent_loop" "$refs" "$window" free | ns)"
  done
  for p in "${programs[@]}"; do
    read -ra cmd <<< "$(command_of "$p")"
    /usr/bin/time -f %e -o "$out/time" "${cmd[@]}" > /dev/null 2>&1
    native[$p]+=" $(cat "$out/time")"
    for e in "${engines[@]}"; do
      rm -rf "$out/trace"
      timeout 1800 "$root/faultline" record -q --engine "$e" -o "$out/trace" -- \
        /usr/bin/time -f %e -o "$out/time" "${cmd[@]}" > /dev/null 2>&1
      traced[$p.$e]+=" $(cat "$out/time")"
      trefs[$p.$e]+=" $(references "$out/trace")"
    done
  done
done

mp=$(printf '%s\n' ${row[pinned]} | median)
printf '\n%-28s %12s %10s   %s\n' "row" "ns/ref" "/ pinned" "runs"
for k in pinned free loop agent.uffd agent.mprotect; do
  case $k in
    pinned) name="bare handoff, pinned" ;; free) name="bare handoff, free" ;; loop) name="mprotect loop" ;;
    *) name="agent_loop, ${k#agent.}" ;;
  esac
  m=$(printf '%s\n' ${row[$k]} | median)
  printf '%-28s %12s %10s   %s\n' "$name" "$m" "$(ratio "$m" "$mp")" "${row[$k]}"
done
for p in "${programs[@]}"; do
  mn=$(printf '%s\n' ${native[$p]} | median)
  for e in "${engines[@]}"; do
    mt=$(printf '%s\n' ${traced[$p.$e]} | median)
    mr=$(printf '%s\n' ${trefs[$p.$e]} | median)
    per=$(per_ref "$mn" "$mt" "$mr")
    printf '%-28s %12s %10s   native %ss, traced %ss, %s refs\n' "$p, $e" "$per" "$(ratio "$per" "$mp")" "$mn" "$mt" "$mr"
  done
done
