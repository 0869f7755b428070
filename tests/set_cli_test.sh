#!/usr/bin/env bash
# `simdex add`, `remove` and `merge`, and every reading command on an index set, against one index
# built from the same live pairs (spec/SET.md). usage: set_cli_test.sh SIMDEX
set -uo pipefail
simdex=$1
. "$(dirname "$0")/shell_checks.sh"

# Fingerprints 1e9 * 1e6 + ...: decimal strings (awk's %d stops at 2^31); near-duplicates differ in
# the low digits (a few low bits).
awk 'BEGIN { srand(3); for (i = 0; i < 3000; i++) { b = int(rand() * 1e9); printf "%d%06d\t%d\n%d%06d\t%d\n", b, 16, i, b, 17, i + 5000 } }' > "$dir/a.tsv"
awk 'BEGIN { srand(4); for (i = 0; i < 500; i++) printf "%d%06d\t%d\n", int(rand() * 1e9), 16, i + 9000 }' > "$dir/b.tsv"
head -200 "$dir/a.tsv" | sed 's/16\t/18\t/; s/\t\([0-9]*\)$/\t2\1/' > "$dir/c.tsv"
s="$dir/docs.sdxs"

check "add creates the set" 0 "$simdex" add -q "$s" "$dir/a.tsv"
check "add from stdin, no merge" 0 sh -c "\"$simdex\" add -q --no-merge \"$s\" - < \"$dir/b.tsv\""
check "add a third member" 0 "$simdex" add --no-merge "$s" "$dir/c.tsv"
expect_grep "add reports the generation" "generation 3, 3 members" "$dir/err"
check "remove ids as arguments" 0 "$simdex" remove -q "$s" 1 2 5001
check "remove an id twice and one no member holds" 0 "$simdex" remove "$s" 2 2 987654321
expect_grep "remove counts the distinct ids given" "removed 2 ids, generation" "$dir/err"
printf '\xef\xbb\xbf9001\r\n9002\n' > "$dir/ids"
check "remove ids from a file (a byte order mark first, CRLF)" 0 "$simdex" remove -q "$s" "$dir/ids"
check "remove ids from stdin" 0 sh -c "printf '3\n' | \"$simdex\" remove -q \"$s\" -"
check "remove refuses a bad id" 1 "$simdex" remove -q "$s" "$dir/a.tsv"
check "remove without ids is a usage error" 2 "$simdex" remove -q "$s"
# A day without removals (a file of no ids): the set is left as it is, as an add of no pairs.
cp "$s" "$dir/manifest.before"
: > "$dir/no-ids"
check "remove from files of no ids succeeds" 0 sh -c "\"$simdex\" remove \"$s\" \"$dir/no-ids\" - < /dev/null"
expect_grep "it says the set is unchanged" "no-ids, - hold no ids; .*docs.sdxs is unchanged" "$dir/err"
same "no manifest is published" "$s" "$dir/manifest.before"
check "remove of no ids from a set that does not exist fails" 1 "$simdex" remove -q "$dir/none.sdxs" --from "$dir/no-ids"
check "add with another k is refused" 2 "$simdex" add -q -k 5 "$s" "$dir/b.tsv"

# The same live pairs in one file.
cat "$dir/a.tsv" "$dir/b.tsv" "$dir/c.tsv" | awk -F'\t' '$2 != 1 && $2 != 2 && $2 != 5001 && $2 != 9001 && $2 != 9002 && $2 != 3' > "$dir/live.tsv"
"$simdex" build -q -o "$dir/one.sdx" "$dir/live.tsv"
cut -f1 "$dir/a.tsv" | head -300 > "$dir/q"
for cmd in query pairs clusters; do
  if [ $cmd = query ]; then args=(-k 3); in="$dir/q"; else args=(-k 3); in=/dev/null; fi
  "$simdex" $cmd "$s" "${args[@]}" < "$in" | sort > "$dir/set.$cmd"
  "$simdex" $cmd "$dir/one.sdx" "${args[@]}" < "$in" | sort > "$dir/one.$cmd"
  same "$cmd over the set == over one file" "$dir/set.$cmd" "$dir/one.$cmd"
  [ -s "$dir/set.$cmd" ] && ok || bad "$cmd found nothing"
