#ifndef KSPD_BATCHED_SMEM_CUDA_HPP
#define KSPD_BATCHED_SMEM_CUDA_HPP
/// \file kspd_batched_smem_cuda.hpp
/// CUDA only: what the shared-memory POTRF (kspd_batched_smem_potrf_cuda.hpp) and TRSM
/// (kspd_batched_smem_trsm_cuda.hpp) kernels share: the tuning table's choice of them, the
/// packed lower-triangle storage by 8-column tile columns (n <= 128 fp64: 74 KB, 3 blocks per SM;
/// n <= 256 fp32: 139 KB), the 8 x 8 tile update as warp-level fp64 tensor-core MMA (mma.sync
/// m8n8k4 f64, sm_80+; fp32 widened to fp64 in the fragments, tf32 would lose fp32 accuracy) or,
/// on older chips, FFMA over the same fragment layout, the batched tile loads, and the
/// thread-block clusters through which the block-per-matrix kernels load and store batch-first
/// data (ClusterMap, launch_clustered; sm_90+).
/// Other backends and complex scalars keep the portable kernels (use_smem_* is false there).

#include <type_traits>

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
#include <cooperative_groups.h>

#include <map>
#include <mutex>
#include <tuple>
#endif

#include "kspd_batched_mat.hpp"
#include "kspd_batched_tuning.hpp"
#include "kspd_error.hpp"

namespace kspd::batched::Impl {

/// Whether T has the shared-memory kernels on ExecSpace (CUDA, float / double).
template <class ExecSpace, class T>
constexpr bool smem_capable_v =
#if defined(KOKKOS_ENABLE_CUDA)
    std::is_same<ExecSpace, Kokkos::Cuda>::value && (std::is_same<T, double>::value || std::is_same<T, float>::value);
#else
    false;
#endif

/// The tuning table's choice: POTRF / TRSM of order n on the shared-memory kernels (Auto only:
/// BatchAlgo::Serial / Team / Register keep their families); batch_first: consecutive matrices
/// adjacent (BatchMat::batch_unit_stride; else the table's column-major ranges).
template <class ExecSpace, class T>
bool use_smem_potrf(BatchAlgo algo, size_type n, bool batch_first) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)algo, (void)n, (void)batch_first;
    return false;
  } else {
    const Tuning tu = tuning<ExecSpace, T>(n);
    const int lo = batch_first ? tu.smem_potrf_min : tu.smem_potrf_min_cm;
    const int hi = batch_first ? tu.smem_potrf_max : tu.smem_potrf_max_cm;
    return algo == BatchAlgo::Auto && n >= lo && n <= hi && n <= (sizeof(T) == 8 ? 128 : 256);  // smem::max_n
  }
}
/// TRSM needs ncols >= 16 right-hand sides (a warp per 8: with fewer, one warp walks the whole
/// factor alone; H100 POTRS nrhs = 1 at n = 64: 0.78x cuSOLVER, the recursion 2.7x), except
/// the warp-per-matrix kernel (k <= 32) on column-major matrices: Tuning::smem_trsm_warp_cols_cm.
template <class ExecSpace, class T>
bool use_smem_trsm(BatchAlgo algo, size_type k, size_type ncols, bool batch_first) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)algo, (void)k, (void)ncols, (void)batch_first;
    return false;
  } else {
    const Tuning tu = tuning<ExecSpace, T>(k);
    const bool warp = k >= tu.smem_trsm_warp_min && k <= tu.smem_trsm_warp_max && k <= 32 &&
                      ncols >= (batch_first || tu.smem_trsm_warp_cols_cm <= 0 ? 16 : tu.smem_trsm_warp_cols_cm);
    const int lo = batch_first ? tu.smem_trsm_min : tu.smem_trsm_min_cm;
    const int hi = batch_first ? tu.smem_trsm_max : tu.smem_trsm_max_cm;
    return algo == BatchAlgo::Auto && (warp || (ncols >= 16 && k >= lo && k <= hi)) &&
           k <= (sizeof(T) == 8 ? 128 : 256);
  }
}

