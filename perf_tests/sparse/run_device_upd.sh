#!/usr/bin/env bash
# Issue #15 on a GPU host, CUDA binaries built elsewhere: the update / downdate unit tests
# (host and resident placement on the GPU, the wide panels through the test hook), and the
# rank-16 and rank-64 update of the 3-D elasticity 40^3 factor against refactoring
# A + W W^T in the same run, resident on the GPU: the default settings timed, then
# --wide-sweep (the same factor and refactorization; wide panels off first: the batched
# launches alone, the code before the wide panels), then --step-profile (phases, launches
# fenced one by one per kind, the wide supernodes' time, unfenced, panels' teams alone, rows
# below alone, other team sizes, empty launches). With UPD_CSV=1 one CSV line per launch
# (u40_launches.csv); with UPD_WIDTHS=1 also the batched panel widths 16 and 48 (wide off).
# About 2 minutes; at most 4 files in OUT_DIR (device, test_update, u40, u40_launches.csv).
#   perf_tests/sparse/run_device_upd.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CUDA build folder (targets kspd_test_sparse_update perf_sparse_update) or one
# folder holding the binaries. Environment and run(): device_env.sh.
keep="perf_sparse_update|path:|critical chain|wide|analyse|update  |downdate|\[|step profile|empty launches|team size|panel width|PASSED|FAILED|rc="
source "$(dirname "$0")/device_env.sh"
KSPD_DATA_DIR=$data run test_update 90 "$(find_bin kspd_test_sparse_update)"
# T:A:BW[:L] = wide from T columns, at most A path supernodes in its launches, panels of BW, L side lanes
sweep=100000:1:256,128:1:256:1,128:2:256:1,128:1:256,128:2:256,128:3:256,128:4:256,128:6:256,128:1000:256,256:2:256,128:2:128,64:3:256,128:2:256:2
csv=-; [ -n "${UPD_CSV:-}" ] && csv=$out/u40_launches.csv
both() {  # both PERF CSV [widths]
  for k in 16 64; do
    "$1" --size 40 --rank $k --placement resident --reps 3 --wide-sweep "$sweep" --step-profile "$2"
    echo "rc=$?"
  done
  [ "${3:-}" = 1 ] || return 0
  for w in 16 48; do
    echo "== panel width $w, rank 16, wide off"
    "$1" --size 40 --rank 16 --placement resident --reps 3 --panel-width $w --wide 100000:1:256
    echo "rc=$?"
  done
}
run u40 150 bash -c "sweep=$sweep; $(declare -f both); both $(find_bin perf_sparse_update) $csv ${UPD_WIDTHS:-}"
finish
exit 0
