#ifndef KSPD_RFP_LANSF_HPP
#define KSPD_RFP_LANSF_HPP
/// \file kspd_rfp_lansf.hpp
/// Norms of a symmetric matrix in RFP format (?lansf): max |a_ij|, the 1-norm (= the
/// infinity norm, A being symmetric) and the Frobenius norm. Kokkos reductions over the RFP
/// array; the 1-norm sums each column with one team (no atomics, deterministic).

#include <cmath>

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_convert.hpp"

namespace kspd::rfp {

/// The `norm` of the symmetric matrix A (Norm::Max, One, Inf, Frobenius). Fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] T lansf(const ExecSpace& exec, Norm norm, const Matrix<T, Mem>& A) {
  Impl::require_real<T>("kspd::rfp::lansf");
  Impl::check_matrix<ExecSpace>("kspd::rfp::lansf", A);
  KSPD_REQUIRE(norm == Norm::Max || norm == Norm::One || norm == Norm::Inf || norm == Norm::Frobenius,
               InvalidArgument, "kspd::rfp::lansf: norm must be Max, One, Inf or Frobenius");
  if (A.n() == 0) return T(0);
  compat::ScopedRegion region("kspd::rfp::lansf");
  const Layout L = A.layout();
  auto a = A.data();
  // Max |a_ij| first: the answer for Max, the scale for Frobenius. NaN propagates.
  T amax = T(0);
  Kokkos::parallel_reduce(
      "kspd::rfp::lansf::max", Impl::Range64<ExecSpace>(exec, 0, L.size()),
      KOKKOS_LAMBDA(std::int64_t p, T & m) {
        const T v = a(p) < T(0) ? -a(p) : a(p);
        if (!(v <= m)) m = v;
      },
      Kokkos::Max<T>(amax));
  compat::fence(exec, "kspd::rfp::lansf");
  if (norm == Norm::Max || amax == T(0) || !(amax == amax)) return amax;
  if (norm == Norm::Frobenius) {
    // sum (a/amax)^2 in double, off-diagonal entries twice: no overflow or underflow.
    double ssq = 0;
    const double inv = 1.0 / double(amax);
    Kokkos::parallel_reduce(
        "kspd::rfp::lansf::fro", Impl::Range64<ExecSpace>(exec, 0, L.size()),
        KOKKOS_LAMBDA(std::int64_t p, double& s) {
          size_type i, j;
          L.decode(p, i, j);
          const double v = double(a(p)) * inv;
          s += (i == j ? 1.0 : 2.0) * v * v;
        },
        ssq);
    compat::fence(exec, "kspd::rfp::lansf");
    return T(double(amax) * std::sqrt(ssq));
  }
  // One / Inf: the largest column sum; one team per column gathers it.
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Team::member_type;
  T result = T(0);
  Kokkos::parallel_reduce(
      "kspd::rfp::lansf::one", Team(exec, int(L.n), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m, T& best) {
        const size_type j = m.league_rank();
        T colsum = T(0);
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, L.n),
            [&](const size_type i, T& s) {
              const T v = a(L.index(i, j));
              s += v < T(0) ? -v : v;
            },
            colsum);
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          if (!(colsum <= best)) best = colsum;
        });
      },
      Kokkos::Max<T>(result));
  compat::fence(exec, "kspd::rfp::lansf");
  return result;
}

}  // namespace kspd::rfp
#endif
