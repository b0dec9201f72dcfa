#!/usr/bin/env bash
# Issue #17 target C on a GPU host, CUDA+MPI binaries built elsewhere: 2 ranks sharing one
# GPU against 1 rank (kspd-solve --distributed, elasticity3d fp64, --gpu on, 40^3 and 56^3:
# run_mpi_engine.sh's part C, the faster of a factorization and a refactorization, 1 rank
# and 2 ranks interleaved, ROUNDS_C rounds: default 3; SAME_ORDER_C (default on): also 1
# rank x 8 threads, the 2-rank run's ordering), and the MPI unit tests at 2 ranks on the GPU
# (device groups: both ranks on one GPU). Under 4.5 minutes; 3 files in OUT_DIR (table.txt,
# logs.txt, test_np2.txt).
#   perf_tests/sparse/run_device_mpi.sh BIN_DIR OUT_DIR [DATA_DIR]
# BIN_DIR: the build folder (sparse/kspd-solve, unit_tests/sparse/kspd_test_sparse_mpi) or
# one folder holding both. MPIEXEC: default the carried Debian Open MPI in /tmp/kspd-prefix
# (OPAL_PREFIX set) when present, else mpiexec. SIZES_C overrides "40 56".
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); out=${2:?out dir}; data=${3:-}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out"
find_bin() { local f; f=$(find "$bin" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
P=/tmp/kspd-prefix
if [ -z "${MPIEXEC:-}" ] && [ -x "$P/usr/bin/mpiexec.openmpi" ]; then
  L=$P/usr/lib/x86_64-linux-gnu
  export MPIEXEC=$P/usr/bin/mpiexec.openmpi OPAL_PREFIX=$P/usr PMIX_INSTALL_PREFIX=$L/pmix2
  export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$L/openmpi/lib:$L/pmix2/lib:${LD_LIBRARY_PATH:-}
fi
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_CORETYPE=Haswell OMP_NUM_THREADS=1
tmp=$(mktemp -d)
# part C only (part B at 8^3 is a 1-second row the script always runs)
SIZES_A="" SIZE_B=8 SIZES_C="${SIZES_C-40 56}" ROUNDS_C="${ROUNDS_C-3}" SAME_ORDER_C="${SAME_ORDER_C-1}" timeout 200 "$here/run_mpi_engine.sh" "$(find_bin kspd-solve)" "$tmp"
cp "$tmp/table.txt" "$out/table.txt"
for f in "$tmp"/C-*.log; do echo "===== $(basename "$f")"; cat "$f"; done >"$out/logs.txt"
rm -rf "$tmp"
[ -n "${SKIP_TESTS:-}" ] && { echo "unit tests skipped (SKIP_TESTS)"; exit 0; }
flags="--bind-to none --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
# shellcheck disable=SC2086
KSPD_DATA_DIR=$data OPENBLAS_NUM_THREADS=1 timeout 60 ${MPIEXEC:-mpiexec} -n 2 $flags "$(find_bin kspd_test_sparse_mpi)" \
  >"$out/test_np2.txt" 2>&1
echo "rc=$?" >>"$out/test_np2.txt"
grep -E "PASSED|FAILED|rc=" "$out/test_np2.txt" | head -20
exit 0
