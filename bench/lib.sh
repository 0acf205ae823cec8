# lib.sh: what the bench scripts (bench/*.sh) share; each sources it first thing:
#     . "$(dirname "$0")/lib.sh"
# Sets here (this folder) and root (the repository) and defines:
#   bench_need_jar    the launcher can run (its jar built, or FAULTLINE_CLASSPATH set), else a
#                     one-line error naming the build command and exit 2
#   bench_tmp         $out: a new directory under /tmp, named after the script, removed at exit
#   bench_cc NAME SRC compiles SRC (a C file) into $out/NAME, warnings as errors, with the
#                     agent's public headers
#   machine           "N CPUs, KERNEL, load A B C": what each printed result starts with
#   median            the median of the numbers on standard input (the lower middle one of an
#                     even count)
#   ns                the N of the ns_per_ref=N line that bench/native's loops print
#   per_ref N T R     ns per trapped reference: (T - N) seconds of wall time over R references
#   ratio A B         A / B, two decimals
#   walltime CMD...   wall seconds of CMD (microsecond clock, 3 decimals), its output discarded
#   references DIR    the references of the trace in DIR (faultline info)
#   demo              the bundled demo program (built by mvn package)
# The programs that capture-bench.sh and monitor-bench.sh time, after scale is set:
#   workloads P...    writes the inputs of programs P (demo, sort, xz, jvm, touch) into $out
#   command_of P      the command line of program P
# The sort workload that evms-bench.sh and moca-bench.sh time (issue 10), after runs is set:
#   sort_input        writes $out/in.txt: 200,000 random lines (4.7 MB), the same every time
#   sorted LABEL [ARGS...]
#                     wall ms of sort --parallel=1 over $out/in.txt, $runs times: native without
#                     ARGS, else under faultline record ARGS (the last run's trace stays in $out/s);
#                     prints LABEL, the median and every run
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
root=$(cd "$here/.." && pwd)
demo="$root/native-shims/target/classes/native/linux-x86_64/faultline-demo"
bench_name=$(basename "$0" .sh)

bench_need_jar() {
  [[ -n "${FAULTLINE_CLASSPATH:-}" || -f "$root/tools/target/faultline.jar" ]] \
    || { echo "$bench_name: build first: mvn -q package -DskipTests" >&2; exit 2; }
}

# DIR (named LABEL in the message) is a checkout built with mvn package, else exit 2
bench_built_checkout() {
  [[ -x $1/faultline && -f $1/tools/target/faultline.jar ]] \
    || { echo "$bench_name: ${2:-$1} is not a built checkout: run mvn -q package -DskipTests there" >&2; exit 2; }
}

# the arguments are two built checkouts, NAME=PATH NAME=PATH, else exit 2
bench_two_checkouts() {
  [[ $# -eq 2 && $1 == *=* && $2 == *=* ]] \
    || { echo "$bench_name: give two checkouts as NAME=PATH NAME=PATH, e.g. before=/tmp/before after=." >&2; exit 2; }
  for c in "$@"; do bench_built_checkout "${c#*=}"; done
}

bench_tmp() {
  out=$(mktemp -d "/tmp/$bench_name.XXXXXX")
  trap 'rm -rf "$out"' EXIT
}

bench_cc() {
  gcc -O2 -Wall -Wextra -Werror -pthread -I"$root/native-shims/include" -o "$out/$1" "$2"
}

machine() { echo "$(nproc) CPUs, $(uname -r), load $(cut -d' ' -f1-3 /proc/loadavg)"; }

median() { sort -n | awk '{v[NR]=$1} END{print v[int((NR+1)/2)]}'; }

# per_ref NATIVE_S TRACED_S REFS: ns per trapped reference, (traced - native) / references
per_ref() { awk -v n="$1" -v t="$2" -v r="$3" 'BEGIN{printf "%.0f", (t - n) * 1e9 / r}'; }

# ratio A B: A / B to two decimals (a row against the pinned bare handoff)
ratio() { awk -v a="$1" -v b="$2" 'BEGIN{printf "%.2f", a / b}'; }

# wall seconds (microsecond clock, 3 decimals) of CMD ARGS..., its output discarded: for programs
# of tens of milliseconds, where /usr/bin/time's 10 ms steps are a third of the figure
walltime() {
  local s=$EPOCHREALTIME
  "$@" > /dev/null 2>&1
  local e=$EPOCHREALTIME
  awk -v s="$s" -v e="$e" 'BEGIN{printf "%.3f\n", e - s}'
}

ns() { sed -n 's/.*ns_per_ref=\([0-9]*\).*/\1/p'; }

references() { "$root/faultline" info "$1" | sed -n 's/^references *\([0-9,]*\).*/\1/p' | tr -d ,; }

workloads() {
  local p
  for p; do
    case $p in
      sort) head -c $((3000000 * scale)) /dev/urandom | base64 | awk '{print NR % 7919, $0}' > "$out/sort.txt" ;;
      xz) head -c $((600000 * scale)) /dev/urandom | base64 > "$out/xz.txt" ;;
      jvm) javac -d "$out" "$here/workloads/Workers.java" ;;
      touch) bench_cc hot_touch "$here/native/hot_touch.c" ;;
    esac
  done
}

command_of() {
  case $1 in
    demo) echo "$demo" ;;
    sort) echo "sort --parallel=2 -S 8M -k2,2 -k1,1n $out/sort.txt" ;;
    xz) echo "xz -T2 -1 --block-size=256KiB -c $out/xz.txt" ;;
    jvm) echo "java -Xmx256m -XX:+UseG1GC -cp $out Workers $((200000 * scale))" ;;
    touch) echo "$out/hot_touch $((300 * scale))" ;;
  esac
}

sort_input() {
  python3 -c "
import random
random.seed(1)
with open('$out/in.txt', 'w') as f:
    for i in range(200000): f.write('%016x %d\n' % (random.getrandbits(64), i))"
}

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
