#ifndef KSPD_BATCHED_RECURSIVE_INTERNAL_HPP
#define KSPD_BATCHED_RECURSIVE_INTERNAL_HPP
/// \file kspd_batched_recursive_internal.hpp
/// The pieces shared by the two-sided recursive batched operations (KBLAS, Charara et al.):
///  - when to recurse and where to split (rec_split: a power of two, as the paper advises);
///  - the batched GEMM every off-diagonal block becomes. A sub-block of a strided batch is a
///    strided batch with the same batch stride and the parent's strides, so one level's
///    off-diagonal work is one call: cuBLAS gemmStridedBatched when every matrix has a unit
///    stride (column- or row-major), else TileGemm, a register-tiled kernel of our own (one
///    thread per (matrix, 8 x 8, 8 x 4 or 4 x 4 tile of C: the tuning table's gemm_tile);
///    consecutive threads take consecutive matrices of a LayoutLeft batch-first View, so
///    every load is coalesced), or on host backends the per-matrix host BLAS loop;
///  - the info bookkeeping: the first leaf writes infos, later leaves (global column col0 + j)
///    write a scratch array that is merged into the matrices that have not failed yet.

#include <cstdint>
#include <limits>
#include <utility>

#include "kspd_batched_gemm_internal.hpp"
#include "kspd_batched_group_internal.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_stream_scratch.hpp"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSPD_NO_UNROLL _Pragma("unroll 1")
#else
#define KSPD_NO_UNROLL
#endif

