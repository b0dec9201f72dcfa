#!/usr/bin/env bash
# Strong-scaling sweep of perf_sparse_mpi: runs it under mpiexec at each rank count and
# prints one table over all of them with the speed-up and parallel efficiency of kspd's
# factorization against its P = 1 time, and MUMPS's, in the same runs.
#
#   perf_tests/sparse/run_perf_sparse_mpi.sh BUILD_DIR "1 2 4 8 16" [perf_sparse_mpi args...]
#   e.g. ... build "1 2 4 8 16" --gen elasticity3d:30,elasticity3d:40 --reps 2 --no-t1
# Environment: MPIEXEC (default mpiexec), MPIEXEC_FLAGS (default --bind-to core), LOG
# (default perf_sparse_mpi_sweep.log). One BLAS thread per rank.
set -uo pipefail
build=${1:?build directory}
ranks=${2:-"1 2 4 8 16"}
shift 2 || shift $#
exe=$build/perf_tests/sparse/perf_sparse_mpi
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS:---bind-to core}
log=${LOG:-perf_sparse_mpi_sweep.log}
export OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1
: >"$log"
for p in $ranks; do
  echo "=== P = $p" | tee -a "$log"
  # shellcheck disable=SC2086
  $mpiexec -n "$p" $flags "$exe" "$@" 2>&1 | tee -a "$log"
done
echo
echo "Strong scaling (T1 = the P=1 run; eff = T1 / (P TP); ratio = kspd / MUMPS factor time)"
# Table columns: case P n nnz(L) factor GF/s T1 speedup eff solve resid MB notices maxwait | Mf Ms ratio
awk '
  $2 ~ /^[0-9]+$/ && $15 == "|" {
    c = $1; p = $2; f = $5; mf = $16
    if (p == 1) { t1[c] = f; m1[c] = mf }
    key[++k] = c; P[k] = p; F[k] = f; MF[k] = mf; MB[k] = $12; W[k] = $14; S[k] = $10
  }
  END {
    printf "%-20s %4s %9s %7s %6s %9s %9s %9s %7s %6s %7s\n", "case", "P", "factor s", "speedup", "eff", "solve s", "MB moved", "maxwait", "MUMPS f", "M eff", "ratio"
    for (i = 1; i <= k; ++i) {
      c = key[i]; sp = (c in t1) ? t1[c] / F[i] : 0; msp = (c in m1 && MF[i] > 0) ? m1[c] / MF[i] : 0
      printf "%-20s %4d %9.3f %7.2f %6.2f %9.4f %9.1f %9.3f %7.3f %6.2f %7.2f\n", c, P[i], F[i], sp, sp / P[i], S[i], MB[i], W[i], MF[i], msp / P[i], (MF[i] > 0 ? F[i] / MF[i] : 0)
    }
  }' "$log"
