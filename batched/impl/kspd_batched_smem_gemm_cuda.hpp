#ifndef KSPD_BATCHED_SMEM_GEMM_CUDA_HPP
#define KSPD_BATCHED_SMEM_GEMM_CUDA_HPP
/// \file kspd_batched_smem_gemm_cuda.hpp
/// CUDA only: the batched GEMM of the recursion (and of gemm / syrk, Auto) on batch-first
/// data (a LayoutLeft rank-3 View: consecutive matrices adjacent element by element), staged
/// in shared memory and multiplied on the tensor cores. A block of 256 threads takes
/// kWarpMats consecutive matrices (4 fp64 / 8 fp32: one 32-byte sector of every element) and a
/// 32 x 32 block of their C: op(A) / op(B) are staged 8 columns of k at a time with the matrix
/// index fastest (every sector read whole), each warp multiplies 8 x 8 tiles of C in
/// registers with mma.sync m8n8k4 f64 (fp32 widened: smem::tile_mma), and C goes back through
/// shared memory with the matrix index fastest again. The register-tiled TileGemm re-reads its
/// panels once per 8 x 4 tile of C from L1 / L2; here once per 32 x 32 block.
/// tri = 1: only the lower triangle of C (SYRK), the blocks above it are skipped.

#include "kspd_batched_smem_cuda.hpp"

namespace kspd::batched::Impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
namespace smem {

template <class T>
struct GemmArgs {
  Trans ta, tb;
  T alpha, beta;
  BatchMat<const T> A, B;
  BatchMat<T> C;
  int m, n, k, tri;
  int blocks_m, blocks;  // 32 x 32 blocks of C: along m, in all
  size_type nbatch;
};

constexpr int kGemmBlock = 32;  ///< rows / columns of C per thread block
constexpr int kGemmK = 8;       ///< k per shared-memory stage
constexpr int kGemmThreads = 256;
/// Leading dimension of a staged 8 x 32 panel (k rows of 32 values): fp64 4 mod 16, fp32 8 mod
/// 32, so the lanes of a fragment load hit distinct banks.
template <class T>
constexpr int kGemmLd = sizeof(T) == 8 ? kGemmBlock + 4 : kGemmBlock + 8;
/// Shared memory of a block (elements): the staged panels, then (reused) the C block.
template <class T>
constexpr int kGemmSmemElems =
    (2 * kWarpMats<T> * kGemmK * kGemmLd<T>) > (kWarpMats<T> * kGemmBlock * (kGemmBlock + 1))
        ? 2 * kWarpMats<T> * kGemmK * kGemmLd<T>
        : kWarpMats<T> * kGemmBlock * (kGemmBlock + 1);

template <class T>
__global__ void __launch_bounds__(kGemmThreads) gemm_bf_kernel(const GemmArgs<T> g) {
  constexpr int MB = kWarpMats<T>, BS = kGemmBlock, BK = kGemmK, LD = kGemmLd<T>;
  constexpr int NW = kGemmThreads / 32, TILES = (BS / 8) * (BS / 8), Q = MB * TILES / NW;
  __shared__ __align__(16) T buf[kGemmSmemElems<T>];
  T* const sa = buf;                   // [MB][BK][LD]: sa[(m * BK + l) * LD + i] = op(A_m)(i0 + i, k0 + l)
  T* const sb = buf + MB * BK * LD;    // [MB][BK][LD]: sb[(m * BK + l) * LD + j] = op(B_m)(k0 + l, j0 + j)
  const size_type grp = size_type(blockIdx.x) / size_type(g.blocks);
  const int blk = int(size_type(blockIdx.x) % size_type(g.blocks));
  const int i0 = (blk % g.blocks_m) * BS, j0 = (blk / g.blocks_m) * BS;
  if (g.tri == 1 && i0 + BS - 1 < j0) return;  // above the diagonal
  const size_type b0 = grp * MB;
  const int tid = threadIdx.x, warp = tid >> 5, lane = tid & 31;
  const int nm = g.nbatch - b0 < size_type(MB) ? int(g.nbatch - b0) : MB;  // matrices present
  // op(A)(i, l) = pa[i * ars + l * acs] of matrix b0 + m at + m (batch stride 1); op(B)(l, j) likewise.
  const bool tA = is_trans(g.ta), tB = is_trans(g.tb);
  const T* const pa = g.A.base + b0;
  const T* const pb = g.B.base + b0;
  const offset_type ars = tA ? g.A.cs : g.A.rs, acs = tA ? g.A.rs : g.A.cs;
  const offset_type brs = tB ? g.B.cs : g.B.rs, bcs = tB ? g.B.rs : g.B.cs;
  T c0[Q], c1[Q];
#pragma unroll
  for (int q = 0; q < Q; ++q) c0[q] = c1[q] = T(0);
  for (int k0 = 0; k0 < g.k; k0 += BK) {
    // Stage (matrix fastest, then the 32 rows / columns, then l): a warp reads 8 whole sectors.
#pragma unroll
    for (int e = tid; e < MB * BS * BK; e += kGemmThreads) {
      const int m = e % MB, r = e / MB, i = r % BS, l = r / BS;
      const int gi = i0 + i, gl = k0 + l;
      const bool ok = m < nm && gl < g.k;
      sa[(m * BK + l) * LD + i] = ok && gi < g.m ? pa[m + gi * ars + gl * acs] : T(0);
      sb[(m * BK + l) * LD + i] = ok && j0 + i < g.n ? pb[m + gl * brs + (j0 + i) * bcs] : T(0);
    }
    __syncthreads();
#pragma unroll
    for (int q = 0; q < Q; ++q) {
      const int task = warp + q * NW, m = task / TILES, t = task % TILES, ti = t % (BS / 8), tj = t / (BS / 8);
      if (g.tri == 1 && i0 + ti * 8 + 7 < j0 + tj * 8) continue;
      tile_mma<T>(c0[q], c1[q], T(1), sa + m * BK * LD + ti * 8, 1, LD, sb + m * BK * LD + tj * 8, LD, 1, BK);
    }
    __syncthreads();
  }
  // C through shared memory: sc[(m * BS + j) * (BS + 1) + i].
  T* const sc = buf;
  const int r = lane >> 2, c = 2 * (lane & 3);
#pragma unroll
  for (int q = 0; q < Q; ++q) {
    const int task = warp + q * NW, m = task / TILES, t = task % TILES, ti = t % (BS / 8), tj = t / (BS / 8);
    sc[(m * BS + tj * 8 + c) * (BS + 1) + ti * 8 + r] = c0[q];
    sc[(m * BS + tj * 8 + c + 1) * (BS + 1) + ti * 8 + r] = c1[q];
  }
  __syncthreads();
  T* const pc = g.C.base + b0;
  for (int e = tid; e < MB * BS * BS; e += kGemmThreads) {
    const int m = e % MB, rr = e / MB, i = rr % BS, j = rr / BS, gi = i0 + i, gj = j0 + j;
    if (m >= nm || gi >= g.m || gj >= g.n || (g.tri == 1 && gi < gj)) continue;
    T& dst = pc[m + gi * g.C.rs + gj * g.C.cs];
    const T v = g.alpha * sc[(m * BS + j) * (BS + 1) + i];
    dst = g.beta == T(0) ? v : v + g.beta * dst;
  }
}

}  // namespace smem

