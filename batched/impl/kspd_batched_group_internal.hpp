#ifndef KSPD_BATCHED_GROUP_INTERNAL_HPP
#define KSPD_BATCHED_GROUP_INTERNAL_HPP
/// \file kspd_batched_group_internal.hpp
/// GPU kernels for 8 < n <= 32 (size classes N = 16, 32; n padded up with an identity block):
///  - GroupPotrf: a group of N threads owns one matrix, one column per thread held in a
///    compile-time array (registers); M = 128 / N matrices per team. The team loads its M
///    matrices through shared memory with consecutive threads on consecutive addresses
///    (consecutive matrices for a LayoutLeft batch-first View), then factors right-looking:
///    in step k the owner of column k finishes it and publishes it in shared memory, and after
///    one barrier every later column applies its rank-1 update from there. The k and i loops
///    are unrolled so the column never leaves registers.
///  - StreamTrsm / StreamPotrs: one thread per (matrix, right-hand side or group of them),
///    the solution in registers, A streamed from memory in unrolled loops; consecutive threads
///    take consecutive matrices, so every load is coalesced for a LayoutLeft batch-first View.
///    StreamTrsm also takes 32 < n <= 64 (size classes 48, 64) when asked to.

#include "kspd_batched_trsm_internal.hpp"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSPD_UNROLL _Pragma("unroll")
#else
#define KSPD_UNROLL
#endif

namespace kspd::batched::Impl {

template <int N>
struct GroupShape {
  static constexpr int M = 128 / N;   // matrices per team
  static constexpr int LD = N + 1;    // padded row of the shared tile: no bank conflicts
  static constexpr int team_size = M * N;
  template <class T>
  KOKKOS_INLINE_FUNCTION static constexpr size_t scratch_bytes() {
    return sizeof(T) * size_t(M) * N * LD + sizeof(int) * size_t(M);
  }
};

/// Orders one factorization step's shared-memory writes before the next step's reads among
/// the threads of one matrix. On CUDA those N <= 32 threads lie in one warp (vector length 1:
/// team ranks are consecutive threads, and a group starts at a multiple of N), so a warp
/// barrier suffices and warps of other matrices run on; a team barrier elsewhere, or when
/// asked for (kWarpSync false).
template <bool kWarpSync, class Member>
KOKKOS_INLINE_FUNCTION void group_step_sync(const Member& member) {
#if defined(__CUDA_ARCH__)
  if constexpr (kWarpSync) {
    __syncwarp();
    return;
  }
#endif
  member.team_barrier();
}

template <int N, class T, bool kWarpSync = true>
struct GroupPotrf {
  using S = GroupShape<N>;
  Uplo uplo;
  BatchMat<T> A;
  int n;
  size_type nbatch;
  int* infos;

  KOKKOS_INLINE_FUNCTION Mat<T> mat(size_type b) const {
    Mat<T> a = A.get(b, n, n);
    return uplo == Uplo::Upper ? a.t() : a;
  }
  /// Element e of the team's tile -> (matrix, i, j), ordered so that consecutive e are
  /// consecutive addresses in memory.
  KOKKOS_INLINE_FUNCTION void decode(int e, bool mat_fast, bool row_fast, int& m, int& i, int& j) const {
    int r;
    if (mat_fast) {
      m = e % S::M;
      r = e / S::M;
    } else {
      m = e / (N * N);
      r = e % (N * N);
    }
    if (row_fast) {
      i = r % N;
      j = r / N;
    } else {
      j = r % N;
      i = r / N;
    }
  }

  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    char* base = static_cast<char*>(member.team_shmem().get_shmem(S::template scratch_bytes<T>()));
    T* sh = reinterpret_cast<T*>(base);
    int* ish = reinterpret_cast<int*>(base + sizeof(T) * size_t(S::M) * N * S::LD);
    const int tr = member.team_rank();
    const size_type b0 = size_type(member.league_rank()) * S::M;
    const Mat<T> a0 = mat(b0);
    const bool mat_fast = A.batch_unit_stride() && !(a0.rs == 1 || a0.cs == 1);
    const bool row_fast = a0.rs <= a0.cs;
    for (int e = tr; e < S::M * N * N; e += S::team_size) {
      int m, i, j;
      decode(e, mat_fast, row_fast, m, i, j);
      if (i < j) continue;
      const size_type b = b0 + m;
      T v = i == j ? T(1) : T(0);
      if (b < nbatch && i < n && j < n) v = mat(b)(i, j);
      sh[(m * N + i) * S::LD + j] = v;
    }
    if (tr < S::M) ish[tr] = 0;
    member.team_barrier();

    const int m = tr / N, j = tr % N;
    T* t = sh + m * N * S::LD;
    T col[N];
    KSPD_UNROLL
    for (int i = 0; i < N; ++i) col[i] = i >= j ? t[i * S::LD + j] : T(0);
    KSPD_UNROLL
    for (int k = 0; k < N; ++k) {
      if (j == k) {
        const T d = col[k];
        if (!(d > T(0)) && ish[m] == 0) ish[m] = k + 1;  // steps are ordered: the first failure wins
        const T s = compat::sqrt(d), inv = T(1) / s;
        col[k] = s;
        t[k * S::LD + k] = s;
        KSPD_UNROLL
        for (int i = k + 1; i < N; ++i) {
          col[i] *= inv;
          t[i * S::LD + k] = col[i];
        }
      }
      group_step_sync<kWarpSync>(member);
      if (j > k) {
        const T ljk = t[j * S::LD + k];
        KSPD_UNROLL
        for (int i = k + 1; i < N; ++i)
          if (i >= j) col[i] -= t[i * S::LD + k] * ljk;
      }
    }
    // Column k of the tile was final after step k; one barrier makes all of it visible.
    member.team_barrier();
    for (int e = tr; e < S::M * N * N; e += S::team_size) {
      int mm, i, jj;
      decode(e, mat_fast, row_fast, mm, i, jj);
      const size_type b = b0 + mm;
      if (i < jj || b >= nbatch || i >= n || jj >= n) continue;
      const int info = ish[mm];
      if (info == 0 || jj < info - 1) mat(b)(i, jj) = sh[(mm * N + i) * S::LD + jj];
    }
    if (j == 0 && infos != nullptr && b0 + m < nbatch) infos[b0 + m] = ish[m];
  }
};

