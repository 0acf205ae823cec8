#!/usr/bin/env bash
# checkout-ab.sh [runs=7] NAME=CHECKOUT NAME=CHECKOUT: what one trapped reference costs under two
# checkouts of faultline (each built: mvn -q package -DskipTests), alternating within each run,
# with the bare userfaultfd handoff pinned to one CPU measured in the same run as the floor. A
# whole checkout, recorder and agent, not an agent alone (capture-bench.sh's AGENTS=): builds
# whose shared-memory layouts differ (FL_SHM_VERSION) cannot share a recorder.
#
# Rows: agent_loop (bench/native) under `record --scope api --evms 16`, 100,000 references,
# window 16, for each engine and checkout; ns per reference, median and every run.
#   bench/checkout-ab.sh 7 before=/tmp/before after=.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=7
if [[ ${1:-} =~ ^[0-9]+$ ]]; then runs=$1; shift; fi
bench_two_checkouts "$@"
bench_tmp
bench_cc bare_handoff "$here/native/bare_handoff.c"
bench_cc agent_loop "$here/native/agent_loop.c"
refs=100000
window=16
declare -A row
echo "$bench_name: runs=$runs, $refs references, window $window, $(machine)"
for ((i = 1; i <= runs; i++)); do
  row[bare]+=" $(timeout 300 "$out/bare_handoff" "$refs" "$window" same | ns)"
  for engine in uffd mprotect; do
    for c in "$@"; do
      rm -rf "$out/trace"
      row[$engine/${c%%=*}]+=" $(timeout 600 "${c#*=}/faultline" record -q --engine "$engine" --scope api \
          --evms "$window" -o "$out/trace" -- "$out/agent_loop" "$refs" "$window" free | ns)"
    done
  done
done
show() { printf '%-28s %8s ns  (%s)\n' "$1" "$(tr ' ' '\n' <<< "$2" | grep . | median)" "${2# }"; }
show "bare handoff, pinned" "${row[bare]}"
for engine in uffd mprotect; do
  for c in "$@"; do show "$engine, ${c%%=*}" "${row[$engine/${c%%=*}]}"; done
done