done
"$simdex" join "$s" "$dir/a.tsv" | sort > "$dir/set.join"
"$simdex" join "$dir/one.sdx" "$dir/a.tsv" | sort > "$dir/one.join"
same "join over the set == over one file" "$dir/set.join" "$dir/one.join"
check "verify a set" 0 "$simdex" verify "$s"
check "info on a set" 0 "$simdex" info "$s"
expect_grep "info names the members" "docs.sdxs-0000000000000001.sdx" "$dir/out"
"$simdex" info --json "$s" > "$dir/set.info"; "$simdex" info --json "$dir/one.sdx" > "$dir/one.info"
grep -o '"fingerprint_count":[0-9]*,"id_count":[0-9]*' "$dir/set.info" | head -1 > "$dir/a"
grep -o '"fingerprint_count":[0-9]*,"id_count":[0-9]*' "$dir/one.info" > "$dir/b"
same "info counts of the set == of one file" "$dir/a" "$dir/b"

check "merge" 0 "$simdex" merge "$s"
expect_grep "merge leaves one member" "1 member;" "$dir/err"
n=$(ls "$dir" | grep -c 'docs.sdxs-.*\.sd[xt]$')
[ "$n" = 1 ] && ok || bad "merge left $n member and tombstone files"
"$simdex" query "$s" -k 3 < "$dir/q" | sort > "$dir/merged.query"
same "query after merge == one file" "$dir/merged.query" "$dir/one.query"

# Hostile sets.
mkdir "$dir/sub"; cp "$s" "$dir/sub/x.sdxs"
check "a manifest away from its members" 1 "$simdex" query "$dir/sub/x.sdxs" 1
expect_grep "names the missing member" "member_missing" "$dir/err"
cp "$dir/sub/x.sdxs" "$dir/sub/x.before"
check "add to a set whose members are missing" 1 "$simdex" add -q "$dir/sub/x.sdxs" "$dir/b.tsv"
expect_grep "add names the missing member" "member_missing" "$dir/err"
check "remove from it" 1 "$simdex" remove -q "$dir/sub/x.sdxs" 5
same "its manifest is unchanged" "$dir/sub/x.sdxs" "$dir/sub/x.before"
check "lock held: --no-wait fails" 1 flock "$s.lock" "$simdex" add -q --no-wait "$s" "$dir/b.tsv"
expect_grep "names the lock" "lock" "$dir/err"
check "a set name its files cannot carry" 2 "$simdex" add -q "$dir/my docs.sdxs" "$dir/b.tsv"
expect_grep "says why" "spec/SET.md" "$dir/err"
[ ! -e "$dir/my docs.sdxs" ] && [ ! -e "$dir/my docs.sdxs.lock" ] && ok || bad "a refused set name left files"
# The temporary file of a killed writer's pending member (no live process holds it) is removed by
# the next writer.
leftover="$dir/..$(basename "$s")-0000000000000009.sdx.pending-999999.tmp-999999-0"
printf 'partial' > "$leftover"
check "a change after a killed writer" 0 "$simdex" remove -q "$s" 424242
[ ! -e "$leftover" ] && ok || bad "a killed writer's pending temporary file was left"

