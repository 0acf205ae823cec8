#!/usr/bin/env bash
# capture-bench.sh: what one trapped reference costs, against the bare userfaultfd handoff
# measured in the same run. No timing is asserted anywhere; these numbers are for BENCHMARKS.md.
#
# Rows (median of RUNS runs, the programs alternating native / traced):
#   bare pinned   bench/native/bare_handoff, handler and faulting thread pinned to one CPU: the
#                 floor of a userfaultfd handoff on this machine (fault, move the oldest page
#                 out, move the faulting page back, wake)
#   bare free     the same, the scheduler placing both threads
#   no handler    bench/native/placement_probe sigbus: no handler at all, each thread moves its
#                 own page home in its SIGBUS handler (UFFD_FEATURE_SIGBUS): one thread, and two
#                 threads as wall time per reference (the slower thread's time / 2), the floor of
#                 any mechanism that takes a page away per reference: with two threads on two
#                 CPUs every page taken away is a TLB shootdown to the other CPU
#   agent_loop    the bare handoff's loop traced by the real agent and recorder (EVMS = window)
#   programs      the demo, sort --parallel=2, xz -T2 and a 3-thread JVM program, each traced
#                 with the default EVMS; cost per trapped reference = (traced wall time -
#                 native wall time) / trapped references, wall time of the program itself
#                 (/usr/bin/time inside the recording, so the recorder's start-up is not counted)
# Every agent row is measured for each configuration: the userfaultfd engine with each handler
# placement, single (the default: one handler thread) and percpu (FAULTLINE_HANDLERS=percpu: a
# fault thread per CPU, opt-in), the sigbus engine (--engine sigbus: a user-mode userfaultfd,
# faults resolved on the faulting thread) and the mprotect engine (--engine mprotect: SIGSEGV on
# the faulting thread). "/ floor" divides by the no-handler row of the same number of threads:
# one thread for agent_loop and the demo, two for sort, xz and the JVM (two CPUs).
#
#   bench/capture-bench.sh [runs=3] [scale=1]     (scale multiplies the programs' input sizes)
#   CONFIGS="uffd/single mprotect" bench/capture-bench.sh ...   (only these configurations)
#   AGENTS="main=/tmp/main/libfaultline.so this=" bench/capture-bench.sh ...
#                     every agent row once per agent build (FAULTLINE_AGENT=path; an empty path is
#                     the launcher's own), alternating within each run: two builds of the agent
#                     compared in one run (these machines drift by 10 % between runs)
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
bench_cc placement_probe "$here/native/placement_probe.c"
programs=(demo sort xz jvm)
workloads "${programs[@]}"

wall() { awk '{print $1}' "$1"; }   # /usr/bin/time -f %e output

