#ifndef KSPD_BATCHED_SMEM_CUDA_HPP
#define KSPD_BATCHED_SMEM_CUDA_HPP
/// \file kspd_batched_smem_cuda.hpp
/// CUDA only: one thread block per matrix, the lower triangle held in shared memory packed by
/// 8-column tile columns (n <= 128 fp64: 74 KB, 3 blocks per SM; n <= 256 fp32: 139 KB), blocked in 8 x 8 tiles whose updates run as
/// warp-level fp64 tensor-core MMA (mma.sync m8n8k4 f64, sm_80+) or, for fp32 and older
/// chips, as FFMA over the same fragment layout (tf32 would lose fp32 accuracy).
///  - POTRF: left-looking by 8-column blocks: the block's tiles take their update from the
///    finished columns (one warp per tile, MMA), its 8 x 8 diagonal tile is factored by one
///    warp in registers (shuffles), the rows below solve against it (a thread per row).
///    n <= Tuning::smem_potrf_warp_max (32), batch-first data: the same steps by one warp per
///    matrix, 4 fp64 / 8 fp32 consecutive matrices per block, loaded and stored together
///    (potrf_warp_kernel).
///  - TRSM (every side / uplo / trans, reduced to a lower Left solve; upper by reversing the
///    index order): the 8 x 8 diagonal blocks are inverted once, then each 8-row block of X
///    is X_i = inv(L_ii) (B_i - L_i,0:i X_0:i); a warp owns 8 columns of X and solves them
///    without block barriers; the right-hand sides in chunks of up to 128 columns.
///    k in Tuning::smem_trsm_warp_min..max (16..32): one warp per matrix (all its columns), 4 fp64 / 8
///    fp32 consecutive matrices per block, loaded and stored together (trsm_warp_kernel).
/// Other backends and complex scalars keep the portable kernels (use_smem_* is false there).

#include <type_traits>