# Mistakes leave no SET.lock behind, and a missing set is a missing file (exit 1).
check "remove from a missing set" 1 "$simdex" remove -q "$dir/none.sdxs" 5
expect_grep "says there is no set" "no index set" "$dir/err"
check "merge of a missing set" 1 "$simdex" merge -q "$dir/none.sdxs"
check "add with its arguments swapped" 2 "$simdex" add -q "$dir/b.tsv" "$s"
# An index written over a set's manifest would orphan its members: refused, the set left as it was.
cp "$s" "$dir/manifest.before"
check "build over a set" 2 "$simdex" build -q -o "$s" "$dir/b.tsv"
expect_grep "build over a set says why" "is an index set's manifest: an index written there would replace the set" "$dir/err"
same "build over a set leaves it" "$s" "$dir/manifest.before"
check "dedup --index over a set" 2 "$simdex" dedup -q --input-format lines --index "$s" -o "$dir/kept.txt" "$dir/b.tsv"
same "dedup --index over a set leaves it" "$s" "$dir/manifest.before"
# Nor over a member (it broke the set: member_mismatch, exit 0), nor under a name its writers give.
member=$(ls "$dir"/docs.sdxs-*.sdx | head -1)
cp "$member" "$dir/member.before"
check "build over a member" 2 "$simdex" build -q -o "$member" "$dir/b.tsv"
expect_grep "build over a member says why" "has the name of a member of the index set '.*docs.sdxs'" "$dir/err"
same "build over a member leaves it" "$member" "$dir/member.before"
check "upgrade over a member" 2 "$simdex" upgrade -q "$dir/one.sdx" -o "$member"
check "build under a future entry's name" 2 "$simdex" build -q -o "$s-00000000000000ff.sdt" "$dir/b.tsv"
check "the set verifies after" 0 "$simdex" verify "$s"
check "add in a missing directory" 1 "$simdex" add -q "$dir/nodir/x.sdxs" "$dir/b.tsv"
expect_grep "names the directory" "'$dir/nodir' does not exist" "$dir/err"
ls "$dir"/*.lock 2>/dev/null | grep -v "^$s.lock$" | grep -q . && bad "lock files left: $(ls "$dir"/*.lock)" || ok
check "a set on stdin (redirected)" 2 bash -c "'$simdex' pairs - < '$s'"
expect_grep "says why" "an index set cannot be read from stdin" "$dir/err"
check "a set on stdin (piped)" 2 bash -c "cat '$s' | '$simdex' pairs -"
check "upgrade of a set points to merge" 2 "$simdex" upgrade "$s" -o "$dir/u.sdx"
expect_grep "upgrade names merge" "simdex merge" "$dir/err"

# Keys: a set's key map (SET.keys.tsv) grows with each add of documents with string ids, and with
# the key map beside fingerprint lines, as build's does.
t="$dir/keyed.sdxs"
printf '{"id":"url:a","text":"the quick brown fox jumps over the lazy dog again"}\n{"id":"url:b","text":"the quick brown fox jumps over the lazy dog again!"}\n' > "$dir/d1.jsonl"
printf '{"id":"url:c","text":"a completely different text about sailing ships at sea"}\n' > "$dir/d2.jsonl"
check "add --text with string ids" 0 "$simdex" add -q "$t" --text "$dir/d1.jsonl"
check "query --keys on the set" 0 "$simdex" query --keys "$t" --text "$dir/d1.jsonl"
expect_grep "keys of the first add" "url:b,url:a" "$dir/out"
check "fingerprint with keys" 0 "$simdex" fingerprint -q "$dir/d2.jsonl" -o "$dir/d2.fp"
check "add fingerprint lines with their key map" 0 "$simdex" add -q "$t" "$dir/d2.fp"
check "pairs --keys names keys of both adds" 0 "$simdex" clusters --keys --min-size 1 "$t"
expect_grep "key of the second add" "url:c" "$dir/out"
ls -a "$dir" | grep -q 'keys.tsv.pending' && bad "an add left its key map's temporary file" || ok
# An id given another key than the set's map holds: refused, the set and its map unchanged.
cp "$t.keys.tsv" "$dir/keys.before"; cp "$t" "$dir/manifest.before"
id=$(cut -f2 "$dir/d2.fp")
printf '#simdex-keys 1\n%s\turl:other\n' "$id" > "$dir/e.fp.keys.tsv"
printf '%s\t%s\n' "$(cut -f1 "$dir/d2.fp")" "$id" > "$dir/e.fp"
check "an id with another key is refused" 1 "$simdex" add -q "$t" "$dir/e.fp"
expect_grep "names both keys" "url:other" "$dir/err"
same "the set's key map is unchanged" "$t.keys.tsv" "$dir/keys.before"
same "the manifest is unchanged" "$t" "$dir/manifest.before"
# The same id as a plain integer id (documents whose id field is that number): refused too.
printf '{"id":%s,"text":"a text about something else entirely, far away"}\n' "$id" > "$dir/int.jsonl"
check "a key's id as an integer id is refused" 1 "$simdex" add -q "$t" --text "$dir/int.jsonl"
expect_grep "names the key" "is the key 'url:c'" "$dir/err"
same "the manifest is still unchanged" "$t" "$dir/manifest.before"
# A set's key map damaged: an add that extends it refuses it (naming the line), the set unchanged.
cp "$t.keys.tsv" "$dir/keys.good"
printf '1\tunsorted\n' >> "$t.keys.tsv"
check "a damaged set key map is refused" 1 "$simdex" add -q "$t" "$dir/d2.fp"
expect_grep "names the line" "$t.keys.tsv:5: ids must be strictly ascending" "$dir/err"
same "the manifest is unchanged by it" "$t" "$dir/manifest.before"
cp "$dir/keys.good" "$t.keys.tsv"
# Fingerprint lines without their map (a pipe) cannot tell: the same documents again are accepted.
check "keyed fingerprints through a pipe" 0 bash -c "'$simdex' fingerprint -q '$dir/d2.jsonl' | '$simdex' add -q '$t' -"
check "--key-map naming the set's map" 2 "$simdex" add -q "$t" --text "$dir/d1.jsonl" --key-map "$t.keys.tsv"
# An add that fails after the set's map was extended (its member's name taken by a file the
# writers keep: one that begins with the set magic) puts the map back as it was: a key never added
# is not removable.
cp "$t.keys.tsv" "$dir/keys.before"; cp "$t" "$dir/manifest.before"
next=$(printf '%016x' $(( $("$simdex" info --json "$t" | sed 's/.*"generation":\([0-9]*\),"tombstone_count".*/\1/') + 1 )))
printf '\211SDS\r\n\032\nnot a member' > "$t-$next.sdx"
printf '{"id":"url:never","text":"a text about something that was never added to the set"}\n' > "$dir/never.jsonl"
check "an add whose member cannot be published" 1 "$simdex" add -q "$t" --text "$dir/never.jsonl"
expect_grep "says why" "exists: another writer published that generation" "$dir/err"
same "its map is put back" "$t.keys.tsv" "$dir/keys.before"
same "its manifest is unchanged" "$t" "$dir/manifest.before"
ls -a "$dir" | grep -q 'keys-before' && bad "the failed add left the map's second name" || ok
check "a key of the failed add is not removable" 1 "$simdex" remove -q "$t" --key url:never
rm "$t-$next.sdx"
check "the add then succeeds" 0 "$simdex" add -q "$t" --text "$dir/never.jsonl"
ls -a "$dir" | grep -q 'keys-before' && bad "an add left the map's second name" || ok
check "and its key is removable" 0 "$simdex" remove -q "$t" --key url:never

