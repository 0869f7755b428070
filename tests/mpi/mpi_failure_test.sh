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
ls -A "$dir" | grep -q 'pairs.out.tmp' && bad "corrupt: temporary output left" || ok

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
ls "$dir" | grep -q '^new.sdxs' && bad "malformed: files left: $(ls "$dir" | grep new.sdxs)" || ok

# A line over 4 KiB in the last rank's range: the error gives its byte offset (it gave the range's).
cp "$dir/all.tsv" "$dir/long.tsv"
offset=$(wc -c <"$dir/long.tsv")
head -c 5000 /dev/zero | tr '\0' 7 >>"$dir/long.tsv"; echo >>"$dir/long.tsv"
check "build, a line over 4 KiB" 1 mpi 3 build -o "$dir/long.sdxs" "$dir/long.tsv"
expect_grep "long line: its offset named" "long.tsv: the line at byte offset $offset is longer than 4096" "$dir/err"

# Not a regular file (stdin, here /dev/null; a FIFO): refused, naming what it reads (it said "Illegal seek").
check "build from /dev/stdin" 2 mpi 2 build -o "$dir/stdin.sdxs" /dev/stdin
expect_grep "stdin: what is read named" "simdex-mpi reads regular files" "$dir/err"

# A usage error (k above the set's) is exit 2 on every rank.
mv "$dir/moved.sdx" "$member"; cp "$dir/good.sdx" "$member"
check "k above the set's" 2 mpi 2 pairs "$dir/set.sdxs" -k 9
expect_grep "k named" "k" "$dir/err"

# A corrupt manifest: the error names it, as simdex's does (it named the rule only).
cp "$dir/set.sdxs" "$dir/manifest.good"
printf '\xff' | dd of="$dir/set.sdxs" bs=1 seek=100 conv=notrunc status=none
check "pairs, corrupt manifest" 1 mpi 2 pairs "$dir/set.sdxs"
expect_grep "corrupt manifest: file named" "'$dir/set.sdxs': set manifest" "$dir/err"
cp "$dir/manifest.good" "$dir/set.sdxs"
check "--progress is not offered (simdex-mpi shows none)" 2 mpi 1 pairs --progress "$dir/set.sdxs"

# A set name its members cannot carry (they are named after it): refused before anything is written.
check "build, a set name members cannot carry" 2 mpi 2 build -o "$dir/my docs.sdxs" "$dir/all.tsv"
expect_grep "name: the rule cited" "spec/SET.md" "$dir/err"
ls "$dir" | grep -q '^my docs' && bad "name: files left: $(ls "$dir" | grep '^my docs')" || ok

# A --tmp-dir missing on one machine only (here rank 1's): the job stops with that rank's error, where
# the rank threw outside a step and the others waited in the next collective for ever.
mkdir -p "$dir/scratch"
check "build, --tmp-dir missing on one rank" 1 timeout 120 "$mpirun" --allow-run-as-root --oversubscribe \
  -np 1 "$simdex_mpi" build -o "$dir/scratch.sdxs" --tmp-dir "$dir/scratch" "$dir/all.tsv" : \
  -np 1 "$simdex_mpi" build -o "$dir/scratch.sdxs" --tmp-dir "$dir/no-such-dir" "$dir/all.tsv" </dev/null
expect_grep "--tmp-dir: the rank and the directory named" "rank 1 of 2: io: temporary directory" "$dir/err"
ls "$dir" | grep -q '^scratch.sdxs' && bad "--tmp-dir: files left: $(ls "$dir" | grep '^scratch.sdxs')" || ok

# Several inputs without ids: an error names the line of its own file (ids count over all files).
seq 1 700 >"$dir/first.tsv"; printf '5\n6\nzz9\n7\n' >"$dir/second.tsv"
check "build, bad line of a second input" 1 mpi 2 build -o "$dir/two-files.sdxs" "$dir/first.tsv" "$dir/second.tsv"
expect_grep "second input: its own line" "second.tsv:3: 'zz9'" "$dir/err"

# The inputs' key maps (beside them) are united beside the set, as `simdex build` carries one.
printf '5\t100\n6\t200\n' >"$dir/k1.tsv"; printf '#simdex-keys 1\n100\turl:a\n' >"$dir/k1.tsv.keys.tsv"
printf '7\t300\n' >"$dir/k2.tsv"; printf '#simdex-keys 1\n300\turl:c\n' >"$dir/k2.tsv.keys.tsv"
check "build with key maps" 0 mpi 2 build -q -o "$dir/keyed.sdxs" "$dir/k1.tsv" "$dir/k2.tsv"
check "keys printed from the set" 0 "$simdex" query "$dir/keyed.sdxs" --keys -k 0 5 7
expect_grep "first input's key" "$(printf '\turl:a$')" "$dir/out"
expect_grep "second input's key" "$(printf '\turl:c$')" "$dir/out"

# Two inputs' maps giving one id two keys: refused, naming both inputs; no set, no map published.
printf '9\t100\n' >"$dir/k3.tsv"; printf '#simdex-keys 1\n100\turl:z\n' >"$dir/k3.tsv.keys.tsv"
check "build, one id with two keys" 1 mpi 2 build -q -o "$dir/clash.sdxs" "$dir/k1.tsv" "$dir/k3.tsv"
expect_grep "clash: both keys named" "id 100 is the key 'url:a' in $dir/k1.tsv and the key 'url:z' in $dir/k3.tsv" "$dir/err"
ls "$dir" | grep -q '^clash' && bad "clash: files left: $(ls "$dir" | grep '^clash')" || ok

