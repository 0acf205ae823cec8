#!/usr/bin/env bash
# capture-bench.sh: the agent's cost per trapped reference against the bare userfaultfd handoff
# (fault, move back, move out), same machine, same run. Builds bench/native/*.c and the agent,
# runs bare_handoff and agent_loop alternately RUNS times for each placement (handler on the
# faulting thread's CPU, and free placement), prints the median ns/reference and the ratio.
# No timing is asserted: the numbers are for the report.
#
#   bench/capture-bench.sh [refs=200000] [window=16] [runs=3]
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/.." && pwd)
refs=${1:-200000}
window=${2:-16}
runs=${3:-3}
out=$(mktemp -d /tmp/capture-bench.XXXXXX)
trap 'rm -rf "$out"' EXIT

make -s -C "$root/native-shims" OUT="$out/agent" all
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/bare_handoff" "$here/native/bare_handoff.c"
gcc -O2 -Wall -Wextra -Werror -pthread -I"$root/native-shims/include" -o "$out/agent_loop" "$here/native/agent_loop.c"

ns() { sed -n 's/.*ns_per_ref=\([0-9]*\).*/\1/p'; }
median() { sort -n | awk '{a[NR]=$1} END {print a[int((NR+1)/2)]}'; }

echo "refs=$refs window=$window runs=$runs (bare_handoff and agent_loop alternate)"
for placement in same free; do
  bare=() agent=()
  for ((i = 1; i <= runs; i++)); do
    bare+=("$(timeout 120 "$out/bare_handoff" "$refs" "$window" "$placement" | ns)")
    if [[ $placement == same ]]; then
      agent+=("$(FAULTLINE_HANDLER_CPU=0 timeout 120 "$out/agent/shmcat" -q -e "$window" -s api -o /dev/null -- \
                 "$out/agent_loop" "$refs" "$window" same | ns)")
    else
      agent+=("$(timeout 120 "$out/agent/shmcat" -q -e "$window" -s api -o /dev/null -- \
                 "$out/agent_loop" "$refs" "$window" free | ns)")
    fi
  done
  mb=$(printf '%s\n' "${bare[@]}" | median)
  ma=$(printf '%s\n' "${agent[@]}" | median)
  ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}')
  echo "placement=$placement bare_handoff: ${bare[*]} ns/ref (median $mb)  agent: ${agent[*]} ns/ref (median $ma)  agent/bare=$ratio"
done

# The same loop under the real recorder (Java logger draining into a Chronicle Queue), free
# placement, against bare_handoff measured again in this run.
if [[ -f "$root/tools/target/faultline.jar" ]]; then
  bare=() agent=()
  for ((i = 1; i <= runs; i++)); do
    bare+=("$(timeout 120 "$out/bare_handoff" "$refs" "$window" free | ns)")
    rm -rf "$out/trace"
    agent+=("$(FAULTLINE_AGENT="$out/agent/libfaultline.so" timeout 300 "$root/faultline" record -q --scope api \
               --evms "$window" -o "$out/trace" -- "$out/agent_loop" "$refs" "$window" free | ns)")
  done
  mb=$(printf '%s\n' "${bare[@]}" | median)
  ma=$(printf '%s\n' "${agent[@]}" | median)
  ratio=$(awk -v a="$ma" -v b="$mb" 'BEGIN {printf "%.3f", a / b}')
  echo "placement=free (faultline record) bare_handoff: ${bare[*]} ns/ref (median $mb)  agent: ${agent[*]} ns/ref (median $ma)  agent/bare=$ratio"
else
  echo "(build the jar with mvn -q package -DskipTests to also measure under faultline record)"
fi
