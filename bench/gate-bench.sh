#!/usr/bin/env bash
# gate-bench.sh: what the system-call gate costs (issue 27; BENCHMARKS.md, "System-call gate"),
# all in one run:
#   1. the two mechanisms a thread can see its own system calls with: Syscall User Dispatch and
#      seccomp SECCOMP_RET_TRAP (bench/native/gate_probe.c: a trapped call re-issued by a
#      SIGSYS handler, a call a seccomp filter lets through, a plain call; and whether dispatch
#      survives pthread_create, fork and exec);
#   2. one system call under faultline (bench/native/gate_cost.c: getppid, a 4 KiB pread into a
#      resident heap buffer, a futex wake with no waiter): natively, and traced under each
#      in-thread engine with the gate and with FAULTLINE_GATE=off (the libc interposition, touch.c,
#      that the gate replaced: its pread wrapper touches the buffer; getppid and futex have none);
#   3. kernel events (issue 27 item 3): the same calls traced under every engine, uffd too, with
#      the kernel events on (the default: the pread makes a read event, the other two none) and
#      off (record --no-kernel-events: under uffd the gate then does not arm at all);
#   4. real programs, wall seconds of one run each: the demo and sort --parallel=2 -S 8M of 4.3 MB,
#      natively, under uffd with the kernel events on and off, and under each in-thread engine
#      with the gate on (events on, and off) and off.
# No timing is asserted anywhere; figures for BENCHMARKS.md.
#
#   bench/gate-bench.sh [calls=20000] [events]   (events: sections 3 and 4 only)
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
calls=${1:-20000}
only=${2:-all}
bench_need_jar
bench_tmp
bench_cc gate_probe "$here/native/gate_probe.c"
bench_cc gate_cost "$here/native/gate_cost.c"

echo "machine: $(machine)"
if [ "$only" != events ]; then
echo "== dispatch against seccomp (gate_probe $((calls * 10)))"
"$out/gate_probe" $((calls * 10))
echo "== one call (gate_cost $calls)"
echo "-- native"
"$out/gate_cost" "$calls"
for engine in sigbus mprotect; do
  for gate in on off; do
    echo "-- $engine, gate $gate"
    FAULTLINE_GATE=$gate "$root/faultline" record -q --force --engine "$engine" -o "$out/t" -- "$out/gate_cost" "$calls"
  done
done
fi
echo "== kernel events (gate_cost $calls)"
echo "-- native"
"$out/gate_cost" "$calls"
for engine in uffd sigbus mprotect; do
  for events in on off; do
    echo "-- $engine, kernel events $events"
    "$root/faultline" record -q --force --engine "$engine" $([ "$events" = off ] && echo --no-kernel-events) \
      -o "$out/t" -- "$out/gate_cost" "$calls"
  done
done
echo "== real programs (wall seconds, one run each)"
sort_input
run_real() {
  local label=$1; shift
  echo "$label native $(walltime "$@")"
  for engine in uffd sigbus mprotect; do
    echo "$label $engine events on $(walltime "$root/faultline" record -q --force --engine "$engine" -o "$out/t" -- "$@")"
    echo "$label $engine events off $(walltime "$root/faultline" record -q --force --engine "$engine" --no-kernel-events -o "$out/t" -- "$@")"
    if [ "$engine" != uffd ]; then
      echo "$label $engine gate off $(FAULTLINE_GATE=off walltime "$root/faultline" record -q --force --engine "$engine" -o "$out/t" -- "$@")"
    fi
  done
}
run_real demo "$demo"
run_real sort sort --parallel=2 -S 8M "$out/in.txt"
echo "machine after: $(machine)"
