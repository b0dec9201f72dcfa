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

#include "kspd_mixed_refinement.hpp"
#include "kspd_rfp_lansf.hpp"
#include "kspd_rfp_pftrf.hpp"
#include "kspd_rfp_sfmm.hpp"

namespace kspd::rfp {

using kspd::MixedOptions;  // kspd_mixed_refinement.hpp: shared with the sparse solver
using kspd::MixedResult;

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
        const double be = kspd::Impl::backward_error(exec, anrm, R, X, B);
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
    res.backward_error = kspd::Impl::backward_error(exec, anrm, R, X, B);
  } else {
    res.backward_error = -1;
    compat::fence(exec, "kspd::rfp::pfsv_mixed");
  }
  return res;
}

}  // namespace kspd::rfp
#endif
