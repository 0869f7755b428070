#!/usr/bin/env bash
# simdex dedup and the key map end to end: the output equals the pipeline fingerprint -> build ->
# clusters --ids it replaces, stdin, compression, the report, --keys, errors.
# usage: dedup_cli_test.sh SIMDEX SOURCE_DIR
set -uo pipefail
simdex=$1 src=$2
. "$(dirname "$0")/shell_checks.sh"
. "$(dirname "$0")/dedup_pipeline.sh"
corpus=$src/data/corpus/docs.jsonl.gz

# The demo corpus (integer ids): dedup against the pipeline.
check dedup-corpus 0 "$simdex" dedup "$corpus" -o "$dir/dedup.jsonl" --report "$dir/report.json" -q
check fp-corpus 0 "$simdex" fingerprint "$corpus" -o "$dir/corpus.fp"
check build-corpus 0 "$simdex" build -q -k 7 -o "$dir/corpus.sdx" "$dir/corpus.fp"
"$simdex" clusters "$dir/corpus.sdx" --ids > "$dir/clusters.txt"
keep_first "$dir/corpus.fp" "$dir/clusters.txt" "$corpus" > "$dir/pipeline.jsonl"
same dedup-equals-pipeline "$dir/dedup.jsonl" "$dir/pipeline.jsonl"
[ "$(wc -l < "$dir/dedup.jsonl")" -lt 3000 ] && ok || bad "dedup removed nothing from the corpus"
# The report: valid JSON whose counts add up, one kept member per cluster.
if command -v python3 >/dev/null; then
  check report-valid 0 python3 -c '
import json, sys
r = json.load(open(sys.argv[1]))
assert r["documents"] == 3000 and r["kept"] + r["removed"] == 3000, r
assert r["clusters_count"] == len(r["clusters"])
assert all(sum(m["kept"] for m in c["members"]) == 1 for c in r["clusters"])
assert r["removed"] == sum(len(c["members"]) - 1 for c in r["clusters"])
assert all(m["distance"] == 0 for c in r["clusters"] for m in c["members"] if m["kept"])
' "$dir/report.json"
fi

# stdin (spooled), stdout, compressed output by name.
check dedup-stdin 0 bash -c "zcat '$corpus' | '$simdex' dedup - -o - -q > '$dir/stdin.jsonl'"
same dedup-stdin-same "$dir/dedup.jsonl" "$dir/stdin.jsonl"
# A named pipe and a process substitution are read once, as stdin is (a second open of the FIFO
# waited for ever; /dev/fd/N gave nothing the second time).
mkfifo "$dir/fifo"
(zcat "$corpus" > "$dir/fifo" &)
check dedup-fifo 0 timeout 60 "$simdex" dedup "$dir/fifo" -o "$dir/fifo.jsonl" -q
same dedup-fifo-same "$dir/dedup.jsonl" "$dir/fifo.jsonl"
check dedup-process-substitution 0 bash -c "timeout 60 '$simdex' dedup <(zcat '$corpus') -o '$dir/ps.jsonl' -q"
same dedup-process-substitution-same "$dir/dedup.jsonl" "$dir/ps.jsonl"
# A device or a FIFO as the output is written as it is (they were refused after the work:
# "not a regular file"): the report alone with -o /dev/null, the documents to a reader of a FIFO.
check dedup-devnull 0 "$simdex" dedup "$corpus" -o /dev/null --report "$dir/devnull.json" -q
check dedup-devnull-report 0 cmp <(sed 's/"output":"[^"]*"//' "$dir/report.json") <(sed 's/"output":"[^"]*"//' "$dir/devnull.json")
mkfifo "$dir/out.fifo"
(cat "$dir/out.fifo" > "$dir/from-fifo.jsonl" &)
check dedup-out-fifo 0 timeout 60 "$simdex" dedup "$corpus" -o "$dir/out.fifo" -q
[ -p "$dir/out.fifo" ] && ok || bad "dedup replaced its output FIFO"
sleep 0.5
same dedup-out-fifo-same "$dir/dedup.jsonl" "$dir/from-fifo.jsonl"
check dedup-out-full 1 "$simdex" dedup "$corpus" -o /dev/full -q
expect_grep dedup-out-full-msg "writing '/dev/full': No space left on device" "$dir/err"
check dedup-gz 0 "$simdex" dedup "$corpus" -o "$dir/dedup.jsonl.gz" -q
check dedup-gz-same 0 cmp "$dir/dedup.jsonl" <(zcat "$dir/dedup.jsonl.gz")
check dedup-gz-upper 0 "$simdex" dedup "$corpus" -o "$dir/DEDUP.JSONL.GZ" -q  # the ending in any case
check dedup-gz-upper-same 0 cmp "$dir/dedup.jsonl" <(zcat "$dir/DEDUP.JSONL.GZ")
check dedup-zst 0 "$simdex" dedup "$corpus" -o "$dir/dedup.jsonl.zst" -q
check dedup-zst-same 0 cmp "$dir/dedup.jsonl" <(zstd -dc "$dir/dedup.jsonl.zst")
check dedup-longest 0 "$simdex" dedup "$corpus" -o "$dir/longest.jsonl" --keep longest -q
[ "$(wc -l < "$dir/longest.jsonl")" = "$(wc -l < "$dir/dedup.jsonl")" ] && ok || bad "--keep longest keeps another count"
check dedup-summary 0 "$simdex" dedup "$corpus" -o "$dir/x.jsonl"
expect_grep dedup-summary-msg "3000 documents, .* clusters of near-duplicates (k = 7): kept" "$dir/err"

