#!/bin/sh
# The second GPU check of batched/ for issue #13 (session 4), under 3 minutes on an H100:
#   sh perf_tests/batched/run_device_s4b.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched and
# perf_tests/batched/perf_batched. Writes 4 files into OUTDIR, peers in the same run (cuSOLVER
# potrfBatched / potrsBatched nrhs = 1, cuBLAS trsmBatched nrhs = n), batch 100,000 or 1 GB:
#   device.txt      GPU, clocks, total seconds
#   unit_tests.txt  the CUDA batched unit tests, in two parts of at most 65 s each (BatchedBlas,
#                   then the others), so that a slow part does not hide the other
#   table.txt       the tuning table as committed, fp64 + fp32, n = 16..256, POTRF / POTRS / TRSM
set -u
bin=${1:?usage: run_device_s4b.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_s4b.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 65 "$tests" --gtest_filter='BatchedBlas*' > "$out/unit_tests.txt" 2>&1
echo "part 1 (BatchedBlas*): exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
t1=$(date +%s)
timeout 65 "$tests" --gtest_filter='-BatchedBlas*' >> "$out/unit_tests.txt" 2>&1
echo "part 2 (the others): exit $? after $(( $(date +%s) - t1 )) s" >> "$out/unit_tests.txt"
t2=$(date +%s)
timeout 40 "$perf" --n 16,24,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm \
  --reps 5 --no-kk > "$out/table.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t2 )) s" >> "$out/table.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
