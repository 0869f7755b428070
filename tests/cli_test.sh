#!/usr/bin/env bash
# The simdex CLI end to end: build, query, info, verify, and its errors. usage: cli_test.sh SIMDEX
set -uo pipefail
simdex=$1
. "$(dirname "$0")/shell_checks.sh"

printf '0x00000000000000ff\t10\n0x00000000000000fe\t11\n0x00000000000000ff\t12\n0xffffffffffffffff\t13\n255\t14\n' > "$dir/in.tsv"
check build 0 "$simdex" build -q -o "$dir/a.sdx" --scheme paper-4 "$dir/in.tsv"
check query 0 "$simdex" query "$dir/a.sdx" -k 1 0xff
expect_grep query-hit "$(printf '255\t255\t0\t10,12,14')" "$dir/out"
expect_grep query-near "$(printf '255\t254\t1\t11')" "$dir/out"
# --preload (bare: the block keys; =all: the whole file) changes no answer, and never takes INDEX as its value.
cp "$dir/out" "$dir/query.expected"
check query-preload 0 "$simdex" query --preload "$dir/a.sdx" -k 1 0xff
same query-preload-same "$dir/query.expected" "$dir/out"
check query-preload-all 0 "$simdex" query "$dir/a.sdx" --preload=all -k 1 0xff
same query-preload-all-same "$dir/query.expected" "$dir/out"
check query-preload-bad 2 "$simdex" query "$dir/a.sdx" --preload=most 0xff
expect_grep query-preload-bad-why "keys" "$dir/err"
# An empty value names nothing (an unset shell variable): a usage error, not the option's absence.
check query-preload-spaced 2 "$simdex" query --preload all "$dir/a.sdx" 0xff
expect_grep query-preload-spaced-msg "--preload takes its value after '=' (--preload=all)" "$dir/err"
check memory-unit 2 "$simdex" build -q --memory 1E -o "$dir/m.sdx" "$dir/in.tsv"
expect_grep memory-unit-msg "not a size: expected a number, then K, M, G or T" "$dir/err"
check memory-small 2 "$simdex" build -q --memory 10K -o "$dir/m.sdx" "$dir/in.tsv"
expect_grep memory-small-msg "too small, expected a size of at least 1M" "$dir/err"
check tmpdir-empty 0 env TMPDIR= "$simdex" dedup -q --input-format lines "$dir/in.tsv" -o -
check tmpdir-missing 1 env TMPDIR="$dir/no-such-dir" "$simdex" dedup -q --input-format lines "$dir/in.tsv" -o -
expect_grep tmpdir-missing-msg "no temporary directory: TMPDIR='$dir/no-such-dir': No such file or directory" "$dir/err"
check query-preload-empty 2 "$simdex" query "$dir/a.sdx" --preload= 0xff
expect_grep query-preload-empty-msg "--preload=: an empty value names nothing" "$dir/err"
check query-empty-fingerprint 2 "$simdex" query "$dir/a.sdx" ''
check build-output-empty 2 "$simdex" build -q -o '' "$dir/in.tsv"
expect_grep build-output-empty-msg "--output: an empty value names nothing" "$dir/err"
check info-empty 2 "$simdex" info ''
check query-json 0 "$simdex" query "$dir/a.sdx" --json 18446744073709551615
expect_grep query-json-out '"fingerprint":18446744073709551615,"distance":0,"ids":\[13\]' "$dir/out"
check query-stdin 0 bash -c "printf '254\n\n0xff\n' | '$simdex' query '$dir/a.sdx' -k 0"
expect_grep query-stdin-out "$(printf '254\t254\t0\t11')" "$dir/out"
check info 0 "$simdex" info "$dir/a.sdx"
expect_grep info-scheme "paper-4 (4 tables, k = 3)" "$dir/out"
check info-json 0 "$simdex" info --json "$dir/a.sdx"
expect_grep info-json-out '"fingerprint_count":3' "$dir/out"
check verify 0 "$simdex" verify "$dir/a.sdx"
expect_grep verify-ok "OK" "$dir/out"

# Line numbers as ids, gzip and zstd input, stdin.
printf '1\n2\n\n3\n' > "$dir/plain.txt"
check build-plain 0 "$simdex" build -q -o "$dir/p.sdx" "$dir/plain.txt"
check query-plain 0 "$simdex" query "$dir/p.sdx" -k 0 3
expect_grep line-number-id "$(printf '3\t3\t0\t3')" "$dir/out"
gzip -c "$dir/in.tsv" > "$dir/in.tsv.gz"
check build-gz 0 "$simdex" build -q -o "$dir/g.sdx" --scheme paper-4 "$dir/in.tsv.gz"
check same-bytes 0 cmp "$dir/a.sdx" "$dir/g.sdx"
if command -v zstd >/dev/null; then
  zstd -q -c "$dir/in.tsv" > "$dir/in.tsv.zst"
  check build-zst 0 "$simdex" build -q -o "$dir/z.sdx" --scheme paper-4 "$dir/in.tsv.zst"
  check same-bytes-zst 0 cmp "$dir/a.sdx" "$dir/z.sdx"
fi
check build-stdin 0 bash -c "'$simdex' build -q -o '$dir/s.sdx' --scheme paper-4 < '$dir/in.tsv'"
check same-bytes-stdin 0 cmp "$dir/a.sdx" "$dir/s.sdx"

