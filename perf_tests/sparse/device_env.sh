# shellcheck shell=bash
# Sourced by the sparse run_device_*.sh scripts: a run on a GPU host without a package
# registry, with binaries built elsewhere for CUDA and the host libraries they need (Debian's
# OpenBLAS, Metis, CHOLMOD, ...) copied beside them. The caller's arguments:
#   BIN_DIR LIB_DIR DATA_DIR OUT_DIR [stage...]
# Sets bin, lib, data, out, stages (default: $default_stages); LIB_DIR goes first in
# LD_LIBRARY_PATH, one OpenBLAS thread; find_bin NAME: the executable NAME anywhere below
# BIN_DIR. Then the shared perf_tests/device_common.sh: log, has STAGE, run NAME TIMEOUT CMD...
# (output in $out/NAME.txt; the lines matching $keep are echoed), device.txt, DRY_RUN=1.
# CHOLMOD gets 8 BLAS threads where it runs (16 oversubscribe that host):
# ../shared/anchors/devicehost-cholmod-2026-11-23.txt.
# shellcheck disable=SC2034  # data: used by the scripts that source this
bin=$(cd "${1:?bin dir}" && pwd); lib=$(cd "${2:?lib dir}" && pwd); data=${3:?data dir}; out=${4:?out dir}; shift 4
stages=${*:-${default_stages:-}}
export LD_LIBRARY_PATH=$lib:${LD_LIBRARY_PATH:-} OPENBLAS_NUM_THREADS=1
find_bin() { local f; f=$(find "$bin" -type f -name "$1" -perm -u+x | head -1); echo "${f:-$bin/$1}"; }
# shellcheck source=../device_common.sh
source "$(dirname "${BASH_SOURCE[0]}")/../device_common.sh"
