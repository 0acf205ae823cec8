# sort-lib.sh: the sort workload that evms-bench.sh and moca-bench.sh time (issue 10), sourced
# by them after they set root, out and runs.
#   sort_input        writes $out/in.txt: 200,000 random lines (4.7 MB), the same every time
#   median            the median of the numbers on standard input
#   sorted LABEL [ARGS...]
#                     wall ms of sort --parallel=1 over $out/in.txt, $runs times: native without
#                     ARGS, else under faultline record ARGS (the last run's trace stays in $out/s);
#                     prints LABEL, the median and every run
sort_input() {
  python3 -c "
import random
random.seed(1)
with open('$out/in.txt', 'w') as f:
    for i in range(200000): f.write('%016x %d\n' % (random.getrandbits(64), i))"
}

median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }

sorted() {
  local label=$1; shift
  local all=()
  for _ in $(seq "$runs"); do
    local s e
    s=$(date +%s%N)
    if [[ $# -eq 0 ]]; then
      sort --parallel=1 -S 64M "$out/in.txt" > /dev/null
    else
      rm -rf "$out/s"
      "$root/faultline" record -q -o "$out/s" "$@" -- sort --parallel=1 -S 64M "$out/in.txt" > /dev/null
    fi
    e=$(date +%s%N)
    all+=("$(( (e - s) / 1000000 ))")
  done
  printf '%-44s %8s ms   (%s)\n' "$label" "$(printf '%s\n' "${all[@]}" | median)" "${all[*]}"
}
