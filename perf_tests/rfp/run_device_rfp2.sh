#!/usr/bin/env bash
# GPU run 2 of issue #14 (rfp helper, session 3): the Auto table chosen from run 1
# (run_device_rfp.sh), timed against cuSOLVER in the same run, about 2 minutes on an H100:
#   auto_d.txt  fp64 pftrf (Auto blocking / upper_via_lower) and pftri (vendor-leaf
#               baseline, Auto = blas3_inverse) vs cuSOLVER potrf / potri, all 4 variants at
#               even and odd n, 4K-16K (pftri) and 32K/32767 (pftrf)
#   auto_s.txt  the same in fp32, plus 64K (look-ahead, NL); dense POTRI (perf_dense) fp64/fp32
#   auto_z.txt  complex double pftrf 8K/16K
#   device.txt  nvidia-smi
# Usage: perf_tests/rfp/run_device_rfp2.sh BIN_DIR OUTDIR (BIN_DIR: CUDA build with perf_rfp_blocking,
#   perf_dense if built)
set -uo pipefail
bin=${1:?BIN_DIR}; out=${2:?OUTDIR}
mkdir -p "$out"
export OPENBLAS_CORETYPE=Haswell
log() { echo "== $* ($(date -u +%H:%M:%S))"; }
step() {  # step <file> <timeout-seconds> <cmd...>: appends to OUTDIR/<file>.txt
  local name=$1 t=$2; shift 2
  log "$name: $*" | tee -a "$out/$name.txt"
  timeout "$t" "$@" 2>&1 | tee -a "$out/$name.txt"
  local rc=${PIPESTATUS[0]}
  [ "$rc" = 0 ] || echo "!! exited with $rc" | tee -a "$out/$name.txt"
}
nvidia-smi --query-gpu=name,memory.total,driver_version --format=csv,noheader 2>&1 | tee "$out/device.txt"
B="$bin/perf_tests/rfp/perf_rfp_blocking"
V=NL,NU,TL,TU
A="--blocking auto --upper auto --blas3 auto"
step auto_d 40 "$B" --prec d --n 4096,8192,8193,16384 --variants $V $A --ops pftrf,pftri --reps 3
step auto_d 30 "$B" --prec d --n 32768,32767 --variants $V $A --ops pftrf --reps 2
step auto_s 35 "$B" --prec s --n 4096,8192,8193,16384 --variants $V $A --ops pftrf,pftri --reps 3
step auto_s 15 "$B" --prec s --n 32768 --variants $V $A --ops pftrf --reps 2
step auto_s 30 "$B" --prec s --n 65536 --variants NL $A --ops pftrf --reps 1
step auto_z 25 "$B" --prec z --n 8192,16384 --variants $V $A --ops pftrf --reps 2
# dense POTRI: cuSOLVER (vendor), the recursion, Auto (blas3_inverse from 2048 to 8192)
D="$bin/perf_tests/core/perf_dense"
[ -x "$D" ] && step auto_s 30 "$D" --prec d,s --n 2048,4096,8192,16384 --ops potri --lanes --reps 3
log done
