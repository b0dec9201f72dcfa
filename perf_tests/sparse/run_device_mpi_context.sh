#!/usr/bin/env bash
# Issue #17 target C ("2 ranks sharing one GPU no slower than 1 rank"): experiments that
# separate what could make 2 ranks on one GPU slower, on a GPU host with CUDA+MPI binaries
# built elsewhere. kspd-solve --distributed, elasticity3d fp64, --gpu on, 8 threads per rank
# (the same ordering in every configuration), REFACTOR refactorizations per process (the
# engine reused: the time a rank spends on the device work), the configurations interleaved
# in ROUNDS rounds per size (the order rotates per round):
#   one   1 rank alone on the GPU
#   ctx   1 rank beside kspd-hold-device, a process that holds a CUDA context on the same
#         GPU and sleeps (A: the cost of a second context alone)
#   two   2 ranks on the GPU (rank 1 owns nothing; the 2-rank run of the target)
# B: one 2-rank run at 40^3 with the Kokkos Tools library kspd_kokkos_event_log: the Kokkos
#    events (launches, fences, deep copies, allocations) of each rank inside
#    DistributedCholesky::factorize (rank 1 should show none) and the most frequent names.
# C: every run prints each rank's CPU seconds and context switches during each
#    factorization (getrusage); one run of `one` and `two` with --timeline gives rank 0's
#    phases (fenced per level, so not the timed runs).
# D: per size, the medians and ranges of the per-process medians, the ratios of the
#    medians, and the per-round (paired) ratios to "one".
# Then kspd_test_sparse_mpi at 2 ranks on the GPU. About 2-4 minutes (BUDGET_S stops new
# rounds); 4 files in OUT_DIR (table.txt, logs.txt, events.txt, test_np2.txt).
#   perf_tests/sparse/run_device_mpi_context.sh BIN_DIR OUT_DIR [DATA_DIR]
# (DATA_DIR: the matrix collection for the unit tests' real-matrix cases, KSPD_DATA_DIR).
# BIN_DIR: the build folder or one folder holding kspd-solve, kspd-hold-device,
# libkspd_kokkos_event_log.so and kspd_test_sparse_mpi. Environment: SIZES ("56"), ROUNDS
# (5), CONFIGS ("one ctx two"), REFACTOR (3), THREADS (8), BUDGET_S (140), TIMELINE (1; 0
# skips C's timeline runs), SIZE_B (40), GPU (on; off for a smoke run on a host build),
# MPIEXEC (default the carried Debian Open MPI in /tmp/kspd-prefix when present), SKIP_TESTS.
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); out=${2:?out dir}; data=${3:-}
mkdir -p "$out"
find_bin() { local f; f=$(find "$bin" -name "$1" -type f | head -1); echo "${f:-$bin/$1}"; }
solve=$(find_bin kspd-solve); hold=$(find_bin kspd-hold-device); tool=$(find_bin libkspd_kokkos_event_log.so)
tests=$(find_bin kspd_test_sparse_mpi)
P=/tmp/kspd-prefix
if [ -z "${MPIEXEC:-}" ] && [ -x "$P/usr/bin/mpiexec.openmpi" ]; then
  L=$P/usr/lib/x86_64-linux-gnu
  export MPIEXEC=$P/usr/bin/mpiexec.openmpi OPAL_PREFIX=$P/usr PMIX_INSTALL_PREFIX=$L/pmix2
  export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$L/openmpi/lib:$L/pmix2/lib:${LD_LIBRARY_PATH:-}
fi
mpiexec=${MPIEXEC:-mpiexec}
flags="--bind-to none --oversubscribe"
[ "$(id -u)" = 0 ] && flags="$flags --allow-run-as-root"
export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_CORETYPE=Haswell
sizes=${SIZES:-56}; size=${sizes%% *}; rounds=${ROUNDS:-5}; refactor=${REFACTOR:-3}; threads=${THREADS:-8}; budget=${BUDGET_S:-140}
table=$out/table.txt; logs=$out/logs.txt; events=$out/events.txt
: >"$table"; : >"$logs"
tmp=$(mktemp -d)
{
  echo "run_device_mpi_context.sh $(date -u +%FT%TZ): kspd-solve $solve"
  echo "cores: $(OMP_NUM_THREADS= nproc) (nproc), $(grep Cpus_allowed_list /proc/self/status | tr -s '\t' ' '); $(grep -m1 'model name' /proc/cpuinfo)"
  command -v nvidia-smi >/dev/null &&
    nvidia-smi --query-gpu=name,driver_version,compute_mode,clocks.sm,clocks.max.sm,persistence_mode --format=csv,noheader
  echo "$mpiexec $flags; sizes ${sizes}^3, $threads threads per rank, $refactor refactorizations per process, $rounds rounds"
} | tee -a "$table"

