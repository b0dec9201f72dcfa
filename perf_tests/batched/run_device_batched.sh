#!/usr/bin/env bash
# The GPU runs of batched/ (issues #13, #14), one mode per run the results files cite:
#   perf_tests/batched/run_device_batched.sh BIN_DIR OUTDIR MODE [--dry-run]
# BIN_DIR: a CUDA build directory holding unit_tests/batched/kspd_test_batched (the complex
# mode: kspd_test_batched_complex) and perf_tests/batched/perf_batched. --dry-run (or DRY_RUN=1)
# prints the commands only. Environment, run() and device.txt: ../device_common.sh. Each step
# writes OUTDIR/<step>.txt (its command, output and rc); peers in the same run: cuSOLVER
# potrfBatched / potrsBatched (nrhs = 1), cuBLAS trsmBatched (nrhs = n), batch 100,000 or 1 GB
# per array. Modes (each under 4 minutes on an H100; full runs long: no time limit):
#   s6     session 6: the TRSM operand list (TrsmOperands) under every kernel. unit_tests: every
#          CUDA batched unit test in two parts (BatchedBlas*, then the others); table: s4b's
#          table; trsm_small: bat's shared-memory TRSM k = 16..48. Where BIN_DIR also holds
#          perf_tests/batched/perf_batched_base (the build before the change), table_base and
#          trsm_small_base: the same with it, interleaved (base first), two rounds.
#   s6cmp  s6 without the unit tests.
#   s8     session 8, the batch-first shared-memory kernels in thread-block clusters
#          (Tuning::smem_cluster): table (the tuning table, clusters on), table_nocl (--cluster 0:
#          the table as before); cluster_var: batch-first n = 33..256, clusters of 2 / 4 / 8;
#          leaf_var: batch-first POTRF / TRSM n = 96..256, TRSM leaves uncapped / 32 / 64, with and
#          without the fp64 whole-batch repack (--bf-repack 0), then batch-first POTRS n = 128..256
#          on 64-leaves (--stream-trsm-max 64 --leaf 64); unit_tests: every CUDA batched unit
#          test, the *Clusters ones (every cluster size) in a second process. Under 3 minutes.
#   s8b    session 8, run 2 (at most 100 s): table (the table with the clusters where run 1 measured
#          them ahead, the plain kernels instantiated apart); unit_tests: the shared-memory and
#          table-boundary tests, then the cluster ones.
#   s6c    session 6, second run: unit_tests_complex (kspd_test_batched_complex: the portable
#          TrsmOp with complex scalars on the GPU).
#   bat    s5 run 1, the batch-first repack: unit_tests (the chunked repack forced, the table's
#          boundaries); repack_d / repack_s: fp64 / fp32 batch-first POTRF / POTRS / TRSM at
#          n = 64..256, workspace per chunk 0 (off) / 32 MiB / 128 MiB / 1 GiB; trsm_small:
#          batch-first TRSM k = 16..48, fp64 + fp32, the table against --smem 17:96, each with the
#          table's / 16 right-hand sides per pass.
#   bat2   s5 run 2: unit_tests (all, two parts); repack: n = 96..256 with column tiles,
#          workspace 0 / 256 MiB / 1 GiB and the table as committed (-1).
#   cplx   complex Hermitian (issue #14 item 2): unit_tests (kspd_test_batched_complex); sweep:
#          z, c n = 8..256 POTRF / POTRS / TRSM (Auto); sweep_algo: n = 8..64, batch 10,000,
#          Serial and Team forced.
#   s4     s4 run 1 (binaries of 5165617): unit_tests; sweep: n = 64..256, the table and the
#          shared-memory kernels forced (--smem 17:256); gemm_smem: --gemm-smem 0,1 (an option
#          of 5165617's perf_batched only, removed with its kernel); warp_cols: POTRS / TRSM
#          n = 8..32, --smem-warp-cols 0,1.
#   s4b    s4 run 2: unit_tests (two parts); table: the tuning table, n = 16..256.
#   sweep  s3 run 1: unit_tests; sweep: n = 4..256, the table against --smem 0:0 (the kernels
#          before the shared-memory family); sweep_warp: n = 8..32, --smem 9:128, a block
#          against a warp per matrix, 32 / 16 right-hand sides per pass.
#   sweep2 s3 run 2 (sweep's binaries): trsm_warp, trsm_leaves, potrf_warp (the table changes
#          the first run suggested, through perf_batched's overrides).
#   full   the committed sweep (results/h100-batched-final-sweep_*): h100-small (n <= 64, batch
#          1K..100K, GEMM too), h100-large (n = 100..256, nrhs 16), h100-nopeer (SYRK, TRMM,
#          TRTRI, POTRI against kspd's GEMM rate).
bin=${1:?usage: run_device_batched.sh BIN_DIR OUTDIR MODE [--dry-run]}
out=${2:?usage: run_device_batched.sh BIN_DIR OUTDIR MODE [--dry-run]}
mode=${3:?usage: run_device_batched.sh BIN_DIR OUTDIR MODE [--dry-run]}
[ "${4:-}" = --dry-run ] && DRY_RUN=1
# shellcheck source=../device_common.sh
source "$(dirname "$0")/../device_common.sh"
tests=$bin/unit_tests/batched/kspd_test_batched
perf=$bin/perf_tests/batched/perf_batched
tests_two_parts() {  # tests_two_parts SECONDS_EACH: BatchedBlas*, then the others
  run unit_tests "$1" "$tests" --gtest_filter='BatchedBlas*'
  run unit_tests "$1" "$tests" --gtest_filter='-BatchedBlas*'
}
table() {  # table NAME PERF [ARGS...]: the tuning table as committed, fp64 + fp32, n = 16..256
  local name=$1 perf=$2
  shift 2
  run "$name" 40 "$perf" --n 16,24,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm --reps 5 \
    --no-kk "$@"
}
trsm_small() {  # trsm_small NAME PERF: batch-first TRSM k = 16..48, the table against the smem kernels
  run "$1" 30 "$2" --n 16,24,32,48 --batch 100000 --prec d,s --ops trsm --reps 5 --no-kk --bf-only \
    --smem auto,17:96 --smem-chunk 0,16
}
case "$mode" in
s6 | s6cmp)
  [ "$mode" = s6 ] && tests_two_parts 70
  base=$bin/perf_tests/batched/perf_batched_base
  if [ -x "$base" ] || [ -n "${DRY_RUN:-}" ]; then
    for _ in 1 2; do  # two rounds
      table table_base "$base"
      table table "$perf"
      trsm_small trsm_small_base "$base"
      trsm_small trsm_small "$perf"
    done
  else
    table table "$perf"
    trsm_small trsm_small "$perf"
  fi
  ;;