namespace kspd::batched::Impl {

inline size_type leaf_size(const BatchOptions& o) { return o.leaf_size > 0 ? size_type(o.leaf_size) : 32; }

/// Whether an operation on matrices of order n (scalar T) takes the recursive path (never for
/// complex scalars: real_kernels_v).
template <class ExecSpace, class T>
bool use_recursion(const BatchOptions& o, size_type n) {
  if (!real_kernels_v<T> || o.recursion == BatchRecursion::Never || n <= leaf_size(o)) return false;
  if (o.recursion == BatchRecursion::Always) return true;
  return is_gpu_v<ExecSpace>;
}
/// The options the leaves (and nested operations on sub-blocks that must not recurse) get.
inline BatchOptions leaf_options(BatchOptions o) {
  o.recursion = BatchRecursion::Never;
  return o;
}

/// n1 of the split n = n1 + n2: the largest power of two below n, or half of it when n is
/// only slightly above a power of two (65 = 32 + 33, not 64 + 1: no thin trailing blocks).
inline size_type rec_split(size_type n) {
  size_type p = 1;
  while (2 * p < n) p *= 2;
  return n - p >= p / 2 ? p : p / 2;
}

/// C_b = alpha op(A_b) op(B_b) + beta C_b (C_b m x n, k inner), one thread per (matrix, TM x TN
/// tile of C) holding the tile in registers; each k step loads TM values of op(A) and TN of
/// op(B) for TM * TN FMAs, the k loop unrolled by KU. Two pointers walk along k; the tile's
/// rows of op(A) and columns of op(B) are offsets of type Off from them (int where they fit:
/// fewer registers, one IMAD.WIDE per address). Edge tiles read clamped rows / columns (the
/// last valid one: every address is valid, no predicates in the k loop) and store only the
/// valid part. tri = 1 (2) writes only the lower (upper) triangle of C and skips the
/// tiles outside it (SYRK). beta = 0 does not read C.
template <class T, int TM, int TN, int KU, class Off>
struct TileGemm {
  Trans ta, tb;
  T alpha, beta;
  BatchMat<const T> A, B;
  BatchMat<T> C;
  int m, n, k, tiles_m, tiles;
  size_type nbatch;
  int tri;
  bool batch_fast;  // consecutive threads on consecutive matrices (else on consecutive tiles)
  size_type chunk;  // batch_fast: the matrices a chunk of threads covers before the next tile
  bool idx32;       // every index fits in 32 bits (cheaper divisions)
  template <class I>
  KOKKOS_INLINE_FUNCTION static void split(I idx, I ch, I ntiles, size_type& b, int& t) {
    const I r = idx / ch;
    t = int(r % ntiles);
    b = size_type((r / ntiles) * ch + (idx - r * ch));
  }
  KOKKOS_INLINE_FUNCTION void operator()(const size_type idx) const {
    size_type b;
    int t;
    if (batch_fast) {  // idx = (chunk index, tile, matrix in the chunk), the last fastest
      if (idx32) split<unsigned>(unsigned(idx), unsigned(chunk), unsigned(tiles), b, t);
      else split<size_type>(idx, chunk, size_type(tiles), b, t);
      if (b >= nbatch) return;
    } else {
      b = idx / size_type(tiles);
      t = int(idx % size_type(tiles));
    }
    const int i0 = (t % tiles_m) * TM, j0 = (t / tiles_m) * TN;
    if (tri == 1 && i0 + TM - 1 < j0) return;
    if (tri == 2 && i0 > j0 + TN - 1) return;
    const Mat<const T> a = is_trans(ta) ? A.get(b, k, m).t() : A.get(b, m, k);
    const Mat<const T> bb = is_trans(tb) ? B.get(b, n, k).t() : B.get(b, k, n);
    const Mat<T> c = C.get(b, m, n);
    T acc[TM][TN];
    KSPD_UNROLL
    for (int i = 0; i < TM; ++i)
      KSPD_UNROLL
      for (int j = 0; j < TN; ++j) acc[i][j] = T(0);
    if (alpha != T(0)) {
      // op(A)(i, l) = pa[ao[i] + l * a.cs], op(B)(l, j) = pb[bo[j] + l * bb.rs].
      Off ao[TM], bo[TN];
      KSPD_UNROLL
      for (int i = 0; i < TM; ++i) ao[i] = Off(i0 + i < m ? i0 + i : m - 1) * Off(a.rs);
      KSPD_UNROLL
      for (int j = 0; j < TN; ++j) bo[j] = Off(j0 + j < n ? j0 + j : n - 1) * Off(bb.cs);
      const T* pa = a.p;
      const T* pb = bb.p;
      const offset_type sa = a.cs, sb = bb.rs;
      int l = 0;
      KSPD_NO_UNROLL  // the unrolling is KU's (more would keep more loads in flight than registers allow)
      for (; l + KU <= k; l += KU) {
        T av[KU][TM], bv[KU][TN];
        KSPD_UNROLL
        for (int u = 0; u < KU; ++u) {
          KSPD_UNROLL
          for (int i = 0; i < TM; ++i) av[u][i] = pa[u * sa + ao[i]];
          KSPD_UNROLL
          for (int j = 0; j < TN; ++j) bv[u][j] = pb[u * sb + bo[j]];
        }
        KSPD_UNROLL
        for (int u = 0; u < KU; ++u)
          KSPD_UNROLL
          for (int i = 0; i < TM; ++i)
            KSPD_UNROLL
            for (int j = 0; j < TN; ++j) acc[i][j] += av[u][i] * bv[u][j];
        pa += KU * sa;
        pb += KU * sb;
      }
      KSPD_NO_UNROLL
      for (; l < k; ++l) {
        T av[TM], bv[TN];
        KSPD_UNROLL
        for (int i = 0; i < TM; ++i) av[i] = pa[ao[i]];
        KSPD_UNROLL
        for (int j = 0; j < TN; ++j) bv[j] = pb[bo[j]];
        KSPD_UNROLL
        for (int i = 0; i < TM; ++i)
          KSPD_UNROLL
          for (int j = 0; j < TN; ++j) acc[i][j] += av[i] * bv[j];
        pa += sa;
        pb += sb;
      }
    }
    KSPD_UNROLL
    for (int j = 0; j < TN; ++j)
      KSPD_UNROLL
      for (int i = 0; i < TM; ++i) {
        const int gi = i0 + i, gj = j0 + j;
        if (gi >= m || gj >= n || (tri == 1 && gi < gj) || (tri == 2 && gi > gj)) continue;
        c(gi, gj) = beta == T(0) ? alpha * acc[i][j] : alpha * acc[i][j] + beta * c(gi, gj);
      }
  }
};

/// One TileGemm launch: blocks of at most 128 threads, MinB blocks per SM asked of the
/// register allocator (the 8 x 8 fp64 tile keeps 128 registers of accumulators). For
/// batch-fast data (LayoutLeft batch-first) the threads take `chunk` consecutive matrices
/// (coalesced loads) through every tile before the next chunk, so the tiles that share rows
/// of op(A) / columns of op(B) run together and re-read them from L2 (chunk = nbatch: one
/// sweep over the whole batch per tile, every tile re-reading its panels from memory).
template <int TM, int TN, int KU, int MinB, class Off = int, class ExecSpace, class T>
void tile_gemm_launch(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n,
                      size_type k, T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta,
                      const BatchMat<T>& C, int tri, int chunk = 0) {
  const int tm = int((m + TM - 1) / TM), tn = int((n + TN - 1) / TN);
  const bool batch_fast = C.batch_unit_stride();
  size_type ch = chunk > 0 ? size_type(chunk) : 32;
  if (ch > nbatch) ch = nbatch;
  const size_type nb_pad = batch_fast ? (nbatch + ch - 1) / ch * ch : nbatch;
  const size_type total = nb_pad * size_type(tm) * size_type(tn);
  if (total <= 0) return;
  Kokkos::parallel_for(
      "kspd::batched::gemm[tile]",
      Kokkos::RangePolicy<ExecSpace, Kokkos::LaunchBounds<128, MinB>, Kokkos::IndexType<size_type>>(exec, 0, total),
      TileGemm<T, TM, TN, KU, Off>{ta, tb, alpha, beta, A, B, C, int(m), int(n), int(k), tm, tm * tn, nbatch, tri,
                                   batch_fast, ch, total + ch < (size_type(1) << 32)});
}

/// The tiled batched GEMM with the register tile `tile` (Auto: auto_gemm_tile). The 8 x 4
/// tile puts its 8 rows along the longer side of C (C^T = op(B)^T op(A)^T when n > m). The
/// tiles use int offsets (rows of op(A) and columns of op(B) from the k-walking pointers);
/// where those do not fit in an int (e.g. a LayoutLeft batch-first NoTranspose B with
/// batch * k * n >= 2^31), the 4 x 4 tile with 64-bit offsets runs instead.
template <class ExecSpace, class T>
void tile_gemm(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k,
               T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta, const BatchMat<T>& C,
               int tri, GemmTile tile = GemmTile::Auto, int chunk = 0) {
  if (nbatch <= 0 || m <= 0 || n <= 0) return;
  // The largest offsets: (m - 1) * (row stride of op(A)), (n - 1) * (column stride of op(B)).
  const offset_type row_a = is_trans(ta) ? A.cs : A.rs, col_b = is_trans(tb) ? B.rs : B.cs;
  const offset_type lim = offset_type(std::numeric_limits<int>::max());
  if (offset_type(m) * row_a >= lim || offset_type(n) * col_b >= lim || row_a < 0 || col_b < 0) {
    tile_gemm_launch<4, 4, 2, 4, offset_type>(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, tri, chunk);
    return;
  }
  if (tile == GemmTile::Auto) tile = auto_gemm_tile(m, n, sizeof(T));
  switch (tile) {
    case GemmTile::T8x8:
      if constexpr (sizeof(T) >= 8)  // unrolling k as well would spill the 128 accumulator registers
        tile_gemm_launch<8, 8, 1, 1>(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, tri, chunk);
      else tile_gemm_launch<8, 8, 2, 1>(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, tri, chunk);
      return;
    case GemmTile::T8x4:
      if (n > m)
        tile_gemm_launch<8, 4, 2, 2>(exec, toggle(tb), toggle(ta), nbatch, n, m, k, alpha, B, A, beta, C.t(),
                                     tri == 1 ? 2 : tri == 2 ? 1 : 0, chunk);
      else tile_gemm_launch<8, 4, 2, 2>(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, tri, chunk);
      return;
    default: tile_gemm_launch<4, 4, 2, 4>(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, tri); return;
  }
}

/// A strided or fixed-ld pointer batch whose matrices (rows x cols) are column-major (false)
/// or row-major (true, i.e. the column-major storage of the transpose); false when neither.
template <class T>
bool orient_batch(BatchMat<T>& a, size_type rows, size_type cols, bool& transposed) {
  if (a.offs != nullptr || a.lds != nullptr) return false;
  const offset_type r = rows > 1 ? rows : 1, c = cols > 1 ? cols : 1;
  transposed = false;
  if (a.rs == 1 && a.cs >= r) return true;
  if (a.cs == 1 && a.rs >= c) {
    a = a.t();
    transposed = true;
    return true;
  }
  return false;
}

/// p[b] = A.ptrs[b] + A.off, likewise B and C at p + nbatch, p + 2 nbatch (the sub-block
/// pointers cuBLAS gemmBatched takes).
template <class T>
struct SubPointers {
  BatchMat<const T> A, B;
  BatchMat<T> C;
  std::uintptr_t* p;
  size_type nbatch;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    p[b] = reinterpret_cast<std::uintptr_t>(A.ptrs[b] + A.off);
    p[nbatch + b] = reinterpret_cast<std::uintptr_t>(B.ptrs[b] + B.off);
    p[2 * nbatch + b] = reinterpret_cast<std::uintptr_t>(C.ptrs[b] + C.off);
  }
};

