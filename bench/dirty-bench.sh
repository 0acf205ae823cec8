#!/usr/bin/env bash
# dirty-bench.sh [runs=3]: what dirty tracking costs (BENCHMARKS.md, "Dirty tracking without
# write faults", issue 31). Wall seconds of two programs recorded three ways, each round running
# the three one after the other so that the machine's load falls on all of them alike:
#   sync      dirty tracking by a write-protect fault per first write (FAULTLINE_TEST_NO_WP_ASYNC=1:
#             the path of a kernel without UFFD_FEATURE_WP_ASYNC, and of every agent before issue 31)
#   async     dirty tracking by asynchronous write-protect and PAGEMAP_SCAN at eviction (the default)
#   no-dirty  record --no-dirty: no write-protection at all
# The programs: sh -c 'xz -T2 --block-size=1MiB -c F | od -An -tx1 | sha256sum' on 540 KB of
# base64 text (BENCHMARKS.md, "EVMS policies"), and sort --parallel=2 -S 8M of 4 MB (lib.sh).
# Then bench/native/wp_async_probe.c: a write-protect fault against an asynchronous write.
#   ENGINE=sigbus bench/dirty-bench.sh 3     (default: record's choice, uffd for root)
set -euo pipefail
. "$(dirname "$0")/lib.sh"
runs=${1:-3}
bench_need_jar
bench_tmp
scale=1
workloads sort
head -c 400000 /dev/urandom | base64 > "$out/xz.txt"
engine=()
[[ -n "${ENGINE:-}" ]] && engine=(--engine "$ENGINE")
xz_cmd=(sh -c "xz -T2 --block-size=1MiB -c $out/xz.txt | od -An -tx1 | sha256sum")
read -r -a sort_cmd <<< "$(command_of sort)"
echo "$(machine) at the start; ${ENGINE:-default} engine, EVMS 512 fifo, $runs rounds"

declare -A times refs
record() { # config program command...
  local config=$1 program=$2; shift 2
  local env=() args=()
  case $config in
    sync) env=(FAULTLINE_TEST_NO_WP_ASYNC=1) ;;
    no-dirty) args=(--no-dirty) ;;
  esac
  rm -rf "$out/t"
  local s=$EPOCHREALTIME
  env "${env[@]}" "$root/faultline" record -q "${engine[@]}" "${args[@]}" -o "$out/t" -- "$@" > /dev/null 2> "$out/err" \
    || { echo "record failed:"; cat "$out/err"; exit 1; }
  local e=$EPOCHREALTIME
  times[$config.$program]+="$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.2f", e - s}') "
  refs[$config.$program]+="$(references "$out/t") "
}
native() { # program command...
  local program=$1; shift
  times[native.$program]+="$(walltime "$@") "
}
for _ in $(seq "$runs"); do
  for program in xz sort; do
    if [[ $program == xz ]]; then cmd=("${xz_cmd[@]}"); else cmd=("${sort_cmd[@]}"); fi
    native "$program" "${cmd[@]}"
    for config in sync async no-dirty; do
      record "$config" "$program" "${cmd[@]}"
    done
  done
done
echo "load at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
for program in xz sort; do
  for config in native sync async no-dirty; do
    t=${times[$config.$program]}
    med=$(tr ' ' '\n' <<< "$t" | grep . | median)
    printf '%-5s %-9s %8s s median   (%s)' "$program" "$config" "$med" "${t% }"
    [[ $config != native ]] && printf '   references %s' "${refs[$config.$program]% }"
    echo
  done
done
bench_cc wpa "$here/native/wp_async_probe.c"
"$out/wpa" | grep -E 'us|written:'
