#!/usr/bin/env bash
# Batch commands under hostile limits: threads that cannot be created, work that would explode. usage: batch_limits_test.sh SIMDEX
set -uo pipefail
simdex=$1
. "$(dirname "$0")/shell_checks.sh"

awk 'BEGIN { srand(7); for (i = 0; i < 4000; ++i) printf "%d%09d\n", int(rand() * 1e9), int(rand() * 1e9) }' > "$dir/in.txt"
check build 0 "$simdex" build -q -o "$dir/a.sdx" --scheme paper-4 "$dir/in.txt"
for cmd in pairs clusters; do
  check "$cmd" 0 "$simdex" "$cmd" --threads 2 "$dir/a.sdx"; sort "$dir/out" > "$dir/$cmd.want"
done
check join 0 "$simdex" join --threads 2 "$dir/a.sdx" "$dir/in.txt"; sort "$dir/out" > "$dir/join.want"

# Thread creation fails after a few threads: a 1 GiB stack per thread within 4 GiB of address
# space. The commands go on with the threads they got (a warning), never std::terminate.
limited() { (ulimit -v 4194304 && ulimit -s 1048576 && "$@"); }
# seconds within which work is refused (clusters: after 1e9 comparisons, about a second of one
# core): minutes or hours would fail, a core shared with the other tests (ctest -j) would not
fast=20
if ! limited "$simdex" --help >/dev/null 2>&1; then
  echo "skipped the thread checks: this build cannot run under ulimit -v (ASan reserves its shadow memory)"
  fast=80  # an ASan build checks every load
else
for cmd in pairs clusters; do
  check "$cmd-threads" 0 limited "$simdex" "$cmd" --threads 4096 "$dir/a.sdx"; sort "$dir/out" > "$dir/$cmd.got"
  same "$cmd-threads-out" "$dir/$cmd.want" "$dir/$cmd.got"
  grep -q "warning: could start only" "$dir/err" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL $cmd-threads-warning"; cat "$dir/err"; }
done
check join-threads 0 limited "$simdex" join --threads 4096 "$dir/a.sdx" "$dir/in.txt"; sort "$dir/out" > "$dir/join.got"
same join-threads-out "$dir/join.want" "$dir/join.got"
check build-threads 0 limited "$simdex" build -q --threads 4096 -o "$dir/b.sdx" --scheme paper-4 "$dir/in.txt"
same build-threads-out "$dir/a.sdx" "$dir/b.sdx"
fi

# Work that would explode: 33 tables of 2-bit prefixes over 300k fingerprints would compare about
# 4e11 pairs of entries. Refused at once (exit 1, naming work_limit and --force); --force goes on.
# clusters compares an entry with each component of its group until one member is within k: at
# k = 32 random fingerprints are one component, found in about a comparison an entry; at k = 3
# none is near, each pair is compared, and the scan stops at the floor of a degenerate file.
awk 'BEGIN { srand(9); for (i = 0; i < 300000; ++i) printf "%d%09d\n", int(rand() * 1e9), int(rand() * 1e9) }' > "$dir/many.txt"
check build-short 0 "$simdex" build -q -o "$dir/short.sdx" --scheme blocks-33 -k 32 "$dir/many.txt"
start=$SECONDS
check clusters-one-component 0 "$simdex" clusters "$dir/short.sdx"
[ "$(wc -l < "$dir/out")" = 1 ] && [ "$(tr ',' '\n' < "$dir/out" | wc -l)" = "$(sort -u "$dir/many.txt" | wc -l)" ] &&
  pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-one-component-out"; head -c 300 "$dir/out"; }
[ $((SECONDS - start)) -le "$fast" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-one-component-fast: $((SECONDS - start)) s"; }
for cmd in pairs "clusters -k 3"; do
  start=$SECONDS
  check "$cmd-refused" 1 "$simdex" $cmd "$dir/short.sdx"
  grep -q "work_limit.*--force" "$dir/err" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL $cmd-refused-message"; cat "$dir/err"; }
  [ $((SECONDS - start)) -le "$fast" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL $cmd-refused-fast: $((SECONDS - start)) s"; }
done
check join-refused 1 "$simdex" join "$dir/short.sdx" "$dir/many.txt"
grep -q "work_limit.*--force" "$dir/err" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL join-refused-message"; cat "$dir/err"; }
for cmd in pairs clusters; do
  check "$cmd-force" 0 "$simdex" "$cmd" --force --threads 2 "$dir/a.sdx"; sort "$dir/out" > "$dir/$cmd.forced"
  same "$cmd-force-out" "$dir/$cmd.want" "$dir/$cmd.forced"
done
check join-force 0 "$simdex" join --force "$dir/a.sdx" "$dir/in.txt"

finish
