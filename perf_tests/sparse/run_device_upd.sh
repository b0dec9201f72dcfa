#!/usr/bin/env bash
# Issue #15 on a GPU host, CUDA binaries built elsewhere: the update / downdate, mixed and
# selected-inverse unit tests (resident placement on the GPU), and the rank-16 update of
# the 3-D elasticity 40^3 factor against refactoring A + W W^T in the same run, resident on
# the GPU and on the host's 16 cores. Under 4 minutes; 5 files in OUT_DIR. Usage:
#   perf_tests/sparse/run_device_upd.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CUDA build folder (targets kspd_test_sparse_update kspd_test_sparse_selinv
# perf_sparse_update) or one folder holding the three binaries. Environment and run():
# device_env.sh.
keep="perf_sparse_update|path:|analyse|update  |downdate|matrices|PASSED|FAILED|rc="
source "$(dirname "$0")/device_env.sh"
find_bin() { local f; f=$(find "$bin" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
KSPD_DATA_DIR=$data run test_update 75 "$(find_bin kspd_test_sparse_update)"
KSPD_DATA_DIR=$data run test_selinv_mixed 75 "$(find_bin kspd_test_sparse_selinv)"
perf=$(find_bin perf_sparse_update)
run u40_resident 45 "$perf" --size 40 --rank 16 --placement resident --reps 3
run u40_host16 40 "$perf" --size 40 --rank 16 --placement host --threads 16 --reps 2
exit 0
