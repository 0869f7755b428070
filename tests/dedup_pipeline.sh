# What `simdex dedup` replaces, in shell (sourced by the dedup tests).
# keep_first FP_FILE CLUSTERS INPUT: INPUT's non-blank lines without those of every cluster member
# but the first in input order. FP_FILE: `fingerprint` output (one line a document, input order);
# CLUSTERS: `clusters --ids` output.
keep_first() {
  awk -F'\t' 'FILENAME == ARGV[1] { doc[$2] = (doc[$2] == "" ? FNR : doc[$2] "," FNR); next }
    FILENAME == ARGV[2] {
      n = split($0, ids, ","); first = 0; delete m; k = 0
      for (i = 1; i <= n; i++) { c = split(doc[ids[i]], d, ","); for (j = 1; j <= c; j++) m[++k] = d[j] + 0 }
      for (i = 1; i <= k; i++) if (!first || m[i] < first) first = m[i]
      for (i = 1; i <= k; i++) if (m[i] != first) drop[m[i]] = 1
      next }
    /^[ \t\r]*$/ { next }
    { if (!(++rec in drop)) print }' "$1" "$2" <(zcat -f "$3")
}
