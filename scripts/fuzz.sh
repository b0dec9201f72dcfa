#!/usr/bin/env bash
# Builds the libFuzzer targets in fuzz/ (the Matrix Market, gzip and Rutherford-Boeing readers
# and kspd-solve's argument parser) with clang, -fsanitize=fuzzer,address,undefined, into
# build-fuzz/, and runs each for FUZZ_SECONDS (default 25) from the seed corpus in
# fuzz/corpus/<target> (new inputs go to build-fuzz/corpus/<target>). Non-zero on any crash,
# sanitizer report, leak, timeout or out-of-memory; the reproducer is left in build-fuzz/.
#   bash scripts/fuzz.sh                    # build and run all four, 25 s each
#   FUZZ_SECONDS=300 bash scripts/fuzz.sh mm # one target, longer
set -euo pipefail
cd "$(dirname "$0")/.."
SECONDS_EACH=${FUZZ_SECONDS:-25}
CXX=${FUZZ_CXX:-$(command -v clang++-14 || command -v clang++ || true)}
if [ -z "$CXX" ]; then echo "fuzz.sh: clang++ not found (apt-get install clang)"; exit 1; fi
OUT=build-fuzz
mkdir -p "$OUT/obj" "$OUT/include"
cat > "$OUT/include/KSPD_Config.hpp" <<'CFG'
#ifndef KSPD_CONFIG_HPP
#define KSPD_CONFIG_HPP
#define KSPD_ENABLE_ZLIB
#define KSPD_GIT_HASH "fuzz"
#endif
CFG
# core's types include Kokkos_Complex.hpp: Debian's Kokkos headers (or KOKKOS_INCLUDE_DIR)
KINC=${KOKKOS_INCLUDE_DIR:-/usr/include/trilinos}
FLAGS=(-std=c++17 -O1 -g -fno-omit-frame-pointer -fsanitize=address,undefined -fno-sanitize-recover=all
       -I"$OUT/include" -Icore/src -Isparse/src -Isparse/impl -Isparse/driver -isystem "$KINC")
t0=$(date +%s)
objs=()
for src in sparse/impl/kspd_sparse_io_mm.cpp sparse/impl/kspd_sparse_io_rb.cpp sparse/impl/kspd_sparse_io_stream.cpp \
           sparse/impl/kspd_sparse_io_assemble.cpp sparse/driver/kspd_solve_args.cpp; do
  obj="$OUT/obj/$(basename "${src%.cpp}").o"
  if [ ! -f "$obj" ] || [ "$src" -nt "$obj" ] || [ -n "$(find core/src sparse/src sparse/impl sparse/driver -name '*.hpp' -newer "$obj")" ]; then
    "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer-no-link -c "$src" -o "$obj"
  fi
  objs+=("$obj")
done
declare -A TARGET=([mm]=fuzz_matrix_market [rb]=fuzz_rutherford_boeing [gz]=fuzz_gzip [args]=fuzz_solve_args)
for t in mm rb gz args; do
  "$CXX" "${FLAGS[@]}" -fsanitize=fuzzer -Ifuzz "fuzz/${TARGET[$t]}.cpp" "${objs[@]}" -lz -o "$OUT/${TARGET[$t]}"
done
echo "fuzz.sh: built in $(( $(date +%s) - t0 )) s"
targets=("$@")
[ ${#targets[@]} -eq 0 ] && targets=(mm rb gz args)
status=0
for t in "${targets[@]}"; do
  mkdir -p "$OUT/corpus/$t"
  log="$OUT/${TARGET[$t]}.log"
  # -timeout: one input may take at most 10 s; -rss_limit_mb: a reader must not balloon.
  if (cd "$OUT" && ASAN_OPTIONS=detect_leaks=1 UBSAN_OPTIONS=print_stacktrace=1 \
        "./${TARGET[$t]}" -max_total_time="$SECONDS_EACH" -timeout=10 -rss_limit_mb=2048 -max_len=8192 \
        -print_final_stats=1 "corpus/$t" "../fuzz/corpus/$t") > "$log" 2>&1; then
    runs=$(grep -o 'Done [0-9]* runs' "$log" | grep -o '[0-9]*' || echo '?')
    echo "fuzz.sh: ${TARGET[$t]}: $runs executions in ${SECONDS_EACH} s, no crash ($(ls "$OUT/corpus/$t" | wc -l) corpus inputs)"
  else
    echo "fuzz.sh: ${TARGET[$t]} FAILED (log $log):"
    tail -40 "$log"
    status=1
  fi
done
rm -f /dev/shm/kspd_fuzz_* /tmp/kspd_fuzz_* 2>/dev/null || true
exit $status