# A good set whose members record different text settings (hand-made: writers refuse to make one):
# info describes it and says so; a query by text refuses it.
if command -v python3 >/dev/null; then
  printf '{"id":1,"text":"alpha beta gamma delta epsilon"}\n' > "$dir/sa.jsonl"
  "$simdex" build -q --text -o "$dir/sa.sdx" "$dir/sa.jsonl"
  "$simdex" build -q --text --shingle 2 -o "$dir/sb.sdx" "$dir/sa.jsonl"
  python3 -c '
import sys; sys.path.insert(0, sys.argv[1] + "/../spec/reference"); import simdex_ref as r
d = sys.argv[2]
open(d + "/mixed.sdxs", "wb").write(r.encode_manifest(2, 256, 3, [r.member_entry(d + "/sa.sdx", 1, "sa.sdx"),
                                                           r.member_entry(d + "/sb.sdx", 2, "sb.sdx")], []))' \
    "$(cd "$(dirname "$0")" && pwd)" "$dir"
  check "info on a set of mixed text settings" 0 "$simdex" info "$dir/mixed.sdxs"
  expect_grep "info says they differ" "differ between members" "$dir/out"
  check "info --json on it" 0 "$simdex" info --json "$dir/mixed.sdxs"
  expect_grep "json says they differ" '"fingerprint_settings_differ":true' "$dir/out"
  check "a text query refuses it" 1 "$simdex" query --text "$dir/mixed.sdxs" "$dir/sa.jsonl"
  expect_grep "names the mismatch" "settings_mismatch" "$dir/err"
  # Its batch jobs by fingerprint are answered (they were refused: the set's one temporary index
  # recorded the members' settings); a merge is refused, saying why, and changes nothing.
  check "pairs of it" 0 "$simdex" pairs --ids "$dir/mixed.sdxs"
  check "clusters of it" 0 "$simdex" clusters --min-size 1 "$dir/mixed.sdxs"
  [ "$(wc -l < "$dir/out")" = 2 ] && ok || bad "clusters of the mixed set: $(cat "$dir/out")"
  cp "$dir/mixed.sdxs" "$dir/mixed.before"
  check "a merge of it" 1 "$simdex" merge -q "$dir/mixed.sdxs"
  expect_grep "says why" "settings_mismatch: .*cannot be merged into one member" "$dir/err"
  same "the refused merge changed nothing" "$dir/mixed.sdxs" "$dir/mixed.before"
