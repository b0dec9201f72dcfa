#!/usr/bin/env bash
# Issue #17, the host solve on the GPU host's 16 cores (CPU binaries, no GPU used): kspd's
# threaded supernodal solve against CHOLMOD's (8 OpenBLAS threads) in the same run.
#  - perf_sparse_cholmod, 16 workers: 40^3 elasticity (the issue's row: 1 rhs, best of 5
#    solves per repetition) and the default list (elasticity 16-28, collection matrices).
#  - perf_sparse_solve: 40^3 and 16^3 elasticity factored once, solved at 1/4/16 threads with 1 and
#    16 rhs, alternating with CHOLMOD; "same" in its last column: the bits of every thread
#    count equal the first's.
# Under 3 minutes; 4 files in OUT_DIR. Usage:
#   perf_tests/sparse/run_device_hsolve.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CPU build folder (build/perf_tests/sparse) or a folder holding
# perf_sparse_cholmod and perf_sparse_solve. Environment and run(): device_env.sh.
keep="perf_sparse|case|elasticity|mtx|rsa|ratios|rc="
source "$(dirname "$0")/device_env.sh"
perf=$(find_bin perf_sparse_cholmod)
common=(--kspd-blas-threads 1 --cholmod-blas-threads 8 --gpu off --dense 1024)
run e40_t16 70 "$perf" --threads 16 "${common[@]}" --reps 2 --elasticity 40
KSPD_DATA_DIR=$data run default_t16 45 "$perf" --threads 16 "${common[@]}" --reps 3
run solve_e40 90 "$(find_bin perf_sparse_solve)" --kspd-blas-threads 1 --cholmod-blas-threads 8 --reps 5 \
  --threads 1 --threads 4 --threads 16 --nrhs 1 --nrhs 16 --elasticity 40 --elasticity 16
exit 0
