#!/usr/bin/env bash
# sql-bench.sh [rounds=3] [references=10000000] [--against NAME=CHECKOUT] [TRACE]: how fast
# faultline export --to parquet and faultline sql go on a large trace (issue 44): TRACE, else a
# synthetic one of REFERENCES references (io.faultline.bench.SyntheticTrace: one process, four
# threads, three named mappings, an eviction record every second reference). Each round,
# alternating:
#   export   export --to parquet's own "in T s" (open, read, write nine zstd Parquet files), the
#            command's wall time and CPU time (user + system), and references/s of each
#   against  with --against, the same export by another built checkout (mvn -q package
#            -DskipTests there), right after: its wall and CPU time, and this one's over it
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
against=
if [[ ${1:-} == --against ]]; then
  [[ ${2:-} == *=* ]] || { echo "$bench_name: --against takes NAME=CHECKOUT, e.g. before=/tmp/before" >&2; exit 2; }
  bench_built_checkout "${2#*=}" "${2%%=*}"
  against=$2; shift 2
fi
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
: > "$out/export.txt"; : > "$out/wall.txt"; : > "$out/cpu.txt"; : > "$out/awall.txt"; : > "$out/acpu.txt"; : > "$out/csv.txt"; : > "$out/load.txt"; : > "$out/q1.txt"; : > "$out/q2.txt"
# timed CHECKOUT: export --to parquet by CHECKOUT's launcher; sets wall and cpu (user + system, s) and line (its last)
timed() {
  rm -rf "$out/parquet"
  local TIMEFORMAT='%R %U %S' t
  t=$( { time "$1/faultline" export --to parquet -o "$out/parquet" "$trace" >/dev/null 2>"$out/export.err"; } 2>&1 )
  line=$(tail -1 "$out/export.err")
  wall=$(awk '{printf "%.3f", $1}' <<<"$t"); cpu=$(awk '{printf "%.3f", $2 + $3}' <<<"$t")
}
for ((i = 1; i <= rounds; i++)); do
  timed "$root"
  t=$(sed -n 's/.* in \([0-9.]*\) s$/\1/p' <<<"$line")
  echo "$t" >> "$out/export.txt"; echo "$wall" >> "$out/wall.txt"; echo "$cpu" >> "$out/cpu.txt"
  size=$(du -sh "$out/parquet" | cut -f1)
  report="round $i: export $t s ($(rate "$t") M refs/s; command $wall s, $(rate "$wall") M refs/s, CPU $cpu s)"
  if [[ -n $against ]]; then
    mine_wall=$wall mine_cpu=$cpu
    timed "${against#*=}"
    echo "$wall" >> "$out/awall.txt"; echo "$cpu" >> "$out/acpu.txt"
    report+=", ${against%%=*} command $wall s (CPU $cpu s): wall $(ratio "$wall" "$mine_wall") times, CPU $(ratio "$cpu" "$mine_cpu") times this one's"
  fi
  csv=$(walltime "$root/faultline" dump --format csv "$trace")
  echo "$csv" >> "$out/csv.txt"
  sqlout=$("$root/faultline" sql --timer "$trace" <<<"$queries" 2>&1 >/dev/null)
  load=$(sed -n 's/^Loaded .* in \([0-9.]*\) s$/\1/p' <<<"$sqlout")
  q1=$(sed -n 's/^Query took \([0-9.]*\) s$/\1/p' <<<"$sqlout" | sed -n 1p)
  q2=$(sed -n 's/^Query took \([0-9.]*\) s$/\1/p' <<<"$sqlout" | sed -n 2p)
  echo "$load" >> "$out/load.txt"; echo "$q1" >> "$out/q1.txt"; echo "$q2" >> "$out/q2.txt"
  echo "$report, dump csv $csv s, sql load $load s ($(rate "$load") M refs/s), group-by thread $q1 s, group-by mapping $q2 s"
done
m() { median < "$out/$1.txt"; }
echo "median: export $(m export) s ($(rate "$(m export)") M refs/s; command $(m wall) s, $(rate "$(m wall)") M refs/s,"\
  "CPU $(m cpu) s), dump csv $(m csv) s (export/csv $(ratio "$(m wall)" "$(m csv)")), sql load $(m load) s"\
  "($(rate "$(m load)") M refs/s), group-by thread $(m q1) s, group-by mapping $(m q2) s; $(machine)"
if [[ -n $against ]]; then
  echo "median ${against%%=*}: command $(m awall) s ($(rate "$(m awall)") M refs/s), CPU $(m acpu) s:"\
    "wall $(ratio "$(m awall)" "$(m wall)") times, CPU $(ratio "$(m acpu)" "$(m cpu)") times this one's"
fi
echo "parquet files: $size (this checkout's export)"
