#!/usr/bin/env bash
# GPU sweep of issue #14 item 1 (core/ and rfp/ speed), about 5 minutes on an H100:
#   1. the rfp and core unit tests (CUDA build),
#   2. pftrf: every RFP variant x blocking (split = the old four-call algorithm, blocked,
#      lookahead, auto = the default) x block size, fp64 / fp32 / complex double, n = 4K..32K
#      (fp32 also 64K), against dense cuSOLVER potrf in the same run (kspd/peer < 1: faster);
#      pftri (auto vs the vendor-leaf path) against cuSOLVER potri,
#   3. dense POTRI (vendor, recursive, auto), TRSM/TRMM with 512 right-hand sides (vendor,
#      recursive, both with the right-hand sides over two streams, auto), SYRK (vendor,
#      recursive) with GEMM's rate.
# Usage: perf_tests/rfp/run_device_sweep.sh BIN_DIR OUTDIR
#   BIN_DIR: a CUDA build of kspd (the targets kspd_test_rfp, kspd_test_core,
#   perf_rfp_blocking, perf_dense built); OUTDIR: logs, one file per step.
set -uo pipefail
bin=${1:?BIN_DIR}; out=${2:?OUTDIR}
mkdir -p "$out"
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
step() {  # step <name> <timeout-seconds> <cmd...>
  local name=$1 t=$2; shift 2
  log "$name"
  timeout "$t" "$@" 2>&1 | tee "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || echo "!! $name exited with $rc" | tee -a "$out/$name.txt"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee "$out/device.txt"

step test_rfp 240 "$bin/unit_tests/rfp/kspd_test_rfp" --gtest_brief=1
step test_core 180 "$bin/unit_tests/kspd_test_core" --gtest_brief=1

B="$bin/perf_tests/rfp/perf_rfp_blocking"
# fp64: every variant, every blocking, three block sizes
step pftrf_d 180 "$B" --prec d --n 4096,8192,16384,32768 --variants NL,NU,TL,TU \
  --blocking split,blocked,lookahead,auto --nb 512,1024 --algos auto,recursive --ops pftrf,pftri --reps 3
# fp32: the same to 32K, then 64K (one variant, fewer cases: 17 GB dense + 2 x 8.6 GB RFP)
step pftrf_s 120 "$B" --prec s --n 4096,8192,16384,32768 --variants NL,NU,TL,TU \
  --blocking split,lookahead,auto --nb 1024 --algos auto,recursive --ops pftrf,pftri --reps 3
step pftrf_s64k 90 "$B" --prec s --n 65536 --variants NL --blocking split,lookahead,auto --nb 1024,2048 \
  --ops pftrf --reps 1
# complex double
step pftrf_z 120 "$B" --prec z --n 4096,8192,16384 --variants NL,NU,TL,TU \
  --blocking split,lookahead,auto --nb 1024 --algos auto,recursive --ops pftrf --reps 3

D="$bin/perf_tests/core/perf_dense"
step dense_potri 90 "$D" --prec d,s --n 2048,4096,8192,16384 --ops potri --lanes --reps 3
step dense_trsm 90 "$D" --prec d,s --n 8192,16384,32768 --nrhs 512 --ops trsm,trmm --lanes --reps 3
step dense_syrk 60 "$D" --prec d,s --n 4096,8192,16384 --ops gemm,syrk --reps 3
log done
