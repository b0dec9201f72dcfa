#!/usr/bin/env bash
# GPU run of issue #14 (rfp helper, session 3), under 4 minutes on an H100, at most 6 files:
#   tests.txt    the rfp and core unit tests (CUDA build), brief output
#   pftrf_d.txt  fp64 pftrf, all 4 transr/uplo variants at even and odd n (the 8 RFP
#                variants), n = 4K..32K: Split with cuSOLVER's POTRF 'U' on the upper-stored
#                diagonal block (up=off, the old default) against the transposed copy in 'L'
#                (up=on), look-ahead nb 1024/2048 (to 16K); pftri to 16K: the vendor leaves
#                (baseline) and Auto at up off/on x b3 off/on (trtri/lauum as one trsm/trmm on
#                a workspace); cuSOLVER potrf/potri on the dense matrix in the same run
#                (kspd/peer < 1: faster); `parts`: Split's four calls alone (Auto), 8K/16K
#   pftrf_s.txt  the same in fp32
#   pftrf_z.txt  complex double pftrf, 8K/16K
#   device.txt   nvidia-smi
# Usage: perf_tests/rfp/run_device_rfp.sh BIN_DIR OUTDIR
#   BIN_DIR: a CUDA build (kspd_test_rfp, kspd_test_core, perf_rfp_blocking built)
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

for t in unit_tests/rfp/kspd_test_rfp:90 unit_tests/kspd_test_core:40; do
  if [ -x "$bin/${t%%:*}" ]; then step tests "${t##*:}" "$bin/${t%%:*}" --gtest_brief=1
  else echo "!! $bin/${t%%:*} not built" | tee -a "$out/tests.txt"; fi
done

B="$bin/perf_tests/rfp/perf_rfp_blocking"
V=NL,NU,TL,TU
# fp64: 4K-16K with pftri, the 'parts' of Split at 8K/16K, 32K pftrf only
step pftrf_d 60 "$B" --prec d --n 4096,8192,8193,16384 --variants $V --blocking split,lookahead --nb 1024,2048 --upper off,on --blas3 off,on \
  --ops pftrf,pftri --reps 3
step pftrf_d 15 "$B" --prec d --n 8192,16384 --variants $V --blocking auto --ops parts --reps 2
step pftrf_d 35 "$B" --prec d --n 32768,32767 --variants $V --blocking split --upper off,on --ops pftrf --reps 2
step pftrf_s 40 "$B" --prec s --n 4096,8192,8193,16384 --variants $V --blocking split --upper off,on --blas3 off,on \
  --ops pftrf,pftri --reps 3
step pftrf_s 15 "$B" --prec s --n 32768 --variants $V --blocking split --upper off,on --ops pftrf --reps 2
step pftrf_z 25 "$B" --prec z --n 8192,16384 --variants $V --blocking split --upper off,on --ops pftrf --reps 2
log done
