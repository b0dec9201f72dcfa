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
///    StreamTrsm also takes 32 < n <= 64 (size classes 48, 64) when asked to, and both take
///    a size class 24 for 16 < n <= 24 when asked to (Tuning::stream_class24); on host
///    backends they run for BatchAlgo::Register with 8 < n <= 64 (so the CPU tests check them).

#include "kspd_batched_trsm_operands.hpp"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSPD_UNROLL _Pragma("unroll")
#else
#define KSPD_UNROLL
#endif

namespace kspd::batched::Impl {

template <int N, int TS = 128>
struct GroupShape {
  static_assert(TS % N == 0 && TS >= N, "GroupShape: the team size must be a multiple of N");
  static constexpr int M = TS / N;    // matrices per team
  static constexpr int LD = N + 1;    // padded row of the shared tile: no bank conflicts
  static constexpr int team_size = M * N;
  template <class T>
  KOKKOS_INLINE_FUNCTION static constexpr size_t scratch_bytes() {
    return sizeof(T) * size_t(M) * N * LD + sizeof(int) * size_t(M);
  }
};

/// How the group POTRF orders its steps among the N threads of one matrix (BatchPotrfGroup
/// without Auto): a team barrier per step; a warp barrier per step (on CUDA the N <= 32
/// threads of a matrix lie in one warp: vector length 1, team ranks are consecutive threads
/// and a group starts at a multiple of N, so warps of other matrices run on); or no barrier
/// at all, column k broadcast from its owner's registers with warp shuffles (the shared tile
/// then only stages the coalesced load and store). Off CUDA the last two run as the first.
enum class GroupSync { Team, Warp, Shuffle };

template <GroupSync kSync, class Member>
KOKKOS_INLINE_FUNCTION void group_step_sync(const Member& member) {
#if defined(__CUDA_ARCH__)
  if constexpr (kSync != GroupSync::Team) {
    __syncwarp();
    return;
  }
#endif
  member.team_barrier();
}

template <int N, class T, GroupSync kSync = GroupSync::Team, int TS = 128>
struct GroupPotrf {
  using S = GroupShape<N, TS>;
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

#if defined(__CUDA_ARCH__)
  /// Right-looking Cholesky of the column col (thread j of its group) with column k broadcast
  /// by warp shuffles of width N from lane k of the group: every thread computes the pivot's
  /// square root and the first failing step (so no shared flag), the owner scales its column,
  /// and in one pass over i (increasing) each later column picks up l_jk at i = j and then
  /// applies l_ik l_jk to its rows i >= j. All lanes of the warp run every shuffle.
  __device__ int factor_shuffle(T (&col)[N], int j) const {
    constexpr unsigned full = 0xffffffffu;
    int info = 0;
    KSPD_UNROLL
    for (int k = 0; k < N; ++k) {
      const T d = __shfl_sync(full, col[k], k, N);
      if (!(d > T(0)) && info == 0) info = k + 1;
      const T s = compat::sqrt(d), inv = T(1) / s;
      if (j == k) {
        col[k] = s;
        KSPD_UNROLL
        for (int i = k + 1; i < N; ++i) col[i] *= inv;
      }
      T ljk = T(0);
      KSPD_UNROLL
      for (int i = k + 1; i < N; ++i) {
        const T lik = __shfl_sync(full, col[i], k, N);
        if (i == j) ljk = lik;
        if (j > k && i >= j) col[i] -= lik * ljk;
      }
    }
    return info;
  }
#endif

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
#if defined(__CUDA_ARCH__)
    if constexpr (kSync == GroupSync::Shuffle) {
      const int info = factor_shuffle(col, j);
      KSPD_UNROLL
      for (int i = 0; i < N; ++i)
        if (i >= j) t[i * S::LD + j] = col[i];
      if (j == 0) ish[m] = info;
    } else
#endif
    {
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
        group_step_sync<kSync>(member);
        if (j > k) {
          const T ljk = t[j * S::LD + k];
          KSPD_UNROLL
          for (int i = k + 1; i < N; ++i)
            if (i >= j) col[i] -= t[i * S::LD + k] * ljk;
        }
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

/// Thread order of the streaming kernels: the threads of a chunk of `chunk` consecutive
/// matrices take every column group before the next chunk starts (Tuning::stream_chunk;
/// chunk = nbatch is the plain order, matrix fastest over the whole batch). Consecutive
/// threads read consecutive matrices either way (coalesced for a LayoutLeft batch-first
/// View); with small chunks a matrix's triangle, loaded from memory by its first column group,
/// can be served from L1/L2 to the others.
inline size_type stream_chunk(size_type opt, size_type nbatch) {
  return opt > 0 && opt < nbatch ? opt : (nbatch > 0 ? nbatch : 1);
}
/// Threads launched for nbatch matrices and ngroups column groups in that order.
inline size_type stream_threads(size_type nbatch, size_type chunk, size_type ngroups) {
  return (nbatch + chunk - 1) / chunk * chunk * ngroups;
}
/// Thread idx -> (matrix b, column group g); b >= nbatch for the padding of the last chunk.
KOKKOS_INLINE_FUNCTION void stream_decode(size_type idx, size_type chunk, int ngroups, size_type& b, int& g) {
  const size_type per_chunk = chunk * ngroups;
  const size_type c = idx / per_chunk;
  const size_type rem = idx - c * per_chunk;
  const size_type gg = rem / chunk;
  g = int(gg);
  b = c * chunk + (rem - gg * chunk);
}

/// Op(A) X = alpha B reduced to a lower solve (see RegTrsm); one thread per (matrix, group of R
/// columns). Each element of A read from memory feeds R multiply-adds (R = 1, 2, 4), and a
/// reciprocal of the diagonal replaces R divisions.
template <int N, int R, class T>
struct StreamTrsm {
  TrsmOperands<T> op;
  size_type nbatch;
  int ngroups;      // ceil(columns of the reduced X / R)
  size_type chunk;  // see stream_decode
  KOKKOS_INLINE_FUNCTION void operator()(const size_type idx) const {
    size_type b;
    int g;
    stream_decode(idx, chunk, ngroups, b, g);
    if (b >= nbatch) return;
    const LowerSolve<T> p = lower_solve(op, b);
    const Mat<const T>& a = p.a;
    const Mat<T>& x = p.x;
    const int k = p.k, c0 = g * R, nc = p.ncols;
    const bool unit = op.diag == Diag::Unit;
    T v[R][N];
    KSPD_UNROLL
    for (int r = 0; r < R; ++r) {
      KSPD_UNROLL
      for (int i = 0; i < N; ++i) v[r][i] = (i < k && c0 + r < nc) ? op.alpha * x(i, c0 + r) : T(0);
    }
    KSPD_UNROLL
    for (int i = 0; i < N; ++i) {
      if (i < k) {
        T s[R];
        KSPD_UNROLL
        for (int r = 0; r < R; ++r) s[r] = v[r][i];
        KSPD_UNROLL
        for (int l = 0; l < i; ++l) {
          const T ail = a(i, l);
          KSPD_UNROLL
          for (int r = 0; r < R; ++r) s[r] -= ail * v[r][l];
        }
        const T dinv = unit ? T(1) : T(1) / a(i, i);
        KSPD_UNROLL
        for (int r = 0; r < R; ++r) v[r][i] = s[r] * dinv;
      }
    }
    KSPD_UNROLL
    for (int r = 0; r < R; ++r) {
      if (c0 + r < nc) {
        KSPD_UNROLL
        for (int i = 0; i < N; ++i)
          if (i < k) x(i, c0 + r) = v[r][i];
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
  size_type chunk;  // see stream_decode
  KOKKOS_INLINE_FUNCTION void operator()(const size_type idx) const {
    size_type b;
    int c;
    stream_decode(idx, chunk, nrhs, b, c);
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