#include "kspd_batched_mat.hpp"
#include "kspd_batched_trsm_internal.hpp"
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
/// BatchAlgo::Serial / Team / Register keep their families).
template <class ExecSpace, class T>
bool use_smem_potrf(BatchAlgo algo, size_type n) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)algo, (void)n;
    return false;
  } else {
    const Tuning tu = tuning<ExecSpace, T>(n);
    return algo == BatchAlgo::Auto && n >= tu.smem_potrf_min && n <= tu.smem_potrf_max &&
           n <= (sizeof(T) == 8 ? 128 : 256);  // smem::max_n
  }
}
/// TRSM needs ncols >= 16 right-hand sides (a warp per 8: with fewer, one warp walks the whole
/// factor alone; H100 POTRS nrhs = 1 at n = 64: 0.78x cuSOLVER, the recursion 2.7x).
template <class ExecSpace, class T>
bool use_smem_trsm(BatchAlgo algo, size_type k, size_type ncols) {
  if constexpr (!smem_capable_v<ExecSpace, T>) {
    (void)algo, (void)k, (void)ncols;
    return false;
  } else {
    const Tuning tu = tuning<ExecSpace, T>(k);
    const bool warp = k >= tu.smem_trsm_warp_min && k <= tu.smem_trsm_warp_max && k <= 32;
    return algo == BatchAlgo::Auto && ncols >= 16 && (warp || (k >= tu.smem_trsm_min && k <= tu.smem_trsm_max)) &&
           k <= (sizeof(T) == 8 ? 128 : 256);
  }
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
template <class T>
__device__ __forceinline__ void tile_mma(T& c0, T& c1, T sgn, const T* a, int ars, int acs, const T* b, int brs,
                                         int bcs, int kd) {
  const int lane = threadIdx.x & 31, g = lane >> 2, t = lane & 3;
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 800
  if constexpr (std::is_same<T, double>::value) {
#pragma unroll 4
    for (int p = 0; p < kd; p += 4) {
      const double a0 = sgn * a[g * ars + (p + t) * acs];
      const double b0 = b[(p + t) * brs + g * bcs];
      asm volatile("mma.sync.aligned.m8n8k4.row.col.f64.f64.f64.f64 {%0,%1}, {%2}, {%3}, {%0,%1};\n"
                   : "+d"(c0), "+d"(c1)
                   : "d"(a0), "d"(b0));
    }
    return;
  }
#endif
  T s0 = 0, s1 = 0;
#pragma unroll 8
  for (int k = 0; k < kd; ++k) {
    const T av = a[g * ars + k * acs];
    s0 += av * b[k * brs + (2 * t) * bcs];
    s1 += av * b[k * brs + (2 * t + 1) * bcs];
  }
  c0 += sgn * s0;
  c1 += sgn * s1;
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

template <class T>
struct PotrfArgs {
  BatchMat<T> A;
  int n;
  bool upper;
  int* infos;
};

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

template <class T>
__global__ void potrf_kernel(const PotrfArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  T* s = reinterpret_cast<T*>(smem_raw);
  __shared__ int s_info;
  __shared__ T s_dinv[8];
  const size_type b = blockIdx.x;
  const int n = args.n, nt = (n + 7) / 8, np = nt * 8;
  Mat<T> a = args.A.get(b, n, n);
  if (args.upper) a = a.t();
  const int tid = threadIdx.x, nth = blockDim.x;
  // Lower triangle in, padded with an identity block (padding stays identity, never fails).
  const bool row_fast = a.rs == 1 || (a.cs != 1 && a.rs < a.cs);
  for_tile<kLoadBatch>(np, np, row_fast, tid, nth, [&](int i, int j) { return i >= j; },
                       [&](int i, int j) { return (i < n && j < n) ? a(i, j) : (i == j ? T(1) : T(0)); },
                       [&](int i, int j, T v) { pk_at(s, np, i, j) = v; });
  if (tid == 0) s_info = 0;
  __syncthreads();
  potrf_packed(s, np, BlockGroup{tid, nth}, &s_info, s_dinv);
  // The lower triangle out (on failure: the finished columns, the failing block's partial
  // columns, the rest as read).
  for (int idx = tid; idx < np * np; idx += nth) {
    const int i = row_fast ? idx % np : idx / np, j = row_fast ? idx / np : idx % np;
    if (i < j || i >= n || j >= n) continue;
    a(i, j) = pk_at(s, np, i, j);
  }
  if (args.infos != nullptr && tid == 0) args.infos[b] = s_info;
}

/// Matrices per block of the warp-per-matrix POTRF: one 32-byte sector of batch-first data
/// (4 fp64 / 8 fp32 consecutive matrices), a warp each.
template <class T>
constexpr int kWarpMats = int(32 / sizeof(T));

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

template <class T>
struct TrsmArgs {
  Side side;
  Uplo uplo;
  Trans trans;
  Diag diag;
  T alpha;
  BatchMat<const T> A;
  BatchMat<T> B;
  int m, n;   ///< B is m x n
  int chunk;  ///< right-hand sides per pass (multiple of 8)
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

template <class T>
__global__ void trsm_kernel(const TrsmArgs<T> args) {
  extern __shared__ __align__(16) unsigned char smem_raw[];
  const size_type b = blockIdx.x;
  const int k = args.side == Side::Left ? args.m : args.n;
  Mat<const T> a = args.A.get(b, k, k);
  Mat<T> x = args.B.get(b, args.m, args.n);
  const bool lower = reduce_left_notrans(args.side, args.uplo, args.trans, a, x);
  const int ncols = int(x.n), nt = (k + 7) / 8, np = nt * 8, ldx = ld_of<T>(np), cw = args.chunk;
  T* ls = reinterpret_cast<T*>(smem_raw);  // L packed (pk_*), diagonal tiles replaced by their inverses
  T* xs = ls + pk_off<T>(np, nt);          // X chunk, np x cw, leading dimension ldx
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, nwarps = nth >> 5;
  const bool unit = args.diag == Diag::Unit;
  // Lower: Ls(i, j) = a(i, j); upper: the reversed order a(k-1-i, k-1-j) is lower.
  auto ri = [&](int i) { return lower ? i : k - 1 - i; };
  const bool a_row_fast = a.rs == 1 || (a.cs != 1 && a.rs < a.cs);
  for_tile<kLoadBatch>(np, np, a_row_fast, tid, nth, [&](int i, int j) { return i >= j; },
                       [&](int i, int j) {
                         return (i < k && j < k && !(unit && i == j)) ? a(ri(i), ri(j)) : (i == j ? T(1) : T(0));
                       },
                       [&](int i, int j, T v) { pk_at(ls, np, i, j) = v; });
  __syncthreads();
  invert_diagonal_tiles(ls, np, BlockGroup{tid, nth});  // nth >= np
  const bool x_row_fast = x.rs == 1 || (x.cs != 1 && x.rs < x.cs);
  const int ntiles = cw / 8;
  for (int c0 = 0; c0 < ncols; c0 += cw) {
    const int w = ncols - c0 < cw ? ncols - c0 : cw;
    for_tile<kLoadBatch>(np, cw, x_row_fast, tid, nth, [](int, int) { return true; },
                         [&](int i, int c) { return (i < k && c < w) ? args.alpha * x(ri(i), c0 + c) : T(0); },
                         [&](int i, int c, T v) { xs[i + c * ldx] = v; });
    __syncthreads();
    // Each warp owns 8-column tiles of X.
    for (int jt = warp; jt < ntiles; jt += nwarps) solve_tile_column(ls, np, xs + jt * 8 * ldx, ldx);
    __syncthreads();
    for (int idx = tid; idx < np * cw; idx += nth) {
      const int i = x_row_fast ? idx % np : idx / cw, c = x_row_fast ? idx / np : idx % cw;
      if (i < k && c < w) x(ri(i), c0 + c) = xs[i + c * ldx];
    }
    __syncthreads();
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
  const int k = args.side == Side::Left ? args.m : args.n;
  const int nt = (k + 7) / 8, np = nt * 8, ldx = ld_of<T>(np), cw = args.chunk;
  const int lper = pk_off<T>(np, nt), per = lper + ldx * cw;
  const int tid = threadIdx.x, nth = blockDim.x, warp = tid >> 5, lane = tid & 31;
  const size_type b0 = size_type(blockIdx.x) * MB;
  // The matrix this thread loads and stores (nth is a multiple of MB); `have`: it exists.
  const int mm = tid % MB, st = tid / MB, nst = nth / MB;
  const bool have = b0 + mm < nbatch;
  Mat<const T> a = args.A.get(have ? b0 + mm : b0, k, k);
  Mat<T> x = args.B.get(have ? b0 + mm : b0, args.m, args.n);
  const bool lower = reduce_left_notrans(args.side, args.uplo, args.trans, a, x);
  const int ncols = int(x.n);
  const bool unit = args.diag == Diag::Unit;
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
                         [&](int i, int c) { return (have && i < k && c < w) ? args.alpha * x(ri(i), c0 + c) : T(0); },
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

/// Dynamic shared memory of the kernels (bytes).
template <class T>
size_t potrf_bytes(int n) {
  const int np = (n + 7) / 8 * 8;
  return size_t(pk_off<T>(np, np / 8)) * sizeof(T);
}
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
/// The largest order the kernels take (the packed factor in 227 KB of shared memory).
template <class T>
constexpr int max_n() {
  return sizeof(T) == 8 ? 128 : 256;
}
inline void check_cuda(cudaError_t e, const char* what) {
  KSPD_REQUIRE(e == cudaSuccess, TplError, what << ": " << cudaGetErrorString(e));
}

}  // namespace smem

/// POTRF of a fixed-size batch (n <= 128) on the shared-memory kernel; infos[b] as LAPACK's.
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
        smem::PotrfArgs<T>{uplo == Uplo::Upper ? A.t() : A, int(n), false, infos}, nbatch);
    smem::check_cuda(cudaGetLastError(), "kspd::batched::potrf[smem]: launch");
    return;
  }
  const size_t bytes = smem::potrf_bytes<T>(int(n));
  auto k = smem::potrf_kernel<T>;
  smem::check_cuda(cudaFuncSetAttribute(k, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                   "kspd::batched::potrf[smem]: cudaFuncSetAttribute");
  k<<<unsigned(nbatch), threads, bytes, exec.cuda_stream()>>>(
      smem::PotrfArgs<T>{A, int(n), uplo == Uplo::Upper, infos});
  smem::check_cuda(cudaGetLastError(), "kspd::batched::potrf[smem]: launch");
}

template <class ExecSpace, class T>
void smem_trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch,
               size_type m, size_type n, const BatchMat<const T>& A, const BatchMat<T>& B) {
  const size_type k = side == Side::Left ? m : n, ncols = side == Side::Left ? n : m;
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
        smem::TrsmArgs<T>{side, uplo, trans, diag, alpha, A, B, int(m), int(n), wchunk}, nbatch);
    smem::check_cuda(cudaGetLastError(), "kspd::batched::trsm[smem]: launch");
    return;
  }
  const size_t bytes = smem::trsm_bytes<T>(int(k), chunk);
  auto kern = smem::trsm_kernel<T>;
  smem::check_cuda(cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize, int(bytes)),
                   "kspd::batched::trsm[smem]: cudaFuncSetAttribute");
  kern<<<unsigned(nbatch), threads, bytes, exec.cuda_stream()>>>(
      smem::TrsmArgs<T>{side, uplo, trans, diag, alpha, A, B, int(m), int(n), chunk});
  smem::check_cuda(cudaGetLastError(), "kspd::batched::trsm[smem]: launch");
}
#else
template <class ExecSpace, class T>
void smem_potrf(const ExecSpace&, Uplo, size_type, size_type, const BatchMat<T>&, int*) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::potrf: the shared-memory kernel is CUDA-only");
}
template <class ExecSpace, class T>
void smem_trsm(const ExecSpace&, Side, Uplo, Trans, Diag, T, size_type, size_type, size_type, const BatchMat<const T>&,
               const BatchMat<T>&) {
  KSPD_REQUIRE(false, InvalidArgument, "kspd::batched::trsm: the shared-memory kernel is CUDA-only");
}
#endif

}  // namespace kspd::batched::Impl
#endif
