#!/usr/bin/env bash
# read-bench.sh [rounds=7] [scale=4] [TRACE...]: how fast simulate, mrc, sweep and record --live
# read a faultline trace, against the same references in libCacheSim's oracleGeneral (24-byte
# records; faultline export --to lcs-oracle), in one run (issue 39).
#
# The traces: those given, else the demo, sort --parallel=2, xz -T2 and the JVM program (lib.sh's
# workloads, scale multiplying the inputs) recorded here. For each, in one JVM
# (io.faultline.bench.TraceReadSpeed), ROUNDS reads of the faultline trace and of its
# oracleGeneral export alternating, into the keys simulate, mrc and sweep replay, and ROUNDS
# replays of its references by record --live's replay thread; per input the median of the warm
# reads' CPU (one core) and wall time, and the first, cold one. Then the commands themselves,
# cold as a user runs them: simulate's own "Read N references in T s" line for each format,
# alternating, ROUNDS times.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=7
if [[ ${1:-} =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
scale=4
if [[ ${1:-} =~ ^[0-9]+$ ]]; then scale=$1; shift; fi
bench_need_jar
[[ -f $root/bench/target/benchmarks.jar ]] \
  || { echo "$bench_name: build the benchmarks first: mvn -q package -DskipTests" >&2; exit 2; }
bench_tmp
traces=("$@")
if [[ ${#traces[@]} -eq 0 ]]; then
  programs=(demo sort xz jvm)
  workloads "${programs[@]}"
  for p in "${programs[@]}"; do
    # shellcheck disable=SC2046
    "$root/faultline" record -q -o "$out/$p" -- $(command_of "$p") > /dev/null 2>&1
    traces+=("$out/$p")
  done
fi
flags="@$root/trace-format/src/main/resources/io/faultline/format/jvm.flags" # the one list (the launcher's)
echo "$bench_name: rounds=$rounds, $(machine)"
inputs=()
for t in "${traces[@]}"; do
  "$root/faultline" export --to lcs-oracle -o "$t.oracle" "$t" > /dev/null 2>&1
  inputs+=("faultline=$t" "lcs-oracle=$t.oracle" "live=$t")
done
# shellcheck disable=SC2086
java $flags -cp "$root/bench/target/benchmarks.jar" io.faultline.bench.TraceReadSpeed "$rounds" "${inputs[@]}" \
  | sed -n '/^$/,$p'
echo
echo "cold, as simulate reads (its Reading line), median of $rounds:"
for t in "${traces[@]}"; do
  declare -A cold=()
  for ((i = 1; i <= rounds; i++)); do
    for f in faultline lcs-oracle; do
      input=$t; [[ $f == lcs-oracle ]] && input=$t.oracle
      line=$("$root/faultline" simulate --format "$f" --policies lru --sizes 64 "$input" 2>&1 >/dev/null | grep '^Read ')
      cold[$f]+=" $(awk '{gsub(",", "", $2); printf "%.2f", $2 / $(NF - 1) / 1e6}' <<< "$line")"
    done
  done
  for f in faultline lcs-oracle; do
    printf '%-40s %-11s %6s M references/s   (%s)\n' "$(basename "$t")" "$f" "$(tr ' ' '\n' <<< "${cold[$f]}" | grep . | median)" "${cold[$f]# }"
  done
done