/// Device scratch of `count` integers for the sub-block pointer arrays of cuBLAS gemmBatched
/// (one buffer per stream, kept across calls: core's Scratch).
template <class ExecSpace>
std::uintptr_t* pointer_scratch(const ExecSpace& exec, size_t count) {
  using kspd::Impl::ScratchSlot;
  const kspd::Impl::Scratch<ExecSpace> s(exec, count * sizeof(std::uintptr_t), ScratchSlot::BatchedGemmPointers,
                                         "kspd::batched::gemm::pointers", kspd::Impl::ScratchKeep::Always);
  return reinterpret_cast<std::uintptr_t*>(s.data());
}

/// cuBLAS on the batch when the backend has it and every operand has a unit stride per
/// matrix: gemmStridedBatched for strided batches, gemmBatched for pointer arrays (over
/// pointers to the sub-blocks, built on the device; H100 TRSM / POTRF at n = 192-256 on
/// pointer arrays ran the register-tiled kernel before, uncoalesced: fp64 TRSM 0.50-0.62x
/// cuBLAS against 1.34-1.57x on the same data as a strided batch). false: nothing launched.
template <class ExecSpace, class T>
bool vendor_gemm_batch(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n,
                       size_type k, T alpha, BatchMat<const T> A, BatchMat<const T> B, T beta, BatchMat<T> C) {
#ifdef KSPD_ENABLE_CUDA_TPLS
  if constexpr (compat::is_cuda_exec_v<ExecSpace> && kspd::is_blas_scalar<T>::value) {
    const bool ptr = C.ptrs != nullptr;
    if ((A.ptrs != nullptr) != ptr || (B.ptrs != nullptr) != ptr) return false;  // one kind of batch
    bool tc, tA, tB;
    if (!orient_batch(C, m, n, tc)) return false;
    if (tc) {  // C^T = op(B)^T op(A)^T
      std::swap(A, B);
      std::swap(m, n);
      const Trans t = ta;
      ta = toggle(tb);
      tb = toggle(t);
    }
    if (!orient_batch(A, is_trans(ta) ? k : m, is_trans(ta) ? m : k, tA)) return false;
    if (!orient_batch(B, is_trans(tb) ? n : k, is_trans(tb) ? k : n, tB)) return false;
    if (tA) ta = toggle(ta);
    if (tB) tb = toggle(tb);
    if (!ptr) {
      kspd::Impl::cuda::gemm_strided_batched(exec.cuda_stream(), to_char(ta), to_char(tb), m, n, k, alpha, A.base,
                                             A.cs, A.bs, B.base, B.cs, B.bs, beta, C.base, C.cs, C.bs, nbatch);
      return true;
    }
    std::uintptr_t* p = pointer_scratch(exec, size_t(3 * nbatch));
    Kokkos::parallel_for("kspd::batched::gemm::pointers",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, nbatch),
                         SubPointers<T>{A, B, C, p, nbatch});
    kspd::Impl::cuda::gemm_batched(exec.cuda_stream(), to_char(ta), to_char(tb), m, n, k, alpha,
                                   reinterpret_cast<const T* const*>(p), A.cs,
                                   reinterpret_cast<const T* const*>(p + nbatch), B.cs, beta,
                                   reinterpret_cast<T* const*>(p + 2 * nbatch), C.cs, nbatch);
    return true;
  }
