#ifndef KSPD_RFP_PFSV_MIXED_HPP
#define KSPD_RFP_PFSV_MIXED_HPP
/// \file kspd_rfp_pfsv_mixed.hpp
/// Mixed-precision SPD solve in RFP format (LAPACK's dsposv for RFP): factor an fp32 copy
/// of A (half the memory of the fp64 factor), then refine x_{k+1} = x_k + A32^{-1}(b - A x_k)
/// with the residual in fp64 (sfmm with the fp64 RFP matrix) until the normwise backward
/// error reaches the tolerance; fall back to an fp64 factor when the fp32 factorization
/// fails or refinement stalls.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <limits>

#include "kspd_rfp_lansf.hpp"
#include "kspd_rfp_pftrf.hpp"
#include "kspd_rfp_sfmm.hpp"

namespace kspd::rfp {

struct MixedOptions {
  int max_iterations = 10;  ///< refinement steps with the fp32 factor before falling back
  /// Backward error to reach; <= 0: sqrt(n) eps(double) (dsposv's criterion).
  double tolerance = 0;
  /// Refinement has stalled when a step does not reduce the backward error below
  /// stall_ratio times the previous one (and the tolerance is not met): fall back.
  double stall_ratio = 0.5;
  /// The fp64 fallback factors a copy of A (A is preserved and the final backward error is
  /// measured); false: it factors A in place (A then holds pftrf's fp64 factor, as dsposv
  /// leaves it, and backward_error is not measured: -1).
  bool fallback_copy = true;
};

struct MixedResult {
  int info = 0;              ///< 0, or pftrf's info of the fp64 factor (A not SPD)
  int fp32_info = 0;         ///< pftrf's info of the fp32 factor (> 0: fell back at once)
  int iterations = 0;        ///< refinement steps applied with the fp32 factor
  double backward_error = -1;  ///< max_c |b_c - A x_c|_inf / (|A|_inf |x_c|_inf + |b_c|_inf)
  bool fell_back = false;    ///< the solution came from the fp64 factor
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
      "kspd::rfp::pfsv_mixed::backward_error", Team(exec, int(R.extent(1)), Kokkos::AUTO),
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
  compat::fence(exec, "kspd::rfp::pfsv_mixed");
  return be;
}
}  // namespace Impl