/// The largest shared-memory leaf a TRSM of order k recurses to (Tuning::smem_trsm_leaf_max*;
/// no limit: k itself).
template <class ExecSpace, class T>
size_type smem_trsm_leaf_cap(size_type k, bool batch_first) {
  const Tuning tu = tuning<ExecSpace, T>(k);
  const int cap = batch_first ? tu.smem_trsm_leaf_max : tu.smem_trsm_leaf_max_cm;
  return cap > 0 && size_type(cap) < k ? size_type(cap) : k;
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
namespace smem {

/// Leading dimension of an n-row shared tile: 8-byte scalars 4 mod 16, 4-byte 8 mod 32, so the
/// lanes of an MMA fragment load (8 rows x 4 columns) hit distinct banks.
template <class T>
__host__ __device__ constexpr int ld_of(int n) {
  return sizeof(T) == 8 ? ((n + 15) / 16) * 16 + 4 : ((n + 31) / 32) * 32 + 8;
}

/// acc += sgn * A(8 x kd) B(kd x 8) on one warp; A(r, k) = a[r*ars + k*acs], B(k, c) = b[k*brs +
/// c*bcs]; acc is the lane's C-fragment: (r, c) = (lane / 4, 2 (lane % 4) + {0, 1}). kd % 4 == 0.
/// sm_80+: fp64 tensor-core MMA (m8n8k4), fp32 as well: its fragments are widened to fp64 (exact
/// products, fp64 sums, one rounding back), which keeps fp32 at least as accurate as FFMA
/// (tf32 would not) and needs 2 shared loads per 8 x 8 x 4 step where FFMA needs 12.
template <class T>
__device__ __forceinline__ void tile_mma(T& c0, T& c1, T sgn, const T* a, int ars, int acs, const T* b, int brs,
                                         int bcs, int kd) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  double d0 = c0, d1 = c1;
  const double sg = sgn;
#pragma unroll 4
  for (int p = 0; p < kd; p += 4) {
    const double a0 = sg * double(a[g * ars + (p + t) * acs]);
    const double b0 = double(b[(p + t) * brs + g * bcs]);
    asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                 : "+d"(d0), "+d"(d1)
                 : "d"(a0), "d"(b0));
  }
  c0 = T(d0);
  c1 = T(d1);
#else
  T s0 = 0, s1 = 0;
#pragma unroll 8
  for (int k = 0; k < kd; ++k) {
    const T av = a[g * ars + k * acs];
    s0 += av * b[k * brs + (2 * t) * bcs];
    s1 += av * b[k * brs + (2 * t + 1) * bcs];
  }
  c0 += sgn * s0;
  c1 += sgn * s1;
#endif
}

/// Visits the (i, j) of an m x n tile with keep(i, j) over the block's threads, consecutive
/// threads on consecutive i (row_fast) or j: v = get(i, j) for U elements per thread first (U
/// loads in flight: one at a time leaves the memory system idle), then put(i, j, v) for each.
template <int U, class Keep, class Get, class Put>
__device__ __forceinline__ void for_tile(int m, int n, bool row_fast, int tid, int nth, const Keep& keep,
                                         const Get& get, const Put& put) {
  const int total = m * n;
  for (int base = tid; base < total; base += U * nth) {
    decltype(get(0, 0)) v[U];
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int idx = base + u * nth;
      const int i = row_fast ? idx % m : idx / n, j = row_fast ? idx / m : idx % n;
      if (idx < total && keep(i, j)) v[u] = get(i, j);
    }
#pragma unroll
    for (int u = 0; u < U; ++u) {
      const int idx = base + u * nth;
      const int i = row_fast ? idx % m : idx / n, j = row_fast ? idx / m : idx % n;
      if (idx < total && keep(i, j)) put(i, j, v[u]);
    }
  }
}
constexpr int kLoadBatch = 8;

/// Packed lower storage of an np x np matrix (np = 8 nt) by tile columns: tile column q holds
/// rows 8q..np-1 of columns 8q..8q+7, column-major with leading dimension ld(q) (its rows plus
/// the bank padding of ld_of), at offset off(q). n = 128 fp64: 74 KB (3 blocks per SM).
template <class T>
__host__ __device__ inline int pk_ld(int np, int q) {
  const int r = np - 8 * q;
  return sizeof(T) == 8 ? r + 4 : r + (r % 16 == 0 ? 8 : 0);
}
template <class T>
__host__ __device__ inline int pk_off(int np, int q) {
  int e = q * np - 4 * q * (q - 1);  // sum of the rows of tile columns 0..q-1
  e += sizeof(T) == 8 ? 4 * q : 8 * (np % 16 == 0 ? (q + 1) / 2 : q / 2);
  return 8 * e;
}
template <class T>
__device__ __forceinline__ T& pk_at(T* s, int np, int i, int j) {
  const int q = j >> 3;
  return s[pk_off<T>(np, q) + (i - 8 * q) + (j & 7) * pk_ld<T>(np, q)];
}
/// 1 / sqrt(d) and sqrt(d) (one long-latency operation on the critical path instead of two).
template <class T>
__device__ __forceinline__ T rsqrt_of(T d) {
  if constexpr (sizeof(T) == 8) return ::rsqrt(d);
  else return ::rsqrtf(d);
}

/// The threads that factor one matrix: the whole block (one matrix per block) or one warp
/// (several matrices per block); sync() orders their shared-memory steps.
struct BlockGroup {
  int tid, nth;
  __device__ void sync() const { __syncthreads(); }
};
struct WarpGroup {
  int tid, nth;
  __device__ void sync() const { __syncwarp(); }
};

/// Matrices per block of the warp-per-matrix POTRF / TRSM: one 32-byte sector of batch-first data
/// (4 fp64 / 8 fp32 consecutive matrices), a warp each.
template <class T>
constexpr int kWarpMats = int(32 / sizeof(T));
/// The largest order the kernels take (the packed factor in 227 KB of shared memory).
template <class T>
constexpr int max_n() {
  return sizeof(T) == 8 ? 128 : 256;
}
inline void check_cuda(cudaError_t e, const char* what) {
  KSPD_REQUIRE(e == cudaSuccess, TplError, what << ": " << cudaGetErrorString(e));
}