#endif
  (void)exec, (void)ta, (void)tb, (void)nbatch, (void)m, (void)n, (void)k, (void)alpha, (void)A, (void)B, (void)beta,
      (void)C;
  return false;
}
template <class T>
bool vendor_gemm_layout(const BatchMat<const T>& A, const BatchMat<const T>& B, const BatchMat<T>& C) {
  auto unit = [](const auto& x) { return x.offs == nullptr && x.lds == nullptr && (x.rs == 1 || x.cs == 1); };
  const bool ptr = C.ptrs != nullptr;
  return unit(A) && unit(B) && unit(C) && (A.ptrs != nullptr) == ptr && (B.ptrs != nullptr) == ptr;
}
template <class ExecSpace, class T>
constexpr bool has_vendor_batch_gemm() {
#ifdef KSPD_ENABLE_CUDA_TPLS
  return compat::is_cuda_exec_v<ExecSpace> && kspd::is_blas_scalar<T>::value;
#else
  return false;
#endif
}

/// The batched GEMM of the recursion (and of gemm(), Auto, on GPUs).
template <class T>
struct GemmOp;
template <class ExecSpace, class T>
void batch_gemm(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k,
                T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta, const BatchMat<T>& C,
                const BatchOptions& opts) {
  if (nbatch <= 0 || m <= 0 || n <= 0) return;
  if (vendor_gemm_batch(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C)) return;
  if (is_gpu_v<ExecSpace> || opts.algo != BatchAlgo::Auto) {
    const Tuning tu = tuning<ExecSpace, T>(m > n ? m : n);
    tile_gemm(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, 0, tu.gemm_tile, tu.gemm_chunk);
    return;
  }
  Dims d;
  d.m = m;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::gemm", nbatch, GemmOp<T>{ta, tb, alpha, beta, A, B, C, d}, nullptr, opts,
         m > n ? m : n);
}

