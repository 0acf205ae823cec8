#!/usr/bin/env bash
# longrun.sh [seconds=3600] [out=/tmp/longrun-DATE]: a long recording (issue 24, item 6;
# BENCHMARKS.md, "Long runs"). Records bench/workloads/steady_churn.c for the given time at a
# steady, moderate reference rate (3 threads sweeping 8 MiB, 4 times the default EVMS, at 1,500
# touches a second, with mmap/munmap churn, a short thread every 10 s and a forked child every
# 20 s, so that process slots are given back and taken again), and every minute samples:
#   - the trace: size on disk (du) and apparent size, the queue's files (roll cycles);
#   - the recorder's JVM: VmRSS, VmHWM and its anonymous, file and shared parts, and its Java
#     heap in use and old generation in use (jstat; empty without it): a leak grows the old
#     generation, garbage only the young one;
#   - the traced program (the agent lives in it): VmRSS, VmHWM, and the resident part of the
#     agent's own mappings (libfaultline and the shared rings); the same program run natively
#     beside it (NATIVE=0: not) for comparison;
#   - the recording's progress counters, read from the shared memory: the global clock
#     (references so far), slots claimed so far, slots active now, ring waits of active slots.
# Every READ_EVERY samples (default 15, and at the second) another process reads the live
# trace: `faultline info` and `faultline dump | tail -n 2`, each of which must exit 0. At the end
# `info`, `simulate` and `mrc` read the whole trace. Writes into out: samples.csv, reads.csv,
# summary.txt (also printed), the trace, the program's and record's output. The trace stays.
#   ENGINE=sigbus AS=nobody bench/longrun.sh 600 /tmp/lr-sigbus
# ENGINE: --engine for record (default: record's choice); AS=nobody: record as user nobody
# (setpriv, as the tests' AsNobody does; needs root); RATE, PAGES, THREADS, FORK_EVERY: the
# workload's arguments (defaults 1500 2048 3 20); INTERVAL: seconds between samples (60).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
seconds=${1:-3600}
out=${2:-/tmp/longrun-$(date -u +%Y%m%dT%H%M%S)}
interval=${INTERVAL:-60}
read_every=${READ_EVERY:-15}
workload=("${seconds}" "${RATE:-1500}" "${PAGES:-2048}" "${THREADS:-3}" "${FORK_EVERY:-20}")
bench_need_jar
[[ "$seconds" =~ ^[0-9]+$ && "$seconds" -ge 1 ]] || { echo "$bench_name: seconds must be a whole number >= 1" >&2; exit 2; }
if [ -e "$out" ] && [ -n "$(ls -A "$out")" ]; then
  echo "$bench_name: $out is not empty; give a new directory" >&2; exit 2
fi
mkdir -p "$out"
out=$(cd "$out" && pwd)
gcc -O2 -Wall -Wextra -Werror -pthread -o "$out/steady_churn" "$here/workloads/steady_churn.c"
# every faultline of the run runs a copy of the jar: a rebuild during an hour's run must not
# replace the jar under the recorder's JVM
if [ -z "${FAULTLINE_CLASSPATH:-}" ]; then
  cp "${FAULTLINE_JAR:-$root/tools/target/faultline.jar}" "$out/faultline.jar"
  export FAULTLINE_JAR="$out/faultline.jar"
fi

launcher=("$root/faultline")
if [ "${AS:-}" = nobody ]; then
  # nobody cannot read a build under /root: copies of the launcher (and its flags), the jar and the program in
  # out, which nobody may read, with HOME and the JVM's temporary directory (where the agent is
  # extracted) there too.
  [ "$(id -u)" = 0 ] || { echo "$bench_name: AS=nobody needs root (setpriv)" >&2; exit 2; }
  [ -z "${FAULTLINE_CLASSPATH:-}" ] || { echo "$bench_name: AS=nobody runs the jar; unset FAULTLINE_CLASSPATH" >&2; exit 2; }
  mkdir -p "$out/nobody/trace-format/src/main/resources/io/faultline/format"
  cp "$root/faultline" "$out/nobody/"
  # the Java 17 flags the launcher passes, where it looks for them beside itself
  cp "$root/trace-format/src/main/resources/io/faultline/format/jvm.flags" \
    "$out/nobody/trace-format/src/main/resources/io/faultline/format/"
  chmod -R a+rwX "$out"
  launcher=(env HOME="$out/nobody" JAVA_TOOL_OPTIONS="-Djava.io.tmpdir=$out/nobody"
            setpriv --reuid=65534 --regid=65534 --clear-groups "$out/nobody/faultline")
elif [ "${AS:-}" != "" ]; then
  echo "$bench_name: AS must be nobody or unset" >&2; exit 2
fi
engine=()
[ -n "${ENGINE:-}" ] && engine=(--engine "$ENGINE")

