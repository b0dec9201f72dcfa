#ifndef KSPD_BATCHED_POTRF_INTERNAL_HPP
#define KSPD_BATCHED_POTRF_INTERNAL_HPP
/// \file kspd_batched_potrf_internal.hpp
/// Cholesky of one small matrix (raw pointer + strides), serial and team flavours, and the
/// operations built on it: POTRS (any nrhs) and POSV. Upper is Lower on A^T (a stride swap):
/// the upper triangle of A read transposed is the lower triangle of A^T = A, and U = L^T.

#include "kspd_batched_trsm_internal.hpp"

namespace kspd::batched::Impl {

/// A = L L^T (Lower) or U^T U (Upper) in place. Returns 0, or the 1-based column whose
/// pivot is not positive (LAPACK's info); columns before it hold the partial factor.
template <class T>
KOKKOS_INLINE_FUNCTION int serial_potrf(Uplo uplo, Mat<T> A) {
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  // Left-looking (Crout): column j reads only finished columns, so the loop is in place.
  for (int j = 0; j < n; ++j) {
    T d = A(j, j);
    for (int k = 0; k < j; ++k) d -= A(j, k) * A(j, k);
    if (!(d > T(0))) {  // also catches NaN
      A(j, j) = d;
      return j + 1;
    }
    d = compat::sqrt(d);
    A(j, j) = d;
    const T r = T(1) / d;
    for (int i = j + 1; i < n; ++i) {
      T s = A(i, j);
      for (int k = 0; k < j; ++k) s -= A(i, k) * A(j, k);
      A(i, j) = s * r;
    }
  }
  return 0;
}

/// Team Cholesky: right-looking, two barriers per column. Every thread reads the pivot after
/// a barrier, so all threads take the same early return.
template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_potrf(const Member& member, Uplo uplo, Mat<T> A) {
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  for (int k = 0; k < n; ++k) {
    const T d = A(k, k);
    if (!(d > T(0))) {
      member.team_barrier();  // nobody returns while another thread still reads A(k,k)
      return k + 1;
    }
    const T s = compat::sqrt(d), r = T(1) / s;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, k + 1, n), [&](const int i) { A(i, k) *= r; });
    member.team_barrier();
    // Trailing update of the lower triangle, one row per thread; the diagonal entry A(k,k)
    // is written here, after every thread has read it.
    const int rows = n - k;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows), [&](const int r0) {
      const int i = k + r0;
      if (i == k) {
        A(k, k) = s;
        return;
      }
      const T aik = A(i, k);
      for (int j = k + 1; j <= i; ++j) A(i, j) -= aik * A(j, k);
    });
    member.team_barrier();
  }
  return 0;
}

/// Solves A X = B with A's Cholesky factor (from potrf with the same uplo); X overwrites B.
template <class T>
KOKKOS_INLINE_FUNCTION void serial_potrs(Uplo uplo, const Mat<const T>& A, const Mat<T>& B) {
  if (uplo == Uplo::Lower) {
    serial_trsm(Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
    serial_trsm(Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), A, B);
  } else {
    serial_trsm(Side::Left, Uplo::Upper, Trans::Transpose, Diag::NonUnit, T(1), A, B);
    serial_trsm(Side::Left, Uplo::Upper, Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
  }
}
template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_potrs(const Member& member, Uplo uplo, const Mat<const T>& A, const Mat<T>& B) {
  if (uplo == Uplo::Lower) {
    team_trsm(member, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
    team_trsm(member, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), A, B);
  } else {
    team_trsm(member, Side::Left, Uplo::Upper, Trans::Transpose, Diag::NonUnit, T(1), A, B);
    team_trsm(member, Side::Left, Uplo::Upper, Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
  }
}

/// A = chol(A), then X = A^-1 B in B. Returns potrf's info (B untouched when info > 0).
template <class T>
KOKKOS_INLINE_FUNCTION int serial_posv(Uplo uplo, const Mat<T>& A, const Mat<T>& B) {
  const int info = serial_potrf(uplo, A);
  if (info == 0) serial_potrs<T>(uplo, A, B);
  return info;
}
template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_posv(const Member& member, Uplo uplo, const Mat<T>& A, const Mat<T>& B) {
  const int info = team_potrf(member, uplo, A);
  if (info == 0) team_potrs<Member, T>(member, uplo, A, B);
  return info;
}

}  // namespace kspd::batched::Impl
#endif
