#!/usr/bin/env bash
# The CLI in pipes (issue 16): `-` as stdin and stdout everywhere, one output vocabulary (--json,
# --hex, --dec), and `query --serve` driven as a bash co-process, SIGHUP after a rename included.
# usage: cli_pipes_test.sh SIMDEX
set -uo pipefail
simdex=$1
. "$(dirname "$0")/shell_checks.sh"
json_ok() {  # json_ok NAME FILE: every line is one JSON value, and there is one
  if python3 -c 'import json, sys
n = 0
for line in open(sys.argv[1], encoding="utf-8"):
    json.loads(line); n += 1
assert n > 0, "no output"' "$2" 2>"$dir/jerr"; then ok; else bad "$1: not JSON Lines: $(tail -1 "$dir/jerr")"; fi
}
mkdir "$dir/tmp"
export TMPDIR="$dir/tmp"

# --- Pipes: documents -> fingerprints -> index -> info/verify/query, nothing on disk.
python3 -c 'import random
r = random.Random(7)
words = ["w%d" % i for i in range(300)]
for i in range(400):
    base = [words[r.randrange(300)] for _ in range(40)]
    print("{\"id\": %d, \"text\": \"%s\"}" % (2 * i, " ".join(base)))
    base[r.randrange(40)] = "changed"
    print("{\"id\": %d, \"text\": \"%s\"}" % (2 * i + 1, " ".join(base)))' > "$dir/docs.jsonl"
check fp-file 0 "$simdex" fingerprint "$dir/docs.jsonl" -o "$dir/docs.fp"
check fp-dash 0 "$simdex" fingerprint "$dir/docs.jsonl" -o -
same "fingerprint -o - is stdout" "$dir/docs.fp" "$dir/out"
check fp-stdin 0 bash -c "'$simdex' fingerprint - < '$dir/docs.jsonl'"
same "fingerprint of stdin" "$dir/docs.fp" "$dir/out"
check build-file 0 "$simdex" build -q -o "$dir/docs.sdx" -k 3 "$dir/docs.fp"
check build-pipe 0 bash -c "'$simdex' fingerprint '$dir/docs.jsonl' -o - | '$simdex' build -q -o - -k 3 - > '$dir/piped.sdx'"
same "build -o - gives the bytes of build -o FILE" "$dir/docs.sdx" "$dir/piped.sdx"
# A killed `-o -` build's directory in the staging directory (no process holds its lock) goes with
# the next build, with what it holds; a live one's (locked) stays.
mkdir -p "$dir/stage/.simdex-stdout-Killed" "$dir/stage/.simdex-stdout-Live00"
printf 'partial' > "$dir/stage/.simdex-stdout-Killed/..index.sdx.tmp-999999-0"
# (the lock held by this shell's descriptor: a background `flock DIR sleep` left its sleep holding
# the test's output open for 30 s after the kill)
exec {live}<"$dir/stage/.simdex-stdout-Live00"
flock "$live"
check build-pipe-cleans 0 bash -c "'$simdex' build -q -o - -k 3 --tmp-dir '$dir/stage' '$dir/docs.fp' > '$dir/staged.sdx'"
[ "$(ls -A "$dir/stage")" = ".simdex-stdout-Live00" ] && ok || bad "in the staging directory: $(ls -A "$dir/stage")"
exec {live}<&-
check build-pipe-text 0 bash -c "'$simdex' build --text -q -o - -k 3 - < '$dir/docs.jsonl' > '$dir/piped-text.sdx'"
# (a --text index records its fingerprint settings, spec/FORMAT.md §5.2: compare with --text to a file)
check build-file-text 0 "$simdex" build --text -q -o "$dir/docs-text.sdx" -k 3 "$dir/docs.jsonl"
same "build --text -o -" "$dir/docs-text.sdx" "$dir/piped-text.sdx"
[ -z "$(ls -A "$dir/tmp")" ] && ok || { bad "build -o - left files in TMPDIR:"; ls -A "$dir/tmp"; }
check build-pipe-tmpdir 0 bash -c "'$simdex' build -q -o - --tmp-dir '$dir' '$dir/docs.fp' | cmp - '$dir/docs.sdx'"
check build-summary 0 bash -c "'$simdex' build -o - '$dir/docs.fp' > /dev/null"
expect_grep "build -o - summary" "wrote standard output" "$dir/err"
# Commands reading INDEX from stdin: a pipe (read into memory) and a redirected file (mapped).
for via in pipe file; do
  run_index() {  # run_index COMMAND ARGS...: the index through stdin
    if [ $via = pipe ]; then cat "$dir/docs.sdx" | "$simdex" "$@"; else "$simdex" "$@" < "$dir/docs.sdx"; fi
  }
  check "info - ($via)" 0 run_index info -
  expect_grep "info - ($via) reads it" "fingerprints   800 distinct" "$dir/out"
  check "verify - ($via)" 0 run_index verify -
  expect_grep "verify - ($via) OK" "^-: OK" "$dir/out"
  for c in "query - -k 2 $(cut -f1 "$dir/docs.fp" | head -3 | tr '\n' ' ')" "join - $dir/docs.fp --sort" "pairs - --sort" "clusters - --sort --ids"; do
    # shellcheck disable=SC2086
    check "$c ($via)" 0 run_index $c
    mv "$dir/out" "$dir/from-stdin"
    # shellcheck disable=SC2086
    check "$c (file)" 0 "$simdex" ${c/ - / $dir/docs.sdx }
    [ -s "$dir/out" ] && cmp -s "$dir/out" "$dir/from-stdin" && ok || bad "$c: INDEX - ($via) answers differently"
  done
