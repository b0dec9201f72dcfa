#!/usr/bin/env bash
# The rank-k update / downdate of the sparse factor on the GPU host (issue #15 item 3):
# kspd_test_sparse_update (the resident placement then runs on CUDA) and
# perf_sparse_update on 3-D elasticity 40^3, rank 16, resident on the GPU and on the host
# workers, each against refactoring A + W W^T in the same run. Binaries built for CUDA
# elsewhere (build-cuda: targets kspd_test_sparse_update perf_sparse_update), host
# libraries beside them, as run_device_resident.sh. Usage:
#   perf_tests/sparse/run_device_update.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); lib=$(cd "${2:?lib dir}" && pwd); data=${3:?data dir}; out=${4:?out dir}
mkdir -p "$out"
export LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)" | tee -a "$out/device.txt"
run() {  # run NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  echo "== $name: $* ($(date -u +%H:%M:%S))"
  timeout "$t" "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"
  grep -E "perf_sparse_update|analyse|update|downdate|PASSED|FAILED|rc=" "$out/$name.txt" | head -30
}
KSPD_DATA_DIR=$data run test 300 "$bin/kspd_test_sparse_update"
run u40_resident 300 "$bin/perf_sparse_update" --size 40 --rank 16 --placement resident --reps 3
run u40_host 300 "$bin/perf_sparse_update" --size 40 --rank 16 --placement host --threads 16 --reps 3
run u40_resident_k64 300 "$bin/perf_sparse_update" --size 40 --rank 64 --placement resident --reps 3
tar -C "$out" -czf "$out.tar.gz" . 2>/dev/null
exit 0