/// Thread order of the streaming kernels: the threads of a chunk of kStreamChunk consecutive
/// matrices take every column group before the next chunk starts. Consecutive threads still
/// read consecutive matrices (coalesced for a LayoutLeft batch-first View), and a matrix's
/// triangle, loaded from memory by its first column group, is served from L1 to the others
/// (with matrix-fastest order over the whole batch each column group re-read A from memory).
constexpr int kStreamChunk = 32;
/// Threads launched for nbatch matrices and ngroups column groups in that order.
inline size_type stream_threads(size_type nbatch, size_type ngroups) {
  return (nbatch + kStreamChunk - 1) / kStreamChunk * kStreamChunk * ngroups;
}
/// Thread idx -> (matrix b, column group g); b >= nbatch for the padding of the last chunk.
KOKKOS_INLINE_FUNCTION void stream_decode(size_type idx, int ngroups, size_type& b, int& g) {
  const size_type per_chunk = size_type(kStreamChunk) * ngroups;
  const size_type chunk = idx / per_chunk;
  const int rem = int(idx - chunk * per_chunk);
  g = rem / kStreamChunk;
  b = chunk * kStreamChunk + rem % kStreamChunk;
}

/// Op(A) X = alpha B reduced to a lower solve (see RegTrsm); one thread per (matrix, group of R
/// columns). Each element of A read from memory feeds R multiply-adds (R = 1, 2, 4), and a
/// reciprocal of the diagonal replaces R divisions.
template <int N, int R, class T>
struct StreamTrsm {
  Side side;
  Uplo uplo;
  Trans trans;
  Diag diag;
  T alpha;
  BatchMat<const T> A;
  BatchMat<T> B;
  int m, n;
  size_type nbatch;
  int ngroups;  // ceil(columns of the reduced X / R)
  KOKKOS_INLINE_FUNCTION void operator()(const size_type idx) const {
    size_type b;
    int g;
    stream_decode(idx, ngroups, b, g);
    if (b >= nbatch) return;
    const int k = side == Side::Left ? m : n;
    Mat<const T> a = A.get(b, k, k);
    Mat<T> x = B.get(b, m, n);
    const bool lower = reduce_left_notrans(side, uplo, trans, a, x);
    const bool unit = diag == Diag::Unit;
    const int c0 = g * R, nc = int(x.n);
    T v[R][N];
    KSPD_UNROLL
    for (int r = 0; r < R; ++r) {
      KSPD_UNROLL
      for (int i = 0; i < N; ++i) v[r][i] = (i < k && c0 + r < nc) ? alpha * x(lower ? i : k - 1 - i, c0 + r) : T(0);
    }
    KSPD_UNROLL
    for (int i = 0; i < N; ++i) {
      if (i < k) {
        const int ii = lower ? i : k - 1 - i;
        T s[R];
        KSPD_UNROLL
        for (int r = 0; r < R; ++r) s[r] = v[r][i];
        KSPD_UNROLL
        for (int l = 0; l < i; ++l) {
          const T ail = a(ii, lower ? l : k - 1 - l);
          KSPD_UNROLL
          for (int r = 0; r < R; ++r) s[r] -= ail * v[r][l];
        }
        const T dinv = unit ? T(1) : T(1) / a(ii, ii);
        KSPD_UNROLL
        for (int r = 0; r < R; ++r) v[r][i] = s[r] * dinv;
      }
    }
    KSPD_UNROLL
    for (int r = 0; r < R; ++r) {
      if (c0 + r < nc) {
        KSPD_UNROLL
        for (int i = 0; i < N; ++i)
          if (i < k) x(lower ? i : k - 1 - i, c0 + r) = v[r][i];
      }
    }
  }
};

/// L L^T x = b (L = U^T for Upper); one thread per (matrix, column), both sweeps read L by rows.
template <int N, class T>
struct StreamPotrs {
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  int n, nrhs;
  size_type nbatch;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type idx) const {
    size_type b;
    int c;
    stream_decode(idx, nrhs, b, c);
    if (b >= nbatch) return;
    Mat<const T> a = A.get(b, n, n);
    if (uplo == Uplo::Upper) a = a.t();
    const Mat<T> x = B.get(b, n, nrhs);
    T v[N];
    KSPD_UNROLL
    for (int i = 0; i < N; ++i) v[i] = i < n ? x(i, c) : T(0);
    KSPD_UNROLL
    for (int i = 0; i < N; ++i) {  // L y = b, row by row
      if (i < n) {
        T s = v[i];
        KSPD_UNROLL
        for (int l = 0; l < i; ++l) s -= a(i, l) * v[l];
        v[i] = s / a(i, i);
      }
    }
    KSPD_UNROLL
    for (int k = N - 1; k >= 0; --k) {  // L^T x = y, column-oriented: again row k of L
      if (k < n) {
        v[k] /= a(k, k);
        KSPD_UNROLL
        for (int i = 0; i < k; ++i) v[i] -= a(k, i) * v[k];
      }
    }
    KSPD_UNROLL
    for (int i = 0; i < N; ++i)
      if (i < n) x(i, c) = v[i];
  }
};

}  // namespace kspd::batched::Impl
#endif
