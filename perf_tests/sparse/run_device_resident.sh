#!/usr/bin/env bash
# The sparse GPU measurements of the device-resident factorization on a machine without a
# package registry: binaries built elsewhere for CUDA (kspd-solve, perf_sparse_cholmod,
# kspd_test_sparse_cholesky) and the host libraries they need (Debian's OpenBLAS, Metis,
# CHOLMOD, ...) copied beside them. Usage:
#   perf_tests/sparse/run_device_resident.sh BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# stages: test solve40 solve64 cholmod (default: all). Environment and run(): device_env.sh.
default_stages="test solve40 solve64 cholmod"
keep="^(factor|refactor|solve|summary|order|analyse) |resident|FAILED|rc=|PASSED|FAILED|kspd |CHOLMOD|ratio"
source "$(dirname "$0")/device_env.sh"
solve=$bin/kspd-solve
if has test; then
  KSPD_DATA_DIR=$data run test 300 "$bin/kspd_test_sparse_cholesky"
fi
if has solve40; then
  run e40_on 200 "$solve" --size 40 --gpu on --timeline --refactor 1
  run e40_force 200 "$solve" --size 40 --gpu force --timeline
  run e40_top 200 "$solve" --size 40 --gpu on --gpu-placement top
  run e40_float 200 "$solve" --size 40 --gpu on --precision float --refactor 1
  run e40_rhs64 200 "$solve" --size 40 --gpu on --nrhs 64
  run e40_cpu 200 "$solve" --size 40 --gpu off --threads 16
fi
if has solve64; then
  run e64_on 400 "$solve" --size 64 --gpu on --timeline --refactor 1 --nrhs 1
  run e64_rhs64 400 "$solve" --size 64 --gpu on --nrhs 64
fi
if has cholmod; then
  run cholmod40 400 "$bin/perf_sparse_cholmod" --reps 1 --threads 16 --kspd-blas-threads 1 --cholmod-blas-threads 8 \
    --gpu on --elasticity 40
fi
tar -C "$out" -czf "$out.tar.gz" . 2>/dev/null
exit 0
