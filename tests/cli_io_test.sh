#!/usr/bin/env bash
# What the CLI writes and reads when things go wrong (issue 12, items 6, 7, 8, 13, 14, 15):
# write errors, truncated and corrupt compressed inputs, results kept before an error, hostile
# bytes in messages and JSON, long lines, and the memory of join and query.
# usage: cli_io_test.sh SIMDEX SOURCE_DIR
set -uo pipefail
simdex=$1
src=$2
. "$(dirname "$0")/shell_checks.sh"
# Under ASan, freed memory waits in a quarantine: keep it small so peak RSS means what it says.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
# peak_kb COMMAND...: runs it (output to $dir/out, $dir/err) and prints its maximum resident set in KiB.
peak_kb() {
  /usr/bin/time -f '%M' -o "$dir/rss" "$@" >"$dir/out" 2>"$dir/err"
  tail -1 "$dir/rss"
}

# A small index with near pairs, and one whose fingerprint 7 has 3,000,000 ids.
# 5000 groups of 4 fingerprints within 2 bits (base ^ 0..3), the bases spread by a golden-ratio step.
python3 -c 'for i in range(20000): print("%d\t%d" % (((i // 4) * 0x9E3779B97F4A7C15 & (2**64 - 1)) ^ (i % 4), i))' > "$dir/in.tsv"
check build 0 "$simdex" build -q -o "$dir/a.sdx" --scheme paper-4 "$dir/in.tsv"
awk 'BEGIN { for (i = 0; i < 3000000; i++) printf "7\t%d\n", i }' > "$dir/many.tsv"
check build-many 0 "$simdex" build -q -o "$dir/many.sdx" "$dir/many.tsv"
head -1000 "$dir/in.tsv" | cut -f1 > "$dir/q.txt"

# --- 6. Write errors: /dev/full and a closed stdout give exit 1 and the cause; `| head` is quiet.
commands=(
  "query $dir/a.sdx 0 0x9E3779B97F4A7C15"
  "query --json $dir/a.sdx 0"
  "join $dir/a.sdx $dir/q.txt"
  "pairs $dir/a.sdx"
  "clusters $dir/a.sdx"
  "info $dir/a.sdx"
  "info --json $dir/a.sdx"
  "verify $dir/a.sdx"
)
for c in "${commands[@]}"; do
  # shellcheck disable=SC2086
  if "$simdex" $c > /dev/full 2>"$dir/err"; then bad "$c > /dev/full exits 0"; else ok; fi
  expect_grep "full message: $c" "simdex: io: writing standard output: No space left on device" "$dir/err"
  [ "$(wc -l < "$dir/err")" = 1 ] && ok || bad "$c > /dev/full: not one message: $(cat "$dir/err")"
  if "$simdex" $c >&- 2>"$dir/err"; then bad "$c with stdout closed exits 0"; else ok; fi
  expect_grep "closed message: $c" "simdex: io: writing standard output: Bad file descriptor" "$dir/err"
done
printf '{"id": 1, "text": "hello world"}\n' > "$dir/doc.jsonl"
if "$simdex" fingerprint "$dir/doc.jsonl" > /dev/full 2>"$dir/err"; then bad "fingerprint > /dev/full exits 0"; else ok; fi
expect_grep "full message: fingerprint" "writing standard output: No space left on device" "$dir/err"
if "$simdex" fingerprint "$dir/doc.jsonl" -o /dev/full 2>"$dir/err"; then bad "fingerprint -o /dev/full exits 0"; else ok; fi
expect_grep "full message: fingerprint -o" "writing '/dev/full': No space left on device" "$dir/err"
# Too few descriptors for an external sort's runs: the message says which limit to raise.
python3 -c "
import random
r = random.Random(3)
print('\n'.join(f'{r.getrandbits(64)}\t{i}' for i in range(400000)))" > "$dir/many.tsv"
check "external sort past ulimit -n" 1 bash -c "ulimit -n 12 && '$simdex' build -q --memory 1M -o '$dir/nofile.sdx' '$dir/many.tsv'"
expect_grep "external sort past ulimit -n: message" "Too many open files (this process may have 12 open files, ulimit -n: raise it" "$dir/err"
[ ! -e "$dir/nofile.sdx" ] && ok || bad "a build past ulimit -n left its output"
# A file size limit (ulimit -f): the write that passes it fails (EFBIG) as a full disk's does, with
# a message and no temporary file left (SIGXFSZ ended simdex in silence, leaving them).
mkdir "$dir/fsize"
if (ulimit -f 8 && "$simdex" build -q -o "$dir/fsize/big.sdx" "$dir/in.tsv") 2>"$dir/err"; then
  bad "a build past ulimit -f exits 0"