s8)
  table table "$perf"
  table table_nocl "$perf" --cluster 0
  run cluster_var 30 "$perf" --n 33,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm --reps 5 \
    --no-kk --bf-only --cluster 2,4,8
  run leaf_var 30 "$perf" --n 96,128,192,256 --batch 100000 --prec d,s --ops potrf,trsm --reps 5 --no-kk --bf-only \
    --smem-leaf 0,32,64 --bf-repack -1,0
  run leaf_var 15 "$perf" --n 128,192,256 --batch 100000 --prec d,s --ops potrs --reps 5 --no-kk --bf-only \
    --stream-trsm-max 64 --leaf 64
  run unit_tests 100 "$tests" --gtest_filter='-*Clusters*'
  run unit_tests 40 "$tests" --gtest_filter='*Clusters*'  # the new kernels in their own process
  ;;
s8b)
  run table 20 "$perf" --n 16,24,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm --reps 5 --no-kk
  run unit_tests 30 "$tests" --gtest_filter='*TableBoundaries*:*Smem*-*Clusters*'
  run unit_tests 25 "$tests" --gtest_filter='*Clusters*'  # the clusters, own process
  ;;
s6c)
  run unit_tests_complex 60 "$bin/unit_tests/batched/kspd_test_batched_complex"
  ;;
