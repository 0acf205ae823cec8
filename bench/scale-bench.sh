#!/usr/bin/env bash
# scale-bench.sh: what one trapped reference costs as threads are added (issue 38), under each
# engine, against the floor of its own mechanism at the same number of threads, measured in the
# same run. No timing is asserted anywhere; these figures are for BENCHMARKS.md.
#
#   bench/scale-bench.sh [runs=3] [refs=200000] [THREADS...]
# THREADS: the thread counts to measure, by default 1 2 4 8 16 up to the machine's CPUs.
# Environment: ENGINES (default "sigbus mprotect uffd"; uffd needs /dev/userfaultfd or root; uffd/percpu
# and uffd/single name the userfaultfd engine's fault handling, FAULTLINE_HANDLERS),
# EVMS (default 1024), BEFORE=PATH a second built checkout whose sigbus and uffd rows are measured
# alternately with this one's (the same workload; each checkout its own recorder and agent).
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc.
#
# Each run, for each N, alternating:
#   floor         bench/native/scale_floor MODE N: N threads, each with its own 16 MiB area and its
#                 own FIFO window of EVMS/N pages, 9 references in 10 to a hot set of 2,048 pages;
#                 every reference outside the window faults and the thread resolves it itself,
#                 no agent, no records: sigbus (its SIGBUS handler moves the oldest page out and
#                 the faulting one home with UFFDIO_MOVE), mprotect (its SIGSEGV handler, with
#                 mprotect), handoff (a userfaultfd and a handler thread per thread, which moves
#                 the pages and wakes it). Wall time over every thread's faults.
#   ENGINE        bench/native/scale_work N, the same pattern in an ordinary program, natively and
#                 under `faultline record --engine ENGINE --evms EVMS` (the EVMS shared by the
#                 threads, as the floor's windows are): (traced phase - native phase) over the
#                 references of the phase, which are the trace's references less those of the same
#                 program run with no references (its areas' first touches, start-up, exit).
#                 The phase is the program's own wall time between all threads ready and all done.
# Each row prints the median of the runs in microseconds, its ratio to its floor at the same N
# (sigbus and mprotect to their own floors, uffd to the handoff floor), and the ring waits of the
# last run's trace (the recorder keeping up: 0 is the goal).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=3
refs=200000
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
if [[ ${1:-} =~ ^[0-9]+$ ]]; then refs=$1; shift; fi
threads=("$@")
if [[ ${#threads[@]} -eq 0 ]]; then
  for n in 1 2 4 8 16; do [[ $n -le $(nproc) ]] && threads+=("$n"); done
fi
read -ra engines <<< "${ENGINES:-sigbus mprotect uffd}"
evms=${EVMS:-1024}
before=${BEFORE:-}
[[ -n $before ]] && bench_built_checkout "$before" "BEFORE=$before"
bench_need_jar
bench_tmp
bench_cc scale_floor "$here/native/scale_floor.c"
bench_cc scale_work "$here/native/scale_work.c"

floor_of() { case $1 in sigbus) echo sigbus ;; mprotect) echo mprotect ;; *) echo handoff ;; esac; }
phase() { sed -n 's/.*phase_ns=\([0-9]*\).*/\1/p'; }
per_fault() { sed -n 's/.*ns_per_fault=\([0-9]*\).*/\1/p'; }
refs_of() { "$1/faultline" info "$2" | sed -n 's/^references *\([0-9,]*\).*/\1/p' | tr -d ,; }
waits_of() { "$1/faultline" info "$2" | sed -n 's/^ring waits *\([0-9,]*\).*/\1/p' | tr -d ,; }

# checkouts: this one, and BEFORE's
checkouts=("now=$root")
[[ -n $before ]] && checkouts+=("before=$before")

declare -A floor native traced base waits
echo "$bench_name: runs=$runs, $refs references a thread, evms $evms, threads ${threads[*]}, $(machine)"
for ((i = 1; i <= runs; i++)); do
  for n in "${threads[@]}"; do
    for m in sigbus mprotect handoff; do
      floor[$m.$n]+=" $(timeout 600 "$out/scale_floor" "$m" "$n" "$refs" "$evms" | per_fault)"
    done
    native[$n]+=" $(timeout 600 "$out/scale_work" "$n" "$refs" | phase)"
    for e in "${engines[@]}"; do
      for c in "${checkouts[@]}"; do
        name=${c%%=*} dir=${c#*=}
        [[ $name == before && $e == mprotect ]] && continue
        key=$e.$name.$n
        rm -rf "$out/trace" "$out/base"
        eng=${e%%/*} handlers=
        [[ $e == */* ]] && handlers=${e#*/}
        traced[$key]+=" $(FAULTLINE_HANDLERS=$handlers timeout 1200 "$dir/faultline" record -q --engine "$eng" \
          --evms "$evms" -o "$out/trace" -- "$out/scale_work" "$n" "$refs" | phase)"
        FAULTLINE_HANDLERS=$handlers timeout 600 "$dir/faultline" record -q --engine "$eng" --evms "$evms" \
          -o "$out/base" -- "$out/scale_work" "$n" 0 > /dev/null
        base[$key]+=" $(( $(refs_of "$dir" "$out/trace") - $(refs_of "$dir" "$out/base") ))"
        waits[$key]=$(waits_of "$dir" "$out/trace")
      done
    done
  done
done

med() { tr ' ' '\n' <<< "$1" | grep . | median; }
us() { awk -v ns="$1" 'BEGIN{printf "%.1f", ns / 1000}'; }
printf '\n%-8s %-18s %10s %10s %8s %11s   %s\n' threads row "us/ref" "floor us" "ratio" "ring waits" "runs (ns/ref)"
for n in "${threads[@]}"; do
  for e in "${engines[@]}"; do
    f=$(med "${floor[$(floor_of "$e").$n]}")
    for c in "${checkouts[@]}"; do
      name=${c%%=*}
      key=$e.$name.$n
      [[ -n ${traced[$key]:-} ]] || continue
      all=()
      read -ra t <<< "${traced[$key]}"
      read -ra nat <<< "${native[$n]}"
      read -ra r <<< "${base[$key]}"
      for ((k = 0; k < ${#t[@]}; k++)); do
        all+=("$(awk -v t="${t[$k]}" -v b="${nat[$k]}" -v r="${r[$k]}" 'BEGIN{printf "%.0f", (t - b) / r}')")
      done
      m=$(printf '%s\n' "${all[@]}" | median)
      label=$e; [[ ${#checkouts[@]} -gt 1 ]] && label="$e, $name"
      printf '%-8s %-18s %10s %10s %8s %11s   %s\n' "$n" "$label" "$(us "$m")" "$(us "$f")" "$(ratio "$m" "$f")" \
        "${waits[$key]}" "${all[*]}"
    done
  done
  for m in sigbus mprotect handoff; do
    printf '%-8s %-18s %10s %10s %8s %11s   %s\n' "$n" "floor $m" "$(us "$(med "${floor[$m.$n]}")")" "" "" "" "${floor[$m.$n]# }"
  done
done
