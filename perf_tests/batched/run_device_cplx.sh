#!/bin/sh
# The GPU check of batched/'s complex Hermitian POTRF / POTRS / TRSM (issue #14 item 2), under
# 3 minutes on an H100:
#   sh perf_tests/batched/run_device_cplx.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched_complex and
# perf_tests/batched/perf_batched (cmake --build BIN_DIR --target kspd_test_batched_complex
# perf_batched). Writes into OUTDIR (4 files):
#   device.txt          nvidia-smi line, total seconds;
#   unit_tests.txt      the complex batched unit tests (every variant, float and double);
#   sweep.txt           complex double + float (z, c), n = 8..256, POTRF / POTRS / TRSM, the
#                       default kernels (Auto) against cuSOLVER z/cpotrfBatched, z/cpotrsBatched
#                       and cuBLAS z/ctrsmBatched in the same run, batch 100,000 or 1 GB per array;
#   sweep_algo.txt      the same for n = 8..64 at batch 10,000 with BatchAlgo Serial and Team
#                       forced (which family Auto should take for complex scalars on the GPU).
set -u
bin=${1:?usage: run_device_cplx.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_cplx.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched_complex
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 60 "$tests" > "$out/unit_tests.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
t1=$(date +%s)
timeout 75 "$perf" --n 8,16,32,64,128,256 --batch 100000 --prec z,c --ops potrf,potrs,trsm --reps 5 --no-kk \
  > "$out/sweep.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t1 )) s" >> "$out/sweep.txt"
t2=$(date +%s)
timeout 35 "$perf" --n 8,16,32,64 --batch 10000 --prec z,c --ops potrf,trsm --reps 3 --no-kk --algo serial,team \
  > "$out/sweep_algo.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/sweep_algo.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