else ok; fi
expect_grep "ulimit -f message" "cannot write .*: File too large" "$dir/err"
[ -z "$(ls -A "$dir/fsize")" ] && ok || bad "a build past ulimit -f left: $(ls -A "$dir/fsize")"
# A reader that stops early (`| head`): SIGPIPE ends simdex without a message, as coreutils.
for c in "pairs $dir/a.sdx" "join $dir/a.sdx $dir/in.tsv" "query $dir/many.sdx 7"; do
  # shellcheck disable=SC2086
  bytes=$( ("$simdex" $c 2>"$dir/err"; echo "rc=$?" > "$dir/rc") | head -c 100 | wc -c)
  [ "$bytes" = 100 ] && ok || bad "| head -c 100: $c printed $bytes bytes"
  [ ! -s "$dir/err" ] && ok || { bad "| head -1: $c wrote to stderr:"; cat "$dir/err"; }
  grep -Eq 'rc=(0|141)$' "$dir/rc" && ok || bad "| head -1: $c $(cat "$dir/rc")"
done

# --- 7. Truncated and corrupt .gz and .zst inputs: exit 1 naming the file, at 20 cuts each.
cut -f1 "$dir/in.tsv" > "$dir/fps.txt"  # lone fingerprints: what build, join and query all read
for z in gz zst; do
  if [ $z = gz ]; then gzip -c "$dir/fps.txt" > "$dir/in.$z"; else zstd -q -c "$dir/fps.txt" > "$dir/in.$z"; fi
  check "whole .$z" 0 "$simdex" build -q -o "$dir/z.sdx" --scheme paper-4 "$dir/in.$z"
  size=$(stat -c %s "$dir/in.$z")
  for i in $(seq 0 19); do
    cut=$((4 + (size - 5) * i / 19))  # from just past the magic bytes to one byte short
    head -c $cut "$dir/in.$z" > "$dir/cut.$z"
    check "build cut .$z at $cut" 1 "$simdex" build -q -o "$dir/cut.sdx" "$dir/cut.$z"
    expect_grep "build cut .$z names the file" "cut.$z: truncated" "$dir/err"
    check "join cut .$z at $cut" 1 "$simdex" join "$dir/a.sdx" "$dir/cut.$z"
    expect_grep "join cut .$z names the file" "cut.$z: truncated" "$dir/err"
    check "query cut .$z at $cut" 1 bash -c "'$simdex' query '$dir/a.sdx' < '$dir/cut.$z'"
    expect_grep "query cut .$z names stdin" "<stdin>: truncated" "$dir/err"
  done
  [ ! -e "$dir/cut.sdx" ] && ok || bad "an index was built from a truncated .$z"
  # Corrupt bytes past the header: caught by the structure or by the checksum (CRC-32, XXH64) at the
  # end of the stream, unless the garbage they decode to is a malformed line first.
  for at in $((size / 3)) $((size / 2)) $((size - 6)); do
    cp "$dir/in.$z" "$dir/bad.$z"
    printf '\x55' | dd of="$dir/bad.$z" bs=1 seek=$at conv=notrunc status=none
    check "build corrupt .$z at $at" 1 "$simdex" build -q -o "$dir/cut.sdx" "$dir/bad.$z"
    expect_grep "corrupt .$z names the file" "bad.$z:" "$dir/err"
  done
