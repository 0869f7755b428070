# The checks of the shell tests (sourced): a scratch directory $dir removed at exit, pass/fail
# counters, and `finish` to print the summary line and set the exit status.
dir=$(mktemp -d); trap 'rm -rf "$dir"' EXIT
pass=0; fail=0
ok() { pass=$((pass+1)); }
bad() { fail=$((fail+1)); echo "FAIL $*"; }
check() {  # check NAME EXPECTED_RC COMMAND...: stdout to $dir/out, stderr to $dir/err
  local name=$1 want=$2; shift 2
  "$@" >"$dir/out" 2>"$dir/err"; local rc=$?
  if [ "$rc" = "$want" ]; then ok; else bad "$name: rc=$rc, want $want"; head -c 2000 "$dir/err"; fi
}
expect_grep() {  # expect_grep NAME PATTERN FILE
  if grep -q -- "$2" "$3"; then ok; else bad "$1: '$2' not in $3:"; head -c 2000 "$3"; fi
}
same() {  # same NAME FILE1 FILE2
  if cmp -s "$2" "$3"; then ok; else bad "$1: $2 and $3 differ"; fi
}
finish() {  # the closing line ctest shows, and the status
  echo "${1:+$1: }$pass passed, $fail failed"
  [ "$fail" = 0 ]
}
