#!/usr/bin/env bash
# Configures and builds kspd in ./build (Release) with the Kokkos found on the system.
#   bash scripts/build.sh                        everything (library, tests, benchmarks, examples)
#   bash scripts/build.sh --target kspd-solve    only the named targets (and what they need);
#                                                KSPD_BUILD_TARGETS="kspd-solve ..." does the same
# Other arguments go to CMake's configure step (e.g. -DCMAKE_PREFIX_PATH=... for a CUDA Kokkos).
set -euo pipefail
cd "$(dirname "$0")/.."
targets=()
read -r -a targets <<< "${KSPD_BUILD_TARGETS:-}"
cmake_args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --target) [[ $# -ge 2 ]] || { echo "build.sh: --target needs a name" >&2; exit 2; }
              targets+=("$2"); shift 2 ;;
    --target=*) targets+=("${1#--target=}"); shift ;;
    *) cmake_args+=("$1"); shift ;;
  esac
done
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "${cmake_args[@]+"${cmake_args[@]}"}"
if [[ ${#targets[@]} -gt 0 ]]; then
  cmake --build build -j "$(nproc)" --target "${targets[@]}"
else
  cmake --build build -j "$(nproc)"
fi
