#!/usr/bin/env bash
# Installs what kspd needs on a new Debian bookworm machine (run as root). Idempotent.
#  - Kokkos / Kokkos Kernels 3.4 (Trilinos 13.2, Serial backend): the CPU default
#  - OpenBLAS + LAPACK, Metis, Open MPI, zlib, GoogleTest, Google Benchmark
#  - SuiteSparse (CHOLMOD) and MUMPS: benchmark peers only
#  - Trilinos 13.2 Tpetra + Amesos2 (with Tacho, KLU2) and what building against them needs
#    beyond the -dev packages' own dependencies (Epetra/EpetraExt/Triutils, Scotch): the
#    Amesos2 adapter, its Tpetra test and the Tacho/KLU2 benchmark
#  - clang and its runtime (libFuzzer, sanitizers: scripts/fuzz.sh)
#  - doxygen: the API reference (target kspd_doc, built by CI)
#  --minimal: only what README command (1) needs (the library, kspd-solve, GoogleTest for the
#  configure step): compiler, CMake, Kokkos/Kokkos Kernels, OpenBLAS/LAPACK, Metis, zlib, MPI.
set -euo pipefail
if [[ "${1:-}" == "--minimal" ]]; then
  pkgs=(cmake make g++ pkg-config libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
        libopenblas-dev liblapack-dev libmetis-dev zlib1g-dev libopenmpi-dev openmpi-bin
        googletest libgtest-dev)
else
pkgs=(cmake make g++ gfortran pkg-config
      libtrilinos-kokkos-dev libtrilinos-kokkos-kernels-dev
      libopenblas-dev liblapack-dev libmetis-dev zlib1g-dev
      libopenmpi-dev openmpi-bin libmumps-dev
      googletest libgtest-dev libbenchmark-dev
      libsuitesparse-dev
      libtrilinos-amesos2-dev libtrilinos-tpetra-dev libtrilinos-teuchos-dev libtrilinos-shylu-dev
      libtrilinos-epetra-dev libtrilinos-epetraext-dev libtrilinos-triutils-dev
      libscotch-dev libptscotch-dev
      clang-14 libclang-rt-14-dev
      doxygen)
fi
missing=()
for p in "${pkgs[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "kspd setup: installing ${missing[*]}"
  export DEBIAN_FRONTEND=noninteractive
  apt-get update -qq
  apt-get install -y -qq --no-install-recommends "${missing[@]}"
else
  echo "kspd setup: all Debian packages present"
fi
