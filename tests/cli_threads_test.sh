#!/usr/bin/env bash
# Outputs do not depend on --threads: fingerprint, build (plain, --text JSONL and lines, in memory
# and with an external sort; the input parsed on all threads, and its errors) byte for byte; dedup
# byte for byte; join, pairs and clusters with --sort.
# usage: cli_threads_test.sh SIMDEX GEN_FINGERPRINTS SOURCE_DIR
set -uo pipefail
simdex=$1 gen=$2 src=$3
. "$(dirname "$0")/shell_checks.sh"

# Documents: the demo corpus twice (more than one 4 MiB batch of the fingerprint pipeline) and texts
# in many scripts, as JSON Lines and as plain lines.
zcat "$src/data/corpus/docs.jsonl.gz" "$src/data/corpus/docs.jsonl.gz" > "$dir/docs.jsonl"
cat >> "$dir/docs.jsonl" <<'DOCS'
{"id": 90001, "text": "Съешь же ещё этих мягких французских булок, да выпей чаю"}
{"id": 90002, "text": "中文文本的指纹应该与线程数无关，中文文本的指纹"}
{"id": 90003, "text": "日本語のテキストとカタカナとひらがな、漢字も"}
{"id": 90004, "text": "ภาษาไทยไม่มีช่องว่างระหว่างคำ ภาษาไทย"}
{"id": 90005, "text": "العربية تكتب من اليمين إلى اليسار والعربية"}
{"id": 90006, "text": "Ελληνικά και ΕΛΛΗΝΙΚΆ, emoji 😀🎉 and ＦＵＬＬＷＩＤＴＨ"}
{"id": 90007, "text": ""}
DOCS
/usr/bin/python3 -c '
import json, sys
for line in open(sys.argv[1]):
    print(json.loads(line)["text"].replace("\n", " ").replace("\r", " "))
' "$dir/docs.jsonl" > "$dir/docs.txt"

for t in 1 2 5; do
  check fingerprint-jsonl-$t 0 "$simdex" fingerprint -q --threads $t -o "$dir/fp-jsonl-$t" "$dir/docs.jsonl"
  check fingerprint-lines-$t 0 "$simdex" fingerprint -q --threads $t --input-format lines -o "$dir/fp-lines-$t" "$dir/docs.txt"
  check build-text-$t 0 "$simdex" build -q --threads $t --text -o "$dir/text-$t.sdx" "$dir/docs.jsonl"
  check build-lines-$t 0 "$simdex" build -q --threads $t --text --input-format lines -o "$dir/lines-$t.sdx" "$dir/docs.txt"
  check dedup-$t 0 "$simdex" dedup -q --threads $t -o "$dir/dedup-$t" "$dir/docs.jsonl"
done
[ "$(wc -l < "$dir/fp-jsonl-1")" -gt 6000 ] && ok || bad "fingerprint: too few lines"
for t in 2 5; do
  same fingerprint-jsonl-$t "$dir/fp-jsonl-1" "$dir/fp-jsonl-$t"
  same fingerprint-lines-$t "$dir/fp-lines-1" "$dir/fp-lines-$t"
  same build-text-$t "$dir/text-1.sdx" "$dir/text-$t.sdx"
  same build-lines-$t "$dir/lines-1.sdx" "$dir/lines-$t.sdx"
  same dedup-$t "$dir/dedup-1" "$dir/dedup-$t"
done

# Fingerprints: 100,000 random ones twice (each with two ids), and 0 and ~0: enough pairs for the
# sort to run on several threads; --memory 2M sorts them in runs on disk.
"$gen" 100000 7 > "$dir/half"
{ cat "$dir/half" "$dir/half"; echo 0x0000000000000000; echo 0xffffffffffffffff; } > "$dir/fps"
for t in 1 2 5; do
  check build-$t 0 "$simdex" build -q --threads $t --scheme paper-10 -o "$dir/b-$t.sdx" "$dir/fps"
  check build-external-$t 0 "$simdex" build -q --threads $t --memory 2M --scheme paper-10 -o "$dir/e-$t.sdx" "$dir/fps"
done
for t in 2 5; do
  same build-$t "$dir/b-1.sdx" "$dir/b-$t.sdx"
  same build-external-$t "$dir/b-1.sdx" "$dir/e-$t.sdx"
done
# --direct-io on: the tables and ids written straight to the disk (auto does so from 1 GiB), the
# same bytes, and the file read back right (verify: every checksum).
for t in 1 5; do
  check build-direct-$t 0 "$simdex" build -q --threads $t --direct-io on --scheme paper-10 -o "$dir/d-$t.sdx" "$dir/fps"
  same build-direct-$t "$dir/b-1.sdx" "$dir/d-$t.sdx"
