#ifndef KSPD_MIXED_REFINEMENT_HPP
#define KSPD_MIXED_REFINEMENT_HPP
/// \file kspd_mixed_refinement.hpp
/// What the mixed-precision solvers (kspd::rfp::pfsv_mixed, kspd::sparse::MixedCholesky)
/// share: their options and result, and the normwise backward error that stops refinement.

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_types.hpp"

namespace kspd {

/// Which factor a sparse mixed solve starts with (kspd::sparse::MixedCholesky).
enum class MixedFactor {
  Auto,  ///< fp32 where it is measured to pay for its refinement, else fp64 at once
  Fp32   ///< always fp32 first (half the factor's memory), fp64 only as the fallback
};

struct MixedOptions {
  /// Sparse only (rfp::pfsv_mixed always starts in fp32): Auto chooses the fp64 factor up
  /// front for factorizations too small for fp32 to win end to end (MixedCholesky::fp32_pays).
  MixedFactor factor = MixedFactor::Auto;
  int max_iterations = 10;  ///< refinement steps with the fp32 factor before falling back
  /// Backward error to reach; <= 0: sqrt(n) eps(double) (dsposv's criterion).
  double tolerance = 0;
  /// Refinement has stalled when a step does not reduce the backward error below
  /// stall_ratio times the previous one (and the tolerance is not met): fall back. The
  /// sparse solver's CG-accelerated refinement, whose residual is not monotone: two steps in
  /// a row without going below stall_ratio times the best so far.
  double stall_ratio = 0.5;
  /// RFP only (the sparse solver keeps A): the fp64 fallback factors a copy of A (A is
  /// preserved and the final backward error is measured); false: it factors A in place (A
  /// then holds pftrf's fp64 factor, as dsposv leaves it, and backward_error is -1).
  bool fallback_copy = true;
};

struct MixedResult {
  int info = 0;              ///< 0, or the fp64 factorization's info (A not SPD)
  int fp32_info = 0;         ///< the fp32 factorization's info (> 0: fell back at once)
  int iterations = 0;        ///< refinement steps (fp32 solves after the first) with the fp32 factor
  double backward_error = -1;  ///< max_c |b_c - A x_c|_inf / (|A|_inf |x_c|_inf + |b_c|_inf)
  bool fell_back = false;    ///< the fp32 path failed or stalled: the solution came from the fp64 factor
  bool fp64_chosen = false;  ///< MixedFactor::Auto chose the fp64 factor up front (no refinement ran)
};

namespace Impl {
/// max over columns of |R_c|_inf / (anrm |X_c|_inf + |B_c|_inf) (fences).
template <class ExecSpace, class RV, class XV, class BV>
double backward_error(const ExecSpace& exec, double anrm, const RV& R, const XV& X, const BV& B) {
  using Team = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Team::member_type;
  const size_type n = R.extent(0);
  double be = 0;
  Kokkos::parallel_reduce(
      "kspd::backward_error", Team(exec, int(R.extent(1)), Kokkos::AUTO),
      KOKKOS_LAMBDA(const Member& m, double& best) {
        const int c = m.league_rank();
        double r = 0, x = 0, b = 0;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, n),
            [&](const size_type i, double& v) {
              const double a = compat::fabs(double(R(i, c)));
              if (!(a <= v)) v = a;
            },
            Kokkos::Max<double>(r));
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, n),
            [&](const size_type i, double& v) {
              const double a = compat::fabs(double(X(i, c)));
              if (!(a <= v)) v = a;
            },
            Kokkos::Max<double>(x));
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(m, n),
            [&](const size_type i, double& v) {
              const double a = compat::fabs(double(B(i, c)));
              if (!(a <= v)) v = a;
            },
            Kokkos::Max<double>(b));
        Kokkos::single(Kokkos::PerTeam(m), [&]() {
          const double den = anrm * x + b;
          const double e = r > 0 ? r / den : 0.0;  // den == 0 < r: inf (no host-only constant in a kernel)
          if (!(e <= best)) best = e;
        });
      },
      Kokkos::Max<double>(be));
  compat::fence(exec, "kspd::backward_error");
  return be;
}
}  // namespace Impl

}  // namespace kspd
#endif
