#!/usr/bin/env bash
# Thread scaling of issue 17: build, pairs, clusters, join and fingerprint at each thread count, with
# the outputs compared across thread counts. Writes scaling.tsv (one row per run) and scaling.md (a
# table: work x threads) to OUT and a log of every command on stderr.
#   bench/scaling.sh [--threads 1,2,4,8,16] [--n 10000000] [--big 0|100000000] [--copies 200]
#                    [--repeat R] [--budget SECONDS] [--bin DIR] [--out DIR] [--work DIR]
#                    [--direct-io auto|on|off]
# --bin holds simdex, batch_bench and gen_fingerprints (default: build/cli, build/bench, build/tests
# after `scripts/build release`); where DIR/lib holds ld-linux-x86-64.so.2 the programs run through
# that loader and DIR/lib's libraries (a release build carried to a machine without its packages,
# bench/RESULTS.md "Scaling on 16 cores"). --budget: no run starts once its estimate would end past
# it (the rest are listed as skipped). --repeat: runs at the most threads (and the 1-thread pairs
# and joins) R times; scaling.md shows medians. With --big the big runs come first, then the
# fingerprint runs, then those of N (the first N of the big input): what the budget skips is the
# least needed. Inputs: N random fingerprints (gen_fingerprints), the demo
# corpus COPIES times as JSON Lines and as one text a line. --work: where a new directory for the
# inputs and indexes is made (and removed at the end; DIR itself is kept). On a tmpfs (/dev/shm) the
# index files map in 4 KiB pages (tmpfs makes no 2 MiB folios unless mounted with huge=): use a disk
# file system to measure what a reader of a file on disk sees. --direct-io: passed to every build
# (default: not passed, the build's own auto; a binary older than the flag takes none). A failed
# run is FAILED in both files and the exit status is 1.
set -uo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
threads="" n=10000000 big=0 copies=200 budget=100000 repeat=1 bin="" out=$root/out/scaling work="" direct_io=auto
while [ $# -gt 0 ]; do
  case $1 in
    --threads) threads=$2 ;; --n) n=$2 ;; --big) big=$2 ;; --copies) copies=$2 ;;
    --budget) budget=$2 ;; --repeat) repeat=$2 ;; --bin) bin=$2 ;; --out) out=$2 ;; --work) work=$2 ;;
    --direct-io) direct_io=$2 ;;
    *) sed -n '2,21p' "$0" >&2; exit 2 ;;
  esac
  shift 2
done
if [ -z "$threads" ]; then  # powers of two up to the core count, and the core count
  threads=1; t=2; while [ "$t" -le "$(nproc)" ]; do threads=$threads,$t; t=$((t * 2)); done
  [ "$((t / 2))" -eq "$(nproc)" ] || threads=$threads,$(nproc)
fi
IFS=, read -r -a thread_list <<<"$threads"
build_flags=()
[ "$direct_io" = auto ] || build_flags=(--direct-io "$direct_io")
max_threads=${thread_list[-1]}

if [ -n "$bin" ]; then
  simdex=$bin/simdex batch_bench=$bin/batch_bench gen=$bin/gen_fingerprints
else
  simdex=$root/build/cli/simdex batch_bench=$root/build/bench/batch_bench gen=$root/build/tests/gen_fingerprints
fi
loader=()
[ -n "$bin" ] && [ -x "$bin/lib/ld-linux-x86-64.so.2" ] &&
  loader=("$bin/lib/ld-linux-x86-64.so.2" --library-path "$bin/lib")
