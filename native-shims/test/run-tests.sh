#!/usr/bin/env bash
# run-tests.sh OUT: the agent's tests under shmcat (make OUT=dir check). Exact FIFO traces for
# api_seq at several EVMS sizes, byte-identical program output under scope all, recorder death,
# stop flag, a full ring, fork.
set -uo pipefail
out=${1:?usage: run-tests.sh OUT}
here=$(cd "$(dirname "$0")" && pwd)
tmp=$(mktemp -d /tmp/fl-tests.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
check() { if [[ $2 == "$3" ]]; then echo "ok   $1"; else echo "FAIL $1: expected [$3] got [$2]"; fail=1; fi; }

for e in 1 2 3 4 5; do
  want=$("$out/test/api_seq" "$e" /dev/null 5)
  got=$(timeout 60 "$out/shmcat" -e "$e" -s api -o "$tmp/o$e" -- "$out/test/api_seq" "$e" "$tmp/r$e" 5)
  check "api_seq evms=$e output" "$got" "$want"
  if python3 "$here/fifo_check.py" "$e" "$tmp/r$e" "$tmp/o$e" >"$tmp/c$e"; then echo "ok   api_seq evms=$e FIFO trace"; else cat "$tmp/c$e"; fail=1; fi
done

want=$("$out/faultline-demo" 256 4)
check "demo scope all evms=128" "$(timeout 120 "$out/shmcat" -q -e 128 -o "$tmp/demo" -- "$out/faultline-demo" 256 4)" "$want"
check "demo stop flag" "$(timeout 120 "$out/shmcat" -q -e 128 -t 200 -o "$tmp/stop" -- "$out/faultline-demo" 256 4)" "$want"
grep -q "stop_reason=2" "$tmp/stop" && echo "ok   stop_reason=2" || { echo "FAIL stop"; fail=1; }
# a 4 KiB ring drained every 0.2 ms: the program waits for room (ring_waits), loses nothing
check "demo ring full" "$(timeout 120 "$out/shmcat" -q -e 128 -r 4096 -d 200 -o "$tmp/full" -- "$out/faultline-demo" 96 1)" "$("$out/faultline-demo" 96 1)"
grep -Eq "ring_waits=[1-9]" "$tmp/full" && echo "ok   ring_waits > 0" || { echo "FAIL ring full: no ring waits"; fail=1; }
check "fork" "$(timeout 60 "$out/shmcat" -q -e 4 -o "$tmp/fork" -- "$out/test/fork_check")" "fork_check child=ok parent=ok"

# the recorder dies: the target must finish with the same output
"$out/shmcat" -q -e 128 -o "$tmp/kill" -- "$out/faultline-demo" 256 8 >"$tmp/killed.out" &
sleep 1; kill -9 $! 2>/dev/null; wait $! 2>/dev/null
for _ in $(seq 1 120); do pgrep -f "faultline-demo 256 8" >/dev/null || break; sleep 0.5; done
check "recorder killed" "$(cat "$tmp/killed.out")" "$("$out/faultline-demo" 256 8)"
exit $fail
