#!/bin/sh
# The GPU check of batched/ (issue #13 item 1), under 4 minutes on an H100:
#   sh perf_tests/batched/run_device_sweep.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched and
# perf_tests/batched/perf_batched (cmake --build BIN_DIR --target kspd_test_batched perf_batched).
# Writes OUTDIR/unit_tests.txt (the batched unit tests) and the perf_batched sweeps, peers in
# the same run (cuSOLVER potrfBatched / potrsBatched, cuBLAS trsmBatched), batch 100,000 or
# 1 GB per array:
#   sweep.txt       fp64 + fp32, n = 4..256, POTRF / POTRS / TRSM: the tuning table ("smem auto")
#                   and the kernels before the shared-memory family ("smem 0:0") in one run;
#   sweep_warp.txt  n = 8..32 with the shared-memory kernels forced from n = 9 ("smem 9:128"):
#                   a block per matrix ("warp-max 0") against a warp per matrix, several
#                   matrices per block ("warp-max 32"), TRSM with 32 (table) and 16 columns per pass.
set -u
bin=${1:?usage: run_device_sweep.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_sweep.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 150 "$tests" > "$out/unit_tests.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
t1=$(date +%s)
timeout 50 "$perf" --n 4,8,16,24,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm \
  --reps 5 --no-kk --smem auto,0:0 > "$out/sweep.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t1 )) s" >> "$out/sweep.txt"
t2=$(date +%s)
timeout 30 "$perf" --n 8,9,12,16,17,20,24,28,32 --batch 100000 --prec d,s --ops potrf,trsm --reps 5 --no-kk \
  --smem 9:128 --smem-warp 0,32 --smem-chunk 0,16 > "$out/sweep_warp.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/sweep_warp.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
