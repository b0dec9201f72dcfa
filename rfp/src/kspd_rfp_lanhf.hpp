#ifndef KSPD_RFP_LANHF_HPP
#define KSPD_RFP_LANHF_HPP
/// \file kspd_rfp_lanhf.hpp
/// Norms of a complex Hermitian matrix in RFP format (c/zlanhf): max |a_ij|, the 1-norm
/// (= the infinity norm) and the Frobenius norm. As LAPACK, a diagonal entry counts as the
/// absolute value of its real part. Kokkos reductions over the RFP array; the 1-norm sums
/// each column with one team (no atomics, deterministic).

#include <cmath>

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_convert.hpp"
#include "kspd_rfp_lansf.hpp"

namespace kspd::rfp {
namespace Impl {
/// |a| off the diagonal, |Re a| on it (LAPACK's ?lanhf).
template <class T>
KOKKOS_INLINE_FUNCTION real_t<T> herm_abs(const T& v, bool diag) {
  using R = real_t<T>;
  return diag ? (v.real() < R(0) ? -v.real() : v.real()) : R(Kokkos::abs(v));
}
}  // namespace Impl

/// The `norm` of the Hermitian matrix A (Norm::Max, One, Inf, Frobenius). Fences `exec`.
/// Real scalars: lansf.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] real_t<T> lanhf(const ExecSpace& exec, Norm norm, const Matrix<T, Mem>& A) {
  if constexpr (!is_complex_v<T>) {
    return lansf(exec, norm, A);
  } else {
    using R = real_t<T>;
    Impl::check_matrix<ExecSpace>("kspd::rfp::lanhf", A);
    KSPD_REQUIRE(norm == Norm::Max || norm == Norm::One || norm == Norm::Inf || norm == Norm::Frobenius,
                 InvalidArgument, "kspd::rfp::lanhf: norm must be Max, One, Inf or Frobenius");
    if (A.n() == 0) return R(0);
    compat::ScopedRegion region("kspd::rfp::lanhf");
    const Layout L = A.layout();
    auto a = A.data();
    R amax = R(0);
    Kokkos::parallel_reduce(
        "kspd::rfp::lanhf::max", Impl::Range64<ExecSpace>(exec, 0, L.size()),
        KOKKOS_LAMBDA(std::int64_t p, R & m) {
          size_type i, j;
          L.decode(p, i, j);
          const R v = Impl::herm_abs(a(p), i == j);
          if (!(v <= m)) m = v;
        },
        Kokkos::Max<R>(amax));
    compat::fence(exec, "kspd::rfp::lanhf");
    if (norm == Norm::Max || amax == R(0) || !(amax == amax)) return amax;
    if (norm == Norm::Frobenius) {
      double ssq = 0;  // sum (|a|/amax)^2 in double, off-diagonal entries twice
      const double inv = 1.0 / double(amax);
      Kokkos::parallel_reduce(
          "kspd::rfp::lanhf::fro", Impl::Range64<ExecSpace>(exec, 0, L.size()),
          KOKKOS_LAMBDA(std::int64_t p, double& s) {
            size_type i, j;
            L.decode(p, i, j);
            const double v = double(Impl::herm_abs(a(p), i == j)) * inv;
            s += (i == j ? 1.0 : 2.0) * v * v;
          },
          ssq);
      compat::fence(exec, "kspd::rfp::lanhf");
      return R(double(amax) * std::sqrt(ssq));
    }
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    using Member = typename Team::member_type;
    R result = R(0);
    Kokkos::parallel_reduce(
        "kspd::rfp::lanhf::one", Team(exec, int(L.n), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Member& m, R& best) {
          const size_type j = m.league_rank();
          R colsum = R(0);
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(m, L.n), [&](const size_type i, R& s) { s += Impl::herm_abs(a(L.index(i, j)), i == j); },
              colsum);
          Kokkos::single(Kokkos::PerTeam(m), [&]() {
            if (!(colsum <= best)) best = colsum;
          });
        },
        Kokkos::Max<R>(result));
    compat::fence(exec, "kspd::rfp::lanhf");
    return result;
  }
}

}  // namespace kspd::rfp
#endif
