#ifndef KSPD_BATCHED_SMEM_PANEL_CUDA_HPP
#define KSPD_BATCHED_SMEM_PANEL_CUDA_HPP
/// \file kspd_batched_smem_panel_cuda.hpp
/// CUDA only: batched TRSM of order k <= 256 in one kernel without holding the factor: one
/// thread block per matrix keeps a chunk of X in shared memory and streams L by 8-row panels
/// (double-buffered: panel i + 1 is loaded into registers while panel i is used), solving
/// X_i = inv(L_ii) (X_i - L_i,0:i X_0:i) for every 8-column tile of X (a warp per tile, MMA as
/// the whole-factor kernel, kspd_batched_smem_trsm_cuda.hpp). Where the factor does not fit in
/// shared memory (fp64 k > 128) this replaces the recursion, whose GEMMs on batch-first data
/// run kspd's register-tiled kernel. Batch-first data loads and stores through thread-block
/// clusters like the other block-per-matrix kernels (ClusterMap). Every side / uplo / trans as
/// there (a lower Left solve, upper by index reversal). Tuning::smem_trsm_panel_min picks it.

#include "kspd_batched_smem_trsm_cuda.hpp"

namespace kspd::batched::Impl {

/// The tuning table's choice: TRSM of order k on the panel kernel (Auto only; any layout,
/// any number of right-hand sides).
template <class ExecSpace, class T>
bool use_smem_trsm_panel(BatchAlgo algo, size_type k) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)algo, (void)k;
    return false;
  } else {
    const Tuning tu = tuning<ExecSpace, T>(k);
    return algo == BatchAlgo::Auto && tu.smem_trsm_panel_min > 0 && k >= tu.smem_trsm_panel_min && k <= 256;
  }
}

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
namespace smem {

/// Panel elements per thread staged in registers (8 rows x np columns over nth >= np threads).
constexpr int kPanelPer = 8;

/// Threads per block of the panel kernel (a panel is 8 np <= 8 kPanelThreads elements, kPanelPer
/// per thread). 512 failed to launch on the H100 (s8 run 2: too many registers for the block).
constexpr int kPanelThreads = 256;

template <class T, bool Cl>
__global__ void __launch_bounds__(kPanelThreads) trsm_panel_kernel(const TrsmArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const TrsmOperands<T>& op = args.op;
  const int k = op.ka(0);  // one size for the whole batch (FixedDims)
  const ClusterMap cm = cluster_map<Cl>(args.cluster);
  const size_type bm = cm.b0 + cm.m;  // the matrix this thread loads / stores (ClusterMap)
  const bool have = bm < args.nbatch;
  Mat<const T> a = op.mat_a(have ? bm : 0);
  Mat<T> x = op.mat_b(have ? bm : 0);
  const bool lower = reduce_left_notrans(op.side, op.uplo, op.trans, a, x);
  const int ncols = int(x.n), nt = (k + 7) / 8, np = nt * 8, ldx = ld_of<T>(np), cw = args.chunk;
  T* xs = reinterpret_cast<T*>(smem_raw);  // X chunk, np x cw, leading dimension ldx
  T* pan = xs + ldx * cw;                  // two 8 x np row panels of L, element (r, j) at r + 8 j
  T* dinv = pan + 16 * np;                 // inv(L_ii), 8 x 8 column-major
  T* const xs_p = cluster_peer<Cl>(xs, cm);
  T* const pan_p = cluster_peer<Cl>(pan, cm);
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, nwarps = nth >> 5, lane = tid & 31;
  const bool unit = op.diag == Diag::Unit;
  auto ri = [&](int i) { return lower ? i : k - 1 - i; };
  // Row panel ib (rows 8 ib .. 8 ib + 7, columns 0 .. 8 ib + 7), identity-padded: element e =
  // r + 8 j of this thread's share (e = cm.v + s nth).
  T reg[kPanelPer];
  auto get_panel = [&](int ib) {
    const int ne = 8 * (8 * ib + 8);
#pragma unroll
    for (int s = 0; s < kPanelPer; ++s) {
      const int e = cm.v + s * nth, r = e & 7, j = e >> 3, i = 8 * ib + r;
      if (e < ne)
        reg[s] = (have && i < k && j < k && j <= i && !(unit && i == j)) ? a(ri(i), ri(j))
                                                                          : (i == j ? T(1) : T(0));
    }
  };
  auto put_panel = [&](int ib) {
    const int ne = 8 * (8 * ib + 8);
    T* dst = pan_p + (ib & 1) * 8 * np;
#pragma unroll
    for (int s = 0; s < kPanelPer; ++s) {
      const int e = cm.v + s * nth;
      if (e < ne) dst[e] = reg[s];
    }
  };
  const bool x_row_fast = x.rs == 1 || (x.cs != 1 && x.rs < x.cs);
  const int ntiles = cw / 8;
  for (int c0 = 0; c0 < ncols; c0 += cw) {
    const int w = ncols - c0 < cw ? ncols - c0 : cw;
    for_tile<kLoadBatch>(np, cw, x_row_fast, cm.v, nth, [](int, int) { return true; },
                         [&](int i, int c) { return (have && i < k && c < w) ? op.alpha * x(ri(i), c0 + c) : T(0); },
                         [&](int i, int c, T v) { xs_p[i + c * ldx] = v; });
    get_panel(0);
    for (int ib = 0; ib < nt; ++ib) {
      put_panel(ib);
      cluster_sync<Cl>();  // panel ib (and, at ib = 0, the X chunk) in place; panel ib - 1 done with
      if (ib + 1 < nt) get_panel(ib + 1);  // in flight while panel ib is used
      const T* p = pan + (ib & 1) * 8 * np;
      if (tid < 8) {  // inv(L_ii): column tid by forward substitution
        const T* d = p + 8 * 8 * ib;
        T y[8];
#pragma unroll
        for (int r = 0; r < 8; ++r) {
          T v = r == tid ? T(1) : T(0);
#pragma unroll
          for (int l = 0; l < r; ++l) v -= d[r + 8 * l] * y[l];
          y[r] = v / d[r + 8 * r];
        }
#pragma unroll
        for (int r = 0; r < 8; ++r) dinv[r + 8 * tid] = y[r];
      }
      __syncthreads();
      const int r = lane >> 2, c = 2 * (lane & 3);
      for (int jt = warp; jt < ntiles; jt += nwarps) {
        T* tile = xs + 8 * ib + jt * 8 * ldx;
        T v0 = tile[r + c * ldx], v1 = tile[r + (c + 1) * ldx], w0 = 0, w1 = 0;
        int q = 0;
        for (; q + 1 < ib; q += 2) {  // X_i -= L_iq X_q, two independent accumulator chains
          tile_mma<T>(v0, v1, T(-1), p + 64 * q, 1, 8, xs + 8 * q + jt * 8 * ldx, 1, ldx, 8);
          tile_mma<T>(w0, w1, T(-1), p + 64 * (q + 1), 1, 8, xs + 8 * (q + 1) + jt * 8 * ldx, 1, ldx, 8);
        }
        if (q < ib) tile_mma<T>(v0, v1, T(-1), p + 64 * q, 1, 8, xs + 8 * q + jt * 8 * ldx, 1, ldx, 8);
        tile[r + c * ldx] = v0 + w0;
        tile[r + (c + 1) * ldx] = v1 + w1;
        __syncwarp();
        T y0 = 0, y1 = 0;  // X_i = inv(L_ii) X_i
        tile_mma<T>(y0, y1, T(1), dinv, 1, 8, tile, 1, ldx, 8);
        __syncwarp();
        tile[r + c * ldx] = y0;
        tile[r + (c + 1) * ldx] = y1;
      }
    }
    cluster_sync<Cl>();  // every tile solved before the peers read it
    if (have) {
      for (int idx = cm.v; idx < np * cw; idx += nth) {
        const int i = x_row_fast ? idx % np : idx / cw, c = x_row_fast ? idx / np : idx % cw;
        if (i < k && c < w) x(ri(i), c0 + c) = xs_p[i + c * ldx];
      }
    }
    cluster_sync<Cl>();  // the stores done before the next chunk (clusters: before the block exits)
  }
}

/// Dynamic shared memory of the kernel (bytes): the X chunk, two row panels, inv(L_ii).
template <class T>
size_t trsm_panel_bytes(int k, int chunk) {
  const int np = (k + 7) / 8 * 8;
  return (size_t(ld_of<T>(np)) * chunk + size_t(16) * np + 64) * sizeof(T);
}

}  // namespace smem

