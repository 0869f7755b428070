#!/usr/bin/env bash
# simdex-mpi on P ranks against 1 (bench/RESULTS.md, "simdex-mpi"): build, join and pairs of N random
# fingerprints, one thread per rank, so the ranks are the only parallelism measured.
# usage: bench/mpi_scaling.sh [N [QUERIES [RANKS...]]]   (default 10000000 1000000 1 2; build/ built)
# Prints one line per (command, ranks): seconds, speedup and efficiency per rank against 1 rank.
# Scratch files go to a new directory inside SIMDEX_BENCH_DIR (default $TMPDIR or /tmp), removed at
# the end; a failed run stops the script with its exit status.
set -euo pipefail
cd "$(dirname "$0")/.."
n=${1:-10000000} q=${2:-1000000}; shift $(( $# < 2 ? $# : 2 )) || true
ranks=("$@"); [ ${#ranks[@]} -gt 0 ] || ranks=(1 2)
# SIMDEX_BENCH_DIR is compare_bench's too, a place such as /tmp: never removed, only what we make in it.
if [ -n "${SIMDEX_BENCH_DIR:-}" ]; then
  mkdir -p "$SIMDEX_BENCH_DIR"; work=$(mktemp -d "$SIMDEX_BENCH_DIR/simdex-mpi-scaling.XXXXXX")
else
  work=$(mktemp -d)
fi
trap 'rm -rf "$work"' EXIT
export OMPI_MCA_plm_rsh_agent='' OMPI_MCA_btl=self,vader
export HWLOC_COMPONENTS=-gl  # no 5 s DNS waits for localhost where /etc/hosts is missing (tests/mpi/mpi_common.sh)
mpi() { local np=$1; shift; mpirun --allow-run-as-root --oversubscribe -np "$np" build/mpi/simdex-mpi "$@" </dev/null; }
# seconds CMD...: its wall time; fails when CMD does (set -e is off inside $(...): no time for a failed run)
seconds() {
  local t0 rc; t0=$(date +%s.%N)
  "$@" >/dev/null || { rc=$?; echo "mpi_scaling.sh: FAILED rc=$rc: $*" >&2; return $rc; }
  awk -v a="$t0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.2f", b - a }'
}
build/tests/gen_fingerprints "$n" 1 >"$work/fp.txt"
build/tests/gen_fingerprints "$q" 2 >"$work/q.txt"  # random queries: the join's probe work, few hits
declare -A base secs
printf "%-8s %5s %9s %8s %10s\n" command ranks seconds speedup efficiency
for p in "${ranks[@]}"; do
  rm -f "$work"/set.sdxs*
  secs[build]=$(seconds mpi "$p" build -q --threads 1 -o "$work/set.sdxs" "$work/fp.txt")
  secs[join]=$(seconds mpi "$p" join --threads 1 "$work/set.sdxs" "$work/q.txt")
  secs[pairs]=$(seconds mpi "$p" pairs --threads 1 "$work/set.sdxs")
  for c in build join pairs; do
    t=${secs[$c]}; [ -n "${base[$c]:-}" ] || base[$c]=$t
    awk -v c="$c" -v p="$p" -v t="$t" -v b="${base[$c]}" \
      'BEGIN { printf "%-8s %5d %9.2f %8.2f %10.2f\n", c, p, t, b / t, b / t / p }'
  done
done
