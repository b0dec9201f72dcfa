#ifndef KSPD_BATCHED_SMEM_POTRF_CUDA_HPP
#define KSPD_BATCHED_SMEM_POTRF_CUDA_HPP
/// \file kspd_batched_smem_potrf_cuda.hpp
/// CUDA only: batched POTRF with one thread block per matrix, the lower triangle in shared
/// memory (kspd_batched_smem_cuda.hpp), left-looking by 8-column blocks: the block's tiles take
/// their update from the finished columns (one warp per tile, MMA), its 8 x 8 diagonal tile is
/// factored by one warp in registers (shuffles), the rows below solve against it (a thread per
/// row). n <= Tuning::smem_potrf_warp_max (32), batch-first data: the same steps by one warp
/// per matrix, 4 fp64 / 8 fp32 consecutive matrices per block, loaded and stored together
/// (potrf_warp_kernel).

#include "kspd_batched_smem_cuda.hpp"

namespace kspd::batched::Impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
namespace smem {

template <class T>
struct PotrfArgs {
  BatchMat<T> A;
  int n;
  bool upper;
  int* infos;
  size_type nbatch;
  int cluster;  ///< blocks per cluster of the block-per-matrix kernel (ClusterMap; 1: none)
};

/// Factors the packed lower triangle s (np = 8 nt rows, identity-padded) in place with the
/// group's threads; *s_info = LAPACK's info (0: success), s_dinv: 8 scalars of scratch.
template <class T, class G>
__device__ __forceinline__ void potrf_packed(T* s, int np, const G& g, int* s_info, T* s_dinv) {
  const int nt = np / 8, tid = g.tid, nth = g.nth, warp = tid >> 5, nwarps = nth >> 5, lane = tid & 31;
  for (int kb = 0; kb < nt; ++kb) {
    const int k0 = kb * 8, okb = pk_off<T>(np, kb), lkb = pk_ld<T>(np, kb);
    if (kb > 0) {  // column block kb -= L(kb:, 0:k0) L(kb, 0:k0)^T, a warp per 8 x 8 tile
      for (int ib = kb + warp; ib < nt; ib += nwarps) {
        const int r = 8 * (ib - kb) + (lane >> 2), c = 2 * (lane & 3);
        T c0 = s[okb + r + c * lkb], c1 = s[okb + r + (c + 1) * lkb], e0 = 0, e1 = 0;
        int q = 0;
        for (; q + 1 < kb; q += 2) {  // two independent accumulator chains
          const int oq = pk_off<T>(np, q), lq = pk_ld<T>(np, q);
          tile_mma<T>(c0, c1, T(-1), s + oq + 8 * (ib - q), 1, lq, s + oq + 8 * (kb - q), lq, 1, 8);
          const int oq1 = pk_off<T>(np, q + 1), lq1 = pk_ld<T>(np, q + 1);
          tile_mma<T>(e0, e1, T(-1), s + oq1 + 8 * (ib - q - 1), 1, lq1, s + oq1 + 8 * (kb - q - 1), lq1, 1, 8);
        }
        if (q < kb) {
          const int oq = pk_off<T>(np, q), lq = pk_ld<T>(np, q);
          tile_mma<T>(c0, c1, T(-1), s + oq + 8 * (ib - q), 1, lq, s + oq + 8 * (kb - q), lq, 1, 8);
        }
        s[okb + r + c * lkb] = c0 + e0;
        s[okb + r + (c + 1) * lkb] = c1 + e1;
      }
      g.sync();
    }
    if (warp == 0) {  // diagonal tile: lane r < 8 holds row r in registers
      T v[8];
#pragma unroll
      for (int c = 0; c < 8; ++c) v[c] = lane < 8 && c <= lane ? s[okb + lane + c * lkb] : T(0);
      int info = 0;
#pragma unroll
      for (int j = 0; j < 8; ++j) {
        const T d = __shfl_sync(0xffffffffu, v[j], j);
        if (info == 0 && !(d > T(0))) info = k0 + j + 1;
        const T inv = rsqrt_of(d);
        if (lane == j) {
          v[j] = d * inv;
          s_dinv[j] = inv;
        }
        if (lane > j) v[j] *= inv;
#pragma unroll
        for (int c = j + 1; c < 8; ++c) {
          const T lcj = __shfl_sync(0xffffffffu, v[j], c);
          if (lane >= c) v[c] -= v[j] * lcj;
        }
      }
      if (lane < 8) {
#pragma unroll
        for (int c = 0; c < 8; ++c)
          if (c <= lane) s[okb + lane + c * lkb] = v[c];
      }
      if (lane == 0 && info != 0) *s_info = info;
    }
    g.sync();
    if (*s_info != 0) break;  // shared: every thread of the group leaves at the same block
    for (int i = 8 + tid; i < np - k0; i += nth) {  // rows below: x L11^T = a, a thread per row
      T x[8];
#pragma unroll
      for (int c = 0; c < 8; ++c) {
        T v = s[okb + i + c * lkb];
#pragma unroll
        for (int l = 0; l < c; ++l) v -= x[l] * s[okb + c + l * lkb];
        x[c] = v * s_dinv[c];
      }
#pragma unroll
      for (int c = 0; c < 8; ++c) s[okb + i + c * lkb] = x[c];
    }
    g.sync();
  }
}

template <class T, bool Cl>
__global__ void potrf_kernel(const PotrfArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* s = reinterpret_cast<T*>(smem_raw);
  __shared__ int s_info;
  __shared__ T s_dinv[8];
  const size_type b = blockIdx.x;  // this block's matrix (past the batch: the cluster's padding)
  const int n = args.n, nt = (n + 7) / 8, np = nt * 8;
  const int tid = threadIdx.x, nth = blockDim.x;
  // Loads and stores: matrix cm.b0 + cm.m into / out of that block's shared memory (ClusterMap).
  const ClusterMap cm = cluster_map<Cl>(args.cluster);
  const size_type bm = cm.b0 + cm.m;
  const bool have = bm < args.nbatch;
  Mat<T> a = args.A.get(have ? bm : 0, n, n);
  if (args.upper) a = a.t();
  T* const sm = cluster_peer<Cl>(s, cm);
  // Lower triangle in, padded with an identity block (padding stays identity, never fails).
  const bool row_fast = a.rs == 1 || (a.cs != 1 && a.rs < a.cs);
  for_tile<kLoadBatch>(np, np, row_fast, cm.v, nth, [&](int i, int j) { return i >= j; },
                       [&](int i, int j) { return (have && i < n && j < n) ? a(i, j) : (i == j ? T(1) : T(0)); },
                       [&](int i, int j, T v) { pk_at(sm, np, i, j) = v; });
  if (tid == 0) s_info = 0;
  cluster_sync<Cl>();
  potrf_packed(s, np, BlockGroup{tid, nth}, &s_info, s_dinv);
  if constexpr (Cl) cluster_sync<Cl>();  // every block's factor done before the peers read it
  // The lower triangle out (on failure: the finished columns, the failing block's partial
  // columns, the rest as read).
  if (have) {
    for (int idx = cm.v; idx < np * np; idx += nth) {
      const int i = row_fast ? idx % np : idx / np, j = row_fast ? idx / np : idx % np;
      if (i < j || i >= n || j >= n) continue;
      a(i, j) = pk_at(sm, np, i, j);
    }
  }
  if (args.infos != nullptr && tid == 0 && b < args.nbatch) args.infos[b] = s_info;
  if constexpr (Cl) cluster_sync<Cl>();  // the peers' reads done before this block's shared memory goes
}

/// POTRF of n <= 32 (np <= 32: at most 4 tile columns), kWarpMats consecutive matrices per
/// block, one warp each: the block loads and stores all of them together, the matrix index
/// fastest where consecutive matrices are adjacent (batch-first data: every sector read whole,
/// where one matrix per block uses 8 of its 32 bytes), and each warp factors its own with warp
/// barriers only. The last block's missing matrices run on the identity and are not stored.
template <class T>
__global__ void potrf_warp_kernel(const PotrfArgs<T> args, const size_type nbatch) {
  constexpr int MB = kWarpMats<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  __shared__ int s_info[MB];
  __shared__ T s_dinv[MB][8];
  const int n = args.n, nt = (n + 7) / 8, np = nt * 8, per = pk_off<T>(np, nt);
  T* s0 = reinterpret_cast<T*>(smem_raw);
  const size_type b0 = size_type(blockIdx.x) * MB;
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, lane = tid & 31;
  const BatchMat<T>& A = args.A;  // the launcher passes Upper transposed
  const bool mat_fast = A.batch_unit_stride();
  const bool row_fast = A.rs == 1 || (A.cs != 1 && A.rs < A.cs);
  const int ne = np * np;
  auto ij = [&](int e, int& i, int& j) {
    i = row_fast ? e % np : e / np;
    j = row_fast ? e / np : e % np;
  };
  // (m, e) over MB x ne with m fastest (mat_fast) or e fastest.
  for_tile<kLoadBatch>(MB, ne, mat_fast, tid, nth,
                       [&](int, int e) {
                         int i, j;
                         ij(e, i, j);
                         return i >= j;
                       },
                       [&](int m, int e) {
                         int i, j;
                         ij(e, i, j);
                         return (b0 + m < nbatch && i < n && j < n) ? A.get(b0 + m, n, n)(i, j)
                                                                    : (i == j ? T(1) : T(0));
                       },
                       [&](int m, int e, T v) {
                         int i, j;
                         ij(e, i, j);
                         pk_at(s0 + m * per, np, i, j) = v;
                       });
  if (tid < MB) s_info[tid] = 0;
  __syncthreads();
  potrf_packed(s0 + warp * per, np, WarpGroup{lane, 32}, &s_info[warp], s_dinv[warp]);
  __syncthreads();
  for (int idx = tid; idx < MB * ne; idx += nth) {
    const int m = mat_fast ? idx % MB : idx / ne, e = mat_fast ? idx / MB : idx % ne;
    int i, j;
    ij(e, i, j);
    if (i < j || i >= n || j >= n || b0 + m >= nbatch) continue;
    A.get(b0 + m, n, n)(i, j) = pk_at(s0 + m * per, np, i, j);
  }
  if (args.infos != nullptr && tid < MB && b0 + tid < nbatch) args.infos[b0 + tid] = s_info[tid];
}

/// Dynamic shared memory of the kernel (bytes).
template <class T>
size_t potrf_bytes(int n) {
  const int np = (n + 7) / 8 * 8;
  return size_t(pk_off<T>(np, np / 8)) * sizeof(T);
}

}  // namespace smem