# String keys (with TAB and ',' in some), records without one: the key map, --keys.
printf '%s\n' '{"url": "https://a.example/1", "text": "the river runs past the old stone mill and on to the sea at dawn"}' \
  '{"text": "a record without any key at all about something else entirely different"}' \
  '{"url": "https://a.example/2,\tb", "text": "the river runs past the old stone mill and on to the sea at dusk"}' \
  '{"url": "https://a.example/3", "text": "completely unrelated words about cats mice dogs and the weather today"}' > "$dir/k.jsonl"
check dedup-keys 0 "$simdex" dedup "$dir/k.jsonl" --id-field url -k 8 -o "$dir/k.out" --index "$dir/k.sdx" -q --report "$dir/k.json"
check dedup-keys-out 0 cmp "$dir/k.out" <(sed 3d "$dir/k.jsonl")
check dedup-keys-map 0 grep -qx '#simdex-keys 1' "$dir/k.sdx.keys.tsv"
expect_grep dedup-keys-map-escaped "$(printf '\thttps://a.example/2,\\\\tb$')" "$dir/k.sdx.keys.tsv"
expect_grep dedup-keys-report '"key":"https://a.example/2,\\u0009b"' "$dir/k.json"
check clusters-keys 0 "$simdex" clusters "$dir/k.sdx" -k 8 --keys
# Members in fingerprint order: 0x539c... (key 2) before 0x53dd... (key 1).
expect_grep clusters-keys-out '^https://a.example/2\\x2c\\tb,https://a.example/1$' "$dir/out"
check clusters-keys-json 0 "$simdex" clusters "$dir/k.sdx" -k 8 --keys --format json
expect_grep clusters-keys-json-out '"keys":\["https://a.example/2,\\u0009b","https://a.example/1"\]' "$dir/out"
# The same through the pipeline: fingerprint writes the map, build carries it beside the index.
check fp-keys 0 "$simdex" fingerprint "$dir/k.jsonl" --id-field url -o "$dir/k.fp"
expect_grep fp-keys-line-id "$(printf '\t1$')" "$dir/k.fp"
check build-carries-map 0 "$simdex" build -q -k 8 -o "$dir/k2.sdx" "$dir/k.fp"
# -o NAME.gz / NAME.zst is compressed, as dedup's output is.
check fp-gz 0 "$simdex" fingerprint -q "$dir/k.jsonl" --id-field url -o "$dir/k.fp.gz" --key-map "$dir/kgz.tsv"
check fp-gz-same 0 cmp "$dir/k.fp" <(zcat "$dir/k.fp.gz")
check fp-zst 0 "$simdex" fingerprint -q "$dir/k.jsonl" --id-field url -o "$dir/k.fp.zst" --key-map "$dir/kzst.tsv"
check fp-zst-same 0 cmp "$dir/k.fp" <(zstd -dc "$dir/k.fp.zst")
check build-carries-map-same 0 cmp "$dir/k.fp.keys.tsv" "$dir/k2.sdx.keys.tsv"
# A map larger than the copy's 1 MiB chunks is carried whole.
python3 -c 'import json
for i in range(40000): print(json.dumps({"url": "https://b.example/" + "p" * 40 + str(i), "text": "doc number %d of many" % i}))' >"$dir/big.jsonl"
check fp-big-map 0 "$simdex" fingerprint -q "$dir/big.jsonl" --id-field url -o "$dir/big.fp"
check build-carries-big-map 0 "$simdex" build -q -o "$dir/big.sdx" "$dir/big.fp"
check build-carries-big-map-same 0 cmp "$dir/big.fp.keys.tsv" "$dir/big.sdx.keys.tsv"
check build-big-map-size 0 test "$(stat -c %s "$dir/big.sdx.keys.tsv")" -gt 2000000
# A build whose key map is malformed fails before it replaces anything: the old index keeps its map.
cp "$dir/k2.sdx" "$dir/k2.before"; cp "$dir/k2.sdx.keys.tsv" "$dir/k2.keys.before"
printf '0x0123456789abcdef\t5\n' > "$dir/bad-map.fp"; printf '#simdex-keys 1\n5\tnew' > "$dir/bad-map.fp.keys.tsv"
check build-bad-map 1 "$simdex" build -q -k 8 -o "$dir/k2.sdx" "$dir/bad-map.fp"
same build-bad-map-index-kept "$dir/k2.sdx" "$dir/k2.before"
same build-bad-map-map-kept "$dir/k2.sdx.keys.tsv" "$dir/k2.keys.before"
# query, join and pairs print keys too; a bare --keys takes no argument (FP stays a query).
check query-keys 0 "$simdex" query "$dir/k2.sdx" --keys "$(head -1 "$dir/k.fp" | cut -f1)"
expect_grep query-keys-out "$(printf '\t0\thttps://a.example/1$')" "$dir/out"
check join-keys 0 "$simdex" join "$dir/k2.sdx" "$dir/k.fp" --keys --json
expect_grep join-keys-out '"distance":0,"ids":\["https://a.example/2,\\u0009b"\]' "$dir/out"
expect_grep join-keys-line-id '"distance":0,"ids":\[1\]' "$dir/out"
# A query's own id prints as its key too: from the key map beside QUERIES, or from its document
# (--text; escaped as in a key map, ',' as it is: QUERY_ID is no list); a query without a key as its id.
expect_grep join-keys-query-key '^{"query_id":"https://a.example/2,\\u0009b","query":' "$dir/out"
expect_grep join-keys-query-line-id '^{"query_id":1,"query":' "$dir/out"
check join-text-keys 0 "$simdex" join --text "$dir/k2.sdx" "$dir/k.jsonl" --id-field url -k 3 --keys --sort
expect_grep join-text-keys-out "$(printf '^https://a.example/2,\\\\tb\t[0-9]*\t[0-9]*\t0\thttps://a.example/2\\\\x2c\\\\tb$')" "$dir/out"
expect_grep join-text-keys-line-id "$(printf '^1\t[0-9]*\t[0-9]*\t0\t1$')" "$dir/out"
check query-text-keys 0 "$simdex" query --text "$dir/k2.sdx" "$dir/k.jsonl" --id-field url -k 3 --keys --json
expect_grep query-text-keys-out '^{"query_id":"https://a.example/3","query":[0-9]*,"fingerprint":[0-9]*,"distance":0,"ids":\["https://a.example/3"\]}$' "$dir/out"
# An empty string is a key too (spec/KEYS.md): printed as "", not as its id.
printf '%s\n' '{"url": "", "text": "completely unrelated words about cats mice dogs and the weather today"}' > "$dir/empty-key.jsonl"
check query-text-empty-key 0 "$simdex" query --text "$dir/k2.sdx" "$dir/empty-key.jsonl" --id-field url -k 3 --keys --json
expect_grep query-text-empty-key-out '^{"query_id":"","query":' "$dir/out"
check query-text-ids 0 "$simdex" query --text "$dir/k2.sdx" "$dir/k.jsonl" --id-field url -k 3
expect_grep query-text-ids-out "$(printf '^12213392501426643182\t')" "$dir/out"
check pairs-keys 0 "$simdex" pairs "$dir/k2.sdx" --keys
expect_grep pairs-keys-out "$(printf '\t8\thttps://a.example/2\\\\x2c\\\\tb\thttps://a.example/1$')" "$dir/out"
check clusters-no-map 1 "$simdex" clusters "$dir/corpus.sdx" --keys
expect_grep clusters-no-map-msg "no key map" "$dir/err"
check clusters-keys-file 0 "$simdex" clusters "$dir/corpus.sdx" --keys="$dir/k.sdx.keys.tsv"
# The listing of simdex 0.1 (INDEX.paths.tsv) is still read.
printf '620\tlegacy/path.txt\n' > "$dir/corpus.sdx.paths.tsv"
check clusters-legacy-map 0 "$simdex" clusters "$dir/corpus.sdx" --keys
expect_grep clusters-legacy-map-out "legacy/path.txt" "$dir/out"
# A damaged map: a truncated one is refused when opened, before any output; a lookup names the
# faulty line it reads by its byte offset (the map is looked up in place, never read whole).
head -c -1 "$dir/k2.sdx.keys.tsv" > "$dir/cut.keys.tsv"
check query-keys-cut-map 1 "$simdex" query "$dir/k2.sdx" --keys="$dir/cut.keys.tsv" "$(head -1 "$dir/k.fp" | cut -f1)"
expect_grep query-keys-cut-map-msg "cut.keys.tsv': the last line has no newline" "$dir/err"
[ -s "$dir/out" ] && bad "query-keys-cut-map printed before the error" || ok
printf '#simdex-keys 1\n0\ta\nno tab here\n18446744073709551615\tz\n' > "$dir/faulty.keys.tsv"
check query-keys-faulty-map 1 "$simdex" query "$dir/k2.sdx" --keys="$dir/faulty.keys.tsv" "$(head -1 "$dir/k.fp" | cut -f1)"
expect_grep query-keys-faulty-map-msg "faulty.keys.tsv': the line at byte 19: no TAB between id and key" "$dir/err"
# verify --keys reads every line of the map, which lookups do not.
check verify-keys 0 "$simdex" verify --keys "$dir/k2.sdx"
expect_grep verify-keys-out "^$dir/k2.sdx.keys.tsv: OK ([0-9]* keys checked)$" "$dir/out"
printf '#simdex-keys 1\n5\ta\n99\tb\n10\tc\n' > "$dir/disordered.keys.tsv"
check verify-keys-bad 1 "$simdex" verify --keys="$dir/disordered.keys.tsv" "$dir/k2.sdx"
expect_grep verify-keys-bad-out "disordered.keys.tsv:4: ids must be strictly ascending (id 10 after 99)" "$dir/out"
check verify-keys-bad-json 1 "$simdex" verify --json --keys="$dir/disordered.keys.tsv" "$dir/k2.sdx"
expect_grep verify-keys-bad-json-out '"key_map":{"path":"[^"]*disordered.keys.tsv","ok":false,"keys":2,"problem":"input: ' "$dir/out"
cp "$dir/corpus.sdx" "$dir/bare.sdx"
check verify-keys-none 1 "$simdex" verify --keys "$dir/bare.sdx"
expect_grep verify-keys-none-msg "no key map" "$dir/err"

