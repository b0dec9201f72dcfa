# Sourced by the run_device_*.sh scripts: the common part of a run on a GPU host without a
# package registry, with binaries built elsewhere for CUDA and the host libraries they need
# (Debian's OpenBLAS, Metis, CHOLMOD, ...) copied beside them. The caller's arguments:
#   BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# Sets bin, lib, data, out, stages (default: $default_stages), has STAGE, log, and
# run NAME TIMEOUT CMD... (output in $out/NAME.txt; the lines matching $keep are echoed).
# CPU timings use OPENBLAS_CORETYPE=Haswell (the VM's CPUID makes OpenBLAS pick SSE3 kernels
# otherwise); CHOLMOD gets 8 BLAS threads where it runs (16 oversubscribe that host):
# ../shared/anchors/devicehost-cholmod-2026-11-23.txt.
set -uo pipefail
bin=$(cd "${1:?bin dir}" && pwd); lib=$(cd "${2:?lib dir}" && pwd); data=${3:?data dir}; out=${4:?out dir}; shift 4
stages=${*:-${default_stages:-}}
has() { [[ " $stages " == *" $1 "* ]]; }
mkdir -p "$out"
export LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} OPENBLAS_CORETYPE=Haswell OPENBLAS_NUM_THREADS=1
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader | tee "$out/device.txt"
echo "cores: $(nproc); $(grep -m1 'model name' /proc/cpuinfo)" | tee -a "$out/device.txt"
run() {  # run NAME TIMEOUT CMD...
  local name=$1 t=$2; shift 2
  log "$name: $*"
  timeout "$t" "$@" >"$out/$name.txt" 2>&1; echo "rc=$?" >>"$out/$name.txt"
  grep -E "${keep:-rc=}" "$out/$name.txt" | head -80
}
