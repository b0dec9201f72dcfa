#!/usr/bin/env bash
# Builds kspd-solve and perf_sparse_cholmod against a CUDA Kokkos on a machine without a
# package registry (Debian's OpenBLAS, Metis and CHOLMOD unpacked from .debs into a prefix,
# never into /) and runs the sparse Cholesky comparisons: CPU (all cores) and GPU offload
# against CHOLMOD on the same machine. Usage:
#   perf_tests/sparse/run_device_sparse.sh <kokkos-prefix> <debs-dir> <outdir> [elasticity sizes...]
# The .debs (here, with a registry): apt-get download libopenblas0-pthread libgfortran5
#   libquadmath0 libmetis5 libmetis-dev libcholmod3 libsuitesparseconfig5 libamd2 libcamd2
#   libccolamd2 libcolamd2 libsuitesparse-dev
kk=$(cd "${1:?kokkos prefix}" && pwd); debs=$(cd "${2:?debs dir}" && pwd); out=${3:?outdir}; shift 3
sizes=${*:-24 32 40}
src=$(cd "$(dirname "$0")/../.." && pwd)
P=${KSPD_DEPS_PREFIX:-/tmp/kspd-sparse-prefix}
bld=${KSPD_DEV_BUILD:-/tmp/kspd-build-sparse}
# shellcheck source=../device_common.sh
source "$(dirname "$0")/../device_common.sh"  # log, device.txt (GPU, cores)
mkdir -p "$P/kspdlib"
for f in "$debs"/*.deb; do dpkg -x "$f" "$P"; done
L=$P/usr/lib/x86_64-linux-gnu
ln -sf "$L/openblas-pthread/libopenblas.so.0" "$P/kspdlib/libopenblas.so"
export LD_LIBRARY_PATH=$L:$L/openblas-pthread:$P/kspdlib:${LD_LIBRARY_PATH:-}
if [ ! -x "$bld/perf_tests/sparse/perf_sparse_cholmod" ]; then
  log configure
  cmake -S "$src" -B "$bld" -G Ninja -DCMAKE_BUILD_TYPE=Release -DCMAKE_CXX_COMPILER="$kk/bin/nvcc_wrapper" \
    -DCMAKE_PREFIX_PATH="$kk;$P/usr" -DCMAKE_LIBRARY_PATH="$P/kspdlib;$L" -DBLA_VENDOR=OpenBLAS \
    -DKSPD_ENABLE_TESTS=OFF -DKSPD_ENABLE_MPI=OFF \
    -DMetis_INCLUDE_DIR="$P/usr/include" -DMetis_LIBRARY="$L/libmetis.so.5" \
    -DKSPD_CHOLMOD_INCLUDE_DIR="$P/usr/include/suitesparse" -DKSPD_CHOLMOD_LIBRARY="$L/libcholmod.so.3" \
    -DKSPD_SUITESPARSECONFIG_LIBRARY="$L/libsuitesparseconfig.so.5" >"$out/configure.log" 2>&1 ||
    { tail -30 "$out/configure.log"; exit 1; }
  log build
  ninja -C "$bld" kspd-solve perf_sparse_cholmod >"$out/build.log" 2>&1 || { grep -m10 -A5 error "$out/build.log"; exit 1; }
fi
cases=""
for s in $sizes; do cases="$cases --elasticity $s"; done
nc=$(nproc)
perf=$bld/perf_tests/sparse/perf_sparse_cholmod
# CHOLMOD always gets all cores as BLAS threads (its only parallelism).
log "cpu: kspd $nc task workers x 1 BLAS thread"
timeout 900 "$perf" --reps 1 --threads "$nc" --kspd-blas-threads 1 --cholmod-blas-threads "$nc" --dense 4096 $cases 2>&1 | tee "$out/cpu_tasks.txt"
log "cpu: kspd 1 worker x $nc BLAS threads"
timeout 900 "$perf" --reps 1 --threads 1 --kspd-blas-threads "$nc" --cholmod-blas-threads "$nc" --dense 4096 $cases 2>&1 | tee "$out/cpu_blas.txt"
log "gpu offload: kspd $nc workers x 1 BLAS thread + device"
timeout 900 "$perf" --reps 1 --threads "$nc" --kspd-blas-threads 1 --cholmod-blas-threads "$nc" --gpu on ${KSPD_GPU_ARGS:-} --dense 8192 $cases 2>&1 | tee "$out/gpu.txt"
exit 0