# Errors: a collision of an integer id with a line number, bad flags; nothing written.
printf '%s\n' '{"id": 1, "text": "one two three"}' '{"text": "four five six"}' > "$dir/mixed.jsonl"
check dedup-collision 1 "$simdex" dedup "$dir/mixed.jsonl" -o "$dir/mixed.out"
expect_grep dedup-collision-msg "id 1 is the integer id of line 1 and the id of line 2 (a record without one" "$dir/err"
[ ! -e "$dir/mixed.out" ] && ok || bad "dedup-collision wrote its output"
check dedup-bad-keep 2 "$simdex" dedup "$corpus" -o "$dir/y" --keep best
check dedup-no-output 2 "$simdex" dedup "$corpus"
check dedup-bad-id 1 bash -c "echo '{\"id\": -2, \"text\": \"x\"}' | '$simdex' dedup - -o -"
expect_grep dedup-bad-id-msg '<stdin>:1: field "id" must be a string (a key) or an integer' "$dir/err"
check dedup-key-map-flag 2 "$simdex" dedup "$corpus" -o "$dir/y" --key-map "$dir/z"
# An empty value (an unset variable) names nothing: no report written silently; --index - is no file.
check dedup-report-empty 2 "$simdex" dedup "$corpus" -o "$dir/y" --report ''
check dedup-index-empty 2 "$simdex" dedup "$corpus" -o "$dir/y" --index=
check dedup-lines-id-field 2 "$simdex" dedup "$corpus" -o "$dir/y" --input-format lines --id-field url
expect_grep dedup-lines-id-field-msg "input-format lines has no fields" "$dir/err"
check dedup-index-stdout 2 bash -c "cd '$dir' && '$simdex' dedup '$corpus' -o y --index -"
[ ! -e "$dir/y" ] && [ ! -e "$dir/-" ] && ok || bad "a refused dedup wrote $(ls "$dir" | grep -x -e y -e - | tr '\n' ' ')"

