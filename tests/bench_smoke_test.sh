#!/usr/bin/env bash
# The bench programs on small inputs: each runs, checks its answers and exits 0; edge arguments are
# refused with a message (they crashed: n = 0, one block, --runs 0); a wrong answer fails the run
# (compare_bench and batch_bench exited 0); scaling.sh leaves the --work directory it is given.
# Not figures: the bench suite measures (README, "Benchmarks"); this keeps it working.
# usage: bench_smoke_test.sh BENCH_DIR SIMDEX GEN_FINGERPRINTS SOURCE_DIR
set -uo pipefail
bench=$1 simdex=$2 gen=$3 src=$4
. "$(dirname "$0")/shell_checks.sh"
export SIMDEX_BENCH_DIR=$dir

check compare-latency 0 env SIMDEX_BENCH_N=20000 "$bench/compare_bench" --benchmark_min_time=0.01 \
  --benchmark_filter='^(Latency/(simdex|baseline)/paper-10|LatencyBelowK/paper-10/[01]|Decode/paper-4|Open/small|Batch/simdex-join/paper-10)'
expect_grep compare-belowk-finds "LatencyBelowK/paper-10/0 .*hits_per_query=1 " "$dir/out"
! grep -q "ERROR OCCURRED" "$dir/out" && ok || bad "compare_bench reported an error: $(grep ERROR "$dir/out")"
# Cold on a disk, or an error naming tmpfs: never warm figures labelled cold.
check compare-cold 0 env SIMDEX_BENCH_N=20000 "$bench/compare_bench" --benchmark_filter='^Cold/paper-4'
grep -q "major_faults_per_table_probe" "$dir/out" || grep -q "tmpfs" "$dir/out" && ok || bad "Cold: $(cat "$dir/out")"
for n in 0 1 abc; do
  check "compare-n-$n" 2 env SIMDEX_BENCH_N=$n "$bench/compare_bench" --benchmark_filter=Decode
done
[ -z "$(ls "$dir" | grep '\.sdx$')" ] && ok || bad "compare_bench left index files: $(ls "$dir")"

check batch 0 "$bench/batch_bench" --n 20000 --join-n 20000 --queries 2000 --runs 1 --schemes paper-4
expect_grep batch-pairs-checked "= brute force" "$dir/out"
expect_grep batch-join-checked "same count" "$dir/out"
check batch-runs-0 2 "$bench/batch_bench" --runs 0
check batch-join-n-0 2 "$bench/batch_bench" --join-n 0

check latency 0 "$bench/latency_bench" --n 20000 --queries 300 --fresh 0 --schemes paper-10 --dir "$dir"
for bad_args in "--n 0" "--queries 0" "--schemes nosuch"; do
  # shellcheck disable=SC2086  # the words are the arguments
  check "latency $bad_args" 2 "$bench/latency_bench" $bad_args --dir "$dir"
done
[ -z "$(ls "$dir" | grep 'simdex-latency')" ] && ok || bad "latency_bench left files: $(ls "$dir")"
check key-map-0 2 env SIMDEX_BENCH_KEYS=0 "$bench/key_map_bench"
check output 0 "$bench/output_bench" --benchmark_min_time=0.01 --benchmark_filter='IdLine/10000|ShortLines'
expect_grep output-runs "IdLine/10000" "$dir/out"

# scaling.sh (its builds with --direct-io on): a named --work directory and its files stay; a binary
# that cannot run fails at once.
mkdir -p "$dir/work" "$dir/bin"; echo keep > "$dir/work/mine"
ln -s "$simdex" "$dir/bin/simdex"; ln -s "$bench/batch_bench" "$dir/bin/batch_bench"; ln -s "$gen" "$dir/bin/gen_fingerprints"
check scaling 0 bash "$src/bench/scaling.sh" --threads 1,2 --n 20000 --copies 1 --bin "$dir/bin" --work "$dir/work" --direct-io on \
  --out "$dir/scaling"
[ "$(cat "$dir/work/mine" 2>/dev/null)" = keep ] && ok || bad "scaling.sh removed its --work directory's file"
grep -q "OUTPUT DIFFERS" "$dir/scaling/scaling.tsv" && bad "scaling.sh: an output differs between thread counts" || ok
expect_grep scaling-table "pairs" "$dir/scaling/scaling.md"
! grep -q FAILED "$dir/scaling/scaling.md" && ok || bad "scaling.sh: $(grep FAILED "$dir/scaling/scaling.md")"
check scaling-bad-bin 1 bash "$src/bench/scaling.sh" --bin "$dir/nosuch" --work "$dir/work" --out "$dir/s2"
finish bench_smoke