fi

# Members linked in from elsewhere (spec/SET.md §2.2): a merge removes the links it no longer
# names, never what they lead to, nor a file reached through a linked directory.
if command -v python3 >/dev/null; then
  l="$dir/linked"; mkdir -p "$l/set" "$l/elsewhere"
  printf '1\t1\n' > "$l/a.tsv"; printf '2\t2\n' > "$l/b.tsv"
  "$simdex" build -q -o "$l/elsewhere/a.sdx" "$l/a.tsv"
  "$simdex" build -q -o "$l/elsewhere/b.sdx" "$l/b.tsv"
  ln -s ../elsewhere "$l/set/dir"; ln -s ../elsewhere/b.sdx "$l/set/b.sdx"
  python3 -c '
import sys; sys.path.insert(0, sys.argv[1] + "/../spec/reference"); import simdex_ref as r
d = sys.argv[2]
open(d + "/set/s.sdxs", "wb").write(r.encode_manifest(2, 256, 3, [r.member_entry(d + "/elsewhere/a.sdx", 1, "dir/a.sdx"),
                                                               r.member_entry(d + "/elsewhere/b.sdx", 2, "b.sdx")], []))' \
    "$(cd "$(dirname "$0")" && pwd)" "$l"
  check "merge of linked-in members" 0 "$simdex" merge -q "$l/set/s.sdxs"
  [ -e "$l/elsewhere/a.sdx" ] && [ -e "$l/elsewhere/b.sdx" ] && ok || bad "a merge removed a file outside the set"
  [ ! -L "$l/set/b.sdx" ] && ok || bad "a merge kept the link it no longer names"
  check "the merged set answers" 0 "$simdex" query "$l/set/s.sdxs" 2
  expect_grep "its answer" "$(printf '^2\t2\t0\t2$')" "$dir/out"
fi

# A set of more members than the soft limit on open files (each member keeps its descriptor): the
# limit is raised as far as the hard one allows; below what the set needs, the error says what to do.
if command -v python3 >/dev/null; then
  mkdir "$dir/many"; printf '1\t1\n2\t2\n' > "$dir/many/a.tsv"
  "$simdex" build -q -o "$dir/many/m0.sdx" "$dir/many/a.tsv"
  python3 -c '
import os, sys; sys.path.insert(0, sys.argv[1] + "/../spec/reference"); import simdex_ref as r
os.chdir(sys.argv[2]); n = 1100; e = r.member_entry("m0.sdx", 1, "m0.sdx"); entries = []
for i in range(n):
    if i: os.link("m0.sdx", "m%d.sdx" % i)
    entries.append((i + 1,) + e[1:5] + ("m%d.sdx" % i,))
open("s.sdxs", "wb").write(r.encode_manifest(n, 256, 3, entries, []))' "$(cd "$(dirname "$0")" && pwd)" "$dir/many"
  if [ "$(ulimit -Hn)" = unlimited ] || [ "$(ulimit -Hn)" -ge 1300 ]; then
    check "1,100 members under a soft limit of 1,024" 0 bash -c "ulimit -Sn 1024 && '$simdex' query '$dir/many/s.sdxs' 1"
    expect_grep "its answer" "$(printf '^1\t1\t0\t1$')" "$dir/out"
  fi
  check "1,100 members under a hard limit of 512" 1 bash -c "ulimit -n 512 && '$simdex' info '$dir/many/s.sdxs'"
  expect_grep "says what to do" "ulimit -n" "$dir/err"
