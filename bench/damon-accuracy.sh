#!/usr/bin/env bash
# damon-accuracy.sh: DAMON's accuracy against complete traces, the figures of BENCHMARKS.md
# ("DAMON's accuracy against a complete trace"). Each workload is recorded with a 16-page EVMS
# (nearly every reference trapped), monitored with the trace operations set (faultline monitor
# --from-trace, default attributes, seed 1), and DAMON's regions compared with the exact
# per-page counts of the same trace (faultline report accuracy); then the working set size
# percentiles of the monitoring record and of the trace; then DAMON run over the same trace with
# each attribute choice of CHOICES (faultline report accuracy --attrs): intervals, region bounds
# and the kernel's intervals auto-tuning, the best working set error last.
#
#   phases    bench/workloads/damon_phases.c: three 2 MiB areas hot one after the other
#   hotcold   bench/workloads/damon_hotcold.c: a 256 KiB hot set inside a 64 MiB cold area
#   sort      GNU sort of 200,000 shuffled lines
#
#   bench/damon-accuracy.sh [OUT_DIR]      (keeps the traces and records in OUT_DIR)
# Needs: mvn -q package -DskipTests first (the launcher's jar), gcc, sort, shuf.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
fl="$root/faultline"
bench_need_jar
out=${1:-$(mktemp -d /tmp/damon-accuracy.XXXXXX)}
mkdir -p "$out"

bench_cc damon_phases "$here/workloads/damon_phases.c"
bench_cc damon_hotcold "$here/workloads/damon_hotcold.c"
seq 1 200000 | shuf --random-source=<(yes) > "$out/sort-in.txt"

# sampling and aggregation intervals (20 samples per aggregation, and 200), region bounds, tuning goals
CHOICES=(default sample=1ms,aggr=20ms sample=20ms,aggr=400ms sample=5ms,aggr=1s sample=1ms,aggr=100ms
    regions=100-1000 regions=10-10000 sample=1ms,aggr=20ms,regions=100-10000 sample=20ms,aggr=400ms,regions=100-10000
    goal=recommended goal=4%:3:1ms:10s goal=10%:3:1ms:10s goal=1%:3:1ms:10s goal=recommended,regions=100-10000)

measure() {
    local name=$1; shift
    rm -rf "$out/$name-trace" "$out/$name-rec"
    "$fl" record -q --evms 16 -o "$out/$name-trace" -- "$@" > /dev/null
    echo "== $name: $*"
    "$fl" info "$out/$name-trace" | grep -E '^(duration|references|distinct pages)'
    "$fl" monitor --from-trace "$out/$name-trace" -o "$out/$name-rec" --seed 1
    "$fl" report accuracy --monitor "$out/$name-rec" --truth "$out/$name-trace"
    paste -d, <("$fl" report wss "$out/$name-rec") <("$fl" report wss "$out/$name-trace" | cut -d, -f2) \
        | sed '1s/.*/percentile,damon_wss_bytes,exact_wss_bytes/'
    local attrs=()
    for c in "${CHOICES[@]}"; do attrs+=(--attrs "$c"); done
    "$fl" report accuracy --truth "$out/$name-trace" --seed 1 --csv "$out/$name-choices.csv" "${attrs[@]}"
}

measure phases "$out/damon_phases" 512 60
measure hotcold "$out/damon_hotcold" 16384 64 1000
measure sort /usr/bin/sort -o "$out/sort-out.txt" "$out/sort-in.txt"
