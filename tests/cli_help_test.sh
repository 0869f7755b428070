#!/usr/bin/env bash
# simdex help, the generated man page and bash completion, and simdex plan (issue 16).
# usage: cli_help_test.sh SIMDEX BUILD_DIR
set -uo pipefail
simdex=$1
build=$2
. "$(dirname "$0")/shell_checks.sh"

# --- help COMMAND is COMMAND --help, for every command there is.
mapfile -t commands < <("$simdex" help --commands)
[ "${#commands[@]}" -ge 10 ] && ok || bad "help --commands lists ${#commands[@]} commands"
for c in "${commands[@]}"; do
  check "help $c" 0 "$simdex" help "$c"
  mv "$dir/out" "$dir/help"
  check "$c --help" 0 "$simdex" "$c" --help
  same "help $c = $c --help" "$dir/help" "$dir/out"
  # The man page and the help text made at build time hold every command.
  expect_grep "man page has $c" "== simdex $c ==" "$build/simdex.1"
  expect_grep "help text has $c" "== simdex $c ==" "$build/simdex-help.txt"
done
check "help" 0 "$simdex" help
mv "$dir/out" "$dir/help"
check "--help" 0 "$simdex" --help
same "help = --help" "$dir/help" "$dir/out"
# The first of --help and --version is the one answered, as GNU tools answer them.
check "--help --version" 0 "$simdex" --help --version
same "--help --version = --help" "$dir/help" "$dir/out"
check "-h --version" 0 "$simdex" -h --version
same "-h --version = --help" "$dir/help" "$dir/out"
check "--version --help" 0 "$simdex" --version --help
expect_grep "--version --help says the version" "^simdex [0-9]" "$dir/out"
check "build --help" 0 "$simdex" build --help
mv "$dir/out" "$dir/build-help"
check "-h build" 0 "$simdex" -h build
same "-h build = build --help" "$dir/build-help" "$dir/out"
check "help of no such command" 2 "$simdex" help nope
expect_grep "help nope lists the commands" "the commands are: build" "$dir/err"
if command -v groff >/dev/null; then
  check "man page renders" 0 groff -man -Tutf8 -ww "$build/simdex.1"
  expect_grep "rendered man page" "simdex plan" "$dir/out"
fi

# --- bash completion: the generated file loads and completes commands and options.
"$simdex" help --bash-completion > "$dir/completion.bash"
same "installed completion = help --bash-completion" "$build/simdex.bash-completion" "$dir/completion.bash"
complete_words() {  # complete_words WORD...: what completion offers for the last word
  bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _simdex; echo "${COMPREPLY[*]}"' _ "$dir/completion.bash" "$@"
}
[ "$(complete_words simdex bu)" = "build" ] && ok || bad "completion of 'simdex bu': $(complete_words simdex bu)"
[ "$(complete_words simdex p)" = "pairs plan" ] && ok || bad "completion of 'simdex p': $(complete_words simdex p)"
[ "$(complete_words simdex query --se)" = "--serve" ] && ok || bad "completion of 'query --se': $(complete_words simdex query --se)"
[ "$(complete_words simdex help clu)" = "clusters" ] && ok || bad "completion of 'help clu': $(complete_words simdex help clu)"
[ -z "$(complete_words simdex build some)" ] && ok || bad "a file argument is left to file completion"
bash -c "source '$dir/completion.bash'; complete -p simdex" > "$dir/out" 2>&1
expect_grep "completion registered" "complete -o default -F _simdex simdex" "$dir/out"

# --- plan: one line per scheme, the automatic choice marked and equal to what build picks.
python3 -c 'import random
r = random.Random(5)
for i in range(300000): print(r.getrandbits(64))' > "$dir/fps.txt"
check build 0 "$simdex" build -q -o "$dir/a.sdx" -k 3 "$dir/fps.txt"
scheme=$("$simdex" info --json "$dir/a.sdx" | python3 -c 'import json, sys; print(json.load(sys.stdin)["scheme_name"])')
bytes=$(stat -c %s "$dir/a.sdx")
check plan 0 "$simdex" plan 300000 -k 3
expect_grep "plan names the automatic choice" "automatic choice.*: $scheme\$" "$dir/out"
[ "$(grep -c '^\* \(blocks\|paper\)' "$dir/out")" = 1 ] && ok || bad "plan marks other than one scheme"
expect_grep "plan lists paper-16" "paper-16" "$dir/out"
check "plan --json" 0 "$simdex" plan 300000 -k 3 --json
python3 - "$dir/out" "$scheme" "$bytes" <<'EOF2' && ok || bad "plan --json"
import json, sys
rows = [json.loads(line) for line in open(sys.argv[1])]
auto = [r for r in rows if r["automatic"]]
assert len(auto) == 1, auto
# auto-blocks-4-k3 is the row blocks-4 (=paper-4)
assert sys.argv[2].startswith("auto-" + auto[0]["scheme"].split("=")[0] + "-"), (auto, sys.argv[2])
estimate, actual = auto[0]["file_bytes"], int(sys.argv[3])
assert abs(estimate - actual) < 0.1 * actual, (estimate, actual)
assert all(r["candidates_per_query"] >= 0 and r["latency_us"] > 0 for r in rows)
# More tables: longer prefixes, fewer candidates, a bigger file.
by_tables = sorted(rows, key=lambda r: r["tables"])
assert all(a["file_bytes"] < b["file_bytes"] and a["candidates_per_query"] >= b["candidates_per_query"]
           for a, b in zip(by_tables, by_tables[1:])), by_tables
EOF2
check "plan k=6" 0 "$simdex" plan 1e9 -k 6
if grep -q paper "$dir/out"; then bad "plan -k 6 offers the paper's k=3 schemes"; else ok; fi
expect_grep "plan k=6 automatic" "automatic choice.*auto-blocks-[0-9]*-k6" "$dir/out"
check "plan bad N" 2 "$simdex" plan lots
check "plan 250M" 0 "$simdex" plan 250M
expect_grep "plan 250M" "n = 250000000 fingerprints" "$dir/out"

finish
