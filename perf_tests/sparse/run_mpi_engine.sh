#!/usr/bin/env bash
# The distributed solver as the multi-rank case of the one sparse engine (issue #17's MPI
# targets), measured with kspd-solve on elasticity3d, fp64, factor time (the faster of a
# factorization and one refactorization, each after a barrier):
#   A  single process vs 1 rank (--distributed), 16 threads, --gpu off and --gpu on: target <= 1.15x
#   B  4 ranks x 4 threads vs 1 rank x 4 threads at 56^3, --gpu off:             target >= 3x faster
# (C, 2 ranks sharing one GPU vs 1 rank: run_device_mpi_context.sh, which interleaves the
# configurations over rounds with several refactorizations per process.)
#
#   perf_tests/sparse/run_mpi_engine.sh BIN OUTDIR
# BIN: the kspd-solve executable (build/sparse/kspd-solve) or the build directory holding it.
# OUTDIR: one log per run and table.txt. Environment: MPIEXEC (default mpiexec),
# MPIEXEC_FLAGS (default --bind-to none --oversubscribe: the ranks' threads spread over the cores), SIZES_A
# (default "40 56"; empty: skip A), SIZE_B (56), GPUS ("off on": A's placements; "off" on a build without a GPU) (smaller ones for a smoke run), OPENBLAS_CORETYPE (default Haswell: OpenBLAS's Prescott kernels are the
# wrong ones on the 16-core H100 host). One BLAS thread inside each task worker (kspd-solve's default).
set -uo pipefail
bin=${1:?kspd-solve executable or build directory}
out=${2:?output directory}
[ -d "$bin" ] && bin=$bin/sparse/kspd-solve
[ -x "$bin" ] || { echo "run_mpi_engine.sh: $bin is not executable" >&2; exit 2; }
mkdir -p "$out"
mpiexec=${MPIEXEC:-mpiexec}
flags=${MPIEXEC_FLAGS:---bind-to none --oversubscribe}
export OPENBLAS_CORETYPE=${OPENBLAS_CORETYPE:-Haswell} OMP_NUM_THREADS=1
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
table=$out/table.txt
: >"$table"

# run NAME NP ARGS...: NP = 0 runs the single-process solver; prints the factor seconds.
run() {
  local name=$1 np=$2
  shift 2
  local log=$out/$name.log
  if [ "$np" = 0 ]; then
    "$bin" --refactor 1 "$@" >"$log" 2>&1
  else
    # shellcheck disable=SC2086
    $mpiexec -n "$np" $flags "$bin" --distributed --refactor 1 "$@" >"$log" 2>&1
  fi
  local rc=$?
  local t
  t=$(awk '/^(factor|refactor) / { if (m == "" || $2 < m) m = $2 } END { print m }' "$log")
  if [ $rc -ne 0 ] || [ -z "$t" ]; then
    echo "  $name: FAILED (rc $rc, see $log)" >&2
    echo "nan"
  else
    echo "$t"
  fi
}

row() {  # row LABEL SIZE BASE_LABEL BASE_S NEW_LABEL NEW_S TARGET
  awk -v l="$1" -v n="$2" -v bl="$3" -v b="$4" -v nl="$5" -v t="$6" -v g="$7" 'BEGIN {
    r = (b + 0 > 0 && t + 0 > 0) ? t / b : 0
    printf "%-3s %4s^3  %-22s %9s s  %-24s %9s s  ratio %6.3f  (%s)\n", l, n, bl, b, nl, t, r, g }' | tee -a "$table"
}

echo "kspd-solve: $bin; $(nproc) cores; OPENBLAS_CORETYPE=$OPENBLAS_CORETYPE; $mpiexec $flags" | tee -a "$table"
command -v nvidia-smi >/dev/null && nvidia-smi --query-gpu=name,memory.total --format=csv,noheader | tee -a "$table"
echo "ratio = new / base (factor seconds, best of factor and refactor)" | tee -a "$table"
for n in ${SIZES_A-40 56}; do
  for gpu in ${GPUS-off on}; do
    s=$(run "A-single-$n-gpu$gpu" 0 --size "$n" --threads 16 --gpu "$gpu")
    d=$(run "A-rank1-$n-gpu$gpu" 1 --size "$n" --threads 16 --gpu "$gpu")
    row A "$n" "single, 16 thr, gpu $gpu" "$s" "1 rank x 16, gpu $gpu" "$d" "target <= 1.15"
  done
done
nb=${SIZE_B:-56}
b1=$(run "B-1x4-$nb" 1 --size "$nb" --threads 4 --gpu off)
b4=$(run "B-4x4-$nb" 4 --size "$nb" --threads 4 --gpu off)
row B "$nb" "1 rank x 4 thr" "$b1" "4 ranks x 4 thr" "$b4" "target <= 0.333"
echo "logs: $out/*.log; the distributed runs' per-rank tables give each rank's engine seconds and fan-in bytes" | tee -a "$table"