/// Whether the shared-memory GEMM takes C = op(A) op(B) (m x n, inner k) on this batch:
/// CUDA, fp32 / fp64, every operand batch-first, and the table's gemm_smem.
template <class ExecSpace, class T>
bool use_smem_gemm(const BatchMat<const T>& A, const BatchMat<const T>& B, const BatchMat<T>& C, size_type mn) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)A, (void)B, (void)C, (void)mn;
    return false;
  } else {
    return tuning<ExecSpace, T>(mn).gemm_smem && A.batch_unit_stride() && B.batch_unit_stride() &&
           C.batch_unit_stride();
  }
}

/// C_b = alpha op(A_b) op(B_b) + beta C_b (tri = 1: the lower triangle only) on batch-first
/// data; beta = 0 does not read C.
template <class ExecSpace, class T>
void smem_gemm(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k,
               T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta, const BatchMat<T>& C,
               int tri) {
  if (nbatch <= 0 || m <= 0 || n <= 0) return;
  constexpr int MB = smem::kWarpMats<T>;
  const int bm = int((m + smem::kGemmBlock - 1) / smem::kGemmBlock), bn = int((n + smem::kGemmBlock - 1) / smem::kGemmBlock);
  const size_type groups = (nbatch + MB - 1) / MB, grid = groups * size_type(bm) * size_type(bn);
  KSPD_REQUIRE(grid <= size_type(2147483647) && m <= 2147483647 && n <= 2147483647 && k <= 2147483647,
               InvalidArgument, "kspd::batched::gemm[smem]: batch or sizes too large");
  smem::gemm_bf_kernel<T><<<unsigned(grid), smem::kGemmThreads, 0, exec.cuda_stream()>>>(
      smem::GemmArgs<T>{ta, tb, alpha, beta, A, B, C, int(m), int(n), int(k), tri, bm, bm * bn, nbatch});
  smem::check_cuda(cudaGetLastError(), "kspd::batched::gemm[smem]: launch");
}
#else
template <class ExecSpace, class T>
bool use_smem_gemm(const BatchMat<const T>&, const BatchMat<const T>&, const BatchMat<T>&, size_type) {
  return false;
}
template <class ExecSpace, class T>
void smem_gemm(const ExecSpace&, Trans, Trans, size_type, size_type, size_type, size_type, T, const BatchMat<const T>&,
               const BatchMat<const T>&, T, const BatchMat<T>&, int) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::gemm: the shared-memory kernel is CUDA-only");
}
#endif

}  // namespace kspd::batched::Impl
#endif