# An empty input, and a small memory bound (the same output).
: > "$dir/empty.jsonl"
check dedup-empty 0 "$simdex" dedup "$dir/empty.jsonl" -o "$dir/empty.out" -q
check dedup-empty-out 0 test ! -s "$dir/empty.out"
check dedup-memory-1M 0 "$simdex" dedup "$corpus" -o "$dir/small-memory.jsonl" --memory 1M -q
same dedup-memory-1M-same "$dir/dedup.jsonl" "$dir/small-memory.jsonl"

# Plain lines: every line a document, the kept lines as they are (CR LF included).
printf 'alpha beta gamma delta epsilon zeta\r\nomicron pi rho sigma tau upsilon\nalpha beta gamma delta epsilon zeta\n' > "$dir/l.txt"
check dedup-lines 0 "$simdex" dedup --input-format lines "$dir/l.txt" -o "$dir/l.out" -q
check dedup-lines-out 0 cmp "$dir/l.out" <(printf 'alpha beta gamma delta epsilon zeta\r\nomicron pi rho sigma tau upsilon\n')

# A directory: the kept files' paths.
mkdir -p "$dir/docs/sub"
printf 'the same text about the river and the mill and the sea' > "$dir/docs/a.txt"
printf 'the same text about the river and the mill and the sea' > "$dir/docs/sub/b.txt"
printf 'another text on another subject with other words' > "$dir/docs/c.txt"
check dedup-dir 0 "$simdex" dedup "$dir/docs" -o "$dir/kept.txt" -q
check dedup-dir-out 0 cmp "$dir/kept.txt" <(printf 'a.txt\nc.txt\n')

