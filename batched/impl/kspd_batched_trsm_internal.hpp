#ifndef KSPD_BATCHED_TRSM_INTERNAL_HPP
#define KSPD_BATCHED_TRSM_INTERNAL_HPP
/// \file kspd_batched_trsm_internal.hpp
/// TRSM and TRMM on one small matrix (raw pointer + strides), serial and team flavours.
/// Every (side, uplo, trans) variant is reduced by stride swaps to Left/NoTranspose:
///   X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T    (Right -> Left on B^T)
///   A^T as a Mat is A with swapped strides, whose stored triangle is the other one.
/// Complex scalars: op(A) = A^H reads conj(A) through the same stride swap; Right with A^H
/// becomes Left with (A^H)^T = conj(A). Either way the reduced problem reads conj(A) exactly
/// when trans == ConjTranspose, so the kernels take one `cj` flag (inert for real scalars).

#include "kspd_batched_mat.hpp"

namespace kspd::batched::Impl {

using kspd::Impl::conj_if;
using kspd::Impl::herm_trans;
using kspd::Impl::real_part;

/// Reduces (side, uplo, trans) to a Left, NoTranspose problem on (A, B); returns lower?
/// The reduced problem reads conj(A) when trans == ConjTranspose (complex scalars).
template <class T>
KOKKOS_INLINE_FUNCTION bool reduce_left_notrans(Side side, Uplo uplo, Trans trans, Mat<const T>& A, Mat<T>& B) {
  if (side == Side::Right) {
    B = B.t();
    trans = toggle(trans);
  }
  if (is_trans(trans)) {
    A = A.t();
    uplo = flip(uplo);
  }
  return uplo == Uplo::Lower;
}

/// The reduced lower / upper Left solve with conj(A) read when CJ. Complex scalars go row by
/// row (every column of row i, then row i+1: the rows above are final for all columns) so that
/// one complex division per row replaces one per element (a division costs tens of flops).
template <bool CJ, class T>
KOKKOS_INLINE_FUNCTION void serial_trsm_left(bool lower, bool unit, T alpha, const Mat<const T>& A, const Mat<T>& B) {
  const int m = int(B.m), n = int(B.n);
  if constexpr (is_complex_v<T>) {
    for (int s = 0; s < m; ++s) {
      const int i = lower ? s : m - 1 - s;
      const int k0 = lower ? 0 : i + 1, k1 = lower ? i : m;
      const T r = unit ? T(1) : T(1) / conj_if(CJ, A(i, i));
      for (int j = 0; j < n; ++j) {
        T acc = alpha * B(i, j);
        for (int k = k0; k < k1; ++k) acc -= conj_if(CJ, A(i, k)) * B(k, j);
        B(i, j) = acc * r;
      }
    }
  } else {
    for (int j = 0; j < n; ++j) {
      if (lower) {
        for (int i = 0; i < m; ++i) {
          T acc = alpha * B(i, j);
          for (int k = 0; k < i; ++k) acc -= A(i, k) * B(k, j);
          B(i, j) = unit ? acc : acc / A(i, i);
        }
      } else {
        for (int i = m - 1; i >= 0; --i) {
          T acc = alpha * B(i, j);
          for (int k = i + 1; k < m; ++k) acc -= A(i, k) * B(k, j);
          B(i, j) = unit ? acc : acc / A(i, i);
        }
      }
    }
  }
}

/// Solves op(A) X = alpha B (Left) or X op(A) = alpha B (Right); X overwrites B.
template <class T>
KOKKOS_INLINE_FUNCTION void serial_trsm(Side side, Uplo uplo, Trans trans, Diag diag, T alpha, Mat<const T> A,
                                        Mat<T> B) {
  const bool cj = is_complex_v<T> && is_conj(trans);
  const bool lower = reduce_left_notrans(side, uplo, trans, A, B);
  const bool unit = diag == Diag::Unit;
  if (cj) serial_trsm_left<true, T>(lower, unit, alpha, A, B);
  else serial_trsm_left<false, T>(lower, unit, alpha, A, B);
}

/// Team TRSM: column-oriented substitution, one barrier per step. In step k the rows below
/// (lower) take B(k,:)'s contribution, and the next pivot row is divided by its diagonal by
/// the same thread that finishes it, so no row is written while another thread reads it.
template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_trsm(const Member& member, Side side, Uplo uplo, Trans trans, Diag diag, T alpha,
                                      Mat<const T> A, Mat<T> B) {
  const bool cj = is_conj(trans);
  const bool lower = reduce_left_notrans(side, uplo, trans, A, B);
  const bool unit = diag == Diag::Unit;
  const int m = int(B.m), n = int(B.n);
  if (m == 0 || n == 0) return;
  const int first = lower ? 0 : m - 1;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m * n), [&](const int idx) {
    const int i = idx % m, j = idx / m;
    B(i, j) = (unit || i != first) ? alpha * B(i, j) : alpha * B(i, j) / conj_if(cj, A(i, i));
  });
  member.team_barrier();
  for (int s = 0; s < m - 1; ++s) {
    const int k = lower ? s : m - 1 - s;
    const int rows = m - 1 - s;  // rows still to update: below k (lower) or above k (upper)
    const int next = lower ? k + 1 : k - 1;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows * n), [&](const int idx) {
      const int r = idx % rows, j = idx / rows;
      const int i = lower ? k + 1 + r : r;
      T v = B(i, j) - conj_if(cj, A(i, k)) * B(k, j);
      if (i == next && !unit) v /= conj_if(cj, A(i, i));
      B(i, j) = v;
    });
    member.team_barrier();
  }
}