# run NAME NP [ARGS...]: one kspd-solve job (environment: run_env), its log appended to logs.txt
run_env=()
run() {
  local name=$1 np=$2; shift 2
  # shellcheck disable=SC2086
  env ${run_env[@]+"${run_env[@]}"} OMP_NUM_THREADS=1 timeout 60 $mpiexec -n "$np" $flags "$solve" --distributed --size "$size" --threads "$threads" --gpu "${GPU:-on}" \
    --refactor "$refactor" "$@" >"$tmp/$name.log" 2>&1
  echo "rc=$?" >>"$tmp/$name.log"
  { echo "===== $name"; cat "$tmp/$name.log"; } >>"$logs"
}
# the one-rank run beside a process that holds a context on the same GPU (A)
run_ctx() {
  local name=$1; shift
  "$hold" --device 0 --seconds 90 >"$tmp/$name.hold" 2>&1 &
  local hp=$!
  for _ in $(seq 1 100); do grep -q ready "$tmp/$name.hold" && break; sleep 0.1; done
  { echo "===== $name (holder)"; cat "$tmp/$name.hold"; } >>"$logs"
  run "$name" 1 "$@"
  kill "$hp" 2>/dev/null; wait "$hp" 2>/dev/null
}
# summary of one log: first factor s, median refactor s, median rank-0 engine s of the
# refactors, the last refactor's CPU seconds of rank 1 (or -), rc
summary() {
  awk '
    /^factor / { f = $2 }
    /^refactor / { r[nr++] = $2 + 0; match($0, /engine [0-9.]+/); e[ne++] = substr($0, RSTART + 7, RLENGTH - 7) + 0 }
    /cpu during the refactorization/ { c = "-"; if (match($0, / 1: [0-9.]+ s \([0-9]+%\) [0-9]+\/[0-9]+/)) c = substr($0, RSTART + 4, RLENGTH - 4) }
    /^rc=/ { rc = substr($0, 4) }
    function med(a, n,   i, j, t) { for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return n == 0 ? "nan" : (n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2) }
    END { printf "%s %s %s %s|%s\n", (f == "" ? "nan" : f), med(r, nr), med(e, ne), (c == "" ? "-" : c), (rc == "" ? "?" : rc) }' "$1"
}

