# What the simdex-mpi tests share (sourced after tests/shell_checks.sh): the commands, mpirun as CI runs
# it (as root, more ranks than cores, no ssh, shared memory only, stdin closed), and the comparison of
# one simdex-mpi run with one simdex run after sorting both outputs.
simdex=$1 simdex_mpi=$2 mpirun=$3 python=$4
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
# (vader without single-copy: containers often forbid the cross-process reads it would use)
export OMPI_MCA_plm_rsh_agent= OMPI_MCA_btl=self,vader OMPI_MCA_btl_vader_single_copy_mechanism=none
export OMPI_MCA_rmaps_base_oversubscribe=1
# hwloc's OpenGL probe (in mpirun and each rank) opens the X displays :0, :1, ... by "localhost":
# where /etc/hosts is missing (a minimal Debian root, as CI's) that is a DNS query, and one in three
# starts waited 5 s for its timeout (42-96 s a test there, 3-21 s here). No display is needed.
export HWLOC_COMPONENTS=-gl
# A job any rank ends with a non-zero status is one mpirun "aborts": it signals the ranks (gone by
# then: simdex-mpi's ranks agree on a failure and exit together) and sleeps this long before its
# SIGKILL. The default 1 s made each failing run 1.3-2.3 s instead of 0.3 s (mpi_failure_test 41 s).
export OMPI_MCA_odls_base_sigkill_timeout=0
mpi() {  # mpi NP ARGS...: simdex-mpi on NP ranks
  local np=$1; shift
  "$mpirun" --allow-run-as-root --oversubscribe -np "$np" "$simdex_mpi" "$@" </dev/null
}
gen() { "$python" "$here/gen_data.py" "$@"; }
# agree NAME MPI_OUTPUT SIMDEX_ARGS...: simdex's output sorted equals MPI_OUTPUT sorted, and is not empty
agree() {
  local name=$1 got=$2; shift 2
  "$simdex" "$@" >"$dir/want.unsorted" 2>"$dir/want.err" || { bad "$name: simdex $* failed"; cat "$dir/want.err"; return; }
  LC_ALL=C sort "$dir/want.unsorted" >"$dir/want"
  LC_ALL=C sort "$got" >"$dir/got"
  if [ ! -s "$dir/want" ]; then bad "$name: simdex printed nothing (the test would not test)"; return; fi
  same "$name" "$dir/want" "$dir/got"
}
# run_mpi NAME NP ARGS...: simdex-mpi's stdout to $dir/mpi.out; rc 0 wanted
run_mpi() {
  local name=$1 np=$2; shift 2
  mpi "$np" "$@" >"$dir/mpi.out" 2>"$dir/mpi.err"; local rc=$?
  if [ "$rc" = 0 ]; then ok; else bad "$name: rc=$rc"; head -c 3000 "$dir/mpi.err"; fi
}