now() { awk -v t="$EPOCHREALTIME" -v s="$start" 'BEGIN{printf "%.0f", t - s}'; }
# status_kb PID KEY: a /proc/PID/status field in kB, empty if the process is gone
status_kb() { awk -v k="$2:" '$1 == k {print $2}' "/proc/$1/status" 2>/dev/null || true; }
# agent_kb PID: resident kB of the agent's own file mappings in PID (its library and the shared
# memory of the rings); its anonymous memory (parking areas, tables) is not named, so the
# native twin's RSS is the comparison for that
agent_kb() {
  awk '/^[0-9a-f]+-[0-9a-f]+ / {a = ($6 ~ /libfaultline|\/dev\/shm\/faultline-/)} a && $1 == "Rss:" {s += $2} END{print s + 0}' \
    "/proc/$1/smaps" 2>/dev/null || true
}
# heap PID: kB of the JVM's heap in use (survivors, eden, old) and of its old generation (jstat -gc)
heap() {
  { jstat -gc "$1" 2>/dev/null || true; } | awk 'NR == 1 {for (i = 1; i <= NF; i++) c[$i] = i}
    NR == 2 {printf "%.0f,%.0f", $c["S0U"] + $c["S1U"] + $c["EU"] + $c["OU"], $c["OU"]; p = 1} END {if (!p) printf ","}'
}
# u64 FILE OFFSET: a little-endian 64-bit integer of the shared memory
u64() { od -An -t u8 -j "$2" -N 8 "$1" 2>/dev/null | tr -d ' ' || true; }
# progress SHM: clock, claims, active slots, ring waits of the active slots (faultline_shm.h)
progress() {
  local shm=$1 slots active=0 waits=0 i base
  # the recorder removes the file when the program ends: a sample taken then has empty fields
  slots=$(od -An -t u4 -j 16 -N 4 "$shm" 2>/dev/null | tr -d ' ' || true)
  [ -n "$slots" ] || { echo ",,,"; return; }
  local clock claims
  clock=$(u64 "$shm" 64); claims=$(u64 "$shm" 104)
  for ((i = 0; i < slots; i++)); do
    base=$((256 + i * 128))
    if [ "$(od -An -t u4 -j "$base" -N 4 "$shm" 2>/dev/null | tr -d ' ')" = 1 ]; then
      local w; w=$(u64 "$shm" $((base + 24)))
      active=$((active + 1)); waits=$((waits + ${w:-0}))
    fi
  done
  [ -n "$clock" ] && echo "$clock,$claims,$active,$waits" || echo ",,,"
}
# reads T: another process reads the live trace; one line of reads.csv per reader
reads() {
  local t=$1 s e rc refs
  s=$EPOCHREALTIME
  rc=0; "$root/faultline" info "$out/trace" > "$out/reads/info-$t.txt" 2>&1 || rc=$?
  e=$EPOCHREALTIME
  refs=$(sed -n 's/^references *\([0-9,]*\).*/\1/p' "$out/reads/info-$t.txt" | tr -d ,)
  echo "$t,info,$rc,$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.1f", e - s}'),${refs:-}" >> "$out/reads.csv"
  s=$EPOCHREALTIME
  rc=0
  { "$root/faultline" dump "$out/trace" 2> "$out/reads/dump-$t.err" || echo "exit $?" > "$out/reads/dump-$t.rc"; } \
    | tail -n 2 > "$out/reads/dump-$t.txt"
  [ -f "$out/reads/dump-$t.rc" ] && rc=$(cut -d' ' -f2 "$out/reads/dump-$t.rc")
  e=$EPOCHREALTIME
  echo "$t,dump,$rc,$(awk -v s="$s" -v e="$e" 'BEGIN{printf "%.1f", e - s}'),$(tail -n 1 "$out/reads/dump-$t.txt" | awk '{print $1 == "--" ? "seq " $2 : "seq " $1}')" >> "$out/reads.csv"
}

mkdir -p "$out/reads"
echo "elapsed_s,load1,trace_du_kb,trace_apparent_kb,queue_files,recorder_rss_kb,recorder_hwm_kb,recorder_anon_kb,recorder_file_kb,recorder_shmem_kb,recorder_heap_kb,recorder_old_kb,program_rss_kb,program_hwm_kb,agent_rss_kb,native_rss_kb,native_hwm_kb,clock,claims,active_slots,ring_waits" > "$out/samples.csv"
echo "elapsed_s,reader,exit,seconds,detail" > "$out/reads.csv"
{
  echo "$bench_name: $(date -u +%FT%TZ), $(machine)"
  echo "recording ${seconds} s of: steady_churn ${workload[*]} (seconds rate pages threads fork_every)"
  echo "engine: ${ENGINE:-default}; user: ${AS:-$(id -un)}; sample every ${interval} s; reads every ${read_every} samples"
} | tee "$out/summary.txt"

start=$EPOCHREALTIME
native=
if [ "${NATIVE:-1}" = 1 ]; then
  "$out/steady_churn" "${workload[@]}" > "$out/native.out" 2>&1 &
  native=$!
fi
"${launcher[@]}" record -q "${engine[@]}" -o "$out/trace" -- "$out/steady_churn" "${workload[@]}" \
  > "$out/program.out" 2> "$out/record.err" &