/// POTRF of a fixed-size batch (n <= smem::max_n: fp64 128, fp32 256) on the shared-memory kernel; infos[b] as LAPACK's.
template <class ExecSpace, class T>
void smem_potrf(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A, int* infos) {
  if (nbatch <= 0) return;
  KSPD_REQUIRE(nbatch <= size_type(2147483647), InvalidArgument, "kspd::batched::potrf: batch too large");
  const Tuning tu = tuning<ExecSpace, T>(n);
  const int threads = tu.smem_threads > 0 ? tu.smem_threads : n > 64 ? 256 : 128;
  KSPD_REQUIRE(n <= smem::max_n<T>(), InvalidArgument, "kspd::batched::potrf[smem]: n = " << n << " > " << smem::max_n<T>());
  if (n <= size_type(tu.smem_potrf_warp_max) && n <= 32 && A.batch_unit_stride()) {  // a warp per matrix
    constexpr int MB = smem::kWarpMats<T>;
    const size_t bytes = smem::potrf_bytes<T>(int(n)) * MB;
    auto k = smem::potrf_warp_kernel<T>;
    smem::check_cuda(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                     "kspd::batched::potrf[smem]: cudaFuncSetAttribute");
    k<<<unsigned((nbatch + MB - 1) / MB), 32 * MB, bytes, exec.cuda_stream()>>>(
        smem::PotrfArgs<T>{uplo == Uplo::Upper ? A.t() : A, int(n), false, infos, nbatch, 1}, nbatch);
    smem::check_cuda(cudaGetLastError(), "kspd::batched::potrf[smem]: launch");
    return;
  }
  // Batch-first data: clusters of Tuning::smem_cluster_potrf blocks load and store together.
  smem::launch_clustered(
      smem::potrf_kernel<T, false>, smem::potrf_kernel<T, true>, A.batch_unit_stride() ? tu.smem_cluster_potrf : 1, nbatch, threads, smem::potrf_bytes<T>(int(n)),
      exec.cuda_stream(),
      [&](int c) { return smem::PotrfArgs<T>{A, int(n), uplo == Uplo::Upper, infos, nbatch, c}; },
      "kspd::batched::potrf[smem]: launch");
}
#else
template <class ExecSpace, class T>
void smem_potrf(const ExecSpace&, Uplo, size_type, size_type, const BatchMat<T>&, int*) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::potrf: the shared-memory kernel is CUDA-only");
}
#endif

}  // namespace kspd::batched::Impl
#endif
