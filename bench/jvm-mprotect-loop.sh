#!/usr/bin/env bash
# jvm-mprotect-loop.sh: the multi-threaded JVM under --engine mprotect, again and again (issue 27:
# 0 aborts in 100 runs). Each run records bench/workloads/Workers.java (three pool threads, G1,
# -Xmx256m, 2000 entries a task) and compares its output with the native run's; a run whose
# status is not 0 or whose output differs is a failure, its stderr's last lines kept in the log.
# Runs FROM..TO (so that a long loop can go in pieces, each appending to LOG), then prints the
# count of failures in LOG so far.
#
#   bench/jvm-mprotect-loop.sh [from=1] [to=100] [log=/tmp/jvm-mprotect-loop.log] [engine=mprotect]
# Needs: mvn -q package -DskipTests first (the launcher's jar), a JDK.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
from=${1:-1}
to=${2:-100}
log=${3:-/tmp/jvm-mprotect-loop.log}
engine=${4:-mprotect}
bench_need_jar
bench_tmp
cp "$here/workloads/Workers.java" "$out/" && javac -d "$out" "$out/Workers.java"
expected=$(java -Xmx256m -cp "$out" Workers 2000)
echo "# $(date -u +%FT%TZ) runs $from..$to, engine $engine, machine: $(machine)" >> "$log"
for i in $(seq "$from" "$to"); do
  status=0
  got=$("$root/faultline" record -q --force --engine "$engine" -o "$out/t" -- \
        java -Xmx256m -cp "$out" Workers 2000 2> "$out/err") || status=$?
  if [[ $status -ne 0 || "$got" != "$expected" ]]; then
    echo "run $i FAILED status $status: $(tail -3 "$out/err" | tr '\n' ' ')" >> "$log"
  else
    echo "run $i ok" >> "$log"
  fi
done
echo "$(grep -c ' ok$' "$log") ok, $(grep -c FAILED "$log") failed so far in $log"