/// \brief Solves A X = B (A SPD, fp64, RFP format; B and X n x nrhs fp64 Views) with an fp32
/// factor and fp64 iterative refinement (see the file comment). A is not modified (unless
/// the fallback runs with fallback_copy = false). Memory: the fp32 RFP copy of A, and
/// n x nrhs workspaces in fp64 and fp32; the fallback adds an fp64 RFP copy of A.
/// \param B [in] right-hand sides. \param X [out] solutions (poison-safe: fully written).
/// \return {info, fp32_info, iterations, backward_error, fell_back}. Fences `exec`.
template <class ExecSpace, class Mem, class BV, class XV>
[[nodiscard]] MixedResult pfsv_mixed(const ExecSpace& exec, const Matrix<double, Mem>& A, const BV& B, const XV& X,
                                     const MixedOptions& mopt = {}, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pfsv_mixed", A);
  Impl::check_dense<ExecSpace>("kspd::rfp::pfsv_mixed", "B", B);
  Impl::check_dense<ExecSpace>("kspd::rfp::pfsv_mixed", "X", X);
  static_assert(std::is_same<typename XV::non_const_value_type, double>::value &&
                    std::is_same<typename BV::non_const_value_type, double>::value,
                "kspd::rfp::pfsv_mixed: B and X must hold double");
  KSPD_REQUIRE(size_type(B.extent(0)) == A.n() && X.extent(0) == B.extent(0) && X.extent(1) == B.extent(1),
               DimensionMismatch,
               "kspd::rfp::pfsv_mixed: A is " << A.n() << " x " << A.n() << ", B is " << B.extent(0) << " x "
                                              << B.extent(1) << ", X is " << X.extent(0) << " x " << X.extent(1));
  MixedResult res;
  const size_type n = A.n(), nrhs = B.extent(1);
  if (n == 0 || nrhs == 0) {
    res.backward_error = 0;
    return res;
  }
  compat::ScopedRegion region("kspd::rfp::pfsv_mixed");
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;
  using MD = Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>;
  const int ni = int(n), nr = int(nrhs);
  const double tol = mopt.tolerance > 0 ? mopt.tolerance
                                        : std::sqrt(double(n)) * std::numeric_limits<double>::epsilon();
  const double anrm = lansf(exec, Norm::Inf, A);
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> R(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::rfp::pfsv_mixed::R"), n, nrhs);
  {
    Kokkos::View<float**, Kokkos::LayoutLeft, Mem> Rf(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::rfp::pfsv_mixed::Rf"), n, nrhs);
    Matrix<float, Mem> Af(n, A.transr(), A.uplo(),
                          typename Matrix<float, Mem>::view_type(
                              Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::rfp::pfsv_mixed::Af"),
                              size_t(A.size())));
    auto a = A.data();
    auto af = Af.data();
    Kokkos::parallel_for(
        "kspd::rfp::pfsv_mixed::demote", Range(exec, 0, A.size()), KOKKOS_LAMBDA(std::int64_t p) {
          af(p) = float(a(p));
        });
    res.fp32_info = pftrf(exec, Af, opt);
    if (res.fp32_info == 0) {
      // x_0 = A32^{-1} b; then r = b - A x, x += A32^{-1} r while the error falls.
      Kokkos::parallel_for(
          "kspd::rfp::pfsv_mixed::rhs", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
            Rf(i, c) = float(B(i, c));
          });
      pftrs(exec, Af, Rf, opt);
      Kokkos::parallel_for(
          "kspd::rfp::pfsv_mixed::x0", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
            X(i, c) = double(Rf(i, c));
          });
      double prev = std::numeric_limits<double>::infinity();
      for (int it = 0;; ++it) {
        Kokkos::parallel_for(
            "kspd::rfp::pfsv_mixed::residual", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
              R(i, c) = B(i, c);
            });
        sfmm(exec, Side::Left, -1.0, A, X, 1.0, R);
        const double be = Impl::backward_error(exec, anrm, R, X, B);
        res.backward_error = be;
        res.iterations = it;
        if (be <= tol) return res;
        if (!(be < mopt.stall_ratio * prev) || it >= mopt.max_iterations) break;  // stalled (or NaN)
        prev = be;
        Kokkos::parallel_for(
            "kspd::rfp::pfsv_mixed::demote_r", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
              Rf(i, c) = float(R(i, c));
            });
        pftrs(exec, Af, Rf, opt);
        Kokkos::parallel_for(
            "kspd::rfp::pfsv_mixed::update", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
              X(i, c) += double(Rf(i, c));
            });
      }
    }
  }  // the fp32 factor is freed before the fp64 one is allocated
  res.fell_back = true;
  Matrix<double, Mem> F = A;
  if (mopt.fallback_copy) {
    F = Matrix<double, Mem>(n, A.transr(), A.uplo(),
                            typename Matrix<double, Mem>::view_type(
                                Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::rfp::pfsv_mixed::A64"),
                                size_t(A.size())));
    Kokkos::deep_copy(exec, F.data(), A.data());
  }
  res.info = pftrf(exec, F, opt);
  if (res.info != 0) return res;
  Kokkos::parallel_for(
      "kspd::rfp::pfsv_mixed::x64", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) { X(i, c) = B(i, c); });
  pftrs(exec, F, X, opt);
  if (mopt.fallback_copy) {
    Kokkos::parallel_for(
        "kspd::rfp::pfsv_mixed::residual", MD(exec, {0, 0}, {ni, nr}), KOKKOS_LAMBDA(int i, int c) {
          R(i, c) = B(i, c);
        });
    sfmm(exec, Side::Left, -1.0, A, X, 1.0, R);
    res.backward_error = Impl::backward_error(exec, anrm, R, X, B);
  } else {
    res.backward_error = -1;
    compat::fence(exec, "kspd::rfp::pfsv_mixed");
  }
  return res;
}

}  // namespace kspd::rfp
#endif