# Bad input: the error names the line, nothing is written at the target.
printf '1\t1\n2\tx\n' > "$dir/bad.tsv"
check malformed-line 1 "$simdex" build -o "$dir/bad.sdx" "$dir/bad.tsv"
expect_grep malformed-line-number "bad.tsv:2:" "$dir/err"
[ ! -e "$dir/bad.sdx" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: bad.sdx written"; }
printf '1\t1\n2\n' > "$dir/mixed.tsv"
check mixed-lines 1 "$simdex" build -o "$dir/bad.sdx" "$dir/mixed.tsv"
printf '18446744073709551616\n' > "$dir/big.txt"
check overflow 1 "$simdex" build -o "$dir/bad.sdx" "$dir/big.txt"
printf '0x1ffffffffffffffff\n' > "$dir/bighex.txt"
check overflow-hex 1 "$simdex" build -o "$dir/bad.sdx" "$dir/bighex.txt"
# Hex as the parser takes it: 1 to 16 digits of either case after 0x or 0X, nothing else.
printf '0xFFFFFFFFFFFFFFFF\n0XabCDef0123456789\n0x0000000000000001\n0x7\n' > "$dir/hex.txt"
check hex-forms 0 "$simdex" build -q -o "$dir/hex.sdx" "$dir/hex.txt"
check hex-forms-query 0 "$simdex" query "$dir/hex.sdx" -k 0 18446744073709551615 12379813738877118345 1 7
for n in 0 1 2 3; do expect_grep "hex-forms-$n" "$(printf '\t%d$' "$n")" "$dir/out"; done
for bad in '0x' '0x12g4' '0x 12' '0x-1' '0x+1' '0x1.5' "$(printf '0x\xc3\xa9')"; do
  printf '%s\n' "$bad" > "$dir/badhex.txt"
  check "bad-hex-$bad" 1 "$simdex" build -o "$dir/bad.sdx" "$dir/badhex.txt"
  expect_grep "bad-hex-msg-$bad" "is not a 64-bit fingerprint" "$dir/err"
done
# A UTF-8 byte order mark first in a file (Windows tools write one) is skipped, also alone on its line;
# anywhere else it is an error.
bom=$(printf '\xef\xbb\xbf')
printf '%s0x00000000000000ff\t10\r\n0x00000000000000fe\t11\r\n0x00000000000000ff\t12\r\n0xffffffffffffffff\t13\r\n255\t14\r\n' "$bom" > "$dir/bom.tsv"
check bom 0 "$simdex" build -q -o "$dir/bom.sdx" --scheme paper-4 "$dir/bom.tsv"
same bom-same-index "$dir/a.sdx" "$dir/bom.sdx"
{ printf '%s\n' "$bom"; cat "$dir/in.tsv"; } > "$dir/bom-alone.tsv"
check bom-alone 0 "$simdex" build -q -o "$dir/bom.sdx" --scheme paper-4 "$dir/bom-alone.tsv"
check bom-join 0 "$simdex" join -k 0 "$dir/a.sdx" "$dir/bom.tsv"
expect_grep bom-join-first "$(printf '^10\t255\t255\t0\t10,12,14')" "$dir/out"
printf '%s0xff\n' "$bom" > "$dir/bom-queries"
check bom-query-stdin 0 bash -c "'$simdex' query -k 0 '$dir/a.sdx' < '$dir/bom-queries'"
expect_grep bom-query-stdin-hit "$(printf '255\t255\t0\t10,12,14')" "$dir/out"
printf '1\t1\n%s2\t2\n' "$bom" > "$dir/bom-late.tsv"
check bom-late 1 "$simdex" build -o "$dir/bad.sdx" "$dir/bom-late.tsv"
expect_grep bom-late-msg "bom-late.tsv:2: '\\\\ufeff2' is not a 64-bit fingerprint" "$dir/err"
ls -a "$dir" | grep -q '\.tmp-' && { fail=$((fail+1)); echo "FAIL: temp file left"; } || pass=$((pass+1))
check missing-input 1 "$simdex" build -o "$dir/m.sdx" "$dir/nope.tsv"
expect_grep missing-input-msg "cannot open input" "$dir/err"
check missing-index 1 "$simdex" query "$dir/nope.sdx" 1
check k-too-big 2 "$simdex" query "$dir/a.sdx" -k 4 1
expect_grep k-too-big-msg "exceeds" "$dir/err"
# A bad fingerprint argument is a usage error, found before any query is answered.
check bad-query 2 "$simdex" query "$dir/a.sdx" 1 zz
expect_grep bad-query-msg "argument 2: 'zz' is not a 64-bit fingerprint" "$dir/err"
[ ! -s "$dir/out" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: bad-query answered argument 1 first"; }
# CLI11's own errors in simdex's form: one line, the command's help named.
check bad-option-value 2 "$simdex" fingerprint --shingle 0 "$dir/in.tsv"
expect_grep bad-option-value-msg "^simdex: usage: --shingle: .* (\`simdex fingerprint --help\` says more)$" "$dir/err"
check bad-scheme 2 "$simdex" build -o "$dir/x.sdx" --scheme paper-99 "$dir/in.tsv"
check bad-block-bytes 2 "$simdex" build -o "$dir/x.sdx" --block-bytes 100 "$dir/in.tsv"
# A missing directory is reported before the input is read (a large build would find out late).
check missing-out-dir 1 bash -c "yes 0x1234 | head -1000 | '$simdex' build -o '$dir/nodir/x.sdx' -"
expect_grep missing-out-dir-msg "nodir' does not exist" "$dir/err"
check out-dir-a-file 1 "$simdex" build -o "$dir/in.tsv/x.sdx" "$dir/in.tsv"
expect_grep out-dir-a-file-msg "cannot write $dir/in.tsv/x.sdx: '$dir/in.tsv' is not a directory" "$dir/err"
check input-a-directory 2 "$simdex" build -o "$dir/x.sdx" "$dir"
expect_grep input-a-directory-msg "input $dir is a directory: build reads fingerprint lines from a file" "$dir/err"
check missing-tmp-dir 1 "$simdex" build -o "$dir/x.sdx" --tmp-dir "$dir/notmp" "$dir/in.tsv"
expect_grep missing-tmp-dir-msg "notmp' does not exist" "$dir/err"
# Targets: one that is not a regular file is refused and left as it was (a symbolic link too: not
# followed); an output that is the build's own input (another path to it, or stdin) is refused.
mkfifo "$dir/fifo.sdx"
check target-fifo 1 "$simdex" build -q -o "$dir/fifo.sdx" "$dir/in.tsv"
expect_grep target-fifo-msg "not a regular file (a FIFO)" "$dir/err"
[ -p "$dir/fifo.sdx" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: fifo.sdx replaced"; }
cp "$dir/a.sdx" "$dir/pointed.sdx"; ln -s pointed.sdx "$dir/link.sdx"
check target-symlink 1 "$simdex" build -q -o "$dir/link.sdx" "$dir/plain.txt"
expect_grep target-symlink-msg "is a symbolic link" "$dir/err"
[ -L "$dir/link.sdx" ] && cmp -s "$dir/a.sdx" "$dir/pointed.sdx" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: link.sdx replaced"; }
# Text outputs (fingerprint -o, dedup's --report) the same: a link to a regular file is
# refused and its target left whole; /dev/stdout (a link under /dev) and a FIFO are written in place.
printf '{"id":1,"text":"one two three"}\n{"id":2,"text":"four five"}\n' >"$dir/two.jsonl"
(cat "$dir/two.jsonl"; echo 'not json') >"$dir/partbad.jsonl"
echo OLD >"$dir/text-target.txt"; ln -s text-target.txt "$dir/text-link.fp"
check text-symlink 1 "$simdex" fingerprint -q "$dir/partbad.jsonl" -o "$dir/text-link.fp"
expect_grep text-symlink-msg "is a symbolic link" "$dir/err"
[ "$(cat "$dir/text-target.txt")" = OLD ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: a link's target cut short"; }
check text-symlink-report 1 "$simdex" dedup -q "$dir/two.jsonl" -o "$dir/kept.jsonl" --report "$dir/text-link.fp"
[ "$(cat "$dir/text-target.txt")" = OLD ] && [ ! -e "$dir/kept.jsonl" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: report through a link"; }
check text-dev-stdout 0 bash -c "'$simdex' fingerprint -q '$dir/two.jsonl' -o /dev/stdout > '$dir/via-stdout.fp'"
[ "$(wc -l <"$dir/via-stdout.fp")" = 2 ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: -o /dev/stdout"; }
mkdir "$dir/report-dir"
check report-is-a-directory 1 "$simdex" dedup -q "$dir/two.jsonl" -o "$dir/kept.jsonl" --report "$dir/report-dir"
expect_grep report-dir-msg "is not a regular file (a directory)" "$dir/err"
[ "$(grep -c simdex "$dir/err")" = 1 ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: one error, not: $(cat "$dir/err")"; }
cp "$dir/in.tsv" "$dir/self.tsv"
check target-is-input 2 "$simdex" build -q -o "$dir/self.tsv" "$dir/self.tsv"
expect_grep target-is-input-msg "same file as the input" "$dir/err"
check target-is-input-other-path 2 "$simdex" build -q -o "$dir/./self.tsv" "$dir/../$(basename "$dir")/self.tsv"
check target-is-stdin 2 bash -c "'$simdex' build -q -o '$dir/self.tsv' < '$dir/self.tsv'"
cmp -s "$dir/in.tsv" "$dir/self.tsv" && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL: self.tsv replaced"; }
ls -a "$dir" | grep -q '\.tmp-' && { fail=$((fail+1)); echo "FAIL: temp file left by a refused target"; } || pass=$((pass+1))
# Standard output onto the input: `>> IN` would read its own output without end, `> IN` emptied it.
for cmd in "build -q" "fingerprint" "dedup -q" "fingerprint --json"; do
  cp "$dir/in.tsv" "$dir/self.tsv"
  check "stdout-appends-to-input ($cmd)" 2 timeout 20 bash -c "'$simdex' $cmd '$dir/self.tsv' -o - >> '$dir/self.tsv'"
  expect_grep "stdout-appends-to-input-msg ($cmd)" "standard output is the same file as the input" "$dir/err"
  same "stdout-appends-input-kept ($cmd)" "$dir/in.tsv" "$dir/self.tsv"
done
check join-stdout-appends-to-queries 2 bash -c "'$simdex' join '$dir/a.sdx' '$dir/self.tsv' >> '$dir/self.tsv'"
expect_grep join-stdout-appends-to-queries-msg "standard output is the same file as the input" "$dir/err"
check pairs-stdout-onto-index 2 bash -c "'$simdex' pairs '$dir/a.sdx' -o - >> '$dir/a.sdx'"
check stdout-onto-stdin 2 timeout 20 bash -c "'$simdex' fingerprint - < '$dir/self.tsv' >> '$dir/self.tsv'"
expect_grep stdout-onto-stdin-msg "the same file as the input <stdin>" "$dir/err"
mkdir -p "$dir/docs-in"; printf 'one two three four\n' > "$dir/docs-in/a.txt"
check stdout-into-input-directory 2 bash -c "'$simdex' fingerprint --json '$dir/docs-in' > '$dir/docs-in/out.fp'"
expect_grep stdout-into-input-directory-msg "standard output ($dir/docs-in/out.fp) lies in the input directory" "$dir/err"
check stdout-beside-input-directory 0 bash -c "'$simdex' fingerprint --json '$dir/docs-in' > '$dir/docs-in.fp'"
check stdout-to-other-file 0 bash -c "'$simdex' build -q -o - '$dir/in.tsv' > '$dir/other.sdx'"
# Every file a command reads is checked against standard output, not only its -o: an index it
# maps, a set's members, a key map, stopwords, queries on stdin.
"$simdex" build -q -o "$dir/guard.sdx" "$dir/in.tsv" && cp "$dir/guard.sdx" "$dir/guard.before"
for cmd in "query '$dir/guard.sdx' 0xff" "info '$dir/guard.sdx'" "verify '$dir/guard.sdx'" "query - 0xff < '$dir/guard.sdx'"; do
  check "stdout-appends-to-index ($cmd)" 2 bash -c "'$simdex' $cmd >> '$dir/guard.sdx'"
  expect_grep "stdout-appends-to-index-msg ($cmd)" "standard output is the same file as the input" "$dir/err"
  same "stdout-appends-to-index-kept ($cmd)" "$dir/guard.sdx" "$dir/guard.before"
done
printf '0xff\n' > "$dir/guard-q.tsv"
check stdout-onto-query-lines 2 bash -c "'$simdex' query '$dir/guard.sdx' < '$dir/guard-q.tsv' >> '$dir/guard-q.tsv'"
mkdir -p "$dir/gset"
printf '0xff\t1\n' | "$simdex" add -q --no-merge "$dir/gset/s.sdxs" -
printf '0xfe\t2\n' | "$simdex" add -q --no-merge "$dir/gset/s.sdxs" -
member=$(ls "$dir/gset" | grep -m1 '\.sdx$'); cp "$dir/gset/$member" "$dir/member.before"
for cmd in pairs clusters info; do
  check "stdout-appends-to-set-member ($cmd)" 2 bash -c "'$simdex' $cmd '$dir/gset/s.sdxs' >> '$dir/gset/$member'"
done
same stdout-appends-to-set-member-kept "$dir/gset/$member" "$dir/member.before"
"$simdex" verify "$dir/gset/s.sdxs" > /dev/null && ok || bad "the set no longer verifies"
printf '#simdex-keys 1\n255\tk255\n' > "$dir/guard.keys"; cp "$dir/guard.keys" "$dir/guard.keys.before"
check stdout-appends-to-key-map 2 bash -c "'$simdex' query --keys='$dir/guard.keys' '$dir/guard.sdx' 0xff >> '$dir/guard.keys'"
same stdout-appends-to-key-map-kept "$dir/guard.keys" "$dir/guard.keys.before"
printf 'the\nand\n' > "$dir/sw.txt"
check stdout-onto-stopwords 2 bash -c "'$simdex' fingerprint --stopwords-file '$dir/sw.txt' - < '$dir/in.tsv' >> '$dir/sw.txt'"
[ "$(cat "$dir/sw.txt")" = "$(printf 'the\nand')" ] && ok || bad "stopwords file changed: $(cat "$dir/sw.txt")"
# Another output of the command renamed over the file standard output writes: that output lost.
check stdout-is-the-report 2 bash -c "'$simdex' dedup -q --input-format lines '$dir/in.tsv' -o - --report '$dir/r.json' > '$dir/r.json'"
expect_grep stdout-is-the-report-msg "is the file standard output writes" "$dir/err"
check stdout-is-the-key-map 2 bash -c "'$simdex' fingerprint --key-map '$dir/km.tsv' '$dir/docs-in' > '$dir/km.tsv'"
# An output name the file system takes but its temporary file would not: refused before the work.
long=$(printf 'x%.0s' $(seq 240))
check long-output-name 2 "$simdex" build -q -o "$dir/$long" "$dir/in.tsv"
expect_grep long-output-name-msg "is 240 bytes: its temporary file would pass" "$dir/err"
check long-output-name-fits 0 "$simdex" build -q -o "$dir/${long:0:200}" "$dir/in.tsv"
for cmd in "pairs '$dir/a.sdx'" "fingerprint '$dir/in.tsv'" "join '$dir/a.sdx' '$dir/in.tsv'"; do
  check "long-output-name ($cmd)" 2 bash -c "'$simdex' $cmd -o '$dir/$long'"
  expect_grep "long-output-name-msg ($cmd)" "is 240 bytes: its temporary file would pass" "$dir/err"
done
# The key map beside the output takes 9 bytes more (.keys.tsv): checked at the first key, and
# nothing published; documents without keys need no map, and --key-map names it elsewhere.
printf '{"id":"k1","text":"a keyed document here"}\n' > "$dir/keyed.jsonl"
mid=${long:0:225}
check long-key-map-name 2 "$simdex" fingerprint "$dir/keyed.jsonl" -o "$dir/$mid"
expect_grep long-key-map-name-msg "give an output name of at most 219 bytes" "$dir/err"
[ ! -e "$dir/$mid" ] && ok || bad "output published without its key map"
check long-key-map-name-no-keys 0 "$simdex" fingerprint --input-format lines "$dir/in.tsv" -o "$dir/$mid"
check long-key-map-name-elsewhere 0 "$simdex" fingerprint --key-map "$dir/km2.tsv" "$dir/keyed.jsonl" -o "$dir/$mid"
# A TMPDIR too long a path for the files made in it: refused when chosen, before the input is read.
deep="$dir/deep"
while [ ${#deep} -lt 4000 ]; do deep="$deep/${long:0:200}"; done
mkdir -p "$deep"
check long-tmpdir 1 env TMPDIR="$deep" "$simdex" build -q -o - "$dir/in.tsv"
expect_grep long-tmpdir-msg "limit on a path; use a shorter one" "$dir/err"
check long-tmp-dir 1 "$simdex" build -q --tmp-dir "$deep" -o "$dir/deep.sdx" "$dir/in.tsv"
check no-command 2 "$simdex"
check help 0 "$simdex" build --help
expect_grep help-text "paper-20" "$dir/out"

# A corrupted index: clear error and non-zero exit from every command.
cp "$dir/a.sdx" "$dir/c.sdx"
size=$(stat -c %s "$dir/c.sdx")
printf '\x55' | dd of="$dir/c.sdx" bs=1 seek=$((size - 20)) conv=notrunc status=none
check corrupt-verify 1 "$simdex" verify "$dir/c.sdx"
expect_grep corrupt-verify-msg "section_checksum" "$dir/out"
printf 'garbage' > "$dir/g.sdx"
check garbage-info 1 "$simdex" info "$dir/g.sdx"
expect_grep garbage-msg "file_too_small" "$dir/err"
head -c 200 "$dir/a.sdx" > "$dir/t.sdx"
check truncated-query 1 "$simdex" query "$dir/t.sdx" 1
expect_grep truncated-msg "file_size_mismatch" "$dir/err"

# Batch work: pairs, join, clusters on a tiny index (255 has ids 10,12,14; 254 is 1 bit away, 240 3 bits).
printf '0xff\t10\n0xfe\t11\n0xff\t12\n0xffffffffffffffff\t13\n255\t14\n0xf0\t15\n0x8000000000000000\t16\n' > "$dir/b.tsv"
check batch-build 0 "$simdex" build -q -o "$dir/b.sdx" --scheme paper-4 "$dir/b.tsv"
check pairs 0 "$simdex" pairs "$dir/b.sdx" --sort
[ "$(cat "$dir/out")" = "$(printf '240\t254\t3\n254\t255\t1')" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL pairs-out:"; cat "$dir/out"; }
check pairs-k1 0 "$simdex" pairs "$dir/b.sdx" -k 1 --threads 3
[ "$(cat "$dir/out")" = "$(printf '254\t255\t1')" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL pairs-k1-out:"; cat "$dir/out"; }
check pairs-ids 0 "$simdex" pairs "$dir/b.sdx" --ids --sort
expect_grep pairs-ids-pair "$(printf '254\t255\t1\t11\t10,12,14')" "$dir/out"
expect_grep pairs-ids-dup "$(printf '255\t255\t0\t10,12,14\t10,12,14')" "$dir/out"
check pairs-json 0 "$simdex" pairs "$dir/b.sdx" --format json
expect_grep pairs-json-out '{"a":254,"b":255,"distance":1}' "$dir/out"
check pairs-seomoz 0 "$simdex" pairs "$dir/b.sdx" --format seomoz --sort
[ "$(cat "$dir/out")" = "$(printf '[240, 254]\n[254, 255]')" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL pairs-seomoz-out:"; cat "$dir/out"; }
check pairs-stats 0 "$simdex" pairs "$dir/b.sdx" --stats
expect_grep pairs-stats-out "table 0: 1 of 1 blocks decoded" "$dir/err"
check pairs-k-too-big 2 "$simdex" pairs "$dir/b.sdx" -k 4
expect_grep pairs-k-too-big-msg "exceeds" "$dir/err"
check pairs-seomoz-ids 2 "$simdex" pairs "$dir/b.sdx" --format seomoz --ids
check clusters 0 "$simdex" clusters "$dir/b.sdx"
[ "$(cat "$dir/out")" = "240,254,255" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-out:"; cat "$dir/out"; }
check clusters-seomoz 0 "$simdex" clusters "$dir/b.sdx" --format seomoz
[ "$(cat "$dir/out")" = "[240, 254, 255]" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-seomoz-out:"; cat "$dir/out"; }
check clusters-ids 0 "$simdex" clusters "$dir/b.sdx" --ids --min-size 1 --sort
[ "$(cat "$dir/out")" = "$(printf '10,11,12,14,15\n13\n16')" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-ids-out:"; cat "$dir/out"; }
check clusters-k1-min3 0 "$simdex" clusters "$dir/b.sdx" -k 1 --min-size 3
[ ! -s "$dir/out" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL clusters-k1-min3-out:"; cat "$dir/out"; }
check clusters-k-too-big 2 "$simdex" clusters "$dir/b.sdx" -k 5
printf '0xfd\t100\n0x1\t101\n0x1234567812345678\t102\n' > "$dir/q.tsv"
check join 0 "$simdex" join "$dir/b.sdx" "$dir/q.tsv" --sort
[ "$(cat "$dir/out")" = "$(printf '100\t253\t255\t1\t10,12,14\n100\t253\t254\t2\t11\n100\t253\t240\t3\t15\n101\t1\t9223372036854775808\t2\t16')" ] \
  && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL join-out:"; cat "$dir/out"; }
# -o FILE: the same lines as stdout (.gz compressed so); what the command reads is refused as it;
# a run that fails leaves the file as it was.
cp "$dir/out" "$dir/join.expected"
check join-o 0 "$simdex" join "$dir/b.sdx" "$dir/q.tsv" --sort -o "$dir/join.out"
[ ! -s "$dir/out" ] && ok || bad "join -o also wrote stdout"
same join-o-same "$dir/join.expected" "$dir/join.out"
check pairs-o-gz 0 "$simdex" pairs "$dir/b.sdx" --sort -o "$dir/pairs.out.gz"
[ "$(gzip -dc "$dir/pairs.out.gz")" = "$(printf '240\t254\t3\n254\t255\t1')" ] && ok || bad "pairs -o .gz: $(gzip -dc "$dir/pairs.out.gz")"
check clusters-o 0 "$simdex" clusters "$dir/b.sdx" -o "$dir/clusters.out"
[ "$(cat "$dir/clusters.out")" = "240,254,255" ] && ok || bad "clusters -o: $(cat "$dir/clusters.out")"
cp "$dir/b.sdx" "$dir/b.before"
check pairs-o-index 2 "$simdex" pairs "$dir/b.sdx" -o "$dir/b.sdx"
expect_grep pairs-o-index-msg "is the same file as the input" "$dir/err"
check join-o-queries 2 "$simdex" join "$dir/b.sdx" "$dir/q.tsv" -o "$dir/q.tsv"
same pairs-o-index-kept "$dir/b.sdx" "$dir/b.before"
printf '0xfd\nnot-a-fingerprint\n' > "$dir/q-bad.tsv"
check join-o-failed 1 "$simdex" join "$dir/b.sdx" "$dir/q-bad.tsv" -o "$dir/join.out"
same join-o-failed-kept "$dir/join.expected" "$dir/join.out"
check clusters-o-nodir 1 "$simdex" clusters "$dir/b.sdx" -o "$dir/nodir/c.out"
check join-stdin-json 0 bash -c "printf '255\n' | '$simdex' join '$dir/b.sdx' --json -k 0 --stats"
expect_grep join-json-out '{"query_id":0,"query":255,"fingerprint":255,"distance":0,"ids":\[10,12,14\]}' "$dir/out"
expect_grep join-stats "table 0: 1 of 1 blocks decoded" "$dir/err"
expect_grep join-stats-k0 "table 3: not read (an earlier table groups every pair within k that it groups)" "$dir/err"
check join-k-too-big 2 "$simdex" join "$dir/b.sdx" "$dir/q.tsv" -k 4
# A malformed query line: the queries before it are answered first (they were dropped with it when
# they were in its chunk), then exit 1 naming the line, as query does.
check join-bad-line 1 bash -c "printf '255\n254\nbad\n240\n' | '$simdex' join '$dir/b.sdx' -k 0 --sort"
[ "$(cut -f1,3 "$dir/out" | sort -u | tr '\n\t' ' :')" = "0:255 1:254 " ] && pass=$((pass+1)) ||
  { fail=$((fail+1)); echo "FAIL join-bad-line-answers:"; cat "$dir/out"; }
expect_grep join-bad-line-named "<stdin>:3: 'bad' is not a 64-bit fingerprint" "$dir/err"
check build-space-for-tab 1 bash -c "printf '255 10\n' | '$simdex' build -q -o '$dir/sp.sdx' -"
expect_grep build-space-for-tab-hint "a TAB separates FINGERPRINT and ID, not a space" "$dir/err"
check join-bad-line 1 bash -c "printf '1\nzz\n' | '$simdex' join '$dir/b.sdx'"
expect_grep join-bad-line-msg "<stdin>:2" "$dir/err"
check batch-help 0 "$simdex" pairs --help
expect_grep batch-help-text "seomoz" "$dir/out"
printf '' > "$dir/empty.txt"
check batch-empty-build 0 "$simdex" build -q -o "$dir/e.sdx" "$dir/empty.txt"
check pairs-empty 0 "$simdex" pairs "$dir/e.sdx"
check join-empty-queries 0 "$simdex" join "$dir/b.sdx" "$dir/empty.txt"
[ ! -s "$dir/out" ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL join-empty-out:"; cat "$dir/out"; }

printf '{"id": 1, "text": "the quick brown fox jumps over the lazy dog"}\n{"id": 2, "text": "a different sentence about cats and mice"}\n' > "$dir/d.jsonl"
check batch-text-build 0 "$simdex" build --text -q -o "$dir/t.sdx" "$dir/d.jsonl"
check join-text 0 bash -c "printf '{\"id\": 7, \"text\": \"the quick brown fox jumps over the lazy dog\"}\n' | '$simdex' join --text '$dir/t.sdx'"
expect_grep join-text-out "$(printf '^7\t[0-9]*\t[0-9]*\t0\t1$')" "$dir/out"

# fingerprint: a directory's documents are keyed by their paths (the same ids and fingerprints as
# the same texts in JSON Lines keyed by those paths), the key map goes beside the output or to
# --key-map (alias --paths).
mkdir -p "$dir/docs/sub"; printf 'alpha text' > "$dir/docs/a.txt"; printf 'beta' > "$dir/docs/sub/b.txt"
check fp-dir 0 "$simdex" fingerprint "$dir/docs" -o "$dir/docs.fp"
check fp-dir-map-header 0 grep -qx '#simdex-keys 1' "$dir/docs.fp.keys.tsv"
expect_grep fp-dir-map-a "$(printf '^[0-9]*	a.txt$')" "$dir/docs.fp.keys.tsv"
expect_grep fp-dir-map-b "$(printf '^[0-9]*	sub/b.txt$')" "$dir/docs.fp.keys.tsv"
printf '{"id": "a.txt", "text": "alpha text"}\n{"id": "sub/b.txt", "text": "beta"}\n' > "$dir/docs.jsonl"
check fp-jsonl 0 "$simdex" fingerprint "$dir/docs.jsonl" -o "$dir/jsonl.fp"
check fp-same-ids 0 cmp "$dir/docs.fp" "$dir/jsonl.fp"
check fp-same-map 0 cmp "$dir/docs.fp.keys.tsv" "$dir/jsonl.fp.keys.tsv"
check fp-dir-stdout 2 "$simdex" fingerprint "$dir/docs"
expect_grep fp-dir-stdout-msg "needs --key-map" "$dir/err"
# A --key-map that cannot be published is refused before the work (it printed every fingerprint,
# then failed): a device, a missing directory.
check fp-dir-map-device 1 "$simdex" fingerprint "$dir/docs" -o - --key-map /dev/null
expect_grep fp-dir-map-device-msg "'/dev/null' exists and is not a regular file" "$dir/err"
[ ! -s "$dir/out" ] && ok || bad "fp --key-map /dev/null printed fingerprints before failing"
# --key-map FILE of an input without string keys: a map of no entry, never an earlier run's keys.
printf '#simdex-keys 1\n1\tstale\n' > "$dir/named.keys.tsv"
printf '{"id":1,"text":"an integer id"}\n' > "$dir/ints.jsonl"
check fp-map-no-keys 0 "$simdex" fingerprint -q "$dir/ints.jsonl" -o "$dir/ints.fp" --key-map "$dir/named.keys.tsv"
[ "$(cat "$dir/named.keys.tsv")" = "#simdex-keys 1" ] && ok || bad "--key-map of no keys: $(cat "$dir/named.keys.tsv")"
[ ! -e "$dir/ints.fp.keys.tsv" ] && ok || bad "--key-map of no keys wrote a map beside the output too"
check fp-dir-map-nodir 1 "$simdex" fingerprint "$dir/docs" -o - --key-map "$dir/nosuch/k.tsv"
[ ! -s "$dir/out" ] && ok || bad "fp --key-map in a missing directory printed fingerprints before failing"
check fp-dir-json 0 "$simdex" fingerprint --json "$dir/docs"
expect_grep fp-dir-json-key '^{"id":[0-9]*,"key":"sub/b.txt","fingerprint":"0x[0-9a-f]*"}$' "$dir/out"
check fp-jsonl-json 0 "$simdex" fingerprint --json "$dir/docs.jsonl"
expect_grep fp-jsonl-json-key '"key":"a.txt"' "$dir/out"
check fp-dir-paths 0 "$simdex" fingerprint --paths "$dir/listing.tsv" "$dir/docs"
check fp-dir-paths-listing 0 cmp "$dir/docs.fp.keys.tsv" "$dir/listing.tsv"
# Queries from a directory: --keys prints their paths, so no key map is needed; without either, refused.
check build-dir 0 "$simdex" build -q --text "$dir/docs" -o "$dir/docs.sdx"
check query-dir-keys 0 "$simdex" query --text --keys -k 0 "$dir/docs.sdx" "$dir/docs"
expect_grep query-dir-keys-path "$(printf '^sub/b.txt\t.*\tsub/b.txt$')" "$dir/out"
check join-dir-keys 0 "$simdex" join --text --keys -k 0 "$dir/docs.sdx" "$dir/docs"
expect_grep join-dir-keys-path "$(printf '^a.txt\t.*\ta.txt$')" "$dir/out"
check query-dir-bare 2 "$simdex" query --text -k 0 "$dir/docs.sdx" "$dir/docs"
expect_grep query-dir-bare-msg "needs --key-map FILE or --keys" "$dir/err"
check fp-lines 0 "$simdex" fingerprint --input-format lines "$dir/docs/a.txt"
expect_grep fp-lines-id "$(printf '\t0$')" "$dir/out"
check fp-stopwords-missing 1 "$simdex" fingerprint --stopwords-file "$dir/none" "$dir/docs.jsonl"
# A stopwords file is read as every input: gzip and zstd decoded (it was read as raw bytes: no stopword).
printf '{"text": "the house of the rising sun"}\n' > "$dir/sw-doc.jsonl"
printf 'the\r\nof\n' > "$dir/sw.txt"
gzip -c "$dir/sw.txt" > "$dir/sw.txt.gz"
check fp-stopwords-plain 0 "$simdex" fingerprint --shingle 2 --stopwords-file "$dir/sw.txt" "$dir/sw-doc.jsonl"
cp "$dir/out" "$dir/sw-plain.fp"
check fp-stopwords-gz 0 "$simdex" fingerprint --shingle 2 --stopwords-file "$dir/sw.txt.gz" "$dir/sw-doc.jsonl"
same fp-stopwords-gz-same "$dir/sw-plain.fp" "$dir/out"
check fp-stopwords-none 0 "$simdex" fingerprint --shingle 2 "$dir/sw-doc.jsonl"
cmp -s "$dir/sw-plain.fp" "$dir/out" && bad "the stopwords changed nothing" || ok
# An entry that is no single word never matches: a warning, said once (build reads its options
# twice); the build goes on.
printf "the\ndon't\nof\n" > "$dir/sw-bad.txt"
check fp-stopwords-unmatchable 0 "$simdex" build -q --text --shingle 2 --stopwords-file "$dir/sw-bad.txt" \
  -o "$dir/sw-bad.sdx" "$dir/sw-doc.jsonl"
expect_grep fp-stopwords-unmatchable-msg "warning: stopwords file .*\"don't\" is 2 tokens: \"don\" \"t\"; it never matches" "$dir/err"
[ "$(grep -c warning "$dir/err")" = 1 ] && ok || bad "the warning is not said once: $(cat "$dir/err")"
check fp-stopwords-dir 1 "$simdex" fingerprint --stopwords-file "$dir/docs" "$dir/docs.jsonl"
expect_grep fp-stopwords-dir-msg "stopwords file: reading .*docs: Is a directory" "$dir/err"

# Argument edges: --blocks 0 is refused as --scheme blocks-0 is; plan takes whole counts up to 1e15.
check blocks-zero 2 "$simdex" build -q --blocks 0 -o "$dir/z.sdx" "$dir/docs.fp"
expect_grep blocks-zero-msg "not 0" "$dir/err"
check plan-fraction 2 "$simdex" plan 1.9
expect_grep plan-fraction-msg "whole number" "$dir/err"
check plan-too-large 2 "$simdex" plan 1e16
expect_grep plan-too-large-msg "above 1e15" "$dir/err"
check plan-k0 0 "$simdex" plan 1000000 -k 0  # every blocks-M is one whole-fingerprint table: one line
[ "$(grep -c '^[* ] blocks-' "$dir/out")" = 1 ] && pass=$((pass+1)) || { fail=$((fail+1)); echo "FAIL plan-k0-one-line:"; cat "$dir/out"; }
# JSON output is UTF-8 whatever bytes a file name holds; messages show such bytes as \xNN.
cp "$dir/t.sdx" "$dir/name$(printf '\x89').sdx"
check verify-json-name 0 "$simdex" verify --json "$dir/name$(printf '\x89').sdx"
cp "$dir/out" "$dir/verify.json"
check verify-json-utf8 0 python3 -c 'import json,sys; json.loads(open(sys.argv[1], "rb").read().decode("utf-8"))' "$dir/verify.json"
printf 'ab\xe9\xff\n' > "$dir/bad.txt"
check bad-bytes-line 1 "$simdex" build -q -o "$dir/z.sdx" "$dir/bad.txt"
expect_grep bad-bytes-shown 'ab\\xe9\\xff' "$dir/err"
# A NUL byte is shown too, and the message goes on after it.
printf '1\t1\n2\0\t2\n' > "$dir/nul.txt"
check nul-byte-line 1 "$simdex" build -q -o "$dir/z.sdx" "$dir/nul.txt"
expect_grep nul-byte-shown "nul.txt:2: '2\\\\x00' is not a 64-bit fingerprint" "$dir/err"
check nul-byte-query 1 bash -c "printf '2\\0\\n' | '$simdex' query '$dir/t.sdx'"
expect_grep nul-byte-query-shown "'2\\\\x00' is not a 64-bit fingerprint" "$dir/err"
# Common mistakes are told as such: a mistyped command or option (with the nearest name), an index
# set on stdin, both inputs on stdin, conflicting formats, documents given as fingerprint lines.
check typo-command 2 "$simdex" bulid -o "$dir/x.sdx" "$dir/in.tsv"
expect_grep typo-command-msg "no command 'bulid' (did you mean build?)" "$dir/err"
check typo-option 2 "$simdex" build --shingles 2 --text -o "$dir/x.sdx" "$dir/in.tsv"
expect_grep typo-option-msg "unknown option --shingles (did you mean --shingle?)" "$dir/err"
check typo-short-option 2 "$simdex" query -K 2 "$dir/t.sdx" 1
expect_grep typo-short-option-msg "unknown option -K (did you mean -k?)" "$dir/err"
check option-before-command 2 "$simdex" -k 3 build -o "$dir/x.sdx" "$dir/in.tsv"
expect_grep option-before-command-msg "option -k comes before the command: give it after \`simdex build\`" "$dir/err"
# An unknown option is named even where it took a required argument's place.
check unknown-option-not-required 2 "$simdex" verify --bogus
expect_grep unknown-option-not-required-msg "unknown option --bogus (\`simdex verify --help\` lists them)" "$dir/err"
check number-too-large 2 "$simdex" build -o "$dir/x.sdx" --block-bytes 99999999999999999999 "$dir/in.tsv"
expect_grep number-too-large-msg "usage: --block-bytes 99999999999999999999: not a value it takes" "$dir/err"
# --threads: one rule for every command, 0 (all cores) to 4096.
for c in "build -o $dir/x.sdx $dir/in.tsv" "pairs $dir/t.sdx" "join $dir/t.sdx $dir/in.tsv" "clusters $dir/t.sdx"; do
  check "threads-0: ${c%% *}" 0 "$simdex" $c -q --threads 0
  check "threads-4097: ${c%% *}" 2 "$simdex" $c -q --threads 4097
  expect_grep "threads-4097-msg: ${c%% *}" "usage: --threads: 4097 is not in the range 0 to 4096" "$dir/err"
done
# A value that is no whole number is said to be none (it was "not in range 0 to 64").
for v in abc 2.5 '' -1; do
  check "k-not-a-number: '$v'" 2 "$simdex" query "$dir/t.sdx" -k "$v" 1
done
expect_grep k-not-a-number-msg "usage: --max-distance: '-1' is not a whole number (0 to 64)" "$dir/err"
check join-two-stdins 2 "$simdex" join - -
expect_grep join-two-stdins-msg "give the queries as a file" "$dir/err"
check format-and-json 2 "$simdex" pairs --format tsv --json "$dir/t.sdx"
printf '{"id": 1, "text": "a document"}\n' > "$dir/doc.jsonl"
check documents-as-lines 1 "$simdex" build -o "$dir/x.sdx" "$dir/doc.jsonl"
expect_grep documents-as-lines-hint "documents? --text fingerprints them first" "$dir/err"
check plain-text-as-jsonl 1 "$simdex" fingerprint "$dir/nul.txt"
expect_grep plain-text-hint "input-format lines" "$dir/err"
check utf8-name-kept 1 "$simdex" query "$dir/é-§-missing.sdx" 1
expect_grep utf8-name-kept-msg "é-§-missing" "$dir/err"

finish
