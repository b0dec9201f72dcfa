#!/usr/bin/env bash
# Downloads (apt-get download, no install) Debian's runtime packages that kspd's MPI programs
# (kspd-solve, perf_sparse_mpi, kspd_test_sparse_mpi) need on a machine without a package
# registry: Open MPI (runtime, launcher, plugins' libraries), MUMPS, ScaLAPACK, SCOTCH, Metis,
# OpenBLAS/LAPACK, gfortran's runtime and the Trilinos Kokkos libraries. Into .devdebs/
# (git-ignored). Run here, as root or not, after `apt-get update`.
#
#   scripts/fetch-device-debs.sh            # all of the above
#   scripts/fetch-device-debs.sh --no-mpi   # the remote machine has its own Open MPI 4.x
#
# On the remote machine (the packages are unpacked into a prefix, never into /):
#   P=/tmp/kspd-prefix; mkdir -p $P; for f in .devdebs/*.deb; do dpkg -x "$f" $P; done
#   L=$P/usr/lib/x86_64-linux-gnu
#   export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$L/openmpi/lib:$L/pmix2/lib:$LD_LIBRARY_PATH
#   export PATH=$P/usr/bin:$PATH OPAL_PREFIX=$P/usr PMIX_INSTALL_PREFIX=$L/pmix2
#   export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1 OPENBLAS_NUM_THREADS=1
#   mpiexec -n 16 --bind-to core build/perf_tests/sparse/perf_sparse_mpi ...
# (OPAL_PREFIX relocates Open MPI's plugins and help files to the prefix; Debian's
# openmpi-bin installs mpiexec as an alternatives link, so call $P/usr/bin/mpiexec.openmpi
# when $P/usr/bin/mpiexec is absent. A machine with its own Open MPI 4.x can use its
# mpiexec and libmpi.so.40 instead: same ABI.)
set -euo pipefail
cd "$(dirname "$0")/.."
mpi=1
[ "${1:-}" = "--no-mpi" ] && mpi=0
pkgs=(libmumps-5.5 libscalapack-openmpi2.2 libscotch-7.0 libptscotch-7.0 libmetis5
      libopenblas0-pthread liblapack3 libblas3 libgfortran5 libquadmath0
      libtrilinos-kokkos-13.2 libtrilinos-kokkos-kernels-13.2 libsuitesparseconfig5 libcholmod3
      libamd2 libcamd2 libccolamd2 libcolamd2 libgomp1)
if [ $mpi = 1 ]; then
  pkgs+=(openmpi-bin openmpi-common libopenmpi3 libpmix2 libhwloc15 libhwloc-plugins
         libevent-core-2.1-7 libevent-pthreads-2.1-7 libevent-2.1-7 libfabric1 libucx0 libibverbs1
         librdmacm1 libnl-3-200 libnl-route-3-200 libpsm-infinipath1 libpsm2-2 libnuma1 libxnvctrl0
         libpciaccess0 libudev1 libltdl7 libmunge2 libcap2)
fi
mkdir -p .devdebs
cd .devdebs
have=()
for p in "${pkgs[@]}"; do
  if apt-cache show "$p" >/dev/null 2>&1; then have+=("$p"); else echo "fetch-device-debs: no package $p here, skipped" >&2; fi
done
apt-get download "${have[@]}"
echo "fetch-device-debs: $(ls *.deb | wc -l) packages, $(du -sh . | cut -f1) in .devdebs/"
