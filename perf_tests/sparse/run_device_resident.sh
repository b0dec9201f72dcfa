#!/usr/bin/env bash
# The sparse GPU measurements of the device-resident factorization on a machine without a
# package registry: binaries built elsewhere for CUDA (kspd-solve, perf_sparse_cholmod,
# kspd_test_sparse_cholesky) and the host libraries they need (Debian's OpenBLAS, Metis,
# CHOLMOD, ...) copied beside them. Usage:
#   perf_tests/sparse/run_device_resident.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# stages: test solve40 solve64 cholmod (default: all). CPU timings use OPENBLAS_CORETYPE=Haswell
# (the VM's CPUID makes OpenBLAS pick SSE3 kernels otherwise) and CHOLMOD gets 8 BLAS threads
# (16 oversubscribe that host): ../shared/anchors/devicehost-cholmod-2026-11-23.txt.
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); lib=$(cd "${2:?lib dir}" && pwd); data=${3:?data dir}; out=${4:?out dir}; shift 4
stages=${*:-test solve40 solve64 cholmod}
has() { [[ " $stages " == *" $1 "* ]]; }
mkdir -p "$out"
export LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)" | tee -a "$out/device.txt"
run() {  # run NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  log "$name: $*"
  timeout "$t" "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"
  grep -E "^(factor|refactor|solve|summary|order|analyse) |resident|FAILED|rc=|PASSED|FAILED|kspd |CHOLMOD|ratio" "$out/$name.txt" | head -30
}
solve=$bin/kspd-solve
if has test; then
  KSPD_DATA_DIR=$data run test 300 "$bin/kspd_test_sparse_cholesky"
fi
if has solve40; then
  run e40_on 200 "$solve" --size 40 --gpu on --timeline --refactor 1
  run e40_force 200 "$solve" --size 40 --gpu force --timeline
  run e40_top 200 "$solve" --size 40 --gpu on --gpu-placement top
  run e40_float 200 "$solve" --size 40 --gpu on --precision float --refactor 1
  run e40_rhs64 200 "$solve" --size 40 --gpu on --nrhs 64
  run e40_cpu 200 "$solve" --size 40 --gpu off --threads 16
fi
if has solve64; then
  run e64_on 400 "$solve" --size 64 --gpu on --timeline --refactor 1 --nrhs 1
  run e64_rhs64 400 "$solve" --size 64 --gpu on --nrhs 64
fi
if has cholmod; then
  run cholmod40 400 "$bin/perf_sparse_cholmod" --reps 1 --threads 16 --kspd-blas-threads 1 --cholmod-blas-threads 8 \
    --gpu on --elasticity 40
fi
tar -C "$out" -czf "$out.tar.gz" . 2>/dev/null
exit 0