done
printf '(\xb5/\xfd' > "$dir/magic.zst"
check "zstd magic alone" 1 "$simdex" build -q -o "$dir/cut.sdx" "$dir/magic.zst"
expect_grep "zstd magic alone: message" "magic.zst: truncated zstd stream" "$dir/err"
# A corrupt byte inside a gzip member decodes to garbage (a stored block here), found bad only by
# the member's CRC at its end: the error names the corrupt stream, not the garbage line.
python3 -c '
import gzip, sys
data = bytearray(gzip.compress(b"".join(b"%d\t%d\n" % (i, i) for i in range(20000)), compresslevel=0))
data[len(data) // 2] = ord("x")
open(sys.argv[1], "wb").write(data)' "$dir/garbage.gz"
check "corrupt byte in a gzip member" 1 "$simdex" build -q -o "$dir/cut.sdx" "$dir/garbage.gz"
expect_grep "corrupt byte in a gzip member: message" "garbage.gz: corrupt gzip stream" "$dir/err"
check "corrupt byte in gzip queries" 1 bash -c "'$simdex' query '$dir/a.sdx' < '$dir/garbage.gz'"
expect_grep "corrupt byte in gzip queries: message" "corrupt gzip stream" "$dir/err"
# From a pipe, a bad line is reported at once, not when the writer closes the pipe.
check "bad line in a gzip pipe, at once" 1 bash -c "(printf 'notafp\\n' | gzip; sleep 4) | timeout 2 '$simdex' build -q -o '$dir/cut.sdx' -"
# A zstd file may start with a skippable frame (magic 0x184D2A50, 4 bytes of length, the bytes).
{ printf 'P*M\x18\x04\0\0\0abcd'; printf '5\t1\n6\t2\n' | zstd -q -c; } > "$dir/skip.zst"
check "zstd skippable frame first" 0 "$simdex" build -q -o "$dir/skip.sdx" "$dir/skip.zst"
check "its lines are read" 0 "$simdex" query "$dir/skip.sdx" -k 0 6
expect_grep "its lines are read: output" "$(printf '6\t6\t0\t2')" "$dir/out"
printf '{"id": 1, "text": "hello world"}\n{"id": 2, "text": "good night moon"}\n' | gzip -c | head -c 30 > "$dir/docs.jsonl.gz"
check "fingerprint cut .gz" 1 "$simdex" fingerprint "$dir/docs.jsonl.gz"
expect_grep "fingerprint cut .gz: message" "docs.jsonl.gz: truncated gzip stream" "$dir/err"
# A plain file whose last line has no newline keeps that line.
printf '5\t1\n6\t2' > "$dir/nonl.tsv"
check "plain last line without newline" 0 "$simdex" build -q -o "$dir/nonl.sdx" "$dir/nonl.tsv"
check "its last line is kept" 0 "$simdex" query "$dir/nonl.sdx" -k 0 6
expect_grep "its last line is kept: output" "$(printf '6\t6\t0\t2')" "$dir/out"

# --- 8. A command that stops on a bad line writes the answers it computed before it.
printf '0\n0x9E3779B97F4A7C15\nnot-a-fingerprint\n0x3C6EF372FE94F82A\n' > "$dir/q-bad.txt"
check "query: bad line" 1 bash -c "'$simdex' query '$dir/a.sdx' -k 0 < '$dir/q-bad.txt'"
expect_grep "query: bad line named" "<stdin>:3:" "$dir/err"
[ "$(cut -f1 "$dir/out" | sort -u | tr '\n' ' ')" = "0 11400714819323198485 " ] && ok || { bad "query: answers before the bad line:"; cat "$dir/out"; }
{ cut -f1 "$dir/in.tsv"; echo "bad"; } > "$dir/j-bad.txt"
check "join: bad line" 1 "$simdex" join --memory 1M "$dir/a.sdx" "$dir/j-bad.txt" -k 0
expect_grep "join: bad line named" "j-bad.txt:20001:" "$dir/err"
[ "$(wc -l < "$dir/out")" -ge 16384 ] && ok || bad "join: $(wc -l < "$dir/out") answers written before the bad line"
printf '{"id": 1, "text": "one"}\n{"id": 2, "text": "two"}\n{"id": 3\n' > "$dir/docs-bad.jsonl"
check "fingerprint: bad line" 1 "$simdex" fingerprint "$dir/docs-bad.jsonl"
expect_grep "fingerprint: bad line named" "docs-bad.jsonl:3:" "$dir/err"
[ "$(cut -f2 "$dir/out" | tr '\n' ' ')" = "1 2 " ] && ok || { bad "fingerprint: documents before the bad line:"; cat "$dir/out"; }
# A hit whose key cannot be read (its key map's line damaged) stops the command: the lines before
# it are written whole, and no part of its own (a reader got half a JSON line).
printf '{"id":"k:a","text":"alpha beta gamma delta epsilon"}\n{"id":"k:b","text":"ships sail over the open sea"}\n{"id":"k:c","text":"a third text of other words"}\n' > "$dir/keyed.jsonl"
check "keyed build" 0 "$simdex" build -q --text -o "$dir/keyed.sdx" "$dir/keyed.jsonl"
python3 -c 'import sys; p = sys.argv[1]; b = open(p, "rb").read(); open(p, "wb").write(b.replace(b"\tk:b\n", b"\tk\x01b\n"))' "$dir/keyed.sdx.keys.tsv"
for fmt in --json ""; do
  check "a damaged key of a hit $fmt" 1 "$simdex" query --keys $fmt -k 0 --text "$dir/keyed.sdx" "$dir/keyed.jsonl"
  expect_grep "a damaged key named $fmt" "the key is not escaped as the spec says" "$dir/err"
  [ "$(grep -c 'k:a' "$dir/out")" = 1 ] && [ "$(tail -c 1 "$dir/out" | od -An -c | tr -d ' ')" = '\n' ] && ! grep -q 'k:c' "$dir/out" \
    && ok || bad "a damaged key $fmt: not the first query's line alone: $(cat "$dir/out")"
done

# --- 13. Hostile bytes: escaped in messages, and every JSON output parses.
printf '1\n\033[31mred\0337\n' > "$dir/esc.tsv"
check "escape in input" 1 "$simdex" build -q -o "$dir/e.sdx" "$dir/esc.tsv"
expect_grep "escaped in the message" "esc.tsv:2: '\\\\x1b\[31mred\\\\x1b7'" "$dir/err"
if LC_ALL=C grep -q "$(printf '\033')" "$dir/err"; then bad "a raw ESC byte in the message"; else ok; fi
check "escape in an argument" 2 "$simdex" query "$dir/a.sdx" "$(printf '\033]0;title\007')"
expect_grep "escaped argument" "'\\\\x1b\]0;title\\\\x07' is not a 64-bit fingerprint" "$dir/err"
check "escape in an option" 2 "$simdex" query "$dir/a.sdx" -k "$(printf '\033[2J')"
if LC_ALL=C grep -q "$(printf '\033')" "$dir/err"; then bad "a raw ESC byte in a usage message"; else ok; fi
cp "$dir/a.sdx" "$dir/hostile.sdx"
python3 - "$src/spec/reference" "$dir/hostile.sdx" <<'EOF'
import struct, sys
sys.path.insert(0, sys.argv[1])
from simdex_ref import xxh3_64
path = sys.argv[2]
d = bytearray(open(path, "rb").read())
T, S = struct.unpack_from("<II", d, 40)
E = struct.unpack_from("<I", d, 88)[0]  # the tagged sections (spec §5.1)
R = 128 + 160 * T + 32 * S + 32 * E
name = b'a"b\\c {"x\\u0041'  # printable ASCII, as the spec allows: quotes and backslashes
d[56:88] = name + bytes(32 - len(name))
struct.pack_into("<Q", d, 120, xxh3_64(bytes(d[0:120] + d[128:R])))
open(path, "wb").write(d)
EOF
check "hostile name verifies" 0 "$simdex" verify "$dir/hostile.sdx"
json_ok() {  # json_ok NAME: every line of $dir/out is one JSON value
  if python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line); n += 1
assert n > 0, "no output"' "$dir/out" 2>"$dir/jerr"; then ok; else bad "$1: not JSON Lines: $(tail -1 "$dir/jerr")"; fi
}
check "info --json hostile" 0 "$simdex" info --json "$dir/hostile.sdx"
json_ok "info --json"
python3 -c 'import json, sys; assert json.load(open(sys.argv[1]))["scheme_name"] == "a\"b\\c {\"x\\u0041"' "$dir/out" && ok || bad "info --json: scheme_name not round-tripped"
check "query --json" 0 "$simdex" query --json "$dir/hostile.sdx" 0 1
json_ok "query --json"
check "join --json" 0 "$simdex" join --json "$dir/hostile.sdx" "$dir/q.txt"
json_ok "join --json"
check "pairs json" 0 "$simdex" pairs --format json --ids "$dir/hostile.sdx"
json_ok "pairs --format json"
check "clusters json" 0 "$simdex" clusters --format json "$dir/hostile.sdx"
json_ok "clusters --format json"
check "info hostile text" 0 "$simdex" info "$dir/hostile.sdx"
expect_grep "info text names the scheme" 'a"b\\c' "$dir/out"

