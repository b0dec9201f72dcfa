#ifndef KSPD_DENSE_INVERSE_DIAG_HPP
#define KSPD_DENSE_INVERSE_DIAG_HPP
/// \file kspd_dense_inverse_diag.hpp
/// diag(A^{-1}) and trace(A^{-1} B) of an SPD matrix from its Cholesky factor, forming no
/// more than the in-place inverse (potri): the diagonal is read off the inverse, and
/// trace(S B) = sum_ij S_ij B_ji runs over one triangle of the symmetric S = A^{-1}.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kspd_lapack.hpp"

namespace kspd {

/// \brief d(i) = S(i,i) for i < n: the diagonal of a square View (e.g. A^{-1} after potri).
/// Non-blocking on `exec`. d: rank-1 View of >= n entries.
template <class ExecSpace, class SV, class DV>
void copy_diagonal(const ExecSpace& exec, const SV& S, const DV& d) {
  Impl::check_matrix<ExecSpace>("kspd::copy_diagonal", "S", S);
  Impl::require_square("kspd::copy_diagonal", "S", S);
  static_assert(Kokkos::is_view<DV>::value && DV::rank == 1, "kspd::copy_diagonal: d must be a rank-1 View");
  KSPD_REQUIRE(d.extent(0) >= S.extent(0), DimensionMismatch,
               "kspd::copy_diagonal: d has " << d.extent(0) << " entries, S is " << S.extent(0) << " x " << S.extent(1));
  using D = typename DV::non_const_value_type;
  Kokkos::parallel_for(
      "kspd::copy_diagonal", Kokkos::RangePolicy<ExecSpace>(exec, 0, S.extent(0)),
      KOKKOS_LAMBDA(const int i) { d(i) = D(S(i, i)); });
}

/// \brief trace(S B) = sum_ij S_ij B_ji for a symmetric S of which only the `uplo` triangle
/// is read (the other may hold anything, e.g. after potri) and a general n x n B.
/// Accumulated in double; fences `exec`.
template <class ExecSpace, class SV, class BV>
[[nodiscard]] double sytrace(const ExecSpace& exec, Uplo uplo, const SV& S, const BV& B) {
  Impl::check_matrix<ExecSpace>("kspd::sytrace", "S", S);
  Impl::check_matrix<ExecSpace>("kspd::sytrace", "B", B);
  Impl::require_square("kspd::sytrace", "S", S);
  KSPD_REQUIRE(B.extent(0) == S.extent(0) && B.extent(1) == S.extent(1), DimensionMismatch,
               "kspd::sytrace: S is " << S.extent(0) << " x " << S.extent(1) << " but B is " << B.extent(0) << " x "
                                      << B.extent(1));
  compat::ScopedRegion region("kspd::sytrace");
  const std::int64_t n = S.extent(0);
  const bool lower = uplo == Uplo::Lower;
  double t = 0;
  // Flat index p = i + j n: consecutive threads read consecutive rows of column-major data;
  // half of them (the other triangle) add nothing.
  Kokkos::parallel_reduce(
      "kspd::sytrace", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, n * n),
      KOKKOS_LAMBDA(const std::int64_t p, double& acc) {
        const std::int64_t i = p % n, j = p / n;
        if (i == j) acc += double(S(i, i)) * double(B(i, i));
        else if (lower ? i > j : i < j) acc += double(S(i, j)) * (double(B(i, j)) + double(B(j, i)));
      },
      t);
  compat::fence(exec, "kspd::sytrace");
  return t;
}

/// \brief diag(A^{-1}) from the Cholesky factor of A (kspd::potrf, same uplo): A is
/// overwritten by the `uplo` triangle of A^{-1} (potri, in place), d(i) = (A^{-1})_ii.
/// \return potri's info (0, or k > 0 if the factor's k-th diagonal entry is zero; d is then
/// not written). Fences `exec`.
template <class ExecSpace, class AV, class DV>
[[nodiscard]] int potri_diag(const ExecSpace& exec, Uplo uplo, const AV& A, const DV& d, const DenseOptions& opt = {}) {
  static_assert(Kokkos::is_view<DV>::value && DV::rank == 1, "kspd::potri_diag: d must be a rank-1 View");
  KSPD_REQUIRE(d.extent(0) >= A.extent(0), DimensionMismatch,
               "kspd::potri_diag: d has " << d.extent(0) << " entries, A is " << A.extent(0) << " x " << A.extent(1));
  compat::ScopedRegion region("kspd::potri_diag");
  const int info = potri(exec, uplo, A, opt);
  if (info != 0) return info;
  copy_diagonal(exec, A, d);
  compat::fence(exec, "kspd::potri_diag");
  return 0;
}

/// \brief trace(A^{-1} B) = sum_ij (A^{-1})_ij B_ji from the Cholesky factor of A (potrf,
/// same uplo) and a general n x n B (e.g. dK/dtheta of a Gaussian process). A is overwritten
/// by the `uplo` triangle of A^{-1} (potri); only that triangle is read.
/// \param trace [out] the trace (double), written when info == 0.
/// \return potri's info. Fences `exec`.
template <class ExecSpace, class AV, class BV>
[[nodiscard]] int potri_trace(const ExecSpace& exec, Uplo uplo, const AV& A, const BV& B, double& trace,
                              const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::potri_trace", "B", B);
  KSPD_REQUIRE(B.extent(0) == A.extent(0) && B.extent(1) == A.extent(1), DimensionMismatch,
               "kspd::potri_trace: A is " << A.extent(0) << " x " << A.extent(1) << " but B is " << B.extent(0)
                                          << " x " << B.extent(1));
  compat::ScopedRegion region("kspd::potri_trace");
  const int info = potri(exec, uplo, A, opt);
  if (info != 0) return info;
  trace = sytrace(exec, uplo, A, B);
  return 0;
}

}  // namespace kspd
#endif