# One message for the ranks that all failed alike; a missing index is a missing file (exit 1).
check "a missing index" 1 mpi 3 pairs "$dir/none.sdxs"
expect_grep "missing index: once, every rank" "simdex-mpi: ranks 0-2 of 3: io: cannot open index" "$dir/err"
[ "$(grep -c simdex-mpi "$dir/err")" = 1 ] && ok || bad "missing index: more than one line: $(cat "$dir/err")"

# An output never replaces what the job reads: the manifest, a member, the queries.
cp "$dir/set.sdxs" "$dir/set.before"
check "pairs -o the set" 2 mpi 2 pairs "$dir/set.sdxs" -o "$dir/set.sdxs"
check "join -o a member" 2 mpi 2 join "$dir/set.sdxs" "$dir/all.tsv" -o "$member"
check "join -o the queries" 2 mpi 2 join "$dir/set.sdxs" "$dir/all.tsv" -o "$dir/all.tsv"
same "the set is intact" "$dir/set.sdxs" "$dir/set.before"
check "the member is intact" 0 "$simdex" verify "$dir/set.sdxs"
# Standard output appended to an input, in a run without mpirun (a singleton, writing the shell's
# file): refused as simdex refuses it, the queries intact (the results were appended to them).
cp "$dir/all.tsv" "$dir/all.before"
check "join >> the queries, no mpirun" 2 timeout 120 bash -c \
  "'$simdex_mpi' join '$dir/set.sdxs' '$dir/all.tsv' >>'$dir/all.tsv' </dev/null"
expect_grep "join >> the queries: named" "standard output" "$dir/err"
same "the queries are intact" "$dir/all.tsv" "$dir/all.before"

# --output-dir with the parts of an earlier job (on more ranks) is refused: they would mix.
check "pairs --output-dir" 0 mpi 3 pairs "$dir/set.sdxs" --output-dir "$dir/parts"
check "again on fewer ranks" 2 mpi 2 pairs "$dir/set.sdxs" --output-dir "$dir/parts"
expect_grep "earlier parts named" "holds part-0000[0-2].tsv of an earlier job" "$dir/err"
[ "$(ls "$dir/parts" | wc -l)" = 3 ] && ok || bad "parts: $(ls "$dir/parts")"

check "clusters --output-dir" 2 mpi 2 clusters "$dir/set.sdxs" --output-dir "$dir/cparts"
expect_grep "clusters: use -o" "use -o, not --output-dir" "$dir/err"
check "clusters --min-size 1" 2 mpi 1 clusters "$dir/set.sdxs" --min-size 1
expect_grep "--min-size 1: what to use" "use \`simdex clusters\`" "$dir/err"
"$simdex_mpi" clusters --help >"$dir/help"
grep -q 'Excludes: *$' "$dir/help" && bad "clusters --help: an Excludes: naming nothing" || ok
grep -q 'min-size.*\[2 - ' "$dir/help" && ok || bad "clusters --help: --min-size's range does not start at 2"
check "pairs -o NAME.gz" 0 mpi 2 pairs "$dir/set.sdxs" -o "$dir/pairs.tsv.gz"
check "pairs -o NAME.gz is gzip" 0 gzip -t "$dir/pairs.tsv.gz"
# -o as simdex's: a FIFO is written in place (it was replaced by a regular file), a directory is
# refused before any work; a failed job leaves no --output-dir it made.
check "pairs -o FILE" 0 mpi 2 pairs --ids "$dir/set.sdxs" -o "$dir/pairs.file"
mkfifo "$dir/fifo"
cat "$dir/fifo" >"$dir/from-fifo" &
check "pairs -o FIFO" 0 mpi 2 pairs --ids "$dir/set.sdxs" -o "$dir/fifo"
wait
[ -p "$dir/fifo" ] && ok || bad "pairs -o FIFO: the FIFO was replaced"
LC_ALL=C sort "$dir/from-fifo" >"$dir/from-fifo.sorted"
LC_ALL=C sort "$dir/pairs.file" >"$dir/pairs.file.sorted"
[ -s "$dir/pairs.file.sorted" ] && ok || bad "pairs -o FILE: no pairs (the test would not test)"
same "the FIFO's reader got the pairs" "$dir/pairs.file.sorted" "$dir/from-fifo.sorted"
mkdir "$dir/odir"
check "pairs -o DIR" 1 mpi 2 pairs "$dir/set.sdxs" -o "$dir/odir"
expect_grep "pairs -o DIR: named" "output '$dir/odir' exists and is not a regular file (a directory)" "$dir/err"
check "pairs --output-dir, no such set" 1 mpi 2 pairs "$dir/nosuch.sdxs" --output-dir "$dir/made"
[ ! -e "$dir/made" ] && ok || bad "a failed job left the --output-dir it made"

# build on 4 ranks of a 2-line input: a member per rank, member i on rank i, as --assign index opens.
printf '1\t1\n2\t2\n' >"$dir/two.tsv"
check "build, fewer lines than ranks" 0 mpi 4 build -q -o "$dir/two.sdxs" "$dir/two.tsv"
"$simdex" info "$dir/two.sdxs" | grep -q "set of 4 members" && ok || bad "two lines, 4 ranks: not 4 members"
check "pairs --assign index" 0 mpi 4 pairs "$dir/two.sdxs" -k 2 --assign index
finish mpi_failure_test