# --- 14. Long lines: an error naming the line, in bounded memory.
kb_base=$(peak_kb "$simdex" query "$dir/a.sdx" 0)  # a process that does next to nothing (ASan: ~50 MB)
{ echo 1; head -c 50000000 /dev/zero | tr '\0' 7; echo; } > "$dir/long.txt"
kb=$(peak_kb "$simdex" build -q --memory 16M -o "$dir/long.sdx" "$dir/long.txt")
expect_grep "long pair line" "long.txt:2: line longer than 4096 bytes" "$dir/err"
echo "50 MB pair line: peak RSS $kb KiB (one query: $kb_base KiB)"
[ "$kb" -lt $((kb_base + 25000)) ] && ok || bad "long pair line: peak RSS $kb KiB"
{ printf '{"id": 1, "text": "a"}\n{"id": 2, "text": "'; head -c 50000000 /dev/zero | tr '\0' a; printf '"}\n'; } > "$dir/long.jsonl"
kb=$(peak_kb "$simdex" build -q --memory 16M --text -o "$dir/long.sdx" "$dir/long.jsonl")
expect_grep "long document line" "long.jsonl:2: line longer than 4194304 bytes" "$dir/err"
echo "50 MB document line: peak RSS $kb KiB (one query: $kb_base KiB)"
[ "$kb" -lt $((kb_base + 25000)) ] && ok || bad "long document line: peak RSS $kb KiB"
[ ! -e "$dir/long.sdx" ] && ok || bad "an index was built from a long line"

