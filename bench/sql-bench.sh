#!/usr/bin/env bash
# sql-bench.sh [rounds=3] [references=10000000] [TRACE]: how fast faultline export --to parquet
# and faultline sql go on a large trace (issue 44): TRACE, else a synthetic one of REFERENCES
# references (io.faultline.bench.SyntheticTrace: one process, four threads, three named
# mappings, an eviction record every second reference). Each round, alternating:
#   export   export --to parquet's own "in T s" (open, read, load, write nine zstd Parquet
#            files) and the command's wall time, and references/s of each
#   csv      dump --format csv > /dev/null, wall time: the text way out, for the ratio
#   sql      sql --timer with three statements from stdin: its "Loaded ... in T s" (the first
#            query's cost: everything a later query needs is built then), then a group-by over
#            every reference, by thread with distinct pages, and one by mapping, each "Query took T s"
# Prints every round and the medians. The 2-core VM is shared: say the load (printed) with any
# figure taken from here.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
rounds=3
if [[ ${1:-} =~ ^[0-9]+$ ]]; then rounds=$1; shift; fi
references=10000000
if [[ ${1:-} =~ ^[0-9]+$ ]]; then references=$1; shift; fi
bench_need_jar
[[ -f $root/bench/target/benchmarks.jar ]] \
  || { echo "$bench_name: build the benchmarks first: mvn -q package -DskipTests" >&2; exit 2; }
bench_tmp
if [[ $# -gt 0 ]]; then
  trace=$1
else
  trace=$out/synthetic
  flags="@$root/trace-format/src/main/resources/io/faultline/format/jvm.flags" # the one list (the launcher's)
  # shellcheck disable=SC2086
  java $flags -cp "$root/bench/target/benchmarks.jar" io.faultline.bench.SyntheticTrace "$trace" "$references" >&2
fi
refs=$(references "$trace")
echo "$bench_name: $trace, $refs references, rounds=$rounds, $(machine)"
queries="SELECT tid, count(*) AS refs, count(DISTINCT page) AS pages FROM refs GROUP BY tid ORDER BY tid;
SELECT mapping_id, count(*) AS refs, count(*) FILTER (write) AS writes FROM refs GROUP BY mapping_id;"
rate() { awk -v r="$refs" -v t="$1" 'BEGIN{printf "%.2f", r / t / 1e6}'; }
: > "$out/export.txt"; : > "$out/wall.txt"; : > "$out/csv.txt"; : > "$out/load.txt"; : > "$out/q1.txt"; : > "$out/q2.txt"
for ((i = 1; i <= rounds; i++)); do
  rm -rf "$out/parquet"
  start=$(date +%s.%N)
  line=$("$root/faultline" export --to parquet -o "$out/parquet" "$trace" 2>&1 >/dev/null | tail -1)
  wall=$(awk -v s="$start" -v e="$(date +%s.%N)" 'BEGIN{printf "%.3f", e - s}')
  t=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' <<<"$line")
  echo "$t" >> "$out/export.txt"; echo "$wall" >> "$out/wall.txt"
  csv=$(walltime "$root/faultline" dump --format csv "$trace")
  echo "$csv" >> "$out/csv.txt"
  timed=$("$root/faultline" sql --timer "$trace" <<<"$queries" 2>&1 >/dev/null)
  load=$(sed -n 's/^Loaded .* in \([0-9.]*\) s$/\1/p' <<<"$timed")
  q1=$(sed -n 's/^Query took \([0-9.]*\) s$/\1/p' <<<"$timed" | sed -n 1p)
  q2=$(sed -n 's/^Query took \([0-9.]*\) s$/\1/p' <<<"$timed" | sed -n 2p)
  echo "$load" >> "$out/load.txt"; echo "$q1" >> "$out/q1.txt"; echo "$q2" >> "$out/q2.txt"
  echo "round $i: export $t s ($(rate "$t") M refs/s; command $wall s, $(rate "$wall") M refs/s), dump csv $csv s,"\
    "sql load $load s ($(rate "$load") M refs/s), group-by thread $q1 s, group-by mapping $q2 s"
done
m() { median < "$out/$1.txt"; }
echo "median: export $(m export) s ($(rate "$(m export)") M refs/s; command $(m wall) s, $(rate "$(m wall)") M refs/s),"\
  "dump csv $(m csv) s (export/csv $(ratio "$(m wall)" "$(m csv)")), sql load $(m load) s ($(rate "$(m load)") M refs/s),"\
  "group-by thread $(m q1) s, group-by mapping $(m q2) s; $(machine)"
du -sh "$out/parquet" | awk '{print "parquet files: " $1}'
