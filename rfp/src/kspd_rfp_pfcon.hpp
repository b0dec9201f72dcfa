#ifndef KSPD_RFP_PFCON_HPP
#define KSPD_RFP_PFCON_HPP
/// \file kspd_rfp_pfcon.hpp
/// Reciprocal condition number in the 1-norm of an SPD matrix from its RFP Cholesky factor
/// (pfcon; LAPACK's ?pocon for RFP): rcond = 1 / (||A||_1 ||inv(A)||_1), with ||inv(A)||_1
/// estimated by Hager's method as refined by Higham (LAPACK's ?lacn2), each product with
/// inv(A) being one pftrs solve on the device.

#include <cmath>
#include <vector>

#include "kspd_rfp_pftrf.hpp"

namespace kspd::rfp {

/// \param A the factor from pftrf; \param anorm ||A||_1 of the original matrix (lansf).
/// \return the estimate of 1 / (||A||_1 ||inv(A)||_1); 0 when anorm is 0. Fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] T pfcon(const ExecSpace& exec, const Matrix<T, Mem>& A, T anorm) {
  Impl::require_real<T>("kspd::rfp::pfcon");
  Impl::check_matrix<ExecSpace>("kspd::rfp::pfcon", A);
  KSPD_REQUIRE(anorm >= T(0), InvalidArgument, "kspd::rfp::pfcon: anorm must be >= 0, got " << anorm);
  const size_type n = A.n();
  if (n == 0) return T(1);
  if (anorm == T(0)) return T(0);
  compat::ScopedRegion region("kspd::rfp::pfcon");
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> xd("kspd::rfp::pfcon::x", size_t(n), 1);
  auto xh = Kokkos::create_mirror_view(xd);
  std::vector<T> x(static_cast<size_t>(n));
  // x := inv(A) x (= inv(A)^T x: A is symmetric).
  auto solve = [&]() {
    for (size_type i = 0; i < n; ++i) xh(i, 0) = x[size_t(i)];
    Kokkos::deep_copy(exec, xd, xh);
    pftrs(exec, A, xd);
    Kokkos::deep_copy(exec, xh, xd);
    compat::fence(exec, "kspd::rfp::pfcon");
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = xh(i, 0);
  };
  auto norm1 = [&]() {
    double s = 0;
    for (T v : x) s += std::fabs(double(v));
    return s;
  };
  auto argmax = [&]() {
    size_type j = 0;
    for (size_type i = 1; i < n; ++i)
      if (std::fabs(x[size_t(i)]) > std::fabs(x[size_t(j)])) j = i;
    return j;
  };
  // ?lacn2, unrolled: at most 5 iterations plus the alternating-sign test vector.
  for (auto& v : x) v = T(1) / T(n);
  solve();
  double est = norm1();
  if (n > 1) {
    std::vector<T> sgn(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = sgn[size_t(i)] = x[size_t(i)] >= T(0) ? T(1) : T(-1);
    solve();
    size_type j = argmax();
    for (int iter = 2; iter <= 5; ++iter) {
      for (auto& v : x) v = T(0);
      x[size_t(j)] = T(1);
      solve();
      const double estold = est;
      est = norm1();
      bool same = true;
      for (size_type i = 0; i < n && same; ++i) same = (x[size_t(i)] >= T(0) ? T(1) : T(-1)) == sgn[size_t(i)];
      if (same || est <= estold) break;  // converged, or cycling
      for (size_type i = 0; i < n; ++i) x[size_t(i)] = sgn[size_t(i)] = x[size_t(i)] >= T(0) ? T(1) : T(-1);
      solve();
      const size_type jlast = j;
      j = argmax();
      if (x[size_t(jlast)] == std::fabs(x[size_t(j)])) break;
    }
    // The alternating-sign vector catches matrices the iteration misjudges.
    T altsgn = T(1);
    for (size_type i = 0; i < n; ++i) {
      x[size_t(i)] = altsgn * (T(1) + T(i) / T(n - 1));
      altsgn = -altsgn;
    }
    solve();
    const double temp = 2.0 * norm1() / (3.0 * double(n));
    if (temp > est) est = temp;
  }
  return est > 0 ? T((1.0 / est) / double(anorm)) : T(0);
}

}  // namespace kspd::rfp
#endif