fi

# A damaged member (a bit flipped in table 0's blocks): merge refuses it, naming it, and leaves the
# set as it was; it gave the bytes fresh checksums (verify passed after) and removed the member.
d="$dir/damaged"; mkdir -p "$d"
check "damaged: a set of two members" 0 bash -c "'$simdex' add -q '$d/s.sdxs' '$dir/a.tsv' && '$simdex' add -q --no-merge '$d/s.sdxs' '$dir/b.tsv'"
python3 -c 'import sys; f = sys.argv[1]; b = bytearray(open(f, "rb").read()); b[len(b) // 10] ^= 1; open(f, "wb").write(b)' \
  "$d/s.sdxs-0000000000000001.sdx"
cp "$d/s.sdxs" "$d/before"
check "merge of a damaged member" 1 "$simdex" merge "$d/s.sdxs"
expect_grep "names the member" "member 's.sdxs-0000000000000001.sdx' of set .*: section 0 (BLOCKS of table 0.*checksum mismatch; nothing was written" "$dir/err"
cmp -s "$d/s.sdxs" "$d/before" && [ -e "$d/s.sdxs-0000000000000001.sdx" ] && ok || bad "a refused merge changed the set"
check "verify still finds the damage" 1 "$simdex" verify "$d/s.sdxs"

# A member swapped for another valid index of the same size (the same fingerprints, other ids):
# readers refuse the set (member_mismatch: its header checksum), and so do writers, which published
# new generations on it.
w="$dir/swapped"; mkdir -p "$w"
"$simdex" add -q "$w/s.sdxs" "$dir/b.tsv"
awk -F'\t' '{ print $1 "\t" ($2 + 100000) }' "$dir/b.tsv" > "$w/other.tsv"
"$simdex" build -q -o "$w/other.sdx" "$w/other.tsv"
[ "$(stat -c %s "$w/other.sdx")" = "$(stat -c %s "$w/s.sdxs-0000000000000001.sdx")" ] && ok || bad "swapped: sizes differ"
cp "$w/other.sdx" "$w/s.sdxs-0000000000000001.sdx"
cp "$w/s.sdxs" "$w/before"
for c in "add -q --no-merge $w/s.sdxs $dir/c.tsv" "remove -q $w/s.sdxs 9000" "merge -q $w/s.sdxs"; do
  # shellcheck disable=SC2086
  check "swapped member: $c" 1 "$simdex" $c
  expect_grep "swapped member: $c: says so" "member_mismatch: member 's.sdxs-0000000000000001.sdx'" "$dir/err"
done
cmp -s "$w/s.sdxs" "$w/before" && ok || bad "a writer changed a set readers refuse"

# A manifest reached through a symbolic link (a "current" link): its members, and its key map, are
# beside the file it names.
l="$dir/linked"; mkdir -p "$l/real" "$l/other"
"$simdex" add -q "$l/real/s.sdxs" "$dir/b.tsv"
ln -s ../real/s.sdxs "$l/other/current.sdxs"
first=$(head -1 "$dir/b.tsv" | cut -f1)
check "query through a linked manifest" 0 "$simdex" query "$l/other/current.sdxs" "$first"
expect_grep "its answer" "9000" "$dir/out"
printf '{"id": "doc-a", "text": "one two three four five"}\n' > "$l/d.jsonl"
"$simdex" add -q --text "$l/real/t.sdxs" "$l/d.jsonl"
ln -s ../real/t.sdxs "$l/other/t.sdxs"
"$simdex" fingerprint -o "$l/d.fp" --key-map "$l/d.keys" "$l/d.jsonl"
check "query --keys through a linked manifest" 0 "$simdex" query --keys "$l/other/t.sdxs" "$(cut -f1 "$l/d.fp")"
expect_grep "its key" "doc-a" "$dir/out"

