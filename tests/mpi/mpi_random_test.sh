#!/usr/bin/env bash
# simdex-mpi on random fingerprints without ids (ids are global line numbers, so the byte ranges of
# the one input must number their lines as one file): build on 3 ranks and on 1 answers as `simdex
# build`; join, pairs and clusters on 3 ranks (and on 1) print simdex's lines.
# usage: mpi_random_test.sh SIMDEX SIMDEX_MPI MPIRUN PYTHON
source "$(dirname "$0")/../shell_checks.sh"
source "$(dirname "$0")/mpi_common.sh"
gen random 6000 1 >"$dir/fp.txt"
gen queries 800 2 "$dir/fp.txt" >"$dir/q.txt"
"$simdex" build -q -o "$dir/ref.sdx" "$dir/fp.txt" || bad "simdex build"

run_mpi "build -np 3" 3 build -o "$dir/s3.sdxs" "$dir/fp.txt"
expect_grep "build: 3 members" "3 members on 3 ranks" "$dir/mpi.err"
run_mpi "build -np 1" 1 build -q -o "$dir/s1.sdxs" "$dir/fp.txt"
for s in s3 s1; do  # the set answers as the one index, ids (line numbers) included
  "$simdex" pairs --ids "$dir/$s.sdxs" >"$dir/set.pairs"
  agree "$s: pairs --ids of the set" "$dir/set.pairs" pairs --ids "$dir/ref.sdx"
  "$simdex" join "$dir/$s.sdxs" "$dir/q.txt" >"$dir/set.join"
  agree "$s: join of the set" "$dir/set.join" join "$dir/ref.sdx" "$dir/q.txt"
done
{ printf '\xef\xbb\xbf'; cat "$dir/fp.txt"; } >"$dir/bom.txt"  # a byte order mark first: skipped
run_mpi "build -np 3, a byte order mark first" 3 build -q -o "$dir/bom.sdxs" "$dir/bom.txt"
"$simdex" pairs --ids "$dir/bom.sdxs" >"$dir/set.pairs"
agree "byte order mark: pairs --ids of the set" "$dir/set.pairs" pairs --ids "$dir/ref.sdx"
run_mpi "join -np 3" 3 join "$dir/s3.sdxs" "$dir/q.txt"
agree "join -np 3" "$dir/mpi.out" join "$dir/ref.sdx" "$dir/q.txt"
run_mpi "pairs -np 3" 3 pairs "$dir/s3.sdxs" --hex
agree "pairs -np 3" "$dir/mpi.out" pairs "$dir/ref.sdx" --hex
run_mpi "clusters -np 3" 3 clusters "$dir/s3.sdxs"
agree "clusters -np 3" "$dir/mpi.out" clusters "$dir/ref.sdx"
run_mpi "pairs --ids -np 1" 1 pairs --ids "$dir/s1.sdxs" -k 2
agree "pairs --ids -np 1" "$dir/mpi.out" pairs --ids "$dir/ref.sdx" -k 2
run_mpi "join --json -np 1" 1 join --json "$dir/s1.sdxs" "$dir/q.txt"
agree "join --json -np 1" "$dir/mpi.out" join --json "$dir/ref.sdx" "$dir/q.txt"
finish mpi_random_test
