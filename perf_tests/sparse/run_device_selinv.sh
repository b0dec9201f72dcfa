#!/usr/bin/env bash
# Selected inversion and mixed precision on a GPU host, with binaries built elsewhere for CUDA
# (kspd_test_sparse_selinv, perf_sparse_selinv, kspd-solve) and the host libraries they need
# copied beside them (as run_device_resident.sh). Usage:
#   perf_tests/sparse/run_device_selinv.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# stages: test selinv mixed cpu (default: all).
#   test:   the unit tests (collection, generated problems, resident placement on the GPU)
#   selinv: selected inversion vs factorization, resident on the GPU: elasticity 30^3, 40^3 and
#           the collection up to n = 20,000 (target <= 3x)
#   mixed:  fp32 factor + refinement vs fp64 factor + solve on the GPU, and kspd-solve both ways
#   cpu:    the same on the host's cores (16 workers), for the CPU targets on this host
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); lib=$(cd "${2:?lib dir}" && pwd); data=${3:?data dir}; out=${4:?out dir}; shift 4
stages=${*:-test selinv mixed cpu}
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
  grep -E "^(selinv|mixed|factor|solve|summary) |matrices|PASSED|FAILED|rc=" "$out/$name.txt" | head -80
}
perf=$bin/perf_sparse_selinv
if has test; then
  KSPD_DATA_DIR=$data run test 600 "$bin/kspd_test_sparse_selinv"
fi
if has selinv; then
  run selinv_gpu 600 "$perf" --sizes 30,40 --placement resident --threads 16 --reps 3 --no-mixed --data "$data" --max-n 20000
fi
if has mixed; then
  run mixed_gpu 600 "$perf" --sizes 30,40 --placement resident --threads 16 --reps 3 --no-selinv
  run solve40_mixed 300 "$bin/kspd-solve" --size 40 --gpu on --precision mixed
  run solve40_double 300 "$bin/kspd-solve" --size 40 --gpu on --precision double
fi
if has cpu; then
  run cpu 600 "$perf" --sizes 30,40 --placement host --threads 16 --reps 3
fi
tar -C "$out" -czf "$out.tar.gz" . 2>/dev/null
exit 0
