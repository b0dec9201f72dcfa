#!/usr/bin/env bash
# Issue #15 on a GPU host, CUDA binaries built elsewhere: the update / downdate, mixed and
# selected-inverse unit tests (resident placement on the GPU), and the rank-16 update of
# the 3-D elasticity 40^3 factor against refactoring A + W W^T in the same run, resident on
# the GPU and on the host's 16 cores. Under 4 minutes; 5 files in OUT_DIR. Usage:
#   perf_tests/sparse/run_device_upd.sh BUILD_DIR OUT_DIR [DATA_DIR]
# BUILD_DIR: the CUDA build folder (targets kspd_test_sparse_update kspd_test_sparse_selinv
# perf_sparse_update) or one folder holding the three binaries; LIB_DIR (environment,
# optional): host libraries to put on LD_LIBRARY_PATH.
set -uo pipefail
build=$(cd "${1:?build dir}" && pwd); out=${2:?out dir}; data=${3:-../shared/data/matrices}
mkdir -p "$out"
export LD_LIBRARY_PATH=${LIB_DIR:+$LIB_DIR:}${LD_LIBRARY_PATH:-} OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1
find_bin() { local f; f=$(find "$build" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$build/$1}"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)" | tee -a "$out/device.txt"
run() {  # run NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  echo "== $name: $* ($(date -u +%H:%M:%S))"
  timeout "$t" "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"
  grep -E "perf_sparse_update|path:|analyse|update  |downdate|matrices|PASSED|FAILED|rc=" "$out/$name.txt" | head -30
}
KSPD_DATA_DIR=$data run test_update 75 "$(find_bin kspd_test_sparse_update)"
KSPD_DATA_DIR=$data run test_selinv_mixed 75 "$(find_bin kspd_test_sparse_selinv)"
perf=$(find_bin perf_sparse_update)
run u40_resident 45 "$perf" --size 40 --rank 16 --placement resident --reps 3
run u40_host16 40 "$perf" --size 40 --rank 16 --placement host --threads 16 --reps 2
exit 0
