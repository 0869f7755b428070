#!/usr/bin/env bash
# scripts/scale in small: 300,000 fingerprints streamed to `simdex build` under a 2 MiB bound (so
# the sort spills runs to temporary files), verified, queried with 300 planted near-duplicates
# that must all be found with their ids; no temporary file may be left.
# usage: scale_small_test.sh SIMDEX GEN_FINGERPRINTS REPO_ROOT
set -euo pipefail
simdex=$1 gen=$2 root=$3
dir=$(mktemp -d)
mkdir "$dir/tmp"
trap 'rm -rf "$dir"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$gen" 300000 5 | "$simdex" build -o "$dir/s.sdx" --scheme paper-4 --memory 2M --tmp-dir "$dir/tmp" - 2>"$dir/build.log" ||
  fail "build: $(cat "$dir/build.log")"
grep -q "300000 fingerprints, 300000 ids" "$dir/build.log" || fail "summary: $(tail -1 "$dir/build.log")"
grep -q "external sort: [1-9][0-9]* temporary files" "$dir/build.log" || fail "the 2 MiB bound did not spill: $(tail -1 "$dir/build.log")"
[ -z "$(ls -A "$dir/tmp")" ] || fail "temporary files left: $(ls -A "$dir/tmp")"
"$simdex" verify "$dir/s.sdx" >/dev/null || fail "verify"

"$gen" 300000 5 1000 >"$dir/samples.tsv"
python3 "$root/scripts/scale_queries.py" plant "$dir/samples.tsv" >"$dir/queries.txt"
"$simdex" query "$dir/s.sdx" <"$dir/queries.txt" >"$dir/hits.tsv"
python3 "$root/scripts/scale_queries.py" check "$dir/samples.tsv" "$dir/queries.txt" "$dir/hits.tsv" || fail "planted queries"
echo "scale_small: OK"