# Outputs are written whole or not at all, and never over the input or each other.
printf '{"id": 1, "text": "one text about ships"}\n{"id": 2, "text": "another about trains"}\n' > "$dir/small.jsonl"
cp "$dir/small.jsonl" "$dir/small.before"
check fingerprint-self 2 "$simdex" fingerprint "$dir/small.jsonl" -o "$dir/small.jsonl"
same fingerprint-self-input-kept "$dir/small.jsonl" "$dir/small.before"
printf 'old\n' > "$dir/fp.out"; chmod 600 "$dir/fp.out"
printf '{"id": 3, "text": "fine"}\n{"id": 4, "text": \n' > "$dir/broken.jsonl"
check fingerprint-error 1 "$simdex" fingerprint -q "$dir/broken.jsonl" -o "$dir/fp.out"
check fingerprint-error-kept-old 0 grep -qx old "$dir/fp.out"
check fingerprint-ok 0 "$simdex" fingerprint -q "$dir/small.jsonl" -o "$dir/fp.out"
[ "$(stat -c %a "$dir/fp.out")" = 600 ] && ok || bad "a replaced output lost its permissions"
ls -a "$dir" | grep -q '\.tmp-' && bad "temporary files left: $(ls -a "$dir" | grep '\.tmp-')" || ok
check report-is-output 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d.jsonl" --report "$dir/./d.jsonl"
check report-missing-dir 1 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/small.jsonl" --report "$dir/none/r.json"
same report-missing-dir-before-work "$dir/small.jsonl" "$dir/small.before"
check dedup-output-missing-dir 1 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/none/d.jsonl"
expect_grep dedup-output-missing-dir-msg "cannot write $dir/none/d.jsonl" "$dir/err"
# dedup's output and --index never replace its input, nor each other.
check dedup-output-is-input 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/./small.jsonl"
check dedup-index-is-input 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d2.jsonl" --index "$dir/small.jsonl"
same dedup-self-input-kept "$dir/small.jsonl" "$dir/small.before"
check dedup-index-is-output 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d2.jsonl" --index "$dir/d2.jsonl"
expect_grep dedup-index-is-output-msg "is also the output" "$dir/err"
# The report and the output never replace --index's key map; a report that cannot be written leaves
# no output either (the report is written before the output is published).
check dedup-report-is-index-key-map 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d3.jsonl" --index "$dir/i.sdx" --report "$dir/i.sdx.keys.tsv"
expect_grep dedup-report-is-index-key-map-msg "key map" "$dir/err"
check dedup-output-is-index-key-map 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/i.sdx.keys.tsv" --index "$dir/i.sdx"
check dedup-report-fails 1 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d3.jsonl" --report /dev/full
[ ! -e "$dir/d3.jsonl" ] && ok || bad "a failed report left the output published"
ls -a "$dir" | grep -q '^\.d3\.jsonl\.tmp' && bad "a failed report left the output's temporary file" || ok
check dedup-report-is-index 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d2.jsonl" --index "$dir/i.sdx" --report "$dir/i.sdx"
[ -e "$dir/d2.jsonl" ] && bad "a refused dedup wrote its output" || ok
# Nor does anything go inside a directory of documents, at any depth (it would be read as one).
mkdir -p "$dir/tree/sub" && printf 'ships sail on the sea\n' > "$dir/tree/a.txt" && cp "$dir/tree/a.txt" "$dir/tree/sub/b.txt"
check dedup-output-in-input-dir 2 "$simdex" dedup -q "$dir/tree" -o "$dir/tree/sub/kept.txt"
expect_grep dedup-output-in-input-dir-msg "lies in the input directory" "$dir/err"
check dedup-index-in-input-dir 2 "$simdex" dedup -q "$dir/tree" -o "$dir/kept.txt" --index "$dir/tree/i.sdx"
check fingerprint-output-in-input-dir 2 sh -c "cd '$dir/tree' && '$(realpath "$simdex")' fingerprint -q . -o fp.txt"
check fingerprint-key-map-in-input-dir 2 "$simdex" fingerprint -q "$dir/tree" -o "$dir/fp.txt" --key-map "$dir/tree/k.tsv"
check docs-dir-unchanged 0 test "$(find "$dir/tree" -type f | wc -l)" -eq 2
check dedup-output-beside-input-dir 0 "$simdex" dedup -q "$dir/tree" -o "$dir/kept.txt"
# A key map never replaces the documents it maps, nor the output.
printf '{"url": "a", "text": "one text about ships"}\n' > "$dir/keyed.jsonl"
cp "$dir/keyed.jsonl" "$dir/keyed.before"
check key-map-is-input 2 "$simdex" fingerprint -q --id-field url --key-map "$dir/keyed.jsonl" "$dir/keyed.jsonl" -o "$dir/k.fp"
check build-key-map-is-input 2 "$simdex" build -q --text --id-field url --key-map "$dir/keyed.jsonl" -o "$dir/k2.sdx" "$dir/keyed.jsonl"
same key-map-self-input-kept "$dir/keyed.jsonl" "$dir/keyed.before"
check build-key-map-is-output 2 "$simdex" build -q --text --id-field url --key-map "$dir/k2.sdx" -o "$dir/k2.sdx" "$dir/keyed.jsonl"
# Nor the index a query reads or its key map (--keys reads it), nor another spelling of one output.
check query-key-map-over-index-map 2 "$simdex" query --keys "$dir/k2.sdx" --text "$dir/keyed.jsonl" --id-field url --key-map "$dir/k2.sdx.keys.tsv"
check join-key-map-over-index 2 "$simdex" join "$dir/k2.sdx" --text "$dir/keyed.jsonl" --id-field url --key-map "$dir/./k2.sdx"
check key-map-is-output-spelled-apart 2 "$simdex" fingerprint -q --id-field url "$dir/keyed.jsonl" -o "$dir/fp-x" --key-map "$dir/./fp-x"
check dedup-report-is-output-spelled-apart 2 bash -c "cd '$dir' && '$(realpath "$simdex")' dedup -q small.jsonl -o out-x.jsonl --report ./out-x.jsonl"
cp "$dir/k.fp.keys.tsv" "$dir/idx-x.keys.tsv"
check dedup-index-map-is-input 2 "$simdex" dedup -q "$dir/idx-x.keys.tsv" -o "$dir/d3.jsonl" --index "$dir/idx-x"
check build-key-map-needs-text 2 "$simdex" build -q -o "$dir/k3.sdx" "$dir/k.fp" --key-map "$dir/k3.tsv"
# A map going to --key-map FILE makes the one an earlier run left beside the output stale: removed.
check fp-beside-map 0 "$simdex" fingerprint -q --id-field url "$dir/keyed.jsonl" -o "$dir/fp-y"
[ -e "$dir/fp-y.keys.tsv" ] && ok || bad "no key map beside fp-y"
check fp-map-elsewhere 0 "$simdex" fingerprint -q --id-field url "$dir/keyed.jsonl" -o "$dir/fp-y" --key-map "$dir/elsewhere.tsv"
[ ! -e "$dir/fp-y.keys.tsv" ] && [ -e "$dir/elsewhere.tsv" ] && ok || bad "stale map beside fp-y kept"
check dedup-no-key-map-option 2 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d.jsonl" --key-map "$dir/k.tsv"

# What a killed run left in the temporary directory (nobody holds their locks): the next run removes
# them, the temporary index's half-written file (AtomicFile's "..simdex-dedup-tmp-*.tmp-*") too.
mkdir -p "$dir/tmpd"
for f in .simdex-dedup-tmp-99999999-0.sdx ..simdex-dedup-tmp-99999999-0.sdx.tmp-99999999-0; do
  head -c 4096 /dev/zero > "$dir/tmpd/$f"
done
check dedup-after-a-killed-run 0 "$simdex" dedup -q "$dir/small.jsonl" -o "$dir/d4.jsonl" --tmp-dir "$dir/tmpd"
[ -z "$(ls -A "$dir/tmpd")" ] && ok || bad "a killed run's files were left: $(ls -A "$dir/tmpd")"

finish dedup_cli_test
