#ifndef KSPD_RFP_INVERSE_DIAG_HPP
#define KSPD_RFP_INVERSE_DIAG_HPP
/// \file kspd_rfp_inverse_diag.hpp
/// diag(A^{-1}) and trace(A^{-1} B) from the RFP Cholesky factor, forming no more than the
/// in-place inverse (pftri): the diagonal is read at Layout::diag(i); the trace
/// sum_ij (A^{-1})_ij B_ji runs once over the n(n+1)/2 stored entries of the inverse.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kspd_rfp_pftri.hpp"

namespace kspd::rfp {
namespace Impl {
// FIXME_CUDA: no extended lambda in a function template with an unnamed enable_if parameter.
template <class ExecSpace, class T, class Mem, class BV>
double sftrace_dense(const ExecSpace& exec, const Matrix<T, Mem>& S, const BV& B) {
  const Layout L = S.layout();
  auto s = S.data();
  double t = 0;
  Kokkos::parallel_reduce(
      "kspd::rfp::sftrace", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, L.size()),
      KOKKOS_LAMBDA(const std::int64_t p, double& acc) {
        size_type i, j;
        L.decode(p, i, j);
        acc += double(s(p)) * (i == j ? double(B(i, i)) : double(B(i, j)) + double(B(j, i)));
      },
      t);
  compat::fence(exec, "kspd::rfp::sftrace");
  return t;
}
}  // namespace Impl

/// \brief d(i) = A(i,i), i < n, for an RFP matrix (e.g. A^{-1} after pftri). Non-blocking.
template <class ExecSpace, class T, class Mem, class DV>
void copy_diagonal(const ExecSpace& exec, const Matrix<T, Mem>& A, const DV& d) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::copy_diagonal", A);
  static_assert(Kokkos::is_view<DV>::value && DV::rank == 1, "kspd::rfp::copy_diagonal: d must be a rank-1 View");
  KSPD_REQUIRE(size_type(d.extent(0)) >= A.n(), DimensionMismatch,
               "kspd::rfp::copy_diagonal: d has " << d.extent(0) << " entries, n = " << A.n());
  const Layout L = A.layout();
  auto a = A.data();
  using D = typename DV::non_const_value_type;
  Kokkos::parallel_for(
      "kspd::rfp::copy_diagonal", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, L.n),
      KOKKOS_LAMBDA(const std::int64_t i) { d(i) = D(a(L.diag(i))); });
}

/// \brief trace(S B) = sum_ij S_ij B_ji, S symmetric in RFP format, B a general n x n View.
/// Accumulated in double; fences `exec`.
template <class ExecSpace, class T, class Mem, class BV, std::enable_if_t<Kokkos::is_view<BV>::value, int> = 0>
[[nodiscard]] double sftrace(const ExecSpace& exec, const Matrix<T, Mem>& S, const BV& B) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::sftrace", S);
  Impl::check_dense<ExecSpace>("kspd::rfp::sftrace", "B", B);
  KSPD_REQUIRE(size_type(B.extent(0)) == S.n() && size_type(B.extent(1)) == S.n(), DimensionMismatch,
               "kspd::rfp::sftrace: S is " << S.n() << " x " << S.n() << " but B is " << B.extent(0) << " x "
                                           << B.extent(1));
  compat::ScopedRegion region("kspd::rfp::sftrace");
  return Impl::sftrace_dense(exec, S, B);
}

/// \brief trace(S B) for two symmetric RFP matrices of the same n (any variants; equal
/// variants pair the arrays entry by entry). Accumulated in double; fences `exec`.
template <class ExecSpace, class T, class Mem, class TB, class MemB>
[[nodiscard]] double sftrace(const ExecSpace& exec, const Matrix<T, Mem>& S, const Matrix<TB, MemB>& B) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::sftrace", S);
  Impl::check_matrix<ExecSpace>("kspd::rfp::sftrace", B);
  KSPD_REQUIRE(S.n() == B.n(), DimensionMismatch, "kspd::rfp::sftrace: S is " << S.n() << " x " << S.n() << " but B is "
                                                                             << B.n() << " x " << B.n());
  compat::ScopedRegion region("kspd::rfp::sftrace");
  const Layout L = S.layout(), LB = B.layout();
  const bool same = L.transr == LB.transr && L.uplo == LB.uplo;
  auto s = S.data();
  auto b = B.data();
  double t = 0;
  Kokkos::parallel_reduce(
      "kspd::rfp::sftrace", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, L.size()),
      KOKKOS_LAMBDA(const std::int64_t p, double& acc) {
        size_type i, j;
        L.decode(p, i, j);
        const double bij = double(b(same ? p : LB.index(i, j)));
        acc += (i == j ? 1.0 : 2.0) * double(s(p)) * bij;
      },
      t);
  compat::fence(exec, "kspd::rfp::sftrace");
  return t;
}

/// \brief diag(A^{-1}) from pftrf's factor: A is overwritten by A^{-1} (pftri, in place),
/// d(i) = (A^{-1})_ii. \return pftri's info (d not written when != 0). Fences `exec`.
template <class ExecSpace, class T, class Mem, class DV>
[[nodiscard]] int pftri_diag(const ExecSpace& exec, const Matrix<T, Mem>& A, const DV& d, const DenseOptions& opt = {}) {
  static_assert(Kokkos::is_view<DV>::value && DV::rank == 1, "kspd::rfp::pftri_diag: d must be a rank-1 View");
  KSPD_REQUIRE(size_type(d.extent(0)) >= A.n(), DimensionMismatch,
               "kspd::rfp::pftri_diag: d has " << d.extent(0) << " entries, n = " << A.n());
  compat::ScopedRegion region("kspd::rfp::pftri_diag");
  const int info = pftri(exec, A, opt);
  if (info != 0) return info;
  copy_diagonal(exec, A, d);
  compat::fence(exec, "kspd::rfp::pftri_diag");
  return 0;
}

/// \brief trace(A^{-1} B) = sum_ij (A^{-1})_ij B_ji from pftrf's factor and B (a general
/// n x n View, or a symmetric RFP matrix such as dK/dtheta). A is overwritten by A^{-1}
/// (pftri). \param trace [out] written when info == 0. \return pftri's info. Fences `exec`.
template <class ExecSpace, class T, class Mem, class BM>
[[nodiscard]] int pftri_trace(const ExecSpace& exec, const Matrix<T, Mem>& A, const BM& B, double& trace,
                              const DenseOptions& opt = {}) {
  if constexpr (Kokkos::is_view<BM>::value) {
    KSPD_REQUIRE(size_type(B.extent(0)) == A.n() && size_type(B.extent(1)) == A.n(), DimensionMismatch,
                 "kspd::rfp::pftri_trace: A is " << A.n() << " x " << A.n() << " but B is " << B.extent(0) << " x "
                                                 << B.extent(1));
  } else {
    KSPD_REQUIRE(B.n() == A.n(), DimensionMismatch,
                 "kspd::rfp::pftri_trace: A is " << A.n() << " x " << A.n() << " but B is " << B.n() << " x " << B.n());
  }
  compat::ScopedRegion region("kspd::rfp::pftri_trace");
  const int info = pftri(exec, A, opt);
  if (info != 0) return info;
  trace = sftrace(exec, A, B);
  return 0;
}

}  // namespace kspd::rfp
#endif
