#!/usr/bin/env bash
# SIGKILL `simdex build` at random moments while it replaces an index: afterwards the target must hold
# the old complete file or the new complete file, never a partial one; a later successful build must
# leave no temporary file behind. SIGINT and SIGTERM at random moments of a build that spills sorted
# runs: the build dies by that signal, the target is intact and no temporary file is left at once.
# usage: kill_build_test.sh SIMDEX [ROUNDS]
set -uo pipefail
simdex=$1; rounds=${2:-12}
. "$(dirname "$0")/shell_checks.sh"
python3 - "$dir" <<'PY'
import random, sys
d = sys.argv[1]
for name, seed, n in (("old", 1, 50000), ("new", 2, 400000)):
    r = random.Random(seed)
    with open(f"{d}/{name}.tsv", "w") as f:
        for i in range(n):
            f.write(f"{r.getrandbits(64)}\t{i}\n")
PY
"$simdex" build -q --scheme paper-20 -o "$dir/old.ref" "$dir/old.tsv" || bad "reference build old"
"$simdex" build -q --scheme paper-20 -o "$dir/new.ref" "$dir/new.tsv" || bad "reference build new"
start=$(date +%s%N); "$simdex" build -q --scheme paper-20 -o "$dir/timing.sdx" "$dir/new.tsv"; took=$(( ($(date +%s%N) - start) / 1000000 ))
# A random moment within the build's time `took` (ms) so far. A build that ended before its signal
# halves `took` for the next rounds: measured while other tests load the machine, it can be many
# times what the rounds take once they are done.
moment() { awk -v r="$RANDOM" -v t="$took" 'BEGIN { printf "%.3f", (r / 32767) * t * 1.1 / 1000 }'; }
# signal_at_moment SIG WHAT COMMAND...: runs COMMAND, sends it SIG at a moment(), and checks that it
# died by SIG (counted in $signalled) or ended first (halving `took`); its status is left in $rc.
signal_at_moment() {
  local sig=$1 what=$2; shift 2
  "$@" &
  local pid=$!
  sleep "$(moment)"
  kill -s "$sig" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null; rc=$?
  if [ "$rc" = $((128 + $(kill -l "$sig"))) ]; then signalled=$((signalled+1)); ok
  elif [ "$rc" = 0 ]; then took=$((took / 2 + 1)); ok
  else bad "$what: exit status $rc"; fi
}
killed=0
for round in $(seq 1 "$rounds"); do
  cp "$dir/old.ref" "$dir/target.sdx"
  "$simdex" build -q --scheme paper-20 -o "$dir/target.sdx" "$dir/new.tsv" &
  pid=$!
  sleep "$(moment)"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed+1)); else took=$((took / 2 + 1)); fi
  wait "$pid" 2>/dev/null
  if cmp -s "$dir/target.sdx" "$dir/old.ref" || cmp -s "$dir/target.sdx" "$dir/new.ref"; then ok; else bad "round $round: target is neither the old nor the new file"; fi
  "$simdex" verify "$dir/target.sdx" >/dev/null && ok || bad "round $round: target does not verify"
done
[ "$killed" -gt 0 ] && ok || bad "no build was killed (timing too short)"
"$simdex" build -q --scheme paper-20 -o "$dir/target.sdx" "$dir/old.tsv" && ok || bad "final build"
cmp -s "$dir/target.sdx" "$dir/old.ref" && ok || bad "final target differs"
if ls -a "$dir" | grep -q '\.tmp-'; then bad "temporary files left: $(ls -a "$dir" | grep '\.tmp-')"; else ok; fi
for sig in INT TERM; do
  signalled=0
  set -m  # own process group: a background job of a script would otherwise start with SIGINT ignored
  for round in $(seq 1 $(( (rounds + 2) / 3 ))); do
    cp "$dir/old.ref" "$dir/target.sdx"
    signal_at_moment "$sig" "SIG$sig round $round" \
      "$simdex" build -q --scheme paper-20 --memory 1M -o "$dir/target.sdx" "$dir/new.tsv"
    if cmp -s "$dir/target.sdx" "$dir/old.ref" || cmp -s "$dir/target.sdx" "$dir/new.ref"; then ok; else bad "SIG$sig round $round: target is neither the old nor the new file"; fi
    left=$(ls -a "$dir" | grep -E '\.tmp-|\.simdex-sort-')
    [ -z "$left" ] && ok || bad "SIG$sig round $round: temporary files left: $left"
    rm -f "$dir"/.*.tmp-* "$dir"/.simdex-sort-*
  done
  set +m
  [ "$signalled" -gt 0 ] && ok || bad "no build ended by SIG$sig (timing too short)"
  echo "SIG$sig ended $signalled builds"
