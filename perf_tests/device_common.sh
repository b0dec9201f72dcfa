# shellcheck shell=bash
# Sourced (bash) by the modules' GPU-host scripts (perf_tests/*/run_device_*.sh, directly or
# through a module's own preamble such as sparse/device_env.sh) once they have set
#   out     the output folder (created here),
#   stages  optional: the words has() tests (a script's stage list or its mode),
#   keep    optional: an extended regex; run() echoes the lines of its output file that match
#           (default: its rc line only).
# Provides: log MSG; has WORD; run NAME TIMEOUT CMD... (appends to $out/NAME.txt the command
# line, CMD's output and "rc=N after S s"; TIMEOUT 0: none); finish (the total time into
# device.txt).
# Writes $out/device.txt: the GPU (name, memory, driver, clocks, temperature) and the host's cores.
# DRY_RUN=1: run() only prints its commands and nothing is written (no GPU needed), so a
# script's command lines can be checked on any machine.
# CPU timings use OPENBLAS_CORETYPE=Haswell: the device VM's CPUID makes OpenBLAS pick SSE3
# kernels otherwise.
set -uo pipefail
: "${out:?device_common.sh: set out (the output folder) before sourcing}"
stages=${stages:-}
export OPENBLAS_CORETYPE=Haswell
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
has() { [[ " $stages " == *" $1 "* ]]; }
run() {  # run NAME TIMEOUT CMD...
  local name=$1 t=$2 t0=$SECONDS rc f="$out/$1.txt" n0=0
  shift 2
  if [ -n "${DRY_RUN:-}" ]; then
    log "$name: $*"
    return 0
  fi
  [ -f "$f" ] && n0=$(wc -l <"$f")
  log "$name: $*" | tee -a "$f"
  timeout "$t" "$@" >>"$f" 2>&1
  rc=$?
  echo "rc=$rc after $((SECONDS - t0)) s" >>"$f"
  tail -n "+$((n0 + 2))" "$f" | grep -E "${keep:-^rc=}" | head -80
  return 0
}
finish() { [ -n "${DRY_RUN:-}" ] || echo "total $SECONDS s" >>"$out/device.txt"; log "done"; }
if [ -z "${DRY_RUN:-}" ]; then
  mkdir -p "$out"
  nvidia-smi --query-gpu=name,memory.total,driver_version,clocks.sm,clocks.mem,temperature.gpu \
    --format=csv,noheader 2>&1 | tee -a "$out/device.txt"
  echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)" | tee -a "$out/device.txt"
fi
