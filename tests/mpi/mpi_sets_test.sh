#!/usr/bin/env bash
# simdex-mpi on clustered fingerprints with ids: a build from several files (one of them gzip, never
# split) answers as `simdex build` of their concatenation; on a set of 4 members that share
# fingerprints and ids (members of different ranks hold the same fingerprint) with removed ids,
# join, pairs and clusters on 3 ranks print what `simdex` prints for the set.
# usage: mpi_sets_test.sh SIMDEX SIMDEX_MPI MPIRUN PYTHON
source "$(dirname "$0")/../shell_checks.sh"
source "$(dirname "$0")/mpi_common.sh"
gen clustered 8000 3 >"$dir/all.tsv"
gen queries 600 4 "$dir/all.tsv" >"$dir/q.txt"
split -n l/4 -d "$dir/all.tsv" "$dir/part"
gzip "$dir/part01"
"$simdex" build -q -o "$dir/ref.sdx" "$dir/all.tsv"
run_mpi "build of 4 files -np 3" 3 build -q -o "$dir/files.sdxs" "$dir/part00" "$dir/part01.gz" "$dir/part02" "$dir/part03"
"$simdex" clusters --ids "$dir/files.sdxs" >"$dir/set.clusters"
agree "files: clusters --ids of the set" "$dir/set.clusters" clusters --ids "$dir/ref.sdx"
# built again over itself on 2 ranks: replaced (newer generations), the old members removed
old_members=$(ls "$dir"/files.sdxs-*.sdx)
run_mpi "build over the set -np 2" 2 build -q -o "$dir/files.sdxs" "$dir/part00" "$dir/part01.gz" "$dir/part02" "$dir/part03"
for f in $old_members; do [ ! -e "$f" ] && ok || bad "replaced member $f left"; done
"$simdex" info "$dir/files.sdxs" | grep -q "set of 2 members" && ok || bad "replaced set: not 2 members"
"$simdex" pairs --ids "$dir/files.sdxs" >"$dir/set.pairs"
agree "replaced: pairs --ids of the set" "$dir/set.pairs" pairs --ids "$dir/ref.sdx"

# 4 members, each a quarter plus every 7th line of the others: fingerprints (and ids) in several members
for i in 0 1 2 3; do
  awk -v i=$i 'NR % 4 == i || NR % 7 == 0' "$dir/all.tsv" >"$dir/m$i.tsv"
  "$simdex" add -q --no-merge "$dir/set.sdxs" "$dir/m$i.tsv" || bad "simdex add $i"
done
cut -f2 "$dir/all.tsv" | awk 'NR % 13 == 0' | sort -un >"$dir/removed.txt"
"$simdex" remove -q "$dir/set.sdxs" "$dir/removed.txt" || bad "simdex remove"
set=$dir/set.sdxs
run_mpi "join -np 3" 3 join "$set" "$dir/q.txt"
agree "join -np 3" "$dir/mpi.out" join "$set" "$dir/q.txt"
run_mpi "pairs --ids -np 3" 3 pairs --ids "$set"
agree "pairs --ids -np 3" "$dir/mpi.out" pairs --ids "$set"
run_mpi "pairs --json -np 3" 3 pairs --json "$set" -k 2
agree "pairs --json -np 3" "$dir/mpi.out" pairs --json "$set" -k 2
run_mpi "clusters -np 3" 3 clusters "$set"
agree "clusters -np 3" "$dir/mpi.out" clusters "$set"
run_mpi "clusters --ids -np 3" 3 clusters --ids "$set" --min-size 3
agree "clusters --ids -np 3" "$dir/mpi.out" clusters --ids "$set" --min-size 3
# one file per rank, members by index: the parts together are the output
run_mpi "pairs --output-dir -np 2" 2 pairs --ids --assign index --output-dir "$dir/parts" "$set"
cat "$dir/parts"/part-*.tsv >"$dir/parts.all"
agree "pairs --output-dir -np 2" "$dir/parts.all" pairs --ids "$set"

# clusters --ids, each fingerprint's ids read from its members: a fingerprint far from all others
# with one id in a member of rank 0 and one in a member of rank 1 is a cluster of 2 ids; one held by
# both with the same id is none; one fingerprint with many ids near many others (each id once)
printf '0x0123456789abcdef\t900001\n0x7edcba9876543210\t900005\n' >"$dir/lone0.tsv"
printf '0x0123456789abcdef\t900002\n0x7edcba9876543210\t900005\n' >"$dir/lone1.tsv"
"$python" - "$dir" <<'PY'
import random, sys
rng, hub = random.Random(7), 0x5a5a5a5a00000000
for m in (0, 1):
    with open(f"{sys.argv[1]}/hub{m}.tsv", "w") as f:
        for i in range(300):
            f.write(f"{hub}\t{800000 + 2 * i + m}\n")
        for i in range(300):
            fp = hub
            for b in rng.sample(range(64), rng.randint(1, 3)):
                fp ^= 1 << b
            f.write(f"{fp}\t{810000 + 2 * i + m}\n")
PY
for m in 0 1; do
  cat "$dir/m$m.tsv" "$dir/lone$m.tsv" "$dir/hub$m.tsv" >"$dir/c$m.tsv"
  "$simdex" add -q --no-merge "$dir/c.sdxs" "$dir/c$m.tsv" || bad "simdex add c$m"
done
run_mpi "clusters --ids, members by index -np 2" 2 clusters --ids --assign index "$dir/c.sdxs"
agree "clusters --ids, members by index -np 2" "$dir/mpi.out" clusters --ids "$dir/c.sdxs"
grep -qx '900001,900002' "$dir/mpi.out" && ok || bad "lone fingerprint on two ranks: no cluster 900001 900002"
grep -q '900005' "$dir/mpi.out" && bad "one id held by two members printed as a cluster" || ok
finish mpi_sets_test