template <class ExecSpace, class T>
void smem_trsm_panel(const ExecSpace& exec, const TrsmOperands<T>& op, size_type nbatch) {
  const size_type m = op.d.m, n = op.d.n;
  const size_type k = op.side == Side::Left ? m : n, ncols = op.side == Side::Left ? n : m;
  if (nbatch <= 0 || m <= 0 || n <= 0) return;
  KSPD_REQUIRE(nbatch <= size_type(2147483647), InvalidArgument, "kspd::batched::trsm: batch too large");
  KSPD_REQUIRE(k <= 256, InvalidArgument, "kspd::batched::trsm[panel]: k = " << k << " > 256");
  const Tuning tu = tuning<ExecSpace, T>(k);
  // Right-hand sides per pass: up to smem_trsm_chunk, what fits next to the panels.
  const int most = tu.smem_trsm_chunk > 0 ? tu.smem_trsm_chunk : 128;
  int chunk = ncols >= most ? most : int((ncols + 7) / 8 * 8);
  while (chunk > 8 && smem::trsm_panel_bytes<T>(int(k), chunk) > size_t(227) * 1024) chunk -= 8;
  // kPanelThreads >= np (k <= 256); the warps take the 8-column tiles in turn.
  const int threads = smem::kPanelThreads;
  smem::launch_clustered(
      smem::trsm_panel_kernel<T, false>, smem::trsm_panel_kernel<T, true>, op.B.batch_unit_stride() ? tu.smem_cluster_trsm : 1, nbatch, threads,
      smem::trsm_panel_bytes<T>(int(k), chunk), exec.cuda_stream(),
      [&](int c) { return smem::TrsmArgs<T>{op, chunk, nbatch, c}; }, "kspd::batched::trsm[panel]: launch");
}
#else
template <class ExecSpace, class T>
void smem_trsm_panel(const ExecSpace&, const TrsmOperands<T>&, size_type) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::trsm: the shared-memory panel kernel is CUDA-only");
}
#endif

}  // namespace kspd::batched::Impl
#endif
