#!/usr/bin/env bash
# simdex dedup on 100,000 JSON Lines records keyed by string URLs (a few with TAB or ',' in them),
# 8% without a key, with planted near-duplicates (1 word of 60 changed): its output equals
# the pipeline fingerprint -> build -> clusters --ids (+ the first of each cluster kept), it keeps
# exactly one record per cluster and loses none outside clusters, and its peak RSS stays under
# --memory 256M. usage: dedup_scale_test.sh SIMDEX [RECORDS]
set -uo pipefail
simdex=$1 records=${2:-100000}
# Under ASan, freed memory waits in a quarantine: keep it small so peak RSS means what it says.
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=1"
. "$(dirname "$0")/shell_checks.sh"
. "$(dirname "$0")/dedup_pipeline.sh"

# The data, generated (awk's rand() from a fixed seed): originals of 60 words from 5,000, and
# about 15% near-duplicates of earlier originals.
awk -v n="$records" 'BEGIN {
  srand(16)
  for (i = 0; i < n; i++) {
    if (o > 100 && rand() < 0.15) {
      src = int(rand() * o); split(orig[src], w, " ")
      w[1 + int(rand() * 60)] = "x" int(rand() * 5000)
      text = w[1]; for (j = 2; j <= 60; j++) text = text " " w[j]; planted++
    } else {
      text = "w" int(rand() * 5000); for (j = 2; j <= 60; j++) text = text " w" int(rand() * 5000)
      orig[o++] = text
    }
    if (i % 25 == 7) key = ""
    else if (i % 997 == 3) key = ", \"url\": \"https://site.example/p/" i "\\tq,r\""
    else key = ", \"url\": \"https://site.example/p/" i "\""
    printf "{\"text\": \"%s\"%s, \"n\": %d}\n", text, key, i
  }
  print planted > "/dev/stderr"
}' > "$dir/in.jsonl" 2> "$dir/planted"
planted=$(cat "$dir/planted")

# dedup, its peak RSS measured by GNU time.
/usr/bin/time -f '%M' -o "$dir/rss" "$simdex" dedup "$dir/in.jsonl" --id-field url -o "$dir/dedup.jsonl" \
  --memory 256M --report "$dir/report.json" -q
rc=$?
[ "$rc" = 0 ] && ok || bad "dedup: rc=$rc"
kb=$(tail -1 "$dir/rss")
echo "dedup of $records records ($planted planted near-duplicates), --memory 256M: peak RSS $kb KiB"
[ "$kb" -lt $((256 * 1024)) ] && ok || bad "dedup --memory 256M: peak RSS $kb KiB"

# A memory bound far below the pairs (the index build sorts externally): the same output.
check dedup-memory-1M 0 "$simdex" dedup "$dir/in.jsonl" --id-field url -o "$dir/dedup-1M.jsonl" --memory 1M -q
same dedup-memory-1M-same "$dir/dedup.jsonl" "$dir/dedup-1M.jsonl"

# The pipeline it replaces.
check fingerprint 0 "$simdex" fingerprint "$dir/in.jsonl" --id-field url -o "$dir/in.fp"
check build 0 "$simdex" build -q -k 7 --memory 256M -o "$dir/in.sdx" "$dir/in.fp"
"$simdex" clusters "$dir/in.sdx" --ids > "$dir/clusters.txt" || bad "clusters failed"
keep_first "$dir/in.fp" "$dir/clusters.txt" "$dir/in.jsonl" > "$dir/pipeline.jsonl"
same dedup-equals-pipeline "$dir/dedup.jsonl" "$dir/pipeline.jsonl"

# One kept per cluster, nothing lost outside clusters, most planted duplicates found: from the
# report and the output, by the record numbers ("n") the records carry (record n = document n).
check report 0 python3 - "$dir/report.json" "$dir/dedup.jsonl" "$records" "$planted" <<'PY'
import json, sys
report, output, records, planted = json.load(open(sys.argv[1])), sys.argv[2], int(sys.argv[3]), int(sys.argv[4])
written = [json.loads(line)["n"] for line in open(output)]
assert written == sorted(written), "output not in input order"
kept, removed = set(), set()
for c in report["clusters"]:
    assert sum(m["kept"] for m in c["members"]) == 1, c
    for m in c["members"]:
        (kept if m["kept"] else removed).add(m["document"])
assert report["documents"] == records and report["removed"] == len(removed)
assert not removed & set(written), "a removed record was written"
assert kept <= set(written), "a kept record is missing"
assert set(written) | removed == set(range(records)), "records lost"
assert len(written) == records - len(removed)
assert len(removed) > planted * 6 // 10, (len(removed), planted)  # about 73% at k = 7 for these edits
print("removed %d of %d planted" % (len(removed), planted))
PY
cat "$dir/out"

finish dedup_scale_test
