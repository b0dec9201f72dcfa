#!/usr/bin/env bash
# Builds kspd against a CUDA-enabled Kokkos install and runs the unit tests and the GPU
# benchmarks, writing logs and tables to OUTDIR. Used for the H100 runs recorded in
# perf_tests/results/. Usage:
#   perf_tests/run_gpu_suite.sh <kokkos-prefix> <outdir> [stage...]
# stages: build tests core rfp batched sparse (default: all)
set -uo pipefail
prefix=${1:?kokkos prefix}; out=${2:?outdir}; shift 2
stages=${*:-build tests core rfp batched sparse}
src=$(cd "$(dirname "$0")/.." && pwd)
bld=${KSPD_GPU_BUILD:-$src/build-gpu}
mkdir -p "$out"
has() { [[ " $stages " == *" $1 "* ]]; }
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
if has build; then
  log configure
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_CXX_COMPILER="$prefix/bin/nvcc_wrapper" -DCMAKE_PREFIX_PATH="$prefix" \
    ${KSPD_GPU_CMAKE_ARGS:-} >"$out/configure.log" 2>&1 || { tail -40 "$out/configure.log"; exit 1; }
  log build
  # -k 0: build everything that compiles, report what did not
  ninja -k 0 -C "$bld" ${KSPD_GPU_TARGETS:-} >"$out/build.log" 2>&1 || { echo "BUILD ERRORS:"; grep -m12 -A6 "error" "$out/build.log"; }
fi
if has tests; then
  log tests
  (cd "$bld" && ctest -LE perf --output-on-failure --timeout 600 ${KSPD_GPU_CTEST_ARGS:-}) >"$out/ctest.log" 2>&1
  grep -E "tests passed|FAILED|Failed|\*\*\*" "$out/ctest.log" | head -40
fi
run() {  # run <name> <timeout> <cmd...>
  local name=$1 t=$2; shift 2
  log "$name"
  timeout "$t" "$@" 2>&1 | tee "$out/$name.txt"
}
has core && run perf_dense 400 "$bld/perf_tests/core/perf_dense" ${KSPD_PERF_DENSE_ARGS:-}
has rfp && [ -x "$bld/perf_tests/rfp/perf_rfp_sweep" ] && run perf_rfp_sweep 400 "$bld/perf_tests/rfp/perf_rfp_sweep" ${KSPD_PERF_RFP_ARGS:-}
has batched && [ -x "$bld/perf_tests/batched/perf_batched" ] && run perf_batched 400 "$bld/perf_tests/batched/perf_batched" ${KSPD_PERF_BATCHED_ARGS:-}
has sparse && [ -x "$bld/perf_tests/sparse/perf_sparse_cholmod" ] && run perf_sparse 400 "$bld/perf_tests/sparse/perf_sparse_cholmod" ${KSPD_PERF_SPARSE_ARGS:-}
exit 0
