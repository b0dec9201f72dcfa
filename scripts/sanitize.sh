#!/usr/bin/env bash
# ASan + UBSan build of the unit tests (core, rfp, batched, sparse, reliability, and the MPI
# tests at 2 ranks) in build-asan/, run by CTest; any sanitizer report fails the run
# (-fno-sanitize-recover=all, halt_on_error). Only the test executables are built (no
# benchmarks, no install test), at -O1 to keep CI's time down.
#   bash scripts/sanitize.sh            # configure, build, run
#   SANITIZE_JOBS=4 bash scripts/sanitize.sh
set -euo pipefail
cd "$(dirname "$0")/.."
JOBS=${SANITIZE_JOBS:-$(nproc)}
SAN="-fsanitize=address,undefined -fno-sanitize-recover=all -fno-omit-frame-pointer"
t0=$(date +%s)
mkdir -p build-asan
cmake -S . -B build-asan -DCMAKE_BUILD_TYPE=Debug -DCMAKE_CXX_FLAGS_DEBUG="-O1 -g" \
  -DCMAKE_CXX_FLAGS="$SAN" -DCMAKE_EXE_LINKER_FLAGS="$SAN" -DCMAKE_SHARED_LINKER_FLAGS="$SAN" \
  -DKSPD_ENABLE_PERF_TESTS=OFF -DKSPD_ENABLE_EXAMPLES=ON -DKSPD_ENABLE_TESTS=ON > build-asan/configure.log || { cat build-asan/configure.log; exit 1; }
targets=(kspd_test_core kspd_test_rfp kspd_test_batched kspd_test_batched_complex kspd_test_sparse kspd_test_sparse_cholesky
         kspd_test_sparse_input kspd_test_sparse_update kspd_test_sparse_selinv kspd_test_reliability kspd_test_no_kokkos kspd_test_solve_args kspd-solve
         kspd-dense-demo kspd-gp-regression kspd-batched-kalman kspd-fem-csr)
grep -q "KSPD_ENABLE_MPI:BOOL=ON" build-asan/CMakeCache.txt && targets+=(kspd_test_sparse_mpi)
cmake --build build-asan -j "$JOBS" --target "${targets[@]}"
t1=$(date +%s)
echo "sanitize.sh: built in $((t1 - t0)) s"
# Leak checking is off: every test executable initializes Open MPI, whose components are
# dlclose'd at MPI_Finalize, so their process-lifetime allocations show as leaks from
# "<unknown module>" that no suppression can name. ASan's memory errors and UBSan stay fatal.
export ASAN_OPTIONS="halt_on_error=1:abort_on_error=1:detect_leaks=0:strict_string_checks=1:detect_stack_use_after_return=0"
export UBSAN_OPTIONS="halt_on_error=1:print_stacktrace=1"
# Everything but the benchmarks, the install test, the MPI runs at 1, 3 and 4 ranks and the
# Trilinos adapter (Trilinos' own libraries are not instrumented; its test runs in the main job).
ctest --test-dir build-asan --output-on-failure -j "$JOBS" --timeout 1500 -LE perf \
  -E "kspd_install_consumer|kspd_test_sparse_mpi_np[134]|kspd_test_amesos2|example_tpetra_amesos2"
echo "sanitize.sh: tests ran in $(( $(date +%s) - t1 )) s; total $(( $(date +%s) - t0 )) s"
