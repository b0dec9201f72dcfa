#!/usr/bin/env bash
# Issue #18's 2-thread host target on the GPU host's CPU (no GPU used), on two quiet cores
# (taskset -c 2,3): kspd's host factorization against Tacho in the same program, and an
# alternated A/B of two kspd-solve builds (base = main, new = this branch).
#  - tacho_t2 / tacho_t1: perf_sparse_tacho with 2 and 1 workers (best of 5 and 2 rounds; Tacho: as many OpenBLAS
#    threads) on its default cases: 3-D Laplacian 30^3, elasticity 16^3 and 22^3, and the 2-D
#    bodyy4/bodyy5 when DATA_DIR has them; KLU2 skipped (minutes).
#  - ab: base and new kspd-solve --threads 2 --refactor 4 on elasticity 22^3, alternated
#    5 times (and new with --max-supernode 512, for information), then --threads 1 twice;
#    after each, one --timeline run of base and new (where the workers' time went: task CPU
#    per kind, time outside the tasks, the replay on dedicated cores).
# Under 3 minutes; 4 files in OUT_DIR (tacho_t2.txt, tacho_t1.txt, ab.txt, device.txt). Usage:
#   perf_tests/sparse/run_device_cpu.sh BIN_DIR BASE_DIR OUT_DIR
# BIN_DIR holds kspd-solve and perf_sparse_tacho (this branch), data/ (the 2-D matrices;
# DATA_DIR overrides) and optionally variant/kspd-solve (a candidate change: a third arm of
# the A/B); BASE_DIR holds main's kspd-solve. LIB_DIR, when set, goes first in
# LD_LIBRARY_PATH (the Debian libraries the binaries were built against). CPU timings:
# OPENBLAS_CORETYPE=Haswell (device_common.sh), one OpenBLAS thread unless a program sets more.
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); base=$(cd "${2:?base dir}" && pwd); out=${3:?out dir}
data=${DATA_DIR:-$bin/data}
keep="perf_sparse|elasticity|laplace|bodyy|kspd |Tacho|^factor|^refactor|replayed|rc=|engine"
export LD_LIBRARY_PATH=${LIB_DIR:+$LIB_DIR:}${LD_LIBRARY_PATH:-} OPENBLAS_NUM_THREADS=1
# shellcheck source=../device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../device_common.sh"
# CPUs 2 and 3, unless they are two hyperthreads of one core: then 2 and the next CPU on
# another core (the 2-vCPU VM's vCPUs are whole cores as far as it can tell).
expand() { local r a b; for r in ${1//,/ }; do a=${r%-*}; b=${r#*-}; seq "$a" "$b"; done; }
# Test hooks (a check elsewhere): CPUS=a,b the two CPUs; ONLY="tacho_t2 ab" the stages run;
# ROUNDS="5 2" the A/B's rounds at 2 and 1 threads.
only() { [ -z "${ONLY:-}" ] || [[ " $ONLY " == *" $1 "* ]]; }
read -r r2 r1 <<<"${ROUNDS:-5 2}"
sib2=$(cat /sys/devices/system/cpu/cpu2/topology/thread_siblings_list 2>/dev/null || echo 2)
second=3
if expand "$sib2" | grep -qx 3; then
  for c in $(seq 4 $(($(nproc) - 1))); do expand "$sib2" | grep -qx "$c" || { second=$c; break; }; done
fi
cores=(taskset -c "${CPUS:-2,$second}")
if [ -z "${DRY_RUN:-}" ]; then
  {
    echo "${cores[*]}; cpu2 siblings $sib2; cpu$second siblings $(cat /sys/devices/system/cpu/cpu$second/topology/thread_siblings_list 2>/dev/null)"
    echo "load $(cut -d' ' -f1-3 /proc/loadavg); $(lscpu | grep -E 'Thread|Core|Socket|L2|L3' | tr -s ' ' | paste -sd';')"
  } >>"$out/device.txt"
fi
tacho=$bin/perf_sparse_tacho
files=()
for m in bodyy4 bodyy5 bodyy6 shallow_water1; do
  for e in .mtx .mtx.gz .rsa; do [ -f "$data/$m$e" ] && { files+=("$data/$m$e"); break; }; done
done
cases=(--laplace3d 30 --elasticity 16 --elasticity 22 "${files[@]}")
# perf_sparse_tacho initializes MPI (Tpetra); where a singleton start fails, under mpiexec -n 1
# (not bound: the taskset mask stays).
pre=()
if [ -z "${DRY_RUN:-}" ] && { only tacho_t2 || only tacho_t1; }; then
  if ! timeout 30 "${cores[@]}" "$tacho" --smoke >"$out/tacho_t2.txt" 2>&1; then
    pre=(mpiexec -n 1 --allow-run-as-root --oversubscribe --bind-to none)
    echo "(a singleton start failed: $(tail -1 "$out/tacho_t2.txt"); under ${pre[*]})" >>"$out/device.txt"
  fi
  : >"$out/tacho_t2.txt"
fi
only tacho_t2 && run tacho_t2 80 "${cores[@]}" "${pre[@]}" "$tacho" --workers 2 --reps 5 --no-klu "${cases[@]}"
only tacho_t1 && run tacho_t1 50 "${cores[@]}" "${pre[@]}" "$tacho" --workers 1 --reps 2 --no-klu "${cases[@]}"
# The A/B: both binaries in the same minutes, alternated run by run.
ab() {
  local t=$1 n=$2 i b
  local arms=(base new)
  [ -x "$bin/variant/kspd-solve" ] && arms+=(variant)  # a candidate change, when BIN_DIR has one
  [ "$t" = 2 ] && arms+=(new512)  # (for information: 512-column supernodes, --max-supernode 512)
  for i in $(seq "$n"); do
    for b in "${arms[@]}"; do
      local exe=$bin/kspd-solve extra=()
      [ $b = base ] && exe=$base/kspd-solve
      [ $b = variant ] && exe=$bin/variant/kspd-solve
      [ $b = new512 ] && extra=(--max-supernode 512)
      echo "== ab $b threads $t round $i"
      "${cores[@]}" "$exe" --generate elasticity3d --size 22 --threads "$t" --blas-threads 1 --refactor 4 --quiet \
        "${extra[@]}" 2>&1 | grep -E "^(factor|refactor) "
    done
  done
  for b in base new variant; do
    local exe=$bin/kspd-solve
    [ $b = base ] && exe=$base/kspd-solve
    [ $b = variant ] && { [ -x "$bin/variant/kspd-solve" ] || continue; exe=$bin/variant/kspd-solve; }
    echo "== timeline $b threads $t"
    "${cores[@]}" "$exe" --generate elasticity3d --size 22 --threads "$t" --blas-threads 1 --refactor 2 --timeline \
      2>&1 | grep -E "^(factor|refactor) |timeline|replayed|outside"
  done
}
only ab && run ab 100 bash -c "$(declare -f ab); bin='$bin' base='$base'; cores=(${cores[*]}); ab 2 $r2; ab 1 $r1"
finish