# --- 15. join streams its queries in chunks; query streams a hit's ids.
# Every 100th query has hits; the others are 4 bits or more from every stored fingerprint.
python3 -c '
base = [(b * 0x9E3779B97F4A7C15) & (2**64 - 1) for b in range(5000)]
hit, miss = [str(f) for f in base], [str(f ^ 15 << 40) for f in base]
print("\n".join((hit if i % 100 == 0 else miss)[i % 5000] for i in range(1000000)))' > "$dir/jq.txt"
kb_small=$(peak_kb "$simdex" join --memory 1M --threads 2 "$dir/a.sdx" "$dir/jq.txt")
sort "$dir/out" > "$dir/chunked"
check "join, one chunk" 0 "$simdex" join --threads 2 "$dir/a.sdx" "$dir/jq.txt"
sort "$dir/out" > "$dir/whole"
[ -s "$dir/whole" ] && cmp -s "$dir/chunked" "$dir/whole" && ok || bad "join: chunked output differs from one chunk"
check "join --sort chunked" 0 "$simdex" join --sort --memory 1M "$dir/a.sdx" "$dir/jq.txt"
mv "$dir/out" "$dir/sorted-chunked"
check "join --sort whole" 0 "$simdex" join --sort "$dir/a.sdx" "$dir/jq.txt"
cmp -s "$dir/sorted-chunked" "$dir/out" && ok || bad "join --sort: chunked output differs from one chunk"
kb_base=$(peak_kb "$simdex" query "$dir/a.sdx" 0)
# 1,000,000 queries held at once cost about 50 MB; chunks of 16,384 stay near a process that answers one.
echo "join of 1M queries, --memory 1M: peak RSS $kb_small KiB (one query: $kb_base KiB)"
[ "$kb_small" -lt $((kb_base + 12000)) ] && ok || bad "join --memory 1M: peak RSS $kb_small KiB (one query: $kb_base KiB)"
kb=$(peak_kb "$simdex" query "$dir/many.sdx" 7)
[ "$(tr ',' '\n' < "$dir/out" | wc -l)" = 3000000 ] && ok || bad "query: not every id of 7 printed"
kb_base=$(peak_kb "$simdex" query "$dir/many.sdx" 8)
echo "query with 3M ids: peak RSS $kb KiB (no hit: $kb_base KiB)"
# The ids' 24 MB are mapped and read (resident); as text they are 21 MB more when held, none streamed.
[ "$kb" -lt $((kb_base + 24000 + 8000)) ] && ok || bad "query with 3M ids: peak RSS $kb KiB (no hit: $kb_base KiB)"

finish