done
check "query - needs other queries" 2 bash -c "cat '$dir/docs.sdx' | '$simdex' query -"
expect_grep "two stdin inputs refused" "the index is read from stdin" "$dir/err"
check "join - - refused" 2 bash -c "cat '$dir/docs.sdx' | '$simdex' join - -"
printf 'not an index at all' > "$dir/junk"
check "info - of junk" 1 bash -c "cat '$dir/junk' | '$simdex' info -"
expect_grep "info - of junk: message" "file_too_small" "$dir/err"
# A stream that is no index, or that never ends, is refused after its header, not read to the end.
check "info - of an endless stream" 1 timeout 20 bash -c "'$simdex' info - < /dev/zero"
expect_grep "info - of /dev/zero: message" "bad_magic" "$dir/err"
check "info - of a longer stream" 1 bash -c "(cat '$dir/docs.sdx'; head -c 100000000 /dev/zero) | '$simdex' info -"
expect_grep "info - of a longer stream: message" "file_size_mismatch" "$dir/err"
# A valid header stating more bytes than the machine has, then an endless stream: refused at the
# header, not read until memory runs out.
python3 -c 'import sys; b = bytearray(open(sys.argv[1], "rb").read(128)); b[16:24] = (1 << 60).to_bytes(8, "little"); sys.stdout.buffer.write(b)' \
  "$dir/docs.sdx" >"$dir/huge-head"
check "info - of a header stating 2^60 bytes" 1 timeout 20 bash -c "cat '$dir/huge-head' /dev/zero | '$simdex' info -"
expect_grep "info - of a header stating 2^60 bytes: message" "more than this machine's memory" "$dir/err"
# A key map that is not a regular file (a link to /dev/zero, a FIFO) is refused, not read forever.
cp "$dir/docs.sdx" "$dir/zk.sdx"; ln -sf /dev/zero "$dir/zk.sdx.keys.tsv"
check "--keys of /dev/zero" 1 timeout 20 "$simdex" query --keys "$dir/zk.sdx" 0x1
expect_grep "--keys of /dev/zero: message" "is not a regular file" "$dir/err"
rm -f "$dir/zk.sdx.keys.tsv"; mkfifo "$dir/zk.sdx.keys.tsv"
check "--keys of a FIFO" 1 timeout 20 "$simdex" pairs --keys "$dir/zk.sdx"
check "verify --json - of junk" 1 bash -c "cat '$dir/junk' | '$simdex' verify --json -"
json_ok "verify --json of junk" "$dir/out"
expect_grep "verify --json of junk: not ok" '"ok":false' "$dir/out"

