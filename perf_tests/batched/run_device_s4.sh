#!/bin/sh
# The GPU check of batched/ for issue #13 (session 4, run 1: the binaries of 5165617; its
# --gemm-smem option went with the kernel it switched, removed after this run), under 3 minutes on an H100:
#   sh perf_tests/batched/run_device_s4.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched and
# perf_tests/batched/perf_batched. Writes 5 files into OUTDIR, peers in the same run (cuSOLVER
# potrfBatched / potrsBatched nrhs = 1, cuBLAS trsmBatched nrhs = n), batch 100,000 or 1 GB:
#   device.txt      GPU, clocks, total seconds
#   unit_tests.txt  the CUDA batched unit tests
#   sweep.txt       n = 64..256 fp64 + fp32 POTRF / POTRS / TRSM: the table ("smem auto") and
#                   the shared-memory kernels forced on every n they take ("smem 17:256": fp64
#                   to 128, fp32 to 256 in one kernel), both layout classes
#   gemm_smem.txt   POTRF / TRSM n = 128..256 on the shared-memory tensor-core GEMM for
#                   batch-first data ("gemm-smem 1") against TileGemm ("gemm-smem 0"), the
#                   TRSM's leaves from the table ("trsm auto") and the recursion over warp-kernel
#                   32-leaves ("trsm 16:32"); only the batch-first rows change
#   warp_cols.txt   POTRS nrhs = 1 and TRSM n = 8..32: column-major / pointer data on the
#                   warp-per-matrix TRSM with any number of right-hand sides ("warp-cols-cm 1")
#                   against the table ("warp-cols-cm 0")
set -u
bin=${1:?usage: run_device_s4.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_s4.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 105 "$tests" > "$out/unit_tests.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
t1=$(date +%s)
timeout 35 "$perf" --n 64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm \
  --reps 5 --no-kk --smem auto,17:256 > "$out/sweep.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t1 )) s" >> "$out/sweep.txt"
t2=$(date +%s)
timeout 25 "$perf" --n 128,192,256 --batch 100000 --prec d,s --ops potrf,trsm \
  --reps 5 --no-kk --smem-trsm auto,16:32 --gemm-smem 0,1 > "$out/gemm_smem.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/gemm_smem.txt"
t3=$(date +%s)
timeout 15 "$perf" --n 8,16,24,32 --batch 100000 --prec d,s --ops potrs,trsm \
  --reps 5 --no-kk --smem-warp-cols 0,1 > "$out/warp_cols.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t3 )) s" >> "$out/warp_cols.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