exe() {  # our programs through the loader, if any; system ones (wc) as they are
  case $1 in "$simdex" | "$batch_bench" | "$gen") "${loader[@]}" "$@" ;; *) "$@" ;; esac
}
# An unusable --bin stops here, before OUT's files are overwritten, not as a table of failed runs.
for p in "$simdex" "$batch_bench" "$gen"; do  # the loader runs a program without its x bit
  if [ ! -f "$p" ] || { [ ${#loader[@]} -eq 0 ] && [ ! -x "$p" ]; }; then
    echo "scaling.sh: cannot run $p: not an executable file${bin:+ (--bin $bin)}" >&2; exit 1
  fi
done
version=$(exe "$simdex" --version) || { echo "scaling.sh: cannot run $simdex${bin:+ (--bin $bin)}" >&2; exit 1; }

mkdir -p "$out"
# --work names a place, not ours to delete (it may be /dev/shm, or hold other files): the runs get a
# new directory inside it, and only that is removed.
if [ -n "$work" ]; then
  mkdir -p "$work" && work=$(mktemp -d "$work/simdex-scaling.XXXXXX") || exit 1
else
  work=$(mktemp -d) || exit 1
fi
trap 'rm -rf "$work"' EXIT

start=$(date +%s)
tsv=$out/scaling.tsv
printf 'work\tthreads\twall_s\tuser_s\tsys_s\tnote\n' >"$tsv"
row() { printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$@" >>"$tsv"; }
failed=0  # runs that failed: the exit status at the end, once the tables are written
# fits EST: whether a run estimated at EST seconds ends within the budget.
fits() { [ $(($(date +%s) - start + $1)) -le "$budget" ]; }

# timed WORK THREADS EST OUTFILE CMD...: runs CMD (stdout to OUTFILE), records wall/user/sys seconds.
timed() {
  local what=$1 t=$2 est=$3 dest=$4; shift 4
  if ! fits "$est"; then row "$what" "$t" - - - "skipped: budget"; return 1; fi
  echo "+ [$what, $t threads] $*" >&2
  local tf=$work/time.txt
  { TIMEFORMAT='%R %U %S'; time exe "$@" >"$dest" 2>>"$work/stderr.txt"; } 2>"$tf"
  local rc=$?
  read -r wall user sys <"$tf"
  if [ $rc -ne 0 ]; then
    row "$what" "$t" "$wall" "$user" "$sys" "FAILED rc=$rc"; failed=$((failed + 1))
    tail -5 "$work/stderr.txt" >&2; return 1
  fi
  row "$what" "$t" "$wall" "$user" "$sys" ""
  echo "  $wall s wall, $user s user, $sys s sys" >&2
}

# same WORK FILE: the digest of FILE against the first one seen for WORK (outputs equal at every count).
declare -A first_digest
same() {
  local d; d=$(md5sum <"$2" | cut -c1-32)
  if [ -z "${first_digest[$1]:-}" ]; then first_digest[$1]=$d; return; fi
  if [ "${first_digest[$1]}" = "$d" ]; then row "$1" - - - - "output identical to the first thread count"
  else row "$1" - - - - "OUTPUT DIFFERS between thread counts"; fi
}

echo "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2 | sed 's/^ *//')," \
  "$(awk '/MemTotal/ { printf "%.0f GiB", $2 / 1048576 }' /proc/meminfo), kernel $(uname -r)" >&2
echo "simdex: $version" >&2

# Fingerprint files: N (and BIG) random, plus wc -l on each as the issue's yardstick.
fingerprints() {  # fingerprints COUNT: writes $work/fpCOUNT.txt
  if [ ! -s "$work/fp$1.txt" ]; then
    exe "$gen" "$1" 1 >"$work/fp$1.txt"
    local rc=$?  # no input then: the runs on it fail too, rather than measure a part of it
    if [ $rc -ne 0 ]; then row "gen_fingerprints $1" - - - - "FAILED rc=$rc"; failed=$((failed + 1)); rm -f "$work/fp$1.txt"; fi
  fi
  timed "wc -l, $1 fingerprints" 1 5 /dev/null wc -l "$work/fp$1.txt"
}

# times_at T ONE: how many runs at T threads: --repeat at the most threads, and at one thread when
# ONE is "repeat" (the long 1-thread builds run once).
times_at() {
  if [ "$1" = "$max_threads" ] || { [ "$1" = 1 ] && [ "$2" = repeat ]; }; then echo "$repeat"; else echo 1; fi
}

# build_runs COUNT SCHEME EST1: builds at each thread count; keeps the last index as $work/COUNT-SCHEME.sdx.
build_runs() {
  local count=$1 scheme=$2 est1=$3 t idx=$work/$1-$2.sdx
  for t in "${thread_list[@]}"; do
    for _ in $(seq "$(times_at "$t" once)"); do
      rm -f "$idx"
      timed "build $count, $scheme" "$t" $((est1 * 2 / t + 2)) /dev/null \
        "$simdex" build -q --scheme "$scheme" --threads "$t" "${build_flags[@]}" -o "$idx" \
        "$work/fp$count.txt" || continue
      same "build $count, $scheme" "$idx"
    done
  done
}

# batch_runs COMMAND COUNT SCHEME EST1: pairs or clusters at each thread count, sorted output compared.
batch_runs() {
  local cmd=$1 count=$2 scheme=$3 est1=$4 t
  [ -s "$work/$count-$scheme.sdx" ] || return 0
  for t in "${thread_list[@]}"; do
    for _ in $(seq "$(times_at "$t" "${5:-repeat}")"); do
      timed "$cmd $count, $scheme" "$t" $((est1 * 2 / t + 2)) "$work/out.txt" \
        "$simdex" "$cmd" -q --threads "$t" "$work/$count-$scheme.sdx" || continue
      sort "$work/out.txt" >"$work/sorted.txt"
      same "$cmd $count, $scheme" "$work/sorted.txt"
    done
  done
}

# join_runs COUNT SCHEME RUNS EST: batch_bench's join of 1M queries (half stored with 0..3 bits
# flipped), its medians recorded per thread count.
join_runs() {
  local count=$1 scheme=$2 runs=$3 est=$4
  if ! fits "$est"; then row "join 1M vs $count, $scheme" - - - - "skipped: budget"; return; fi
  echo "+ [join 1M vs $count, $scheme] batch_bench" >&2
  exe "$batch_bench" --no-pairs --no-single --join-n "$count" --queries 1000000 --runs "$runs" \
    --threads "$threads" --join-scheme "$scheme" >"$work/join.txt" 2>>"$work/stderr.txt"
  local rc=$? t
  cat "$work/join.txt" >&2
  # One process runs every thread count: when it fails none of its medians is trusted.
  if [ $rc -ne 0 ] || ! grep -q 'thread(s):' "$work/join.txt"; then
    for t in "${thread_list[@]}"; do row "join 1M vs $count, $scheme" "$t" - - - "FAILED rc=$rc"; done
    failed=$((failed + 1)); tail -5 "$work/stderr.txt" >&2; return
  fi
  local hits=""
  while read -r t wall cpu h; do
    row "join 1M vs $count, $scheme" "$t" "$wall" "$cpu" - "user+sys; median of $runs; $h hits"
    if [ -n "$hits" ] && [ "$h" != "$hits" ]; then row "join 1M vs $count, $scheme" - - - - "HIT COUNTS DIFFER"; fi
    hits=$h
  done < <(awk '/thread\(s\):/ { print $1, $3, $6, $(NF - 1) }' "$work/join.txt")
}

# fingerprint_runs FORMAT FILE EST1
fingerprint_runs() {
  local format=$1 file=$2 est1=$3 t what
  for t in "${thread_list[@]}"; do
    what="fingerprint $format, $(($(stat -c %s "$file") / 1000000)) MB"
    timed "$what" "$t" $((est1 * 2 / t + 2)) /dev/null \
      "$simdex" fingerprint -q --threads "$t" --input-format "$format" -o "$work/fp.out" "$file" || continue
    same "$what" "$work/fp.out"
  done
}

big_runs() {
  if fits 30; then fingerprints "$big"; fi
  # The issue's build target: the most threads against one.
  local all_threads=("${thread_list[@]}")
  thread_list=("$max_threads" 1)
  build_runs "$big" paper-10 $((big / 2000000))
  thread_list=("${all_threads[@]}")
  batch_runs pairs "$big" paper-10 $((big / 6000000 + 2))
  batch_runs clusters "$big" paper-10 $((big / 5000000 + 2)) once
  rm -f "$work"/*.sdx
  join_runs "$big" paper-10 "$repeat" $((big / 2000000 + 60))
  join_runs "$big" paper-4 "$repeat" $((big / 1000000 + 60))
}

corpus_runs() {  # the demo corpus COPIES times, as JSON Lines and as one text a line
  fits 20 || return 0
  zcat "$root/data/corpus/docs.jsonl.gz" >"$work/docs1.jsonl"
  python3 -c 'import json, sys
for line in sys.stdin: print(" ".join(json.loads(line)["text"].split()))' <"$work/docs1.jsonl" >"$work/docs1.txt"
  for f in jsonl txt; do
    for _ in $(seq "$copies"); do cat "$work/docs1.$f"; done >"$work/docs.$f"
  done
  rm -f "$work/docs1.jsonl" "$work/docs1.txt"
  fingerprint_runs jsonl "$work/docs.jsonl" $((copies / 30 + 2))
  fingerprint_runs lines "$work/docs.txt" $((copies / 60 + 2))
  rm -f "$work/docs.jsonl" "$work/docs.txt" "$work/fp.out"
}

small_runs() {
  if [ -s "$work/fp$big.txt" ] && [ "$n" -le "$big" ]; then
    head -n "$n" "$work/fp$big.txt" >"$work/fp$n.txt"
    rm -f "$work/fp$big.txt"
    timed "wc -l, $n fingerprints" 1 5 /dev/null wc -l "$work/fp$n.txt"
  else
    fingerprints "$n"
  fi
  build_runs "$n" paper-10 $((n / 1000000 + 2))
  batch_runs pairs "$n" paper-10 $((n / 2000000 + 2))
  batch_runs clusters "$n" paper-10 $((n / 2000000 + 2))
  timed "build $n, paper-4" "$max_threads" $((n / 2000000 + 2)) /dev/null \
    "$simdex" build -q --scheme paper-4 -o "$work/$n-paper-4.sdx" "$work/fp$n.txt"
  batch_runs pairs "$n" paper-4 $((n / 2000000 + 2))
  rm -f "$work"/*.sdx
  join_runs "$n" paper-4 3 $((n / 200000 + 10))
  join_runs "$n" paper-10 3 $((n / 200000 + 10))
}

[ "$big" -gt 0 ] && big_runs
corpus_runs
small_runs

# scaling.md: one row per work, one column per thread count, then the speed-up at the most threads.
python3 - "$tsv" "$threads" >"$out/scaling.md" <<'EOF'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
threads = sys.argv[2].split(",")
import statistics
works, wall, notes, failed = [], {}, {}, set()
for r in rows:
    if r["work"] not in works:
        works.append(r["work"])
    if r["note"].startswith("FAILED"):  # its time measures the failure: in no median or speed-up
        failed.add((r["work"], r["threads"]))
    elif r["threads"] != "-" and r["wall_s"] not in ("-", ""):
        wall.setdefault((r["work"], r["threads"]), []).append(float(r["wall_s"]))
    if r["note"] and not r["note"].startswith(("user+sys", "output identical")):
        notes.setdefault(r["work"], set()).add(r["note"])
print("| work | " + " | ".join(threads) + " | speed-up |")
print("|---|" + "---:|" * (len(threads) + 1))
wall = {key: statistics.median(v) for key, v in wall.items() if key not in failed}
for w in works:
    cells = ["FAILED" if (w, t) in failed else f"{wall[(w, t)]:.2f}" if (w, t) in wall else "" for t in threads]
    got = [t for t in threads if (w, t) in wall]
    speed = ""
    if "1" in got and len(got) > 1:
        speed = f"{wall[(w, '1')] / wall[(w, got[-1])]:.1f}x at {got[-1]}"
    note = "; ".join(sorted(notes.get(w, ())))
    print(f"| {w} | " + " | ".join(cells) + f" | {speed}{' (' + note + ')' if note else ''} |")
EOF
cat "$out/scaling.md" >&2
echo "elapsed $(($(date +%s) - start)) s" >&2
if [ "$failed" -gt 0 ]; then echo "scaling.sh: $failed run(s) FAILED (see $tsv)" >&2; exit 1; fi
