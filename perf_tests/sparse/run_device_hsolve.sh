#!/usr/bin/env bash
# Issue #17, the host solve on the GPU host's 16 cores (CPU binary, no GPU used): kspd's
# threaded supernodal solve against CHOLMOD's (8 OpenBLAS threads) in the same run, 1 rhs,
# best of 5 solves per repetition; 40^3 elasticity at 16 and 4 workers, and the default
# list (elasticity 16-28, the collection matrices) at 16. Under 3 minutes; 4 files in
# OUT_DIR. Usage:
#   perf_tests/sparse/run_device_hsolve.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CPU build folder (build/perf_tests/sparse) or a folder holding
# perf_sparse_cholmod. Environment and run(): device_env.sh.
keep="perf_sparse_cholmod|case|elasticity|mtx|rsa|ratios|rc="
source "$(dirname "$0")/device_env.sh"
find_bin() { local f; f=$(find "$bin" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
perf=$(find_bin perf_sparse_cholmod)
common=(--kspd-blas-threads 1 --cholmod-blas-threads 8 --gpu off --dense 1024)
run e40_t16 70 "$perf" --threads 16 "${common[@]}" --reps 2 --elasticity 40
run e40_t4 60 "$perf" --threads 4 "${common[@]}" --reps 1 --elasticity 40
KSPD_DATA_DIR=$data run default_t16 45 "$perf" --threads 16 "${common[@]}" --reps 3
exit 0
