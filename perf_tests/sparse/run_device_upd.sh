#!/usr/bin/env bash
# Issue #15 on a GPU host, CUDA binaries built elsewhere: the update / downdate unit tests
# (host and resident placement on the GPU), and the rank-16 and rank-64 update of the 3-D
# elasticity 40^3 factor against refactoring A + W W^T in the same run, resident on the GPU,
# each with --step-profile (where the update's time goes: phases, launches fenced one by one
# per kind, unfenced, panels' teams alone, rows below alone, other team sizes, empty
# launches; one CSV line per launch). If BIN_DIR also holds perf_sparse_update_base (the
# build before this session's changes) or perf_sparse_update_alt / _alt2 (other variants),
# the same runs with each first; with UPD_CSV=1, one CSV line per launch of the current
# build; with UPD_WIDTHS=widths, the current build also with panels of 16, 48 and 64
# columns. About 30 s per binary (1 minute more with the widths); at most 6 files in OUT_DIR
# (device, test_update, base, alt, alt2, u40; u40_launches.csv with UPD_CSV). Usage:
#   perf_tests/sparse/run_device_upd.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR
# BIN_DIR: the CUDA build folder (targets kspd_test_sparse_update perf_sparse_update) or one
# folder holding the binaries. Environment and run(): device_env.sh.
keep="perf_sparse_update|path:|analyse|update  |downdate|\[|step profile|empty launches|team size|panel width|PASSED|FAILED|rc="
source "$(dirname "$0")/device_env.sh"
KSPD_DATA_DIR=$data run test_update 60 "$(find_bin kspd_test_sparse_update)"
both() {  # both PERF CSV_K16 CSV_K64 [widths]: rank 16 then rank 64, resident, with the profile;
  # with "widths", rank 16 and 64 again with panels of 16, 48 and 64 columns (no profile)
  "$1" --size 40 --rank 16 --placement resident --reps 3 --step-profile "$2"
  echo "rc=$?"
  "$1" --size 40 --rank 64 --placement resident --reps 3 --step-profile "$3"
  echo "rc=$?"
  [ "${4:-}" = widths ] || return 0
  for w in 16 48 64; do
    for k in 16 64; do
      echo "== panel width $w, rank $k"
      "$1" --size 40 --rank $k --placement resident --reps 3 --panel-width $w
      echo "rc=$?"
    done
  done
}
for v in base alt alt2; do
  b=$(find "$bin" -type f -name perf_sparse_update_$v -perm -u+x | head -1)
  [ -n "$b" ] && run $v 60 bash -c "$(declare -f both); both $b - -"
done
csv=-; [ -n "${UPD_CSV:-}" ] && csv=$out/u40_launches.csv
run u40 120 bash -c "$(declare -f both); both $(find_bin perf_sparse_update) $csv $csv ${UPD_WIDTHS:-}"
exit 0