/// B = alpha op(A) B (Left) or B = alpha B op(A) (Right), A triangular.
template <class T>
KOKKOS_INLINE_FUNCTION void serial_trmm(Side side, Uplo uplo, Trans trans, Diag diag, T alpha, Mat<const T> A,
                                        Mat<T> B) {
  // B op(A) = (op(A)^T B^T)^T: the same reduction as TRSM.
  const bool lower = reduce_left_notrans(side, uplo, trans, A, B);
  const bool unit = diag == Diag::Unit;
  const int m = int(B.m), n = int(B.n);
  for (int j = 0; j < n; ++j) {
    if (lower) {  // row i needs rows k <= i: go bottom-up
      for (int i = m - 1; i >= 0; --i) {
        T s = unit ? B(i, j) : A(i, i) * B(i, j);
        for (int k = 0; k < i; ++k) s += A(i, k) * B(k, j);
        B(i, j) = alpha * s;
      }
    } else {
      for (int i = 0; i < m; ++i) {
        T s = unit ? B(i, j) : A(i, i) * B(i, j);
        for (int k = i + 1; k < m; ++k) s += A(i, k) * B(k, j);
        B(i, j) = alpha * s;
      }
    }
  }
}

/// Team TRMM: column-oriented, one barrier per step. Lower: step k = m-1..0 adds
/// A(i,k) B(k,:) to the rows i > k, and row k+1 (whose last reader was step k+1) takes its
/// diagonal factor in the same pass; row 0 (m-1 when upper) is scaled at the end.
template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_trmm(const Member& member, Side side, Uplo uplo, Trans trans, Diag diag, T alpha,
                                      Mat<const T> A, Mat<T> B) {
  const bool lower = reduce_left_notrans(side, uplo, trans, A, B);
  const bool unit = diag == Diag::Unit;
  const int m = int(B.m), n = int(B.n);
  if (m == 0 || n == 0) return;
  for (int s = 0; s < m; ++s) {
    const int k = lower ? m - 1 - s : s;
    const int rows = s;  // rows above k's "done" side: i in (k, m) for lower, [0, k) for upper
    const int scaled = lower ? k + 1 : k - 1;
    if (rows > 0) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows * n), [&](const int idx) {
        const int r = idx % rows, j = idx / rows;
        const int i = lower ? k + 1 + r : r;
        const T bij = (i == scaled && !unit) ? A(i, i) * B(i, j) : B(i, j);
        B(i, j) = bij + A(i, k) * B(k, j);
      });
    }
    member.team_barrier();
  }
  const int last = lower ? 0 : m - 1;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m * n), [&](const int idx) {
    const int i = idx % m, j = idx / m;
    const T bij = (i == last && !unit) ? A(i, i) * B(i, j) : B(i, j);
    B(i, j) = alpha * bij;
  });
  member.team_barrier();
}

}  // namespace kspd::batched::Impl
#endif
