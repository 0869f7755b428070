#!/usr/bin/env bash
# Device run 2 (session 26): per-core speed, builds after a warm-up with phase times, pairs and join
# of 100M again (medians of 3 / 5).
# Recorded as run (bench/RESULTS.md, "The 16-core table at d1a5179"): .scaling/ held simdex, batch_bench,
# gen_fingerprints and lib/ (see bench/scaling.sh --bin); its phases16.txt is not used there.
set -uo pipefail
out=${OUT:-/tmp/out}; mkdir -p "$out"; w=/tmp/r5; mkdir -p $w
L=(.scaling/lib/ld-linux-x86-64.so.2 --library-path .scaling/lib)
S() { "${L[@]}" .scaling/simdex "$@"; }
tsv=$out/r5.tsv; printf 'work\tcpu\tthreads\twall_s\tuser_s\tsys_s\n' >"$tsv"
T() {  # T WORK CPU THREADS CMD...: times CMD, a row to the tsv
  local what=$1 cpu=$2 t=$3 a b c; shift 3
  { TIMEFORMAT='%R %U %S'; time "$@" >/dev/null 2>>$out/err.txt; } 2>$w/t.txt
  read -r a b c <$w/t.txt; printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$what" "$cpu" "$t" "$a" "$b" "$c" | tee -a "$tsv"
}
N=${N:-100000000}; M=$((N / 10))
"${L[@]}" .scaling/gen_fingerprints $N 1 >$w/fpN.txt; head -n $M $w/fpN.txt >$w/fpM.txt
S build -q --scheme paper-10 -o $w/M.sdx $w/fpM.txt
zcat data/corpus/docs.jsonl.gz >$w/d1.jsonl; for i in 1 2 3 4 5 6 7 8 9 10; do cat $w/d1.jsonl; done >$w/d.jsonl
# 1. Each core alone: pairs of M (memory-bound) and fingerprint (compute-bound), pinned.
if command -v taskset >/dev/null; then
  for c in $(seq 0 $(($(nproc) - 1))); do
    T "pairs M pinned" $c 1 taskset -c $c "${L[@]}" .scaling/simdex pairs -q --threads 1 $w/M.sdx
    T "fingerprint 32MB pinned" $c 1 taskset -c $c "${L[@]}" .scaling/simdex fingerprint -q --threads 1 -o $w/fp.out $w/d.jsonl
  done
else echo "no taskset" >>$out/err.txt; fi
rm -f $w/M.sdx $w/fpM.txt
# 2. Builds of N, paper-10: a warm-up at 16 (fresh VM memory), 3 timed with phases, 1 thread.
S build -q --scheme paper-10 --threads 16 -o $w/N.sdx $w/fpN.txt; rm -f $w/N.sdx
for r in 1 2 3; do
  T "build N paper-10" - 16 S build -q --scheme paper-10 --threads 16 -o $w/N.sdx $w/fpN.txt; rm -f $w/N.sdx
done
S build --progress --scheme paper-10 --threads 16 -o $w/N.sdx $w/fpN.txt 2>&1 | python3 .scaling/stamp.py >$out/phases16.txt
# 3. Pairs of N: 1 and 16 threads, 3 each, alternating.
for r in 1 2 3; do
  T "pairs N paper-10" - 1 S pairs -q --threads 1 $w/N.sdx
  T "pairs N paper-10" - 16 S pairs -q --threads 16 $w/N.sdx
done
rm -f $w/N.sdx
T "build N paper-10" - 1 S build -q --scheme paper-10 --threads 1 -o $w/N.sdx $w/fpN.txt; rm -f $w/N.sdx
# 4. Join 1M vs N, paper-10, 5 runs each.
"${L[@]}" .scaling/batch_bench --no-pairs --no-single --join-n $N --queries 1000000 --runs 5 --threads 1,16 --join-scheme paper-10 >$out/join.txt 2>&1
cat $out/join.txt; cat $out/phases16.txt; cat $out/err.txt | tail -5
