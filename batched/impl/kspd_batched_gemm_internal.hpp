#ifndef KSPD_BATCHED_GEMM_INTERNAL_HPP
#define KSPD_BATCHED_GEMM_INTERNAL_HPP
/// \file kspd_batched_gemm_internal.hpp
/// GEMM and SYRK on one small matrix (raw pointer + strides), serial and team flavours.
/// Mode arguments are runtime values; the Serial*/Team* wrappers pass compile-time tags, so
/// after inlining the branches fold away.

#include "kspd_batched_mat.hpp"

namespace kspd::batched::Impl {

/// C = alpha op(A) op(B) + beta C. beta == 0 does not read C; alpha == 0 does not read A, B.
template <class T>
KOKKOS_INLINE_FUNCTION void serial_gemm(Trans ta, Trans tb, T alpha, Mat<const T> A, Mat<const T> B, T beta,
                                        const Mat<T>& C) {
  if (is_trans(ta)) A = A.t();
  if (is_trans(tb)) B = B.t();
  const int m = int(C.m), n = int(C.n), k = int(A.n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) {
      T s = T(0);
      if (alpha != T(0))
        for (int l = 0; l < k; ++l) s += A(i, l) * B(l, j);
      C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * C(i, j);
    }
}

template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_gemm(const Member& member, Trans ta, Trans tb, T alpha, Mat<const T> A,
                                      Mat<const T> B, T beta, const Mat<T>& C) {
  if (is_trans(ta)) A = A.t();
  if (is_trans(tb)) B = B.t();
  const int m = int(C.m), n = int(C.n), k = int(A.n);
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, m * n), [&](const int idx) {
    const int i = idx % m, j = idx / m;
    T s = T(0);
    if (alpha != T(0))
      for (int l = 0; l < k; ++l) s += A(i, l) * B(l, j);
    C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * C(i, j);
  });
  member.team_barrier();
}

/// C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of C only.
template <class T>
KOKKOS_INLINE_FUNCTION void serial_syrk(Uplo uplo, Trans trans, T alpha, Mat<const T> A, T beta, const Mat<T>& C) {
  if (is_trans(trans)) A = A.t();
  const int n = int(C.n), k = int(A.n);
  const bool lower = uplo == Uplo::Lower;
  for (int j = 0; j < n; ++j)
    for (int i = lower ? j : 0; i < (lower ? n : j + 1); ++i) {
      T s = T(0);
      if (alpha != T(0))
        for (int l = 0; l < k; ++l) s += A(i, l) * A(j, l);
      C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * C(i, j);
    }
}

template <class Member, class T>
KOKKOS_INLINE_FUNCTION void team_syrk(const Member& member, Uplo uplo, Trans trans, T alpha, Mat<const T> A, T beta,
                                      const Mat<T>& C) {
  if (is_trans(trans)) A = A.t();
  const int n = int(C.n), k = int(A.n);
  const bool lower = uplo == Uplo::Lower;
  // The triangle's n(n+1)/2 entries, enumerated column by column.
  Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n * n), [&](const int idx) {
    const int i = idx % n, j = idx / n;
    if (lower ? i < j : i > j) return;
    T s = T(0);
    if (alpha != T(0))
      for (int l = 0; l < k; ++l) s += A(i, l) * A(j, l);
    C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * C(i, j);
  });
  member.team_barrier();
}

}  // namespace kspd::batched::Impl
#endif