start=$SECONDS
read -r -a configs <<<"${CONFIGS:-one ctx two}"
nc=${#configs[@]}
for size in $sizes; do
  : >"$tmp/samples"
  echo "== ${size}^3" | tee -a "$table"
  printf "%-5s %-4s %9s %12s %12s  %-28s %s\n" round cfg "factor s" "refactor s" "engine s" "rank 1 CPU (refactor)" rc | tee -a "$table"
  for r in $(seq 1 "$rounds"); do
    if [ $((SECONDS - start)) -gt "$budget" ]; then echo "(budget: stopped before round $r)" | tee -a "$table"; break; fi
    for k in $(seq 0 $((nc - 1))); do
      c=${configs[$(((k + r - 1) % nc))]}
      name=$c-$size-r$r
      case $c in
        one) run "$name" 1 ;;
        ctx) run_ctx "$name" ;;
        two) run "$name" 2 ;;
        *) echo "unknown configuration $c" | tee -a "$table"; continue ;;
      esac
      s=$(summary "$tmp/$name.log")
      read -r f m e rest <<<"${s%%|*}"
      printf "%-5s %-4s %9s %12s %12s  %-28s %s\n" "$r" "$c" "$f" "$m" "$e" "$rest" "${s##*|}" | tee -a "$table"
      echo "$c $m $e $r" >>"$tmp/samples"
    done
  done
  # D: per configuration, the median and range of the per-process medians, the ratios of the
  # medians to "one", and per round the ratio to that round's "one" (paired: the drift of the
  # host between rounds cancels)
  awk -v order="${configs[*]}" -v size="$size" '
    function med(a, n,   i, j, t) { for (i = 0; i < n; ++i) for (j = i + 1; j < n; ++j) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
                                   return n == 0 ? 0 : (n % 2 ? a[(n - 1) / 2] : (a[n / 2 - 1] + a[n / 2]) / 2) }
    $2 != "nan" { k = $1; i = n[k] + 0; v[k, i] = $2 + 0; w[k, i] = $3 + 0; rd[k, i] = $4; n[k] = i + 1; byr[k, $4] = $2 + 0 }
    END {
      nk = split(order, ks, " ")
      for (ci = 1; ci <= nk; ++ci) {
        k = ks[ci]
        if (n[k] == 0) continue
        delete a; delete b
        for (i = 0; i < n[k]; ++i) { a[i] = v[k, i]; b[i] = w[k, i] }
        m[k] = med(a, n[k]); me[k] = med(b, n[k])
        printf "D %s^3 %-4s %d processes: refactor median %.4f s (range %.4f-%.4f), rank-0 engine median %.4f s\n", size, k, n[k], m[k], a[0], a[n[k] - 1], me[k]
      }
      for (ci = 1; ci <= nk; ++ci) {
        k = ks[ci]
        if (k == "one" || m[k] <= 0 || m["one"] <= 0) continue
        delete q; nq = 0; above = 0; list = ""
        for (i = 0; i < n[k]; ++i) if ((k, rd[k, i]) in byr && ("one", rd[k, i]) in byr && byr["one", rd[k, i]] > 0) {
          q[nq] = byr[k, rd[k, i]] / byr["one", rd[k, i]]; list = list sprintf(" %.3f", q[nq]); above += q[nq] > 1; ++nq }
        printf "D %s^3 %s/one: ratio of the medians %.3f; per round%s (median %.3f, %d of %d above 1)\n", size, k, m[k] / m["one"], list, med(q, nq), above, nq
      }
      if (m["ctx"] > 0 && m["two"] > 0) printf "D %s^3 two/ctx: %.3f (what rank 1 adds beyond a context)\n", size, m["two"] / m["ctx"]
    }' "$tmp/samples" | tee -a "$table"
done
size=${sizes%% *}

# C: rank 0's phases, fenced (not the timed runs; TIMELINE=0 skips them)
[ "${TIMELINE:-1}" = 0 ] || for c in one two; do
  name=timeline-$c-$size
  run "$name" "$([ $c = one ] && echo 1 || echo 2)" --timeline
  echo "C $c: $(grep -m1 'cpu during the refactorization' "$tmp/$name.log" | sed 's/^ *//')" | tee -a "$table"
  grep "rank 0 timeline" "$tmp/$name.log" | sed "s/^ */C $c: /" | tee -a "$table"
done
# B: the Kokkos events of each rank inside DistributedCholesky::factorize (40^3: the path of
# rank 1 does not depend on the size)
SIZE_B=${SIZE_B:-40}
{
  echo "B: 2 ranks, ${SIZE_B}^3, --refactor 1, KOKKOS_TOOLS_LIBS=$tool"
  # shellcheck disable=SC2086
  KOKKOS_TOOLS_LIBS=$tool OMP_NUM_THREADS=1 timeout 60 $mpiexec -n 2 $flags "$solve" --distributed --size "$SIZE_B" \
    --threads "$threads" --gpu "${GPU:-on}" --refactor 1 2>&1
  echo "rc=$?"
} >"$events"
grep -E "kspd-event-log|^rc=" "$events" | tee -a "$table"
echo "elapsed $((SECONDS - start)) s" | tee -a "$table"
rm -rf "$tmp"
[ -n "${SKIP_TESTS:-}" ] && { echo "unit tests skipped (SKIP_TESTS)"; exit 0; }
# shellcheck disable=SC2086
KSPD_DATA_DIR=$data OPENBLAS_NUM_THREADS=1 OMP_NUM_THREADS=1 timeout 60 $mpiexec -n 2 $flags "$tests" >"$out/test_np2.txt" 2>&1
echo "rc=$?" >>"$out/test_np2.txt"
grep -E "PASSED|FAILED|rc=" "$out/test_np2.txt" | head -20
exit 0
