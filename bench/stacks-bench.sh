#!/usr/bin/env bash
# stacks-bench.sh: what record --stacks N costs per trapped reference (issue 29, call sites),
# under the in-thread engines: bench/native/stack_loop (every touch traps, scope api, EVMS 16)
# at the bottom of DEPTH nested frame-pointer calls, recorded without --stacks and with
# --stacks 8 and --stacks 64 (64 walks DEPTH + 2 frames), median of RUNS runs. No timing is
# asserted anywhere; these numbers are for BENCHMARKS.md, measured on a quiet machine.
#
#   bench/stacks-bench.sh [runs=5] [refs=200000] [depth=30]
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-5}
refs=${2:-200000}
depth=${3:-30}
window=16
bench_need_jar
bench_tmp
gcc -O2 -Wall -Wextra -Werror -fno-omit-frame-pointer -I"$root/native-shims/include" -o "$out/stack_loop" \
  "$here/native/stack_loop.c"

echo "stacks-bench: runs=$runs refs=$refs depth=$depth window=$window, $(machine)"
# the configurations alternate within each run, so that a change of load falls on all alike
declare -A v
configs=(sigbus/none sigbus/8 sigbus/64 mprotect/none mprotect/8 mprotect/64)
for ((i = 1; i <= runs; i++)); do
  for c in "${configs[@]}"; do
    e=${c%/*} s=${c#*/}
    args=()
    [[ $s == none ]] || args=(--stacks "$s")
    rm -rf "$out/trace"
    v[$c]+=" $(timeout 600 "$root/faultline" record -q --engine "$e" --scope api --evms "$window" "${args[@]}" \
      -o "$out/trace" -- "$out/stack_loop" "$refs" "$window" "$depth" | ns)"
  done
done
printf '%-9s %-7s %8s %8s   %s\n' engine stacks "ns/ref" "+stack" "runs"
for c in "${configs[@]}"; do
  m=$(tr ' ' '\n' <<< "${v[$c]}" | grep . | median)
  base=$(tr ' ' '\n' <<< "${v[${c%/*}/none]}" | grep . | median)
  printf '%-9s %-7s %8s %8s  %s\n' "${c%/*}" "${c#*/}" "$m" "$((m - base))" "${v[$c]}"
done
echo "end: $(machine)"