# --- One vocabulary: --json everywhere (--format json its alias), --hex/--dec for fingerprints.
check "pairs --json" 0 "$simdex" pairs "$dir/docs.sdx" --json --sort --ids
mv "$dir/out" "$dir/pairs-json"
check "pairs --format json" 0 "$simdex" pairs "$dir/docs.sdx" --format json --sort --ids
same "pairs: --json is --format json" "$dir/pairs-json" "$dir/out"
json_ok "pairs --json" "$dir/out"
check "clusters --json" 0 "$simdex" clusters "$dir/docs.sdx" --json --sort
mv "$dir/out" "$dir/clusters-json"
check "clusters --format json" 0 "$simdex" clusters "$dir/docs.sdx" --format json --sort
same "clusters: --json is --format json" "$dir/clusters-json" "$dir/out"
check "seomoz and --json" 2 "$simdex" pairs "$dir/docs.sdx" --format seomoz --json
check "seomoz and --hex" 2 "$simdex" clusters "$dir/docs.sdx" --format seomoz --hex
check "--hex and --dec" 2 "$simdex" query "$dir/docs.sdx" --hex --dec 1
check "verify --json" 0 "$simdex" verify --json "$dir/docs.sdx"
json_ok "verify --json" "$dir/out"
expect_grep "verify --json ok" '"ok":true' "$dir/out"
# What cannot be read is told in the object too: a script reading one object a file gets one.
check "verify --json of a missing index" 1 "$simdex" verify --json "$dir/none.sdx"
json_ok "verify --json of a missing index" "$dir/out"
expect_grep "verify --json of a missing index: the problem" '"ok":false,.*"problems":\[{"rule":"io","where":"opening","what":"io: cannot open index' "$dir/out"
expect_grep "verify --json of a missing index: stderr" "cannot open index '.*none.sdx': no such file" "$dir/err"
check "verify --json --keys of a missing map" 1 "$simdex" verify --json --keys="$dir/none.keys.tsv" "$dir/docs.sdx"
json_ok "verify --json --keys of a missing map" "$dir/out"
expect_grep "verify --json --keys of a missing map: the problem" '"ok":true,.*"key_map":{"path":"[^"]*none.keys.tsv","ok":false,"keys":0,"problem":"io: cannot open key map' "$dir/out"
check "verify --keys of a missing map" 1 "$simdex" verify --keys="$dir/none.keys.tsv" "$dir/docs.sdx"
expect_grep "verify --keys of a missing map: the index is checked" "docs.sdx: OK" "$dir/out"
expect_grep "verify --keys of a missing map: BAD" "none.keys.tsv: BAD" "$dir/out"
# Each command's default stays; the other base prints the same numbers.
to_dec() { python3 -c 'import re, sys
print(re.sub(r"0x[0-9a-f]{16}", lambda m: str(int(m.group(0), 16)), sys.stdin.read()), end="")'; }
fp1=$(head -1 "$dir/docs.fp" | cut -f1)
for c in "fingerprint $dir/docs.jsonl" "query $dir/docs.sdx -k 3 $fp1" "join $dir/docs.sdx $dir/docs.fp --sort" \
         "pairs $dir/docs.sdx --sort" "clusters $dir/docs.sdx --sort"; do
  # shellcheck disable=SC2086
  check "$c --dec" 0 "$simdex" $c --dec
  mv "$dir/out" "$dir/dec"
  # shellcheck disable=SC2086
  check "$c --hex" 0 "$simdex" $c --hex
  grep -q '0x[0-9a-f]\{16\}' "$dir/out" && ok || bad "$c --hex: no hex fingerprint"
  to_dec < "$dir/out" > "$dir/hex-as-dec"
  [ -s "$dir/dec" ] && cmp -s "$dir/dec" "$dir/hex-as-dec" && ok || bad "$c: --hex and --dec print different numbers"
  # shellcheck disable=SC2086
  check "$c default" 0 "$simdex" $c
  case $c in fingerprint*) same "$c: hex by default" "$dir/out" "$dir/docs.fp" ;;
             *) same "$c: decimal by default" "$dir/out" "$dir/dec" ;; esac
  # shellcheck disable=SC2086
  check "$c --json --hex" 0 "$simdex" $c --json --hex
  json_ok "$c --json --hex" "$dir/out"
  expect_grep "$c --json --hex: strings" '"0x[0-9a-f]\{16\}"' "$dir/out"
