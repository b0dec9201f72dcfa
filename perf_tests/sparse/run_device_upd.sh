#!/usr/bin/env bash
# Issue #15 on a GPU host, CUDA binaries built elsewhere: the update / downdate unit tests
# (host and resident placement on the GPU), and the rank-16 and rank-64 update of the 3-D
# elasticity 40^3 factor against refactoring A + W W^T in the same run, resident on the GPU,
# and rank 16 on the host's 16 cores (then again with 1, 4 and 16 update threads). Under
# 3 minutes; 5 files in OUT_DIR. Usage:
#   perf_tests/sparse/run_device_upd.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CUDA build folder (targets kspd_test_sparse_update perf_sparse_update) or one
# folder holding the two binaries. Environment and run(): device_env.sh.
keep="perf_sparse_update|path:|analyse|update  |downdate|update threads|PASSED|FAILED|rc="
source "$(dirname "$0")/device_env.sh"
find_bin() { local f; f=$(find "$bin" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
KSPD_DATA_DIR=$data run test_update 60 "$(find_bin kspd_test_sparse_update)"
perf=$(find_bin perf_sparse_update)
run u40_resident 40 "$perf" --size 40 --rank 16 --placement resident --reps 3
run u40_resident_k64 40 "$perf" --size 40 --rank 64 --placement resident --reps 3
run u40_host16 75 "$perf" --size 40 --rank 16 --placement host --threads 16 --reps 2 --update-threads 1,4,16
exit 0