bat)
  run unit_tests 60 "$tests" --gtest_filter='*BatchFirstChunked*:*TableBoundariesByLayout*'
  for p in d s; do
    run repack_$p 60 "$perf" --n 64,96,128,192,256 --batch 100000 --prec $p --ops potrf,potrs,trsm --reps 5 --no-kk \
      --bf-only --bf-repack 0,32768,131072,1048576
  done
  trsm_small trsm_small "$perf"
  ;;
bat2)
  tests_two_parts 70
  run repack 75 "$perf" --n 96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm --reps 5 --no-kk \
    --bf-only --bf-repack 0,262144,1048576,-1
  ;;
cplx)
  run unit_tests 60 "$bin/unit_tests/batched/kspd_test_batched_complex"
  run sweep 75 "$perf" --n 8,16,32,64,128,256 --batch 100000 --prec z,c --ops potrf,potrs,trsm --reps 5 --no-kk
  run sweep_algo 35 "$perf" --n 8,16,32,64 --batch 10000 --prec z,c --ops potrf,trsm --reps 3 --no-kk --algo serial,team
  ;;
s4)
  run unit_tests 105 "$tests"
  run sweep 35 "$perf" --n 64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm \
    --reps 5 --no-kk --smem auto,17:256
  run gemm_smem 25 "$perf" --n 128,192,256 --batch 100000 --prec d,s --ops potrf,trsm \
    --reps 5 --no-kk --smem-trsm auto,16:32 --gemm-smem 0,1
  run warp_cols 15 "$perf" --n 8,16,24,32 --batch 100000 --prec d,s --ops potrs,trsm \
    --reps 5 --no-kk --smem-warp-cols 0,1
  ;;
s4b)
  tests_two_parts 65
  table table "$perf"
  ;;
sweep)
  run unit_tests 150 "$tests"
  run sweep 50 "$perf" --n 4,8,16,24,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops potrf,potrs,trsm \
    --reps 5 --no-kk --smem auto,0:0
  run sweep_warp 30 "$perf" --n 8,9,12,16,17,20,24,28,32 --batch 100000 --prec d,s --ops potrf,trsm --reps 5 --no-kk \
    --smem 9:128 --smem-warp 0,32 --smem-chunk 0,16
  ;;
sweep2)
  run trsm_warp 50 "$perf" --n 16,20,24,28,32,48,64,96,128,192,256 --batch 100000 --prec d,s --ops trsm --reps 5 --no-kk \
    --smem 16:128 --smem-warp 32 --smem-chunk 16,32
  run trsm_leaves 30 "$perf" --n 32,48,64,96,128,192,256 --batch 100000 --prec s --ops trsm,potrs --reps 5 --no-kk \
    --smem 16:32 --smem-warp 32 --smem-chunk 16,32
  run potrf_warp 30 "$perf" --n 17,20,24,28,32 --batch 100000 --prec d,s --ops potrf --reps 5 --no-kk \
    --smem 17:128 --smem-warp 0,32
  ;;
full)
  run h100-small 0 "$perf" --n 2,3,4,5,8,12,16,17,24,32,33,48,64 --batch 1000,10000,100000 --prec d,s \
    --ops gemm,potrf,potrs,trsm --reps 5
  run h100-large 0 "$perf" --n 100,128,200,256 --batch 1000,10000 --prec d,s --ops gemm,potrf,potrs,trsm --nrhs 16 \
    --reps 3
  run h100-nopeer 0 "$perf" --n 4,8,16,32,64,128 --batch 10000 --prec d,s --ops gemm,syrk,trmm,trtri,potri --reps 3
  ;;
*)
  echo "run_device_batched.sh: unknown mode '$mode' (s8 s8b s6 s6cmp s6c bat bat2 cplx s4 s4b sweep sweep2 full)" >&2
  exit 2
  ;;
esac
finish