done
check "fingerprint --json" 0 "$simdex" fingerprint "$dir/docs.jsonl" --json
expect_grep "fingerprint --json fields" '^{"id":0,"fingerprint":"0x[0-9a-f]*"}$' "$dir/out"
check "fingerprint --json --dec" 0 "$simdex" fingerprint "$dir/docs.jsonl" --json --dec
expect_grep "fingerprint --json --dec: numbers" '^{"id":0,"fingerprint":[0-9]*}$' "$dir/out"

# --- query --serve as a bash co-process: an answer per line, flushed, ended by an empty line.
printf '0xff\t10\n0xfe\t11\n0xf0\t12\n' > "$dir/s1.tsv"
printf '0xff\t20\n0x0f\t21\n' > "$dir/s2.tsv"
"$simdex" build -q -o "$dir/s.sdx" --scheme paper-4 "$dir/s1.tsv"
coproc SRV { exec "$simdex" query --serve -k 1 "$dir/s.sdx" 2>"$dir/serve-err"; }
srv_pid=$SRV_PID
ask() {  # ask LINE: prints the answer's lines (up to the empty line), fails after 10 s of silence
  printf '%s\n' "$1" >&"${SRV[1]}"
  local line
  while IFS= read -r -t 10 line <&"${SRV[0]}"; do
    [ -z "$line" ] && return 0
    printf '%s\n' "$line"
  done
  echo "NO ANSWER"; return 1
}
[ "$(ask 255)" = "$(printf '255\t255\t0\t10\n255\t254\t1\t11')" ] && ok || bad "serve: answer to 255"
[ "$(ask 0x1234)" = "" ] && ok || bad "serve: empty answer to a query without hits"
[ "$(ask zz)" = "" ] && ok || bad "serve: a bad line gets an empty answer"
[ "$(ask 0xf0)" = "$(printf '240\t240\t0\t12')" ] && ok || bad "serve: answers after a bad line"
# A new index renamed over the old one, then SIGHUP: the next query sees it.
"$simdex" build -q -o "$dir/s2.sdx" --scheme paper-4 "$dir/s2.tsv"
mv "$dir/s2.sdx" "$dir/s.sdx"
kill -HUP "$srv_pid"
[ "$(ask 255)" = "$(printf '255\t255\t0\t20')" ] && ok || bad "serve: SIGHUP did not reopen the index"
# A broken file renamed over it: the server keeps the index it has and says why.
cp "$dir/junk" "$dir/s3.sdx"; mv "$dir/s3.sdx" "$dir/s.sdx"
kill -HUP "$srv_pid"
[ "$(ask 15)" = "$(printf '15\t15\t0\t21')" ] && ok || bad "serve: a failed reopen lost the index"
exec {SRV[1]}>&-
wait "$srv_pid"; rc=$?
[ "$rc" = 0 ] && ok || bad "serve: exit status $rc at the end of stdin"
expect_grep "serve: bad line reported" "<stdin>:3: 'zz' is not a 64-bit fingerprint" "$dir/serve-err"
expect_grep "serve: failed reopen reported" "still serving the index opened before" "$dir/serve-err"
check "serve refuses INDEX -" 2 bash -c "'$simdex' query --serve - < /dev/null"
check "serve refuses arguments" 2 "$simdex" query --serve "$dir/docs.sdx" 1
printf '255\n' > "$dir/one.txt"
check "serve --json" 0 bash -c "'$simdex' query --serve --json '$dir/docs.sdx' < '$dir/one.txt'"
expect_grep "serve --json answer" '^{"query":255,"hits":\[\]}$' "$dir/out"

finish
