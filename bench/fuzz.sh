#!/usr/bin/env bash
# fuzz.sh [tries=20000] [seed=1]: the readers' fuzzers (tools' io.faultline.fuzz, issue 24) with
# many more tries than the test suite's 200: every import format (--format) on arbitrary and
# mutated bytes, plain and compressed; the trace reader and the monitoring-record reader on
# damaged directories. Each read must give its records or one line naming the problem, within
# 10 s and a bounded allocation. Prints per property its tries and time, and the findings: the
# failing properties and the inputs kept in tools/target/fuzz-findings (BENCHMARKS.md, "Fuzzed
# readers"). Then trace-format's TraceDamageFuzzTest (issue 39) with tries cases instead of CI's
# 1,000, from seed: a real format-4 trace damaged in its queue file, read strictly and with
# --skip-corrupt, no misread, no exception text, no hang, the skipped references counted exactly.
# Runs Maven offline in this checkout; tries applies to each property.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
out_log=$(mktemp /tmp/fuzz-damage.XXXXXX)
trap 'rm -f "$out_log"' EXIT
tries=${1:-20000}
seed=${2:-1}
echo "$(machine); jqwik, $tries tries per property"
rm -rf "$root/tools/target/fuzz-findings"
s=$EPOCHREALTIME
status=0
(cd "$root" && mvn -o -q -ntp -pl tools -am verify -Dtest='io.faultline.fuzz.*Test' \
  -Dsurefire.failIfNoSpecifiedTests=false -Djqwik.tries.default="$tries" > /dev/null 2>&1) || status=$?
e=$EPOCHREALTIME
reports="$root/tools/target/surefire-reports"
# surefire's XML: one testcase per property, with its time; a failure or error inside it
for xml in "$reports"/TEST-io.faultline.fuzz.*.xml; do
  awk -v cls="$(basename "$xml" .xml | sed 's/^TEST-io.faultline.fuzz.//')" '
    /<testcase / { match($0, /name="[^"]*"/); name = substr($0, RSTART + 6, RLENGTH - 7)
                   match($0, /time="[^"]*"/); time = substr($0, RSTART + 6, RLENGTH - 7); bad = "" }
    /<failure|<error/ { match($0, /message="[^"]*"/); bad = substr($0, RSTART + 9, 160) }
    /<\/testcase>|<testcase [^>]*\/>/ { if (name != "") printf "%-22s %-52s %8.1f s  %s\n", cls, name, time, bad == "" ? "ok" : "FINDING: " bad; name = "" }
  ' "$xml"
done
findings=0
[[ -d "$root/tools/target/fuzz-findings" ]] \
  && findings=$(find "$root/tools/target/fuzz-findings" -mindepth 1 -maxdepth 1 | wc -l)
printf 'total %.0f s (with the build); %d finding input(s) kept; maven status %d\n' \
  "$(awk -v s="$s" -v e="$e" 'BEGIN{print e - s}')" "$findings" "$status"
s=$EPOCHREALTIME
damage=0
(cd "$root" && mvn -o -q -ntp -pl trace-format verify -Dtest=TraceDamageFuzzTest -Dsurefire.failIfNoSpecifiedTests=false \
  -Dfaultline.fuzz.cases="$tries" -Dfaultline.fuzz.seed="$seed" > "$out_log" 2>&1) || damage=$?
e=$EPOCHREALTIME
printf 'TraceDamageFuzzTest: %d damaged traces from seed %d, %.0f s (with the build): %s\n' "$tries" "$seed" \
  "$(awk -v s="$s" -v e="$e" 'BEGIN{print e - s}')" \
  "$([[ $damage -eq 0 ]] && echo ok || grep -m1 -o 'AssertionFailedError: .*' "$out_log" | cut -c1-300)"
