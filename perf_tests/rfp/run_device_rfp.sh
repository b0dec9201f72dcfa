#!/usr/bin/env bash
# GPU runs of issue #14 (core/ and rfp/ speed): the CUDA rfp unit tests, then pftrf (and
# pftri) against dense cuSOLVER potrf (potri) on the same matrix in the same run (kspd/peer
# = t_kspd / t_cuSOLVER: < 1 kspd faster). At most 6 files in OUTDIR:
#   device.txt  nvidia-smi
#   tests.txt   kspd_test_rfp (and kspd_test_core where built), brief output
#   pftrf_d.txt, pftrf_s.txt, pftrf_z.txt   fp64 / fp32 / complex double
#   dense.txt   (full only) dense POTRI, TRSM/TRMM 512 rhs, SYRK against cuBLAS/cuSOLVER
# Modes (about 2.5 minutes on an H100 each, full about 5):
#   sweep  pftrf blockings: Split (LAPACK's four calls) and the nb-column Cholesky across the
#          RFP blocks with look-ahead on the urgent lane at nb 512/1024/2048, n = 4K..32K,
#          all 4 transr/uplo variants, fp64 and fp32; complex double 16K; at 16K fp64 also
#          blocked (no look-ahead) and look-ahead with cuSOLVER's 'U' on upper panels
#   auto   the Auto table (--blocking auto) against Split and cuSOLVER, n = 4K..32K (fp32 64K
#          NL), even and odd n, fp64/fp32, complex double 8K/16K; Split's four calls timed
#          one by one (fp64 8K/16K)
#   full   every blocking x nb x core algorithm, pftri, fp32 64K, and dense.txt
#   overheads  (#14, fixed per-call costs; under 3 minutes) fp64 pftrf Split and Auto at
#          n = 4096/6144/8192 (all 4 variants), 4095/8191 (NL) and 256-2048 (fixed cost alone):
#          the first four calls one by one, the median, Split's four calls fenced one by one
#          with their in-call host times (pftrf_d.txt); the Kokkos events per pftrf call
#          at 4096 (kernels, fences, deep copies, allocations: libkspd_kokkos_event_log.so,
#          events.txt); cudaMalloc/cudaFree/syncs per call where nsys exists (nsys.txt);
#          BEFORE_BIN=DIR: the same (shorter) with another build, for before/after (before.txt);
#          fp32 pftrf at 4K/8K (pftrf_d.txt too)
#   panels (#14, s8; under 3 minutes) fp64 pftrf with look-ahead nb 64-256 (shared-memory
#          panel leaves up to 128) against Split, Auto and cuSOLVER at n = 4095-8192, one
#          step's pieces, fp32 4K/8K (pftrf_d.txt, pftrf_s.txt)
# Usage: perf_tests/rfp/run_device_rfp.sh BIN_DIR OUTDIR [sweep|auto|full|overheads|panels]   (default sweep)
#   BIN_DIR: a CUDA build with kspd_test_rfp and perf_rfp_blocking (kspd_test_core, perf_dense
#   are run when built). Environment, run() and DRY_RUN=1 (print the commands): ../device_common.sh.
bin=${1:?BIN_DIR}; out=${2:?OUTDIR}; mode=${3:-sweep}
keep=.  # every line of each step on the console
# shellcheck source=../device_common.sh
source "$(dirname "$0")/../device_common.sh"

for t in unit_tests/rfp/kspd_test_rfp:100 unit_tests/kspd_test_core:40; do
  if [ -x "$bin/${t%%:*}" ] || [ -n "${DRY_RUN:-}" ]; then run tests "${t##*:}" "$bin/${t%%:*}" --gtest_brief=1
  else echo "!! $bin/${t%%:*} not built" | tee -a "$out/tests.txt"; fi
done