done
check verify-direct 0 "$simdex" verify "$dir/d-5.sdx"
check build-direct-off 0 "$simdex" build -q --direct-io off --scheme paper-10 -o "$dir/o.sdx" "$dir/fps"
same build-direct-off "$dir/b-1.sdx" "$dir/o.sdx"
check build-direct-bad 2 "$simdex" build -q --direct-io maybe -o "$dir/x.sdx" "$dir/fps"

# build parses a plain file on all threads, in blocks of 64 KiB under --memory 2M: ids that are line
# numbers (blank lines count), CRLF, FINGERPRINT<TAB>ID lines, a last line without '\n', and the first
# bad line of the file named alike at every thread count.
awk 'NR % 7 == 3 { print "" } NR % 5 == 0 { printf "%s\r\n", $0; next } { print }' "$dir/fps" > "$dir/lone"
awk '{ printf "%s\t%d\n", $0, NR * 3 }' "$dir/half" > "$dir/ids"
printf '0x00000000000000ff\t5' >> "$dir/ids"
cp "$dir/lone" "$dir/late-bad"; echo "0x12 oops" >> "$dir/late-bad"; cat "$dir/half" >> "$dir/late-bad"
bad_line=$(($(wc -l < "$dir/lone") + 1))
{ head -n 70000 "$dir/half"; printf '0x%s\n' "$(head -c 5000 /dev/zero | tr '\0' 1)"; cat "$dir/half"; } > "$dir/long"
{ head -n 60000 "$dir/ids"; echo 0x77; head -n 1000 "$dir/ids"; } > "$dir/mixed"
for t in 1 2 5; do
  for memory in 2M 1G; do
    check lone-$t-$memory 0 "$simdex" build -q --threads $t --memory $memory -o "$dir/lone-$t-$memory.sdx" "$dir/lone"
    check ids-$t-$memory 0 "$simdex" build -q --threads $t --memory $memory -o "$dir/ids-$t-$memory.sdx" "$dir/ids"
  done
  check late-bad-$t 1 "$simdex" build -q --threads $t --memory 2M -o "$dir/x.sdx" "$dir/late-bad"
  expect_grep late-bad-$t "late-bad:$bad_line: '0x12 oops' is not" "$dir/err"
  check long-$t 1 "$simdex" build -q --threads $t --memory 2M -o "$dir/x.sdx" "$dir/long"
  expect_grep long-$t "long:70001: line longer than 4096 bytes" "$dir/err"
  check mixed-$t 1 "$simdex" build -q --threads $t -o "$dir/x.sdx" "$dir/mixed"
  expect_grep mixed-$t "mixed:60001: expected FINGERPRINT<TAB>ID" "$dir/err"
done
# A byte order mark first in the file: skipped in the first range, the same index at every count.
{ printf '\xef\xbb\xbf'; cat "$dir/lone"; } > "$dir/bom"
for t in 1 5; do
  check bom-$t 0 "$simdex" build -q --threads $t --memory 2M -o "$dir/bom-$t.sdx" "$dir/bom"
  same bom-$t "$dir/lone-1-2M.sdx" "$dir/bom-$t.sdx"
done
[ ! -e "$dir/x.sdx" ] && ok || bad "a failed build left its output"
for t in 1 2 5; do
  for memory in 2M 1G; do
    same lone-$t-$memory "$dir/lone-1-2M.sdx" "$dir/lone-$t-$memory.sdx"
    same ids-$t-$memory "$dir/ids-1-2M.sdx" "$dir/ids-$t-$memory.sdx"
  done
done

# Batch commands on the documents' index, queried with the documents themselves (dense queries).
for t in 1 2 3; do
  [ $t = 2 ] || check join-$t 0 "$simdex" join --text --sort --threads $t -k 3 "$dir/text-1.sdx" "$dir/docs.jsonl"
  [ $t = 2 ] || cp "$dir/out" "$dir/join-$t"
  check pairs-$t 0 "$simdex" pairs --sort --ids --threads $t "$dir/text-1.sdx"
  cp "$dir/out" "$dir/pairs-$t"
  check clusters-$t 0 "$simdex" clusters --sort --threads $t "$dir/text-1.sdx"
  cp "$dir/out" "$dir/clusters-$t"
done
[ -s "$dir/join-1" ] && [ -s "$dir/pairs-1" ] && [ -s "$dir/clusters-1" ] && ok || bad "batch outputs empty"
same join-3 "$dir/join-1" "$dir/join-3"
for t in 2 3; do
  same pairs-$t "$dir/pairs-1" "$dir/pairs-$t"
  same clusters-$t "$dir/clusters-1" "$dir/clusters-$t"
done
finish cli_threads_test
