#!/usr/bin/env bash
# A rank that fails stops the whole simdex-mpi job: a corrupt member, a missing member, a malformed
# input line. The exit status is not 0, the error names the rank and the file, and nothing is
# published (no manifest, no member left behind, no -o file).
# usage: mpi_failure_test.sh SIMDEX SIMDEX_MPI MPIRUN PYTHON
source "$(dirname "$0")/../shell_checks.sh"
source "$(dirname "$0")/mpi_common.sh"
gen clustered 3000 5 >"$dir/all.tsv"
for i in 0 1 2; do
  awk -v i=$i 'NR % 3 == i' "$dir/all.tsv" >"$dir/m$i.tsv"
  "$simdex" add -q --no-merge "$dir/set.sdxs" "$dir/m$i.tsv" || bad "simdex add $i"
done
member=$(ls "$dir"/set.sdxs-*.sdx | sed -n 2p)  # the second member (generation 2)
name=$(basename "$member")

# A corrupt member (its header checksum broken): the rank that opens it names it; no -o file appears.
cp "$member" "$dir/good.sdx"
printf '\xff\xff\xff\xff' | dd of="$member" bs=1 seek=20 conv=notrunc status=none
check "pairs, corrupt member" 1 mpi 3 pairs "$dir/set.sdxs" -o "$dir/pairs.out"
expect_grep "corrupt: rank named" "simdex-mpi: rank [0-9] of 3" "$dir/err"
expect_grep "corrupt: file named" "$name" "$dir/err"
[ ! -e "$dir/pairs.out" ] && ok || bad "corrupt: -o file published"
ls "$dir" | grep -q 'pairs.out.tmp' && bad "corrupt: temporary output left" || ok

# A missing member.
mv "$member" "$dir/moved.sdx"
check "join, missing member" 1 mpi 3 join "$dir/set.sdxs" "$dir/all.tsv"
expect_grep "missing: rank named" "simdex-mpi: rank [0-9] of 3" "$dir/err"
expect_grep "missing: file named" "$name" "$dir/err"
expect_grep "missing: rule named" "member_missing" "$dir/err"

# A malformed line in the share of rank 2 of 3 (near the end): no manifest, no member left.
cp "$dir/all.tsv" "$dir/bad.tsv"
echo "not-a-fingerprint	7" >>"$dir/bad.tsv"
check "build, malformed line" 1 mpi 3 build -o "$dir/new.sdxs" "$dir/bad.tsv"
expect_grep "malformed: rank named" "simdex-mpi: rank 2 of 3" "$dir/err"
expect_grep "malformed: file and line named" "bad.tsv:3001:" "$dir/err"
[ ! -e "$dir/new.sdxs" ] && ok || bad "malformed: manifest published"
ls "$dir" | grep -q '^new.sdxs-' && bad "malformed: member files left: $(ls "$dir" | grep new.sdxs-)" || ok

# A usage error (k above the set's) is exit 2 on every rank.
mv "$dir/moved.sdx" "$member"; cp "$dir/good.sdx" "$member"
check "k above the set's" 2 mpi 2 pairs "$dir/set.sdxs" -k 9
expect_grep "k named" "k" "$dir/err"

# A set name its members cannot carry (they are named after it): refused before anything is written.
check "build, a set name members cannot carry" 2 mpi 2 build -o "$dir/my docs.sdxs" "$dir/all.tsv"
expect_grep "name: the rule cited" "spec/SET.md" "$dir/err"
ls "$dir" | grep -q '^my docs' && bad "name: files left: $(ls "$dir" | grep '^my docs')" || ok
finish mpi_failure_test