B="$bin/perf_tests/rfp/perf_rfp_blocking"
V=NL,NU,TL,TU
case "$mode" in
sweep)
  for p in d s; do
    run pftrf_$p 45 "$B" --prec $p --n 4096,8192,16384 --variants $V --blocking split,lookahead --nb 512,1024,2048 \
      --ops pftrf --reps 3
    run pftrf_$p 40 "$B" --prec $p --n 32768 --variants $V --blocking split,lookahead --nb 1024,2048 --ops pftrf --reps 2
  done
  # what the urgent lane and the panel copy buy: blocked (one lane), look-ahead with 'U' panels
  run pftrf_d 20 "$B" --prec d --n 16384 --variants $V --blocking blocked,lookahead --nb 1024 --upper off,auto \
    --ops pftrf --reps 3
  run pftrf_z 30 "$B" --prec z --n 16384 --variants $V --blocking split,lookahead --nb 512,1024 --ops pftrf --reps 2
  ;;
auto)
  A="--blocking split,auto --upper auto"
  run pftrf_d 40 "$B" --prec d --n 4096,4097,8192,8193,16384 --variants $V $A --ops pftrf --reps 3
  run pftrf_d 35 "$B" --prec d --n 32768,32767 --variants $V $A --ops pftrf --reps 2
  # where Split's time goes now (potrf t1, trsm, herk, potrf t2 timed one by one, Auto leaves)
  run pftrf_d 20 "$B" --prec d --n 8192,16384 --variants $V --blocking auto --ops parts --reps 2
  run pftrf_s 35 "$B" --prec s --n 4096,4097,8192,8193,16384 --variants $V $A --ops pftrf --reps 3
  run pftrf_s 25 "$B" --prec s --n 32768 --variants $V $A --ops pftrf --reps 2
  run pftrf_s 40 "$B" --prec s --n 65536 --variants NL --blocking auto --ops pftrf --reps 1
  run pftrf_z 30 "$B" --prec z --n 8192,16384 --variants $V $A --ops pftrf --reps 2
  ;;
full)
  run pftrf_d 180 "$B" --prec d --n 4096,8192,16384,32768 --variants $V \
    --blocking split,blocked,lookahead,auto --nb 512,1024 --algos auto,recursive --ops pftrf,pftri --reps 3
  run pftrf_s 120 "$B" --prec s --n 4096,8192,16384,32768 --variants $V \
    --blocking split,lookahead,auto --nb 1024 --algos auto,recursive --ops pftrf,pftri --reps 3
  run pftrf_s 90 "$B" --prec s --n 65536 --variants NL --blocking split,lookahead,auto --nb 1024,2048 --ops pftrf --reps 1
  run pftrf_z 120 "$B" --prec z --n 4096,8192,16384 --variants $V --blocking split,lookahead,auto --nb 1024 \
    --algos auto,recursive --ops pftrf --reps 3
  D="$bin/perf_tests/core/perf_dense"
  if [ -x "$D" ] || [ -n "${DRY_RUN:-}" ]; then
    run dense 90 "$D" --prec d,s --n 2048,4096,8192,16384 --ops potri --lanes --reps 3
    run dense 90 "$D" --prec d,s --n 8192,16384,32768 --nrhs 512 --ops trsm,trmm --lanes --reps 3
    run dense 60 "$D" --prec d,s --n 4096,8192,16384 --ops gemm,syrk --reps 3
  fi
  ;;
