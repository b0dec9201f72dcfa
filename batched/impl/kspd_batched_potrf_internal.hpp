#ifndef KSPD_BATCHED_POTRF_INTERNAL_HPP
#define KSPD_BATCHED_POTRF_INTERNAL_HPP
/// \file kspd_batched_potrf_internal.hpp
/// Cholesky of one small matrix (raw pointer + strides), serial and team flavours, and the
/// operations built on it: POTRS (any nrhs) and POSV; real symmetric or complex Hermitian.
/// Upper is Lower on A^T (a stride swap): the upper triangle of A read transposed is the
/// lower triangle of A^T (= A, or conj(A) for Hermitian A), and U = L^T.

#include <Kokkos_NumericTraits.hpp>

#include "kspd_batched_trsm_internal.hpp"

namespace kspd::batched::Impl {

/// |x|^2 as a real number.
template <class T>
KOKKOS_INLINE_FUNCTION real_t<T> abs2(const T& x) {
  if constexpr (is_complex_v<T>) return x.real() * x.real() + x.imag() * x.imag();
  else return x * x;
}
/// Whether a Cholesky pivot (the real diagonal left after the update) is usable. Real scalars:
/// d > 0 (also rejects NaN), as LAPACK. Complex (Hermitian) scalars: finite and > 0, so an
/// infinite diagonal is reported rather than spread through the factor.
template <class T>
KOKKOS_INLINE_FUNCTION bool good_pivot(real_t<T> d) {
  if constexpr (is_complex_v<T>) return d > real_t<T>(0) && d <= Kokkos::Experimental::finite_max<real_t<T>>::value;
  else return d > T(0);
}

/// A = L L^H (Lower) or U^H U (Upper) in place (L^T / U^T for real scalars). Returns 0, or the
/// 1-based column whose pivot is not positive (LAPACK's info); columns before it hold the
/// partial factor. Only the real part of a Hermitian diagonal is read, and the factor's
/// diagonal is written real. Upper is Lower on A^T = conj(A) (stride swap): its lower
/// triangle is A's upper one, and its factor U^T stored there is U in place.
template <class T>
KOKKOS_INLINE_FUNCTION int serial_potrf(Uplo uplo, Mat<T> A) {
  using R = real_t<T>;
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  // Left-looking (Crout): column j reads only finished columns, so the loop is in place.
  for (int j = 0; j < n; ++j) {
    R d = real_part(A(j, j));
    for (int k = 0; k < j; ++k) d -= abs2(A(j, k));
    if (!good_pivot<T>(d)) {
      A(j, j) = T(d);
      return j + 1;
    }
    d = compat::sqrt(d);
    A(j, j) = T(d);
    const R r = R(1) / d;
    for (int i = j + 1; i < n; ++i) {
      T s = A(i, j);
      for (int k = 0; k < j; ++k) s -= A(i, k) * conj_if(true, A(j, k));
      A(i, j) = s * r;
    }
  }
  return 0;
}

/// Team Cholesky: right-looking, two barriers per column. Every thread reads the pivot after
/// a barrier, so all threads take the same early return.
template <class Member, class T>
KOKKOS_INLINE_FUNCTION int team_potrf(const Member& member, Uplo uplo, Mat<T> A) {
  using R = real_t<T>;
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  for (int k = 0; k < n; ++k) {
    const R d = real_part(A(k, k));
    if (!good_pivot<T>(d)) {
      member.team_barrier();  // nobody returns while another thread still reads A(k,k)
      return k + 1;
    }
    const R s = compat::sqrt(d), r = R(1) / s;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, k + 1, n), [&](const int i) { A(i, k) *= r; });
    member.team_barrier();
    // Trailing update of the lower triangle, one row per thread; the diagonal entry A(k,k)
    // is written here, after every thread has read it.
    const int rows = n - k;
    Kokkos::parallel_for(Kokkos::TeamThreadRange(member, rows), [&](const int r0) {
      const int i = k + r0;
      if (i == k) {
        A(k, k) = T(s);
        return;
      }
      const T aik = A(i, k);
      for (int j = k + 1; j < i; ++j) A(i, j) -= aik * conj_if(true, A(j, k));
      A(i, i) = T(real_part(A(i, i)) - abs2(aik));  // Hermitian: the diagonal stays real
    });
    member.team_barrier();
  }
  return 0;
}

/// Solves A X = B with A's Cholesky factor (from potrf with the same uplo); X overwrites B.
/// Lower: L Y = B, L^H X = Y; Upper: U^H Y = B, U X = Y (^T for real scalars).
template <class T>
KOKKOS_INLINE_FUNCTION void serial_potrs(Uplo uplo, const Mat<const T>& A, const Mat<T>& B) {
  constexpr Trans h = is_complex_v<T> ? Trans::ConjTranspose : Trans::Transpose;  // herm_trans is host-only
  serial_trsm(Side::Left, uplo, uplo == Uplo::Lower ? Trans::NoTranspose : h, Diag::NonUnit, T(1), A, B);
  serial_trsm(Side::Left, uplo, uplo == Uplo::Lower ? h : Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
}
template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_potrs(const Member& member, Uplo uplo, const Mat<const T>& A, const Mat<T>& B) {
  constexpr Trans h = is_complex_v<T> ? Trans::ConjTranspose : Trans::Transpose;  // herm_trans is host-only
  team_trsm(member, Side::Left, uplo, uplo == Uplo::Lower ? Trans::NoTranspose : h, Diag::NonUnit, T(1), A, B);
  team_trsm(member, Side::Left, uplo, uplo == Uplo::Lower ? h : Trans::NoTranspose, Diag::NonUnit, T(1), A, B);
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