done
# Any command's output: `fingerprint -o` stopped by SIGINT or SIGTERM while it waits for more
# documents (its temporary file made) leaves no temporary file and no output.
for sig in INT TERM; do
  rm -f "$dir/docs.fifo"; mkfifo "$dir/docs.fifo"
  set -m
  "$simdex" fingerprint -q "$dir/docs.fifo" -o "$dir/fp.out" &
  pid=$!
  exec 7>"$dir/docs.fifo"
  for i in $(seq 1 100); do echo "{\"id\":$i,\"text\":\"word $i and more\"}"; done >&7
  for _ in $(seq 1 50); do ls -a "$dir" | grep -q '^\.fp\.out\.tmp-' && break; sleep 0.1; done
  ls -a "$dir" | grep -q '^\.fp\.out\.tmp-' && ok || bad "fingerprint -o made no temporary file (the check would not check)"
  kill -s "$sig" "$pid"; wait "$pid"; rc=$?
  exec 7>&-
  set +m
  [ "$rc" = $((128 + $(kill -l "$sig"))) ] && ok || bad "fingerprint SIG$sig: exit status $rc"
  left=$(ls -a "$dir" | grep -E '^\.fp\.out|^fp\.out')
  [ -z "$left" ] && ok || bad "fingerprint SIG$sig: left $left"
done
echo "killed $killed of $rounds builds (build takes ${took} ms)"
# A set's merge stopped by SIGINT or SIGTERM at random moments: the set verifies and its directory
# holds only the files its manifest names (a merged member written, or given its name, before the
# manifest named it was left behind: as large as the members merged).
mkdir "$dir/set.ref"
for part in 1 2 3; do
  sed -n "${part}~3p" "$dir/new.tsv" | "$simdex" add -q --no-merge "$dir/set.ref/s.sdxs" - || bad "set member $part"
done
rm -f "$dir/set.ref/s.sdxs.lock"
cp -a "$dir/set.ref" "$dir/set"
start=$(date +%s%N); "$simdex" merge -q "$dir/set/s.sdxs"; took=$(( ($(date +%s%N) - start) / 1000000 ))
named() { "$simdex" info --json "$1" | grep -o '"name":"[^"]*"' | cut -d'"' -f4 | sort; }
signalled=0
set -m
for round in $(seq 1 "$rounds"); do
  sig=$([ $((round % 2)) = 0 ] && echo INT || echo TERM)
  rm -rf "$dir/set"; cp -a "$dir/set.ref" "$dir/set"
  signal_at_moment "$sig" "merge SIG$sig round $round" "$simdex" merge -q "$dir/set/s.sdxs"
  "$simdex" verify "$dir/set/s.sdxs" >/dev/null && ok || bad "merge SIG$sig round $round: the set does not verify"
  left=$(comm -13 <(named "$dir/set/s.sdxs") <(ls -A "$dir/set" | grep -vx 's.sdxs\|s.sdxs.lock' | sort))
  [ -z "$left" ] && ok || bad "merge SIG$sig round $round (rc $rc): files the manifest does not name: $left"
done
set +m
[ "$signalled" -gt 0 ] && ok || bad "no merge ended by a signal (timing too short)"
echo "signals ended $signalled of $rounds merges (a merge takes ${took} ms)"
# `pairs` of a set of several members builds one index of its live pairs in $TMPDIR: stopped by a
# signal it leaves nothing there; killed, what it left is removed by the next run.
mkdir "$dir/tmp"
pairs_of_set=(env TMPDIR="$dir/tmp" "$simdex" pairs -q "$dir/set.ref/s.sdxs" -o /dev/null)  # env execs simdex
start=$(date +%s%N); "${pairs_of_set[@]}"; took=$(( ($(date +%s%N) - start) / 1000000 ))
[ -z "$(ls -A "$dir/tmp")" ] && ok || bad "pairs of a set left in TMPDIR: $(ls -A "$dir/tmp")"
signalled=0
set -m
for round in $(seq 1 "$rounds"); do
  sig=$([ $((round % 2)) = 0 ] && echo INT || echo TERM)
  signal_at_moment "$sig" "pairs SIG$sig round $round" "${pairs_of_set[@]}"
  [ -z "$(ls -A "$dir/tmp")" ] && ok || bad "pairs SIG$sig round $round: left in TMPDIR: $(ls -A "$dir/tmp")"
done
set +m
[ "$signalled" -gt 0 ] && ok || bad "no pairs ended by a signal (timing too short)"
killed=0
for round in $(seq 1 "$rounds"); do
  "${pairs_of_set[@]}" & pid=$!
  sleep "$(moment)"
  if kill -9 "$pid" 2>/dev/null; then killed=$((killed+1)); else took=$((took / 2 + 1)); fi
  wait "$pid" 2>/dev/null
done
"${pairs_of_set[@]}" && ok || bad "pairs after kills"
[ -z "$(ls -A "$dir/tmp")" ] && ok || bad "pairs after $killed kills: left in TMPDIR: $(ls -A "$dir/tmp")"
echo "signals ended $signalled of $rounds set pairs runs, kills $killed (a run takes ${took} ms)"
finish
