#!/usr/bin/env bash
# sweep-bench.sh [RESULTS_DIR]: BENCHMARKS.md, "Sweeps on Apache Spark" (issue 30), in one run.
# One grid over the repository's traces (sim/src/test/resources/traces: the six LIRS traces,
# libCacheSim's cloudPhysicsIO, the gzip address trace at 4 KiB pages) x 12 policies x 11 sizes
# (16 to 16,384 pages), replayed by
#   simulate --threads 1 and --threads 2 (one command per trace format, times added up),
#   sweep on local[1], on local[2], and on a standalone master with two workers of one core
#     (Spark's Master and Worker in a JVM of their own, bench's StandaloneCluster),
# on the traces staged once as keys files (the staging is timed apart). Spark's fixed cost: the
# wall time of a sweep of one cell (lirs-gli, 6,015 references, LRU, 16 pages) on local[2] and on the
# cluster. Then MINISIM at rates 0.1 and 0.01 on local[2], against the full replays: mean absolute
# error of the miss ratio over the sizes of at least 1/R pages, and SHARDS's (mrc --sample) on the
# same sizes for LRU. Then the cost of reading a trace:
# a faultline trace recorded here (sort of 100,000 numbers, --evms 16), read from its Chronicle
# Queue by simulate against streamed from its keys file by a sweep task.
# RESULTS_DIR (default: a temporary directory, removed) keeps the local[2] run's CSV, Parquet and
# chart and the MINISIM CSVs.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
bench_need_jar
[ -f "$root/sweep/target/faultline-sweep.jar" ] || { echo "$bench_name: build first: mvn -q package -DskipTests" >&2; exit 2; }
bench_tmp
results=${1:-$out/results}
mkdir -p "$results"
fl="$root/faultline"
T="$root/sim/src/test/resources/traces"
lirs=("$T"/lirs-*.trace.gz)
policies=lru,fifo,clock,segq,2q,arc,car,lirs,clock-pro,sieve,s3fifo,opt
sizes=16,32,64,128,256,512,1024,2048,4096,8192,16384
grid=(--policies "$policies" --sizes "$sizes")

# secs CMD...: runs CMD, its stderr to $out/err, and prints its wall seconds
secs() {
  local s=$EPOCHREALTIME
  "$@" > "$out/stdout" 2> "$out/err" || { echo "$bench_name: failed: $*" >&2; cat "$out/err" >&2; exit 1; }
  awk -v s="$s" -v e="$EPOCHREALTIME" 'BEGIN{printf "%.2f", e - s}'
}

echo "$(machine)"
echo "grid: ${#lirs[@]} LIRS traces + cloudPhysicsIO + gzip addresses, policies $policies, sizes $sizes"

