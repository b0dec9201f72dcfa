#!/usr/bin/env bash
# The MPI strong-scaling sweep on a machine without a package registry (the device host):
# unpacks .devdebs/ (scripts/fetch-device-debs.sh) into a prefix, picks an mpiexec that
# runs (the carried Debian Open MPI, relocated by OPAL_PREFIX, else the machine's own 4.x),
# checks the MPI tests at 8 and 16 ranks, then runs run_perf_sparse_mpi.sh.
#   perf_tests/sparse/device_mpi_sweep.sh BIN_DIR OUT_DIR "1 2 4 8 16" [perf_sparse_mpi args]
#   (SWEEP2="perf_sparse_mpi args" runs a second sweep into sweep2.log / sweep2_table.txt)
# BIN_DIR holds perf_tests/sparse/perf_sparse_mpi and kspd_test_sparse_mpi built here.
set -uo pipefail
bin=${1:?bin dir}; out=${2:?out dir}; ranks=${3:-"1 2 4 8 16"}; shift 3
here=$(cd "$(dirname "$0")" && pwd)
P=/tmp/kspd-prefix
mkdir -p "$P" "$out"
for f in .devdebs/*.deb; do dpkg -x "$f" "$P"; done
L=$P/usr/lib/x86_64-linux-gnu
export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$L/openmpi/lib:$L/pmix2/lib:${LD_LIBRARY_PATH:-}
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
echo "cores: $(nproc --all); $(grep -m1 'model name' /proc/cpuinfo)" | tee "$out/env.txt"
ldd "$bin/perf_tests/sparse/perf_sparse_mpi" | grep "not found" | tee -a "$out/env.txt"
mpi=""
# The host's own Open MPI must not see the carried MPI libraries: a filtered library dir.
N=$P/nompi; mkdir -p "$N"
for f in "$L"/*.so*; do case $(basename "$f") in libmpi*|libopen-*|libpmix*|libompitrace*|libmca_common*) ;; *) ln -sf "$f" "$N"/ ;; esac; done
try() {  # try NAME ENV... : the smoke run with that environment
  local name=$1; shift
  if env "$@" timeout 60 "$cand" -n 2 "$bin/perf_tests/sparse/perf_sparse_mpi" --smoke --no-mumps >"$out/smoke.txt" 2>&1; then
    mpi=$cand; mpienv=("$@"); echo "smoke ok: $cand $name" >>"$out/env.txt"; return 0
  fi
  echo "--- $cand $name failed:" >>"$out/env.txt"; grep -v "^\[vm" "$out/smoke.txt" | head -12 >>"$out/env.txt"; return 1
}
cand=$P/usr/bin/mpiexec.openmpi
base=(OPAL_PREFIX=$P/usr PMIX_INSTALL_PREFIX=$L/pmix2)
try carried "${base[@]}" || try carried-nocma "${base[@]}" OMPI_MCA_btl_vader_single_copy_mechanism=none ||
  try carried-pt2pt "${base[@]}" OMPI_MCA_btl_vader_single_copy_mechanism=none OMPI_MCA_osc=pt2pt
if [ -z "$mpi" ] && command -v mpiexec >/dev/null; then
  cand=$(command -v mpiexec)
  base=(LD_LIBRARY_PATH=$N:$L/openblas-pthread)
  try host "${base[@]}" || try host-nocma "${base[@]}" OMPI_MCA_btl_vader_single_copy_mechanism=none
fi
[ -n "$mpi" ] || { echo "no working mpiexec" | tee -a "$out/env.txt"; exit 1; }
echo "mpiexec: $mpi ${mpienv[*]}" | tee -a "$out/env.txt"
export "${mpienv[@]}"
for np in 8 16; do
  KSPD_DATA_DIR=$PWD/$bin/mat timeout 120 "$mpi" -n $np --oversubscribe "$bin/kspd_test_sparse_mpi" >"$out/test_np$np.txt" 2>&1
  echo "kspd_test_sparse_mpi np=$np rc=$? $(grep -c '\[       OK' "$out/test_np$np.txt") OK lines" | tee -a "$out/env.txt"
done
KSPD_DATA_DIR=$PWD/$bin/mat MPIEXEC=$mpi MPIEXEC_FLAGS="--bind-to core" LOG=$out/sweep.log \
  "$here/run_perf_sparse_mpi.sh" "$bin" "$ranks" "$@" >"$out/sweep_table.txt" 2>&1
tail -12 "$out/sweep_table.txt"
if [ -n "${SWEEP2:-}" ]; then  # a second sweep (other cases / reps): SWEEP2="--gen ... --reps 1"
  # shellcheck disable=SC2086
  KSPD_DATA_DIR=$PWD/$bin/mat MPIEXEC=$mpi MPIEXEC_FLAGS="--bind-to core" LOG=$out/sweep2.log \
    "$here/run_perf_sparse_mpi.sh" "$bin" "$ranks" $SWEEP2 >"$out/sweep2_table.txt" 2>&1
  tail -8 "$out/sweep2_table.txt"
fi
