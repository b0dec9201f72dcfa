#!/bin/sh
# Second GPU check of the batch-first repack (issue #13, session 5), under 4 minutes on an H100:
#   sh perf_tests/batched/run_device_bat2.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched and
# perf_tests/batched/perf_batched. Writes 4 files into OUTDIR, peers in the same run (cuSOLVER
# potrfBatched / potrsBatched nrhs = 1, cuBLAS trsmBatched nrhs = n), batch 100,000 or 1 GB:
#   device.txt      GPU, clocks, total seconds
#   unit_tests.txt  every CUDA batched unit test, in two parts of at most 70 s each (BatchedBlas,
#                   then the others): the dispatch of POTRF / TRSM / POTRS changed under all of them
#   repack.txt      batch-first POTRF / POTRS / TRSM, fp64 + fp32, n = 96..256: the repack with
#                   column tiles, workspace 0 (off) / 256 MiB / 1 GiB (--bf-repack KiB), and the
#                   table as committed (-1: fp64 TRSM k >= 192 repacked in 1 GiB)
set -u
bin=${1:?usage: run_device_bat2.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_bat2.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 70 "$tests" --gtest_filter='BatchedBlas*' > "$out/unit_tests.txt" 2>&1
echo "part 1 (BatchedBlas*): exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
t1=$(date +%s)
timeout 70 "$tests" --gtest_filter='-BatchedBlas*' >> "$out/unit_tests.txt" 2>&1
echo "part 2 (the others): exit $? after $(( $(date +%s) - t1 )) s" >> "$out/unit_tests.txt"
t2=$(date +%s)
timeout 75 "$perf" --n 96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm --reps 5 --no-kk \
  --bf-only --bf-repack 0,262144,1048576,-1 > "$out/repack.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/repack.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