rec=$!
readers=()
for ((k = 1; ; k++)); do
  target=$(awk -v s="$start" -v k="$k" -v i="$interval" 'BEGIN{printf "%.3f", s + k * i}')
  while kill -0 "$rec" 2>/dev/null && awk -v t="$target" -v n="$EPOCHREALTIME" 'BEGIN{exit !(n < t)}'; do sleep 1; done
  kill -0 "$rec" 2>/dev/null || break
  t=$(now)
  prog=$(pgrep -P "$rec" -x steady_churn | head -n 1 || true)
  shm=$(ls /dev/shm/faultline-"$rec"-* 2>/dev/null | head -n 1 || true)
  du_kb=$(du -sk "$out/trace" | cut -f1)
  app_kb=$(du -sk --apparent-size "$out/trace" | cut -f1)
  files=$(find "$out/trace/queue" -name '*.cq4' | wc -l)
  row="$t,$(cut -d' ' -f1 /proc/loadavg),$du_kb,$app_kb,$files"
  for key in VmRSS VmHWM RssAnon RssFile RssShmem; do row+=",$(status_kb "$rec" "$key")"; done
  row+=",$(heap "$rec")"
  if [ -n "$prog" ]; then
    row+=",$(status_kb "$prog" VmRSS),$(status_kb "$prog" VmHWM),$(agent_kb "$prog")"
  else
    row+=",,,"
  fi
  if [ -n "$native" ]; then
    row+=",$(status_kb "$native" VmRSS),$(status_kb "$native" VmHWM)"
  else
    row+=",,"
  fi
  row+=",$(progress "$shm")"
  echo "$row" >> "$out/samples.csv"
  if [ "$k" = 2 ] || [ $((k % read_every)) = 0 ]; then
    reads "$t" &
    readers+=($!)
  fi
done
rc=0; wait "$rec" || rc=$?
end=$(now)
[ -n "$native" ] && { wait "$native" || true; }
for r in "${readers[@]}"; do wait "$r" || true; done

# the whole trace, read by every reader at the end
final() {
  local name=$1; shift
  local s e rc=0
  s=$EPOCHREALTIME
  "$@" > "$out/final-$name.txt" 2>&1 || rc=$?
  e=$EPOCHREALTIME
  printf '%-9s exit %d in %6.1f s\n' "$name" "$rc" "$(awk -v s="$s" -v e="$e" 'BEGIN{print e - s}')"
}
{
  echo "record exit $rc after ${end} s; program: $(cat "$out/program.out")"
  grep -v '^Picked up JAVA_TOOL_OPTIONS' "$out/record.err" | sed 's/^/record: /' || true
  [ -n "$native" ] && echo "native twin: $(cat "$out/native.out")"
  final info "$root/faultline" info "$out/trace"
  final simulate "$root/faultline" simulate --policies lru,clock,arc --sizes 1024,2048,4096 "$out/trace"
  final mrc "$root/faultline" mrc --csv "$out/mrc.csv" "$out/trace"
  sed -n 's/^\(state\|references\|processes\|threads\|agent_records\|ring_waits\|duration\) *\(.*\)/info: \1 \2/p' "$out/final-info.txt"
  # growth: each column's first value against its last (the program's columns end when it
  # does); size per hour from the slope between the first and the last sample
  awk -F, 'NR > 1 {for (i = 1; i <= NF; i++) if ($i != "") {if (!(i in a)) a[i] = $i; b[i] = $i}; n++} END {
    h = (b[1] - a[1]) / 3600;
    printf "samples %d; trace at %d s: %.1f MB on disk (%.1f MB apparent), %d queue file(s)\n", n, b[1], b[3] / 1024, b[4] / 1024, b[5];
    if (h > 0) printf "trace growth: %.1f MB an hour on disk, %.1f MB apparent, %.0f references an hour\n", (b[3] - a[3]) / 1024 / h, (b[4] - a[4]) / 1024 / h, (b[18] - a[18]) / h;
    printf "recorder RSS %d -> %d kB (HWM %d kB; anon %d -> %d, file %d -> %d, shmem %d -> %d); Java heap in use %d -> %d kB, old generation %d -> %d kB\n", a[6], b[6], b[7], a[8], b[8], a[9], b[9], a[10], b[10], a[11], b[11], a[12], b[12];
    printf "program RSS %d -> %d kB (HWM %d kB), agent mappings resident %d -> %d kB; native twin RSS %d -> %d kB (HWM %d kB)\n", a[13], b[13], b[14], a[15], b[15], a[16], b[16], b[17];
    printf "clock %d -> %d; slots claimed %d -> %d; ring waits of active slots at the last sample %d\n", a[18], b[18], a[19], b[19], b[21];
  }' "$out/samples.csv"
  awk -F, 'NR > 1 {n++; if ($3 != 0) bad++} END {printf "mid-run reads: %d, failed %d\n", n, bad + 0}' "$out/reads.csv"
  echo "files: $out/samples.csv, $out/reads.csv, $out/trace"
} | tee -a "$out/summary.txt"