read -r -a plain <<< "${CONFIGS:-uffd/single uffd/percpu sigbus mprotect}"
read -r -a agent_builds <<< "${AGENTS:-}"
declare -A agent_path
configs=()
for c in "${plain[@]}"; do
  if [[ ${#agent_builds[@]} -eq 0 ]]; then configs+=("$c"); continue; fi
  for b in "${agent_builds[@]}"; do
    configs+=("$c@${b%%=*}")
    agent_path[$c@${b%%=*}]=${b#*=}
  done
done
# record's options and environment for a configuration (engine/handlers@agent build)
engine_of() { local c=${1%%@*}; echo "${c%%/*}"; }
handlers_of() { local c=${1%%@*}; [[ $c == */* ]] && echo "${c#*/}" || echo single; }
# FAULTLINE_AGENT=... for a configuration's agent build, or nothing (a path holds no spaces)
agent_env() { local p=${agent_path[$1]:-}; echo "${p:+FAULTLINE_AGENT=$p}"; }

declare -A bare agent native traced trefs
for c in "${configs[@]}"; do agent[$c]=""; done
echo "capture-bench: runs=$runs scale=$scale${AGENTS:+, agents: $AGENTS}, $(machine)"
for ((i = 1; i <= runs; i++)); do
  bare[pinned]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" same | ns)"
  bare[free]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" free | ns)"
  bare[sigbus1]+=" $(timeout 300 "$out/placement_probe" sigbus 1 "$refs" "$window" | ns)"
  # ns_per_ref=A,B: each thread's own; the two ran at once, so wall per reference is max / 2
  bare[sigbus2]+=" $(timeout 300 "$out/placement_probe" sigbus 2 "$refs" "$window" \
      | sed -n 's/.*ns_per_ref=\([0-9]*\),\([0-9]*\).*/\1 \2/p' | awk '{print int(($1 > $2 ? $1 : $2) / 2)}')"
  for c in "${configs[@]}"; do
    rm -rf "$out/trace"
    agent[$c]+=" $(env $(agent_env "$c") FAULTLINE_HANDLERS=$(handlers_of "$c") timeout 600 "$root/faultline" record -q \
        --engine "$(engine_of "$c")" --scope api --evms "$window" -o "$out/trace" -- \
        "$out/agent_loop" "$refs" "$window" free | ns)"
  done
  for p in "${programs[@]}"; do
    cmd=$(command_of "$p")
    /usr/bin/time -f %e -o "$out/time" $cmd > /dev/null 2>&1
    native[$p]+=" $(wall "$out/time")"
    for c in "${configs[@]}"; do
      rm -rf "$out/trace"
      env $(agent_env "$c") FAULTLINE_HANDLERS=$(handlers_of "$c") timeout 1800 "$root/faultline" record -q --engine "$(engine_of "$c")" \
        -o "$out/trace" -- /usr/bin/time -f %e -o "$out/time" $cmd > /dev/null 2> "$out/summary" \
        || { echo "$bench_name: $p under $c failed: $(tail -1 "$out/summary")" >&2; exit 1; }
      traced[$p.$c]+=" $(wall "$out/time")"
      trefs[$p.$c]+=" $(references "$out/trace")"
    done
  done
done

mp=$(printf '%s\n' ${bare[pinned]} | median)
mf=$(printf '%s\n' ${bare[free]} | median)
f1=$(printf '%s\n' ${bare[sigbus1]} | median)
f2=$(printf '%s\n' ${bare[sigbus2]} | median)
floor_of() { case $1 in demo|agent_loop) echo "$f1" ;; *) echo "$f2" ;; esac; }
printf '\n%-34s %12s %10s %9s   %s\n' "row" "ns/ref" "/ pinned" "/ floor" "runs"
printf '%-34s %12s %10s %9s   %s\n' "bare handoff, pinned" "$mp" "1.00" "" "${bare[pinned]}"
printf '%-34s %12s %10s %9s   %s\n' "bare handoff, free" "$mf" "$(ratio "$mf" "$mp")" "" "${bare[free]}"
for k in sigbus1 sigbus2; do
  m=$(printf '%s\n' ${bare[$k]} | median)
  printf '%-34s %12s %10s %9s   %s\n' "no handler, ${k#sigbus} thread(s), wall" "$m" "$(ratio "$m" "$mp")" "1.00" "${bare[$k]}"
done
for c in "${configs[@]}"; do
  m=$(printf '%s\n' ${agent[$c]} | median)
  printf '%-34s %12s %10s %9s   %s\n' "agent_loop, $c" "$m" "$(ratio "$m" "$mp")" "$(ratio "$m" "$f1")" "${agent[$c]}"
done
for p in "${programs[@]}"; do
  mn=$(printf '%s\n' ${native[$p]} | median)
  for c in "${configs[@]}"; do
    mt=$(printf '%s\n' ${traced[$p.$c]} | median)
    mr=$(printf '%s\n' ${trefs[$p.$c]} | median)
    per=$(per_ref "$mn" "$mt" "$mr")
    printf '%-34s %12s %10s %9s   native %ss, traced %ss, %s refs\n' "$p, $c" "$per" "$(ratio "$per" "$mp")" \
      "$(ratio "$per" "$(floor_of "$p")")" "$mn" "$mt" "$mr"
  done
done