/// Batch-first loads and stores of the block-per-matrix kernels in clusters of c blocks
/// (Tuning::smem_cluster_*). The cluster's blocks own matrices b0 .. b0 + c - 1 (b0 =
/// blockIdx.x - rank); for the loads and stores, thread t of block `rank` serves matrix b0 + m,
/// m = (rank nth + t) % c, as thread v = (rank nth + t) / c of nth over its elements: a warp
/// reads one element of c consecutive matrices at a time (whole sectors) and writes it into
/// matrix m's block's shared memory (peer). The kernels are instantiated twice: Cl = false is
/// the plain launch (m = 0, v = t, the block's own matrix, shared-memory pointers and block
/// barriers as before: a runtime c = 1 through the same code ran the kernels 10-20 % slower on
/// the H100, the shared-memory stores becoming generic ones).
struct ClusterMap {
  int c, m, v;
  size_type b0;
};
template <bool Cl>
__device__ __forceinline__ ClusterMap cluster_map(int c) {
  if constexpr (Cl) {
    int rank = 0;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
    rank = int(cooperative_groups::this_cluster().block_rank());
#endif
    const int base = rank * int(blockDim.x) + int(threadIdx.x);
    return ClusterMap{c, base % c, base / c, size_type(blockIdx.x) - rank};
  } else {
    (void)c;
    return ClusterMap{1, 0, int(threadIdx.x), size_type(blockIdx.x)};
  }
}
/// p (this block's shared memory) in matrix m's block of the cluster.
template <bool Cl, class T>
__device__ __forceinline__ T* cluster_peer(T* p, const ClusterMap& cm) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Cl) return cooperative_groups::this_cluster().map_shared_rank(p, unsigned(cm.m));
#endif
  (void)cm;
  return p;
}
/// Orders the cluster's shared-memory accesses (a block barrier without clusters).
template <bool Cl>
__device__ __forceinline__ void cluster_sync() {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  if constexpr (Cl) {
    cooperative_groups::this_cluster().sync();
    return;
  }
#endif
  __syncthreads();
}
/// Launches nbatch blocks of `threads` with `bytes` of shared memory: kern_cl(make_args(c)) in
/// clusters of c = `want` blocks (the grid rounded up to whole clusters) where the device runs
/// them (sm_90+, the shared memory fits c blocks at once: cudaOccupancyMaxActiveClusters, asked
/// once per kernel, device and shape), else kern(make_args(1)).
template <class Args, class MakeArgs>
void launch_clustered(void (*kern)(Args), void (*kern_cl)(Args), int want, size_type nbatch, int threads,
                      size_t bytes, cudaStream_t stream, const MakeArgs& make_args, const char* what) {
  cudaLaunchConfig_t cfg = {};
  cudaLaunchAttribute attr[1];
  cfg.blockDim = dim3(unsigned(threads));
  cfg.dynamicSmemBytes = bytes;
  cfg.stream = stream;
  if (want > 1) {
    check_cuda(cudaFuncSetAttribute(kern_cl, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), what);
    attr[0].id = cudaLaunchAttributeClusterDimension;
    attr[0].val.clusterDim.x = unsigned(want);
    attr[0].val.clusterDim.y = 1;
    attr[0].val.clusterDim.z = 1;
    cfg.attrs = attr;
    cfg.numAttrs = 1;
    cfg.gridDim = dim3(unsigned((nbatch + want - 1) / want * want));
    static std::mutex mutex;
    static std::map<std::tuple<const void*, int, int, int, size_t>, bool> runs;
    int dev = 0;
    check_cuda(cudaGetDevice(&dev), what);
    const auto key = std::make_tuple(reinterpret_cast<const void*>(kern_cl), dev, want, threads, bytes);
    bool ok;
    {
      std::lock_guard<std::mutex> lock(mutex);
      auto it = runs.find(key);
      if (it == runs.end()) {
        int active = 0;
        const bool yes = cudaOccupancyMaxActiveClusters(&active, kern_cl, &cfg) == cudaSuccess && active >= 1;
        if (!yes) (void)cudaGetLastError();  // no clusters here (pre-sm_90, too much shared memory)
        it = runs.emplace(key, yes).first;
      }
      ok = it->second;
    }
    if (ok) {
      check_cuda(cudaLaunchKernelEx(&cfg, kern_cl, make_args(want)), what);
      check_cuda(cudaGetLastError(), what);
      return;
    }
  }
  check_cuda(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)), what);
  cfg.attrs = nullptr;
  cfg.numAttrs = 0;
  cfg.gridDim = dim3(unsigned(nbatch));
  check_cuda(cudaLaunchKernelEx(&cfg, kern, make_args(1)), what);
  check_cuda(cudaGetLastError(), what);
}

}  // namespace smem
#endif

}  // namespace kspd::batched::Impl
#endif
