#!/bin/sh
# GPU check of the batch-first repack (issue #13, session 5), under 4 minutes on an H100:
#   sh perf_tests/batched/run_device_bat.sh BIN_DIR OUTDIR
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched and
# perf_tests/batched/perf_batched. Writes 5 files into OUTDIR, peers in the same run (cuSOLVER
# potrfBatched / potrsBatched nrhs = 1, cuBLAS trsmBatched nrhs = n), batch 100,000 or 1 GB:
#   device.txt      GPU, clocks, total seconds
#   unit_tests.txt  the CUDA tests of the chunked repack (forced) and of the table's boundaries
#   repack_d.txt    fp64 batch-first POTRF / POTRS / TRSM at n = 64..256, the workspace per chunk
#                   0 (off: the current kernels) / 32 MiB / 128 MiB / 1 GiB (--bf-repack KiB)
#   repack_s.txt    the same in fp32
#   trsm_small.txt  batch-first TRSM at k = 16..48, fp64 + fp32: the table against --smem 17:96
#                   (k = 16 on the streaming kernel, 17..96 on the shared-memory ones: fp32 48 on
#                   the block kernel), each with the table's / 16 right-hand sides per pass
set -u
bin=${1:?usage: run_device_bat.sh BIN_DIR OUTDIR}
out=${2:?usage: run_device_bat.sh BIN_DIR OUTDIR}
mkdir -p "$out"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
nvidia-smi --query-gpu=name,clocks.sm,clocks.mem,temperature.gpu --format=csv > "$out/device.txt" 2>&1
start=$(date +%s)
timeout 60 "$tests" --gtest_filter='*BatchFirstChunked*:*TableBoundariesByLayout*' > "$out/unit_tests.txt" 2>&1
echo "exit $? after $(( $(date +%s) - start )) s" >> "$out/unit_tests.txt"
for p in d s; do
  t=$(date +%s)
  timeout 60 "$perf" --n 64,96,128,192,256 --batch 100000 --prec $p --ops potrf,potrs,trsm --reps 5 --no-kk \
    --bf-only --bf-repack 0,32768,131072,1048576 > "$out/repack_$p.txt" 2>&1
  echo "exit $? after $(( $(date +%s) - t )) s" >> "$out/repack_$p.txt"
done
t=$(date +%s)
timeout 30 "$perf" --n 16,24,32,48 --batch 100000 --prec d,s --ops trsm --reps 5 --no-kk --bf-only \
  --smem auto,17:96 --smem-chunk 0,16 > "$out/trsm_small.txt" 2>&1
echo "exit $? after $(( $(date +%s) - t )) s" >> "$out/trsm_small.txt"
echo "total $(( $(date +%s) - start )) s" >> "$out/device.txt"
