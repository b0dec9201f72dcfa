#!/bin/sh
# The committed H100 sweep (results/h100-*.txt), run from a CUDA build directory:
#   cmake -S <kspd> -B build-cuda -DCMAKE_BUILD_TYPE=Release \
#     -DCMAKE_CXX_COMPILER=<kokkos-cuda>/bin/nvcc_wrapper -DCMAKE_PREFIX_PATH=<kokkos-cuda> -DKSPD_ENABLE_PERF_TESTS=ON
#   make -C build-cuda perf_batched kspd_test_batched
#   sh perf_tests/batched/run_sweep.sh build-cuda/perf_tests/batched/perf_batched results-dir
set -e
exe=${1:-./perf_batched}
out=${2:-.}
# n <= 64, batch 1K..100K, float and double: POTRF/POTRS/TRSM/GEMM against cuSOLVER/cuBLAS/KK.
"$exe" --n 2,3,4,5,8,12,16,17,24,32,33,48,64 --batch 1000,10000,100000 --prec d,s \
  --ops gemm,potrf,potrs,trsm --reps 5 > "$out/h100-small.txt"
# 64 < n <= 256 (batch capped at 1 GB per array), nrhs 16 for TRSM/GEMM.
"$exe" --n 100,128,200,256 --batch 1000,10000 --prec d,s --ops gemm,potrf,potrs,trsm --nrhs 16 --reps 3 \
  > "$out/h100-large.txt"
# Operations without a batched peer, against kspd's batched GEMM rate at the same n.
"$exe" --n 4,8,16,32,64,128 --batch 10000 --prec d,s --ops gemm,syrk,trmm,trtri,potri --reps 3 \
  > "$out/h100-nopeer.txt"