overheads)
  # (the unit tests above) the sweep and the events with BIN_DIR; with BEFORE_BIN=DIR (a build
  # of the code before the change) a shorter sweep and events with it too (before.txt)
  # (BLOCKINGS: the after-build's list; split,auto,dense by default, dense = Blocking::Dense)
  sweep() {  # sweep FILE BIN full|short BLOCKINGS
    local O="--prec d --blocking $4 --ops calls,pftrf,parts --reps 5"
    run "$1" 60 "$2" $O --n 4096,6144,8192 --variants $V
    run "$1" 30 "$2" $O --n 4095,8191 --variants NL
    [ "$3" = full ] && run "$1" 30 "$2" $O --n 256,1024,2048 --variants NL,NU
  }
  events() {  # events FILE BIN_DIR VARIANTS: Kokkos events and CUDA runtime calls (preloaded)
    # inside kspd::rfp::pftrf, one process per case (4 calls each: warm-up + 3)
    local tool="$2/perf_tests/sparse/libkspd_kokkos_event_log.so" v bk
    for v in $3; do
      for bk in split auto; do
        run "$1" 15 env LD_PRELOAD="$tool" KOKKOS_TOOLS_LIBS="$tool" KSPD_EVENT_LOG_REGION=kspd::rfp::pftrf \
          "$2/perf_tests/rfp/perf_rfp_blocking" --prec d --n 4096 --variants "$v" --blocking $bk --ops pftrf --reps 3
      done
    done
  }
  sweep pftrf_d "$B" full "${BLOCKINGS:-split,auto,dense}"
  # fp32 (into the same file): the fixed costs are per call, whatever the precision
  run pftrf_d 30 "$B" --prec s --blocking "${BLOCKINGS:-split,auto,dense}" --ops pftrf --reps 5 --n 4096,8192 --variants $V
  events events "$bin" "NL NU TL TU"
  if [ -n "${BEFORE_BIN:-}" ]; then
    sweep before "$BEFORE_BIN/perf_tests/rfp/perf_rfp_blocking" short split,auto
    events before "$BEFORE_BIN" "NL NU"
  fi
  # CUDA API calls (cudaMalloc*, cudaFree*, synchronizations) where Nsight Systems exists
  if command -v nsys >/dev/null && [ -z "${DRY_RUN:-}" ]; then
    rep=$(mktemp -d)/rfp
    run nsys 60 nsys profile -t cuda -f true -o "$rep" "$B" --prec d --n 4096 --variants NU --blocking split,auto \
      --ops pftrf --reps 10
    run nsys 30 nsys stats -q -r cuda_api_sum "$rep.nsys-rep"
  else echo "nsys: not available" >>"$out/device.txt"; fi
  ;;
panels)
  # (#14, s8; under 3 minutes) the nb-column Cholesky across the RFP blocks whose diagonal
  # panels (<= 128 fp64, <= 256 fp32) are factored by one thread block in shared memory,
  # with look-ahead, against Split and Auto and the dense cuSOLVER peer in the same run:
  # fp64 n = 4096/6144/8192 (all 4 variants), 4095/8191 (NL); nb >= 256 keeps cuSOLVER's leaf;
  # the pieces of one step (--ops steps); blocked without look-ahead; fp32 4K/8K (pftrf_s.txt)
  # (Auto before s8: look-ahead nb = n/2 at 4K (the 2048 row), Split at 6K and 8K)
  P="--ops pftrf --reps 5 --blocking split,auto,lookahead"
  run pftrf_d 80 "$B" --prec d --n 4096,6144,8192 --variants $V $P --nb ${NBS:-64,96,128,256,512,2048}
  run pftrf_d 30 "$B" --prec d --n 4095,8191 --variants NL $P --nb ${NBS:-64,96,128,256,2048}
  # blocked without look-ahead; Split with core's recursive potrf/trsm/herk (GEMM-based
  # halves and off-diagonal TRSM, vendor leaves of 512)
  run pftrf_d 20 "$B" --prec d --n 4096,8192 --variants NL --blocking blocked --nb 128 --ops pftrf --reps 5
  run pftrf_d 20 "$B" --prec d --n 4096,6144,8192 --variants NL,TU --blocking split --algos recursive --ops pftrf --reps 5
  run pftrf_d 25 "$B" --prec d --n 4096,8192 --variants NL,TU --ops steps --nb 64,128,256,512 --reps 15
  run pftrf_s 30 "$B" --prec s --n 4096,8192 --variants $V $P --nb 128,256,2048
  ;;
*) echo "unknown mode $mode (sweep, auto, full, overheads, panels)"; exit 2 ;;
esac
finish