# A document added with a string key is removed by its key (--key: its id, XXH3-64 of the key); a
# key given as an argument is read as a file of ids, and the error says to use --key.
r="$dir/bykey"; mkdir -p "$r"
printf '{"id": "doc-a", "text": "alpha beta gamma delta"}\n{"id": "doc-b", "text": "one two three four"}\n' > "$r/d.jsonl"
"$simdex" add -q --text "$r/s.sdxs" "$r/d.jsonl"
check "remove doc-a (a key as an argument)" 1 "$simdex" remove -q "$r/s.sdxs" doc-a
expect_grep "says to use --key" "to remove a document by its key: --key 'doc-a'" "$dir/err"
# A key the set's map lacks was never added: refused (a mistyped key removed nothing, silently), as is
# every key of a set without a map; nothing is removed, not even the keys that are there.
cp "$r/s.sdxs" "$dir/manifest-before"
check "remove --key of a key never added" 1 "$simdex" remove -q "$r/s.sdxs" --key doc-b --key doc-A
expect_grep "names the key" "no document of .*s.sdxs was added with the key 'doc-A' (its keys are in" "$dir/err"
same "nothing removed" "$dir/manifest-before" "$r/s.sdxs"
# A key whose id the map holds for another key (a collision, made here by renaming doc-b in the map):
# removing the id would remove that document.
mkdir -p "$r/c" && cp "$r/s.sdxs" "$r"/s.sdxs-* "$r/c/" 2>/dev/null
sed 's/\tdoc-b$/\tdoc-z/' "$r/s.sdxs.keys.tsv" > "$r/c/s.sdxs.keys.tsv"
check "remove --key whose id is another key's" 1 "$simdex" remove -q "$r/c/s.sdxs" --key doc-b
expect_grep "names the other key" "'doc-b': its id [0-9]* is the key 'doc-z' in .*(two keys with one id)" "$dir/err"
check "remove --key in a set of integer ids" 1 "$simdex" remove -q "$s" --key doc-a
expect_grep "says it has no key map" "has no key map (.*docs.sdxs.keys.tsv): no document was added to it with a string key" "$dir/err"
check "remove --key doc-a" 0 "$simdex" remove -q "$r/s.sdxs" --key doc-a
check "the set after" 0 "$simdex" clusters --min-size 1 --keys "$r/s.sdxs"
grep -q doc-b "$dir/out" && ! grep -q doc-a "$dir/out" && ok || bad "remove --key: $(cat "$dir/out")"

# An add whose merge after it fails (its name taken, as by a full disk's failure) is done: exit 0, a
# warning that says so; a retry would hold the pairs twice.
m="$dir/mf"; mkdir -p "$m"
for i in 1 2 3; do printf '%d\t%d\n' $((i * 4096)) $i | "$simdex" add -q --no-merge "$m/s.sdxs" -; done
echo "not simdex's" > "$m/s.sdxs-0000000000000005.sdx"  # the merge's generation; the add's is 4
check "an add whose merge fails" 0 sh -c "printf '16384\t4\n' | \"$simdex\" add \"$m/s.sdxs\" -"
expect_grep "warns that the pairs are in" "warning: the pairs were added (generation 4), but the merge of members after it failed: .*exists" "$dir/err"
expect_grep "says what merges" "the next add merges, or run: simdex merge" "$dir/err"
check "the added pairs answer" 0 sh -c "printf '16384\\n' | \"$simdex\" query -k 0 \"$m/s.sdxs\""
expect_grep "the new member's" "^16384	16384	0	4" "$dir/out"
ls -a "$m" | grep -q pending && bad "the failed merge left its file: $(ls -a "$m")" || ok

# A name whose files' hidden temporary names would pass 255 bytes: refused before anything is written.
long="$dir/$(printf 'n%.0s' $(seq 1 190)).sdxs"
check "a set name too long for its files" 2 "$simdex" add -q "$long" "$dir/b.tsv"
expect_grep "says how long" "at most 187 bytes" "$dir/err"
ls "$dir" | grep -q '^nnnn' && bad "a refused long name left files" || ok
finish set_cli
