# Formats 2.0, 2.1 and 2.2 from the command line (spec/FORMAT.md §5.2, §5.3, §12): the fingerprint
# settings an index built from text records, the refusal of text queries made with other settings,
# `simdex info` of them and of the block directory, and `simdex upgrade` of 1.x, 2.0 and 2.1 files
# (byte for byte the 2.2 writer's file, verified, atomic).
# Usage: format_version_cli_test.sh SIMDEX SOURCE_DIR
simdex=$1; src=$2
. "$(dirname "$0")/shell_checks.sh"
good=$src/tests/conformance/good

printf '{"id": 1, "text": "the quick brown fox jumps over the lazy dog"}\n{"id": 2, "text": "a quick brown fox jumped over a lazy dog"}\n{"id": 3, "text": "nothing alike at all here"}\n' > "$dir/docs.jsonl"
printf '{"id": 9, "text": "the quick brown fox jumps over the lazy dog"}\n' > "$dir/q.jsonl"

# Built from text: the settings are recorded and shown.
check "build --text" 0 "$simdex" build -q --text --stopwords english --shingle 2 -k 8 -o "$dir/t.sdx" "$dir/docs.jsonl"
check "info" 0 "$simdex" info "$dir/t.sdx"
expect_grep "info shows the settings" "text settings  shingle 2, weighting frequency, stopwords english" "$dir/out"
check "info --json" 0 "$simdex" info --json "$dir/t.sdx"
expect_grep "info --json settings" '"fingerprint_settings":{"fingerprint_version":1,"shingle_size":2,"weighting":"frequency","stopwords":\["a","an",' "$dir/out"
expect_grep "info --json tagged sections" '"tagged_sections":\[{"tag":1,"name":"FINGERPRINT_SETTINGS","critical":false' "$dir/out"
expect_grep "info --json block directory" '{"tag":2,"name":"BLOCK_DIRECTORY","critical":false' "$dir/out"
expect_grep "format 2.2" '"format":"2.2"' "$dir/out"
check "verify" 0 "$simdex" verify "$dir/t.sdx"
# The same input gives the same bytes (the section included).
check "build --text again" 0 "$simdex" build -q --text --stopwords english --shingle 2 -k 8 -o "$dir/t2.sdx" "$dir/docs.jsonl"
same "deterministic with settings" "$dir/t.sdx" "$dir/t2.sdx"

# The same settings query; others are refused, naming both.
check "query --text, same settings" 0 "$simdex" query --text --stopwords english --shingle 2 "$dir/t.sdx" "$dir/q.jsonl"
expect_grep "query --text finds the twin" "	1$" "$dir/out"
check "query --text, other shingle" 1 "$simdex" query --text --stopwords english "$dir/t.sdx" "$dir/q.jsonl"
expect_grep "refusal names the rule" "settings_mismatch" "$dir/err"
expect_grep "refusal names the index's settings" "shingle 2, weighting frequency, stopwords english" "$dir/err"
expect_grep "refusal names the query's settings" "shingle 3, weighting frequency, stopwords english" "$dir/err"
check "join --text, other weighting" 1 "$simdex" join --text --stopwords english --shingle 2 --weighting binary "$dir/t.sdx" "$dir/q.jsonl"
expect_grep "join refusal" "settings_mismatch.*weighting binary" "$dir/err"
printf 'dog\n' > "$dir/stop.txt"
check "join --text, one more stopword" 1 "$simdex" join --text --stopwords english --stopwords-file "$dir/stop.txt" --shingle 2 "$dir/t.sdx" "$dir/q.jsonl"
expect_grep "stopword lists differ" "34 words" "$dir/err"
check "join --text, same settings" 0 "$simdex" join --text --stopwords english --shingle 2 "$dir/t.sdx" "$dir/q.jsonl"

# Built from fingerprints (or 1.x): no settings, any text query is accepted as before.
check "fingerprint" 0 "$simdex" fingerprint -o "$dir/fps.tsv" "$dir/docs.jsonl"
check "build from fingerprints" 0 "$simdex" build -q -k 8 -o "$dir/f.sdx" "$dir/fps.tsv"
check "info, no settings" 0 "$simdex" info --json "$dir/f.sdx"
expect_grep "no settings" '"tagged_sections":\[{"tag":2,"name":"BLOCK_DIRECTORY","critical":false,"bytes":[0-9]*}\],"fingerprint_settings":null' "$dir/out"
check "query --text without settings recorded" 0 "$simdex" query --text --shingle 5 "$dir/f.sdx" "$dir/q.jsonl"
check "query --text on a 1.x file" 0 "$simdex" query --text "$good/v1_paper4.sdx" "$dir/q.jsonl"