# The traces as keys files, once: what every sweep below reads.
stage() { "$fl" sweep --stage "$out/keys" --stage-only "${grid[@]}" "$@"; }
t1=$(secs stage --format lirs "${lirs[@]}")
t2=$(secs stage --format lcs-txt "$T/cloudPhysicsIO.txt")
t3=$(secs stage --format address "$T/address-gzip.trace.gz")
keys=("$out"/keys/*.keys)
echo "staging ${#keys[@]} traces: $(awk -v a="$t1" -v b="$t2" -v c="$t3" 'BEGIN{printf "%.2f", a + b + c}') s (3 commands)"

simulate() {
  local threads=$1
  local a b c
  a=$(secs "$fl" simulate --threads "$threads" "${grid[@]}" --format lirs "${lirs[@]}")
  b=$(secs "$fl" simulate --threads "$threads" "${grid[@]}" --format lcs-txt "$T/cloudPhysicsIO.txt")
  c=$(secs "$fl" simulate --threads "$threads" "${grid[@]}" --format address "$T/address-gzip.trace.gz")
  awk -v a="$a" -v b="$b" -v c="$c" 'BEGIN{printf "%.2f", a + b + c}'
}
sweep_row() {
  local label=$1
  shift
  local wall
  wall=$(secs "$fl" sweep "$@")
  printf '%-34s %8s s   (Spark start %s s, grid %s s; tasks: %s s reading, %s s replaying)\n' "$label" "$wall" \
    "$(sed -n 's/^Started Spark .* in \([0-9.]*\) s$/\1/p' "$out/err")" "$(sed -n 's/^Swept [0-9]* cells in \([0-9.]*\) s.*/\1/p' "$out/err")" \
    "$(sed -n 's/.*(tasks: \([0-9.]*\) s reading.*/\1/p' "$out/err")" \
    "$(sed -n 's/.*reading traces, \([0-9.]*\) s replaying.*/\1/p' "$out/err")"
}

cells=$(( ${#keys[@]} * 12 * 11 ))
echo "cells: $cells; references replayed: see the sweep's 'Sweeping' line:"
"$fl" sweep --master 'local[2]' "${grid[@]}" --csv "$results/sweep.csv" --parquet "$results/sweep.parquet" \
  --plot "$results/sweep.png" "${keys[@]}" > "$results/sweep.txt" 2> "$out/err"
grep '^Sweeping' "$out/err"
printf '%-34s %8s s\n' "simulate --threads 1" "$(simulate 1)"
printf '%-34s %8s s\n' "simulate --threads 2" "$(simulate 2)"
sweep_row "sweep local[1]" --master 'local[1]' "${grid[@]}" "${keys[@]}"
sweep_row "sweep local[2]" --master 'local[2]' "${grid[@]}" "${keys[@]}"
sweep_row "sweep local[2], one cell" --master 'local[2]' --policies lru --sizes 16 "$out"/keys/*-lirs-gli.trace.gz.keys

# The standalone cluster: a JVM of its own, its URL on its first line of output; runs until its stdin ends.
mkfifo "$out/cluster-in"
SPARK_HOME="$root/sweep/target/spark" SPARK_SCALA_VERSION=2.13 java \
  @"$root/trace-format/src/main/resources/io/faultline/format/jvm.flags" \
  $(sed -n 's/.*<spark.jvm.flags>\(.*\)<\/spark.jvm.flags>.*/\1/p' "$root/sweep/pom.xml") \
  -Dlog4j2.configurationFile=classpath:log4j2.properties \
  -cp "$root/sweep/target/faultline-sweep.jar:$root/sweep/target/spark/jars/*" \
  io.faultline.sweep.cluster.StandaloneCluster 2 1 1536 "$out/cluster" < "$out/cluster-in" > "$out/cluster-url" 2>/dev/null &
cluster=$!
exec 7> "$out/cluster-in"
for _ in $(seq 120); do [ -s "$out/cluster-url" ] && break; sleep 0.5; done
url=$(head -1 "$out/cluster-url")
[ -n "$url" ] || { echo "$bench_name: the standalone cluster did not start" >&2; exit 1; }
sweep_row "sweep standalone, 2 workers x 1" --master "$url" --conf spark.executor.memory=1g "${grid[@]}" "${keys[@]}"
sweep_row "sweep standalone, one cell" --master "$url" --conf spark.executor.memory=1g --policies lru --sizes 16 \
  "$out"/keys/*-lirs-gli.trace.gz.keys
exec 7>&-
wait "$cluster" || true

# MINISIM against the full replays of the local[2] run above.
for rate in 0.1 0.01; do
  wall=$(secs "$fl" sweep --master 'local[2]' --minisim "$rate" "${grid[@]}" --csv "$results/minisim-$rate.csv" "${keys[@]}")
  echo "MINISIM R=$rate, local[2]: $wall s"
done
python3 - "$results/sweep.csv" "$results"/minisim-0.1.csv "$results"/minisim-0.01.csv <<'EOF'
import csv, sys
from collections import defaultdict
def load(p):
    return {(r['trace'], r['policy'], int(r['size'])): float(r['miss_ratio']) for r in csv.DictReader(open(p))}
full = load(sys.argv[1])
rates = {0.1: load(sys.argv[2]), 0.01: load(sys.argv[3])}
print("MINISIM mean absolute error of the miss ratio, sizes >= 1/R, all 12 policies:")
print("%-24s %10s %10s" % ("trace", "R = 0.1", "R = 0.01"))
traces = sorted({k[0] for k in full})
for t in traces + ["all"]:
    cols = []
    for rate, mini in rates.items():
        errs = [abs(mini[k] - v) for k, v in full.items() if (t == "all" or k[0] == t) and k[2] >= 1 / rate and k in mini]
        cols.append("%.4f" % (sum(errs) / len(errs)) if errs else "-")
    print("%-24s %10s %10s" % (t, *cols))
print("by policy, all traces, R = 0.1:")
by = defaultdict(list)
for k, v in full.items():
    if k[2] >= 10 and k in rates[0.1]:
        by[k[1]].append(abs(rates[0.1][k] - v))
print("  " + ", ".join("%s %.4f" % (p, sum(e) / len(e)) for p, e in by.items()))
EOF

# SHARDS (mrc --sample R) on the same sizes, LRU, on the two traces of BENCHMARKS.md's SHARDS
# figures: MINISIM's LRU rows above and these sample the same keys.
shards() {
  "$fl" mrc --format "$1" --max-size 16384 --csv "$out/mrc-$3-exact.csv" "$2" > /dev/null 2>&1
  for rate in 0.1 0.01; do
    "$fl" mrc --format "$1" --sample "$rate" --max-size 16384 --csv "$out/mrc-$3-$rate.csv" "$2" > /dev/null 2>&1
  done
}
shards lcs-txt "$T/cloudPhysicsIO.txt" cloudPhysicsIO.txt
shards address "$T/address-gzip.trace.gz" address-gzip.trace.gz
python3 - "$out" "$sizes" "$results/sweep.csv" "$results"/minisim-0.1.csv "$results"/minisim-0.01.csv <<'EOF'
import csv, sys
out, sizes = sys.argv[1], [int(s) for s in sys.argv[2].split(",")]
def curve(p): return {int(r['size']): float(r['miss_ratio']) for r in csv.DictReader(open(p))}
def grid(p): return {(r['trace'], int(r['size'])): float(r['miss_ratio']) for r in csv.DictReader(open(p)) if r['policy'] == 'lru'}
full, mini = grid(sys.argv[3]), {0.1: grid(sys.argv[4]), 0.01: grid(sys.argv[5])}
print("LRU, mean absolute error at the grid's sizes >= 1/R:  SHARDS R=0.1, R=0.01 | MINISIM R=0.1, R=0.01")
for t in ("cloudPhysicsIO.txt", "address-gzip.trace.gz"):
    exact = curve("%s/mrc-%s-exact.csv" % (out, t))
    row = []
    for rate in (0.1, 0.01):
        s = curve("%s/mrc-%s-%s.csv" % (out, t, rate))
        e = [abs(s[k] - exact[k]) for k in sizes if k >= 1 / rate]
        row.append("%.4f" % (sum(e) / len(e)))
    for rate in (0.1, 0.01):
        e = [abs(mini[rate][(t, k)] - full[(t, k)]) for k in sizes if k >= 1 / rate]
        row.append("%.4f" % (sum(e) / len(e)))
    print("  %-24s %s, %s | %s, %s" % (t, *row))
EOF

# Reading a trace: its Chronicle Queue, or its keys file streamed by a task.
seq 1 100000 | shuf --random-source=<(yes) > "$out/nums.txt"
"$fl" record -q --evms 16 -o "$out/sort.trace" -- sort -n "$out/nums.txt" -o "$out/sorted.txt" > /dev/null 2>&1
refs=$(references "$out/sort.trace")
"$fl" sweep --stage "$out/sortkeys" --stage-only --policies lru --sizes 1 "$out/sort.trace" > /dev/null 2> "$out/err"
staged=$(sed -n 's/^Staged sort.trace: .* in \([0-9,]*\) bytes .* in \([0-9.]*\) s$/\1 bytes, written in \2 s/p' "$out/err")
queue=() stream=()
for _ in 1 2 3; do
  secs "$fl" simulate --policies lru --sizes 1 "$out/sort.trace" > /dev/null
  queue+=("$(sed -n 's/^Read [0-9,]* references from .* in \([0-9.]*\) s$/\1/p' "$out/err")")
  secs "$fl" sweep --master 'local[1]' --policies lru --sizes 1 "$out"/sortkeys/*.keys > /dev/null
  stream+=("$(sed -n 's/.*(tasks: \([0-9.]*\) s reading.*/\1/p' "$out/err")")
done
echo "reading $refs references (sort, --evms 16): Chronicle Queue $(du -sb "$out/sort.trace" | cut -f1) bytes on disk, keys file $staged"
echo "  simulate reading the queue: $(printf '%s\n' "${queue[@]}" | median) s median (${queue[*]})"
echo "  a sweep task streaming the keys file (file:): $(printf '%s\n' "${stream[@]}" | median) s median (${stream[*]})"
echo "$(machine) at the end"
