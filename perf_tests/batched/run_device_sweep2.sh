#!/bin/sh
# Second GPU run of issue #13 (session 3), on the binaries of run_device_sweep.sh (2d3dceb):
# the table changes its first run suggested, emulated through perf_batched's overrides, under
# 2 minutes on an H100:
#   sh perf_tests/batched/run_device_sweep2.sh BIN_DIR OUTDIR
#   trsm_warp.txt   TRSM (nrhs = k), fp64 + fp32, k = 16..256: the shared-memory kernels from
#                   k = 16 (a warp per matrix up to 32), 16 and 32 right-hand sides per pass;
#   trsm_leaves.txt fp32 TRSM k = 32..256 with the shared-memory kernel at k <= 32 only (the
#                   recursion's 32-leaves on the warp kernel), 16 and 32 per pass;
#   potrf_warp.txt  POTRF fp64 + fp32, n = 17..32, a block vs a warp per matrix, every layout.
set -u
bin=${1:?usage: run_device_sweep2.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_sweep2.sh BIN_DIR OUTDIR}
mkdir -p "$out"
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device2.txt" 2>&1
start=$(date +%s)
timeout 50 "$perf" --n 16,20,24,28,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops trsm --reps 5 --no-kk \
  --smem 16:128 --smem-warp 32 --smem-chunk 16,32 > "$out/trsm_warp.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$out/trsm_warp.txt"
t1=$(date +%s)
timeout 30 "$perf" --n 32,48,64,96,128,192,256 --batch 100000 --prec s --ops trsm,potrs --reps 5 --no-kk \
  --smem 16:32 --smem-warp 32 --smem-chunk 16,32 > "$out/trsm_leaves.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t1 )) s" >> "$out/trsm_leaves.txt"
t2=$(date +%s)
timeout 30 "$perf" --n 17,20,24,28,32 --batch 100000 --prec d,s --ops potrf --reps 5 --no-kk \
  --smem 17:128 --smem-warp 0,32 > "$out/potrf_warp.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/potrf_warp.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device2.txt"