/// infos(b) = col0 + part(b) where matrix b has not failed before and fails now.
struct InfoMerge {
  int* infos;
  const int* part;
  int col0;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    if (infos[b] == 0 && part[b] != 0) infos[b] = col0 + part[b];
  }
};
/// Where the leaves of a recursive factorization report: the caller's infos (may be null)
/// and a scratch array for the leaves that start at a column col0 > 0.
template <class ExecSpace>
struct RecInfo {
  int* infos = nullptr;
  Kokkos::View<int*, typename ExecSpace::memory_space> part;
  RecInfo() = default;
  RecInfo(int* p, size_type nbatch) : infos(p) {
    if (p != nullptr && nbatch > 0)
      part = decltype(part)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::infos"), size_t(nbatch));
  }
  /// The array a leaf starting at column col0 writes.
  int* leaf(size_type col0) const { return infos == nullptr ? nullptr : col0 == 0 ? infos : part.data(); }
  void merge(const ExecSpace& exec, size_type nbatch, size_type col0) const {
    if (infos == nullptr || col0 == 0 || nbatch <= 0) return;
    Kokkos::parallel_for("kspd::batched::info_merge",
                         Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, nbatch),
                         InfoMerge{infos, part.data(), int(col0)});
  }
  /// The same for the matrices from b0 on (a chunk of the batch). The chunks run one after
  /// another on the stream, so each reuses the scratch from its start.
  RecInfo shifted(size_type b0) const {
    RecInfo r = *this;
    if (infos != nullptr) r.infos = infos + b0;
    return r;
  }
};

}  // namespace kspd::batched::Impl
#endif
