#ifndef KSPD_BATCHED_TRTRI_INTERNAL_HPP
#define KSPD_BATCHED_TRTRI_INTERNAL_HPP
/// \file kspd_batched_trtri_internal.hpp
/// Triangular inverse, LAUUM (L^T L / U U^T) and the SPD inverse built from them
/// (POTRI = TRTRI + LAUUM, POTI = POTRF + POTRI) on one small matrix, serial and team.
/// Upper is Lower on A^T: inv(U) = inv(U^T)^T, and U U^T = (U^T)^T (U^T).

#include "kspd_batched_potrf_internal.hpp"

namespace kspd::batched::Impl {

/// 1-based index of the first exactly zero diagonal entry (LAPACK trtri's info), else 0.
template <class T>
KOKKOS_INLINE_FUNCTION int zero_diagonal(Diag diag, const Mat<T>& A) {
  if (diag == Diag::Unit) return 0;
  for (int i = 0; i < int(A.n); ++i)
    if (A(i, i) == T(0)) return i + 1;
  return 0;
}

/// A = inv(A) in place (LAPACK dtrti2): column j = n-1..0 of the inverse is
/// -inv(A(j,j)) * inv(A22) * A(j+1:n, j), with inv(A22) already in place.
template <class T>
KOKKOS_INLINE_FUNCTION int serial_trtri(Uplo uplo, Diag diag, Mat<T> A) {
  const int info = zero_diagonal(diag, A);
  if (info != 0) return info;
  if (uplo == Uplo::Upper) A = A.t();
  const bool unit = diag == Diag::Unit;
  const int n = int(A.n);
  for (int j = n - 1; j >= 0; --j) {
    T ajj = T(-1);
    if (!unit) {
      A(j, j) = T(1) / A(j, j);
      ajj = -A(j, j);
    }
    // x = inv(A22) x, in place bottom-up (row i needs x(k), k <= i, still the old values).
    for (int i = n - 1; i > j; --i) {
      T s = unit ? A(i, j) : A(i, i) * A(i, j);
      for (int k = j + 1; k < i; ++k) s += A(i, k) * A(k, j);
      A(i, j) = ajj * s;
    }
  }
  return 0;
}

template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_trtri(const Member& member, Uplo uplo, Diag diag, Mat<T> A) {
  const int info = zero_diagonal(diag, A);
  if (info != 0) return info;
  if (uplo == Uplo::Upper) A = A.t();
  const bool unit = diag == Diag::Unit;
  const int n = int(A.n);
  for (int j = n - 1; j >= 0; --j) {
    // Every thread reads A(j,j) before the barrier; one writes its inverse in team_trmm's
    // first pass, which reads only A(j+1:, j+1:) and the column below the diagonal.
    const T ajj = unit ? T(-1) : -T(1) / A(j, j);
    member.team_barrier();
    if (j + 1 < n)
      team_trmm(member, Side::Left, Uplo::Lower, Trans::NoTranspose, diag, ajj,
                Mat<const T>(A.sub(j + 1, j + 1, n - j - 1, n - j - 1)), A.sub(j + 1, j, n - j - 1, 1));
    Kokkos::single(Kokkos::PerTeam(member), [&]() {
      if (!unit) A(j, j) = -ajj;
    });
    member.team_barrier();
  }
  return 0;
}

/// A = L^T L (Lower) or U U^T (Upper) in the same triangle (LAPACK dlauu2).
template <class T>
KOKKOS_INLINE_FUNCTION void serial_lauum(Uplo uplo, Mat<T> A) {
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  // Row i of L^T L uses rows >= i of L only, so rows are finished top-down in place.
  for (int i = 0; i < n; ++i) {
    const T aii = A(i, i);
    for (int c = 0; c < i; ++c) {
      T s = aii * A(i, c);
      for (int r = i + 1; r < n; ++r) s += A(r, i) * A(r, c);
      A(i, c) = s;
    }
    T d = T(0);
    for (int r = i; r < n; ++r) d += A(r, i) * A(r, i);
    A(i, i) = d;
  }
}

template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_lauum(const Member& member, Uplo uplo, Mat<T> A) {
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  for (int i = 0; i < n; ++i) {
    const T aii = A(i, i);
    member.team_barrier();  // A(i,i) is read by all before it is overwritten
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, i + 1), [&](const int c) {
      T s = c < i ? aii * A(i, c) : T(0);
      for (int r = c < i ? i + 1 : i; r < n; ++r) s += A(r, i) * A(r, c);
      A(i, c) = s;
    });
    member.team_barrier();
  }
}

/// inv(A) from A's Cholesky factor, in the factor's triangle. Returns trtri's info.
template <class T>
KOKKOS_INLINE_FUNCTION int serial_potri(Uplo uplo, const Mat<T>& A) {
  const int info = serial_trtri(uplo, Diag::NonUnit, A);
  if (info == 0) serial_lauum(uplo, A);
  return info;
}
template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_potri(const Member& member, Uplo uplo, const Mat<T>& A) {
  const int info = team_trtri(member, uplo, Diag::NonUnit, A);
  if (info == 0) team_lauum(member, uplo, A);
  return info;
}
/// inv(A) of an SPD A in one call (POTRF + POTRI). Returns potrf's info.
template <class T>
KOKKOS_INLINE_FUNCTION int serial_poti(Uplo uplo, const Mat<T>& A) {
  const int info = serial_potrf(uplo, A);
  return info != 0 ? info : serial_potri(uplo, A);
}
template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_poti(const Member& member, Uplo uplo, const Mat<T>& A) {
  const int info = team_potrf(member, uplo, A);
  return info != 0 ? info : team_potri(member, uplo, A);
}

}  // namespace kspd::batched::Impl
#endif
