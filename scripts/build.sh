#!/usr/bin/env bash
# Configures and builds kspd in ./build (Release) with the Kokkos found on the system.
# Extra arguments go to CMake (e.g. -DCMAKE_PREFIX_PATH=... for a CUDA Kokkos).
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release "$@"
cmake --build build -j "$(nproc)"
