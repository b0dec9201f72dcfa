#!/usr/bin/env bash
# Selected inversion and mixed precision on a GPU host, with binaries built elsewhere for CUDA
# (kspd_test_sparse_selinv, perf_sparse_selinv, kspd-solve) and the host libraries they need
# copied beside them (environment and run(): device_env.sh). Usage:
#   perf_tests/sparse/run_device_selinv.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# stages: test selinv mixed cpu (default: all).
#   test:   the unit tests (collection, generated problems, resident placement on the GPU)
#   selinv: selected inversion vs factorization, resident on the GPU: elasticity 30^3, 40^3 and
#           the collection up to n = 20,000 (target <= 3x)
#   mixed:  fp32 factor + refinement vs fp64 factor + solve on the GPU, and kspd-solve both ways
#   cpu:    the same on the host's cores (16 workers), for the CPU targets on this host
default_stages="test selinv mixed cpu"
keep="^(selinv|mixed|factor|solve|summary) |matrices|PASSED|FAILED|rc="
source "$(dirname "$0")/device_env.sh"
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
