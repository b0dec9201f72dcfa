#ifndef KSPD_BATCHED_SMEM_TRSM_CUDA_HPP
#define KSPD_BATCHED_SMEM_TRSM_CUDA_HPP
/// \file kspd_batched_smem_trsm_cuda.hpp
/// CUDA only: batched TRSM (every side / uplo / trans, reduced to a lower Left solve; upper by
/// reversing the index order) with one thread block per matrix, the factor in shared memory
/// (kspd_batched_smem_cuda.hpp): the 8 x 8 diagonal blocks are inverted once, then each 8-row
/// block of X is X_i = inv(L_ii) (B_i - L_i,0:i X_0:i); a warp owns 8 columns of X and solves
/// them without block barriers; the right-hand sides in chunks of up to 128 columns. k in
/// Tuning::smem_trsm_warp_min..max (16..32): one warp per matrix (all its columns), 4 fp64 / 8
/// fp32 consecutive matrices per block, loaded and stored together (trsm_warp_kernel).

#include "kspd_batched_smem_cuda.hpp"
#include "kspd_batched_trsm_operands.hpp"

namespace kspd::batched::Impl {

#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
namespace smem {

template <class T>
struct TrsmArgs {
  TrsmOperands<T> op;
  int chunk;  ///< right-hand sides per pass (multiple of 8)
  size_type nbatch = 0;
  int cluster = 1;  ///< blocks per cluster of the block-per-matrix kernel (ClusterMap; 1: none)
};

/// inv(L_ii) in place of the diagonal tiles L_ii of the packed ls (full 8 x 8, zero above):
/// column c of tile ib by the group's thread 8 ib + c (the group has at least np threads).
template <class T, class G>
__device__ __forceinline__ void invert_diagonal_tiles(T* ls, int np, const G& g) {
  T y[8];
  const int nt = np / 8, ib = g.tid / 8, c = g.tid % 8;
  const bool mine = g.tid < np;
  T* d = ls + pk_off<T>(np, ib < nt ? ib : 0);
  const int ld = pk_ld<T>(np, ib < nt ? ib : 0);
  if (mine) {
#pragma unroll
    for (int r = 0; r < 8; ++r) {
      T v = r == c ? T(1) : T(0);
#pragma unroll
      for (int l = 0; l < r; ++l) v -= d[r + l * ld] * y[l];
      y[r] = v / d[r + r * ld];
    }
  }
  g.sync();
  if (mine) {
#pragma unroll
    for (int r = 0; r < 8; ++r) d[r + c * ld] = y[r];
  }
}

/// X_t = L^-1 X_t for one 8-column tile column xt (leading dimension ldx) on one warp, top to
/// bottom: X_i = inv(L_ii) (X_i - L_i,0:i X_0:i); ls holds inv(L_ii) on its diagonal tiles.
/// Only this warp writes or reads xt's rows: no block barrier inside.
template <class T>
__device__ __forceinline__ void solve_tile_column(const T* ls, int np, T* xt, int ldx) {
  const int nt = np / 8, lane = threadIdx.x & 31, r = lane >> 2, c = 2 * (lane & 3);
  for (int ib = 0; ib < nt; ++ib) {
    T* tile = xt + ib * 8;
    T v0 = tile[r + c * ldx], v1 = tile[r + (c + 1) * ldx], w0 = 0, w1 = 0;
    int q = 0;
    for (; q + 1 < ib; q += 2) {  // X_i -= L_iq X_q, two independent accumulator chains
      tile_mma<T>(v0, v1, T(-1), ls + pk_off<T>(np, q) + 8 * (ib - q), 1, pk_ld<T>(np, q), xt + 8 * q, 1, ldx, 8);
      tile_mma<T>(w0, w1, T(-1), ls + pk_off<T>(np, q + 1) + 8 * (ib - q - 1), 1, pk_ld<T>(np, q + 1),
                  xt + 8 * (q + 1), 1, ldx, 8);
    }
    if (q < ib)
      tile_mma<T>(v0, v1, T(-1), ls + pk_off<T>(np, q) + 8 * (ib - q), 1, pk_ld<T>(np, q), xt + 8 * q, 1, ldx, 8);
    tile[r + c * ldx] = v0 + w0;
    tile[r + (c + 1) * ldx] = v1 + w1;
    __syncwarp();
    T y0 = 0, y1 = 0;  // X_i = inv(L_ii) X_i
    tile_mma<T>(y0, y1, T(1), ls + pk_off<T>(np, ib), 1, pk_ld<T>(np, ib), tile, 1, ldx, 8);
    __syncwarp();
    tile[r + c * ldx] = y0;
    tile[r + (c + 1) * ldx] = y1;
    __syncwarp();
  }
}

template <class T, bool Cl>
__global__ void trsm_kernel(const TrsmArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const TrsmOperands<T>& op = args.op;
  const int k = op.ka(0);  // one size for the whole batch (FixedDims)
  // Loads and stores: matrix cm.b0 + cm.m into / out of that block's shared memory (ClusterMap;
  // blocks past the batch, the cluster's padding, solve the identity and store nothing).
  const ClusterMap cm = cluster_map<Cl>(args.cluster);
  const size_type bm = cm.b0 + cm.m;
  const bool have = bm < args.nbatch;
  Mat<const T> a = op.mat_a(have ? bm : 0);
  Mat<T> x = op.mat_b(have ? bm : 0);
  const bool lower = reduce_left_notrans(op.side, op.uplo, op.trans, a, x);
  const int ncols = int(x.n), nt = (k + 7) / 8, np = nt * 8, ldx = ld_of<T>(np), cw = args.chunk;
  T* ls = reinterpret_cast<T*>(smem_raw);  // L packed (pk_*), diagonal tiles replaced by their inverses
  T* xs = ls + pk_off<T>(np, nt);          // X chunk, np x cw, leading dimension ldx
  T* const ls_p = cluster_peer<Cl>(ls, cm);  // matrix bm's
  T* const xs_p = cluster_peer<Cl>(xs, cm);
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, nwarps = nth >> 5;
  const bool unit = op.diag == Diag::Unit;
  // Lower: Ls(i, j) = a(i, j); upper: the reversed order a(k-1-i, k-1-j) is lower.
  auto ri = [&](int i) { return lower ? i : k - 1 - i; };
  const bool a_row_fast = a.rs == 1 || (a.cs != 1 && a.rs < a.cs);
  for_tile<kLoadBatch>(np, np, a_row_fast, cm.v, nth, [&](int i, int j) { return i >= j; },
                       [&](int i, int j) {
                         return (have && i < k && j < k && !(unit && i == j)) ? a(ri(i), ri(j))
                                                                               : (i == j ? T(1) : T(0));
                       },
                       [&](int i, int j, T v) { pk_at(ls_p, np, i, j) = v; });
  cluster_sync<Cl>();
  invert_diagonal_tiles(ls, np, BlockGroup{tid, nth});  // nth >= np
  const bool x_row_fast = x.rs == 1 || (x.cs != 1 && x.rs < x.cs);
  const int ntiles = cw / 8;
  for (int c0 = 0; c0 < ncols; c0 += cw) {
    const int w = ncols - c0 < cw ? ncols - c0 : cw;
    for_tile<kLoadBatch>(np, cw, x_row_fast, cm.v, nth, [](int, int) { return true; },
                         [&](int i, int c) { return (have && i < k && c < w) ? op.alpha * x(ri(i), c0 + c) : T(0); },
                         [&](int i, int c, T v) { xs_p[i + c * ldx] = v; });
    cluster_sync<Cl>();
    // Each warp owns 8-column tiles of X.
    for (int jt = warp; jt < ntiles; jt += nwarps) solve_tile_column(ls, np, xs + jt * 8 * ldx, ldx);
    cluster_sync<Cl>();
    if (have) {
      for (int idx = cm.v; idx < np * cw; idx += nth) {
        const int i = x_row_fast ? idx % np : idx / cw, c = x_row_fast ? idx / np : idx % cw;
        if (i < k && c < w) x(ri(i), c0 + c) = xs_p[i + c * ldx];
      }
    }
    cluster_sync<Cl>();  // (clusters: also keeps this block's shared memory until the peers' reads are done)
  }
}

/// TRSM of k <= 32 (np <= 32), kWarpMats consecutive matrices per block, one warp each: the
/// block loads and stores all of them together, thread t serving matrix t % MB (the matrix
/// index fastest: batch-first data is read by whole sectors), and each warp inverts its
/// diagonal tiles and solves all its tile columns with warp barriers only. The last block's
/// missing matrices run on the identity and are not stored.
template <class T>
__global__ void trsm_warp_kernel(const TrsmArgs<T> args, const size_type nbatch) {
  constexpr int MB = kWarpMats<T>;
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const TrsmOperands<T>& op = args.op;
  const int k = op.ka(0);  // one size for the whole batch (FixedDims)
  const int nt = (k + 7) / 8, np = nt * 8, ldx = ld_of<T>(np), cw = args.chunk;
  const int lper = pk_off<T>(np, nt), per = lper + ldx * cw;
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, lane = tid & 31;
  const size_type b0 = size_type(blockIdx.x) * MB;
  // The matrix this thread loads and stores (nth is a multiple of MB); `have`: it exists.
  const int mm = tid % MB, st = tid / MB, nst = nth / MB;
  const bool have = b0 + mm < nbatch;
  Mat<const T> a = op.mat_a(have ? b0 + mm : b0);
  Mat<T> x = op.mat_b(have ? b0 + mm : b0);
  const bool lower = reduce_left_notrans(op.side, op.uplo, op.trans, a, x);
  const int ncols = int(x.n);
  const bool unit = op.diag == Diag::Unit;
  auto ri = [&](int i) { return lower ? i : k - 1 - i; };
  T* const base = reinterpret_cast<T*>(smem_raw);
  T* const ls_m = base + mm * per;  // this thread's matrix (loads / stores)
  T* const xs_m = ls_m + lper;
  T* const ls_w = base + warp * per;  // this warp's matrix (solve)
  T* const xs_w = ls_w + lper;
  const bool a_row_fast = a.rs == 1 || (a.cs != 1 && a.rs < a.cs);
  for_tile<kLoadBatch>(np, np, a_row_fast, st, nst, [&](int i, int j) { return i >= j; },
                       [&](int i, int j) {
                         return (have && i < k && j < k && !(unit && i == j)) ? a(ri(i), ri(j))
                                                                               : (i == j ? T(1) : T(0));
                       },
                       [&](int i, int j, T v) { pk_at(ls_m, np, i, j) = v; });
  __syncthreads();
  invert_diagonal_tiles(ls_w, np, WarpGroup{lane, 32});  // np <= 32
  const bool x_row_fast = x.rs == 1 || (x.cs != 1 && x.rs < x.cs);
  const int ntiles = cw / 8;
  for (int c0 = 0; c0 < ncols; c0 += cw) {
    const int w = ncols - c0 < cw ? ncols - c0 : cw;
    for_tile<kLoadBatch>(np, cw, x_row_fast, st, nst, [](int, int) { return true; },
                         [&](int i, int c) { return (have && i < k && c < w) ? op.alpha * x(ri(i), c0 + c) : T(0); },
                         [&](int i, int c, T v) { xs_m[i + c * ldx] = v; });
    __syncthreads();
    for (int jt = 0; jt < ntiles; ++jt) solve_tile_column(ls_w, np, xs_w + jt * 8 * ldx, ldx);
    __syncthreads();
    if (have) {
      for (int idx = st; idx < np * cw; idx += nst) {
        const int i = x_row_fast ? idx % np : idx / cw, c = x_row_fast ? idx / np : idx % cw;
        if (i < k && c < w) x(ri(i), c0 + c) = xs_m[i + c * ldx];
      }
    }
    __syncthreads();
  }
}

/// Dynamic shared memory of the kernel (bytes).
template <class T>
size_t trsm_bytes(int k, int chunk) {
  const int np = (k + 7) / 8 * 8;
  return (size_t(pk_off<T>(np, np / 8)) + size_t(ld_of<T>(np)) * chunk) * sizeof(T);
}
/// Right-hand sides per pass of the TRSM kernel (a multiple of 8, a warp per 8 columns): all
/// of them up to `most` (Tuning::smem_trsm_chunk) where that fits in 227 KB of shared memory,
/// else the most that fit.
template <class T>
int trsm_chunk(int k, int ncols, int most) {
  int c = ncols >= most ? most : (ncols + 7) / 8 * 8;
  while (c > 8 && trsm_bytes<T>(k, c) > size_t(227) * 1024) c -= 8;
  return c;
}

}  // namespace smem

template <class ExecSpace, class T>
void smem_trsm(const ExecSpace& exec, const TrsmOperands<T>& op, size_type nbatch) {
  const size_type m = op.d.m, n = op.d.n;
  const size_type k = op.side == Side::Left ? m : n, ncols = op.side == Side::Left ? n : m;
  if (nbatch <= 0 || m <= 0 || n <= 0) return;
  KSPD_REQUIRE(nbatch <= size_type(2147483647), InvalidArgument, "kspd::batched::trsm: batch too large");
  const Tuning tu = tuning<ExecSpace, T>(k);
  KSPD_REQUIRE(k <= smem::max_n<T>(), InvalidArgument, "kspd::batched::trsm[smem]: k = " << k << " > " << smem::max_n<T>());
  const int chunk = smem::trsm_chunk<T>(int(k), int(ncols), tu.smem_trsm_chunk > 0 ? tu.smem_trsm_chunk : 128);
  // A warp per 8-column tile of the chunk; at least 128 threads (the diagonal inversions).
  int threads = tu.smem_threads >= 128 ? tu.smem_threads : chunk * 4 > 128 ? chunk * 4 : 128;
  if (threads > 1024) threads = 1024;
  const int np = int((k + 7) / 8 * 8);
  if (threads < np) threads = np;  // a thread per column of the diagonal blocks (np <= 256)
  if (k >= size_type(tu.smem_trsm_warp_min) && k <= size_type(tu.smem_trsm_warp_max) && k <= 32) {  // a warp per matrix
    constexpr int MB = smem::kWarpMats<T>;
    int wchunk = chunk;
    while (wchunk > 8 && smem::trsm_bytes<T>(int(k), wchunk) * MB > size_t(227) * 1024) wchunk -= 8;
    const size_t bytes = smem::trsm_bytes<T>(int(k), wchunk) * MB;
    auto kern = smem::trsm_warp_kernel<T>;
    smem::check_cuda(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                     "kspd::batched::trsm[smem]: cudaFuncSetAttribute");
    kern<<<unsigned((nbatch + MB - 1) / MB), 32 * MB, bytes, exec.cuda_stream()>>>(
        smem::TrsmArgs<T>{op, wchunk}, nbatch);
    smem::check_cuda(cudaGetLastError(), "kspd::batched::trsm[smem]: launch");
    return;
  }
  // Batch-first right-hand sides: clusters of Tuning::smem_cluster_trsm blocks load and store together.
  smem::launch_clustered(
      smem::trsm_kernel<T, false>, smem::trsm_kernel<T, true>, op.B.batch_unit_stride() ? tu.smem_cluster_trsm : 1, nbatch, threads,
      smem::trsm_bytes<T>(int(k), chunk), exec.cuda_stream(),
      [&](int c) { return smem::TrsmArgs<T>{op, chunk, nbatch, c}; }, "kspd::batched::trsm[smem]: launch");
}
#else
template <class ExecSpace, class T>
void smem_trsm(const ExecSpace&, const TrsmOperands<T>&, size_type) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::trsm: the shared-memory kernel is CUDA-only");
}
#endif

}  // namespace kspd::batched::Impl
#endif