# Index sets: a text member records its settings; adding texts made another way is refused.
check "add --text" 0 "$simdex" add -q --text --shingle 2 -k 8 "$dir/s.sdxs" "$dir/docs.jsonl"
check "add --text, other settings" 1 "$simdex" add -q --text --shingle 4 -k 8 "$dir/s.sdxs" "$dir/docs.jsonl"
expect_grep "set refusal" "settings_mismatch" "$dir/err"
check "add fingerprints" 0 "$simdex" add -q -k 8 "$dir/s.sdxs" "$dir/fps.tsv"
check "set info" 0 "$simdex" info --json "$dir/s.sdxs"
expect_grep "set settings" '"fingerprint_settings":{"fingerprint_version":1,"shingle_size":2' "$dir/out"
check "merge keeps them" 0 "$simdex" merge -q "$dir/s.sdxs"
check "query --text the merged set" 1 "$simdex" query --text "$dir/s.sdxs" "$dir/q.jsonl"
expect_grep "merged set refusal" "settings_mismatch" "$dir/err"

# upgrade: 1.x, 2.0, 2.1 -> 2.2, equal to the writer's file; in place; a 2.2 file is left alone.
check "upgrade -o" 0 "$simdex" upgrade "$good/v1_dup_ids.sdx" -o "$dir/up.sdx"
expect_grep "upgrade says what it did" "from format 1.0 to 2.2" "$dir/err"
same "upgrade gives the writer's bytes" "$dir/up.sdx" "$good/dup_ids.sdx"
check "upgrade a 2.0 file with tagged sections" 0 "$simdex" upgrade -q "$good/v2_0_tagged.sdx" -o "$dir/up2.sdx"
same "the directory goes between its tags" "$dir/up2.sdx" "$good/tagged_unknown_optional.sdx"
cp "$good/v1_paper4.sdx" "$dir/inplace.sdx"
check "upgrade in place" 0 "$simdex" upgrade -q "$dir/inplace.sdx"
same "in place" "$dir/inplace.sdx" "$good/paper4.sdx"
check "upgrade a 2.2 file" 0 "$simdex" upgrade "$dir/inplace.sdx"
expect_grep "nothing to do" "already format 2.2; nothing to do" "$dir/err"
cp "$good/v2_1_fine_paper4.sdx" "$dir/fine.sdx"
check "upgrade a 2.1 file whose directory is finer than the writer's" 0 "$simdex" upgrade "$dir/fine.sdx"
expect_grep "upgrade 2.1" "from format 2.1 to 2.2 in place" "$dir/err"
same "2.1: the writer's directory replaces the old one" "$dir/fine.sdx" "$good/paper4.sdx"
check "upgrade -o of a 2.2 file with other d_t" 0 "$simdex" upgrade "$good/directory_partial.sdx" -o "$dir/partial.sdx"
expect_grep "copied" "already format 2.2; copied" "$dir/err"
same "a 2.2 file keeps its directory" "$dir/partial.sdx" "$good/directory_partial.sdx"
check "upgrade refuses a corrupt file" 1 "$simdex" upgrade "$src/tests/conformance/bad/block_checksum__stored.sdx" -o "$dir/x.sdx"
expect_grep "corrupt: names the rule" "block_checksum" "$dir/err"
if [ -e "$dir/x.sdx" ]; then bad "a refused upgrade wrote its output"; else ok; fi
# A 2.0 file with the 1024 tagged sections 2.0 allows has no room for the directory: refused, unwritten.
python3 - "$src/spec/reference" "$good/paper4.sdx" "$dir/full.sdx" <<'PY' || bad "a 2.0 file of 1024 tagged sections was not made"
import sys
sys.path.insert(0, sys.argv[1])
import simdex_ref
src = simdex_ref.open_index(sys.argv[2])  # its tables
pairs = [(i * 0x9E3779B97F4A7C15 % 2**64, i) for i in range(100)]
tagged = [(0x80000000 + i, 0, bytes(8)) for i in range(1024)]
with open(sys.argv[3], "wb") as f:
    f.write(simdex_ref.build_bytes(pairs, [(t.source_bit, t.prefix_bits) for t in src.tables], 64,
                                   src.max_distance, "spec-full", version_minor=0, tagged=tagged,
                                   directory=False))
PY
check "a 2.0 file of 1024 tagged sections verifies" 0 "$simdex" verify "$dir/full.sdx"
check "upgrade refuses a file with no room for the directory" 2 "$simdex" upgrade "$dir/full.sdx" -o "$dir/full2.sdx"
expect_grep "upgrade says why" "has 1024 tagged sections besides a block directory, and format 2.2 allows 1024 with it: it cannot be upgraded" "$dir/err"
if [ -e "$dir/full2.sdx" ]; then bad "a refused upgrade wrote its output"; else ok; fi
check "upgrade: no stdin" 2 "$simdex" upgrade - -o "$dir/y.sdx"
check "upgrade --help" 0 "$simdex" upgrade --help
expect_grep "help teaches" "byte for byte" "$dir/out"

finish format_version_cli_test
