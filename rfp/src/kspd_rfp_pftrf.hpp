#ifndef KSPD_RFP_PFTRF_HPP
#define KSPD_RFP_PFTRF_HPP
/// \file kspd_rfp_pftrf.hpp
/// Cholesky factorization in RFP format (?pftrf), the solve with its factor (?pftrs) and
/// both in one call (pfsv). pftrf is potrf + trsm + syrk + potrf on the blocks: four calls
/// of the core layer of sizes n/2, so the vendor (or recursive) kernels see large problems
/// and no n x n workspace exists.

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_herm_impl.hpp"
#include "kspd_rfp_tfsm.hpp"

namespace kspd::rfp {

/// A = L L^T (uplo Lower) or U^T U (Upper) in place, A SPD in RFP format (?pftrf); for
/// complex scalars A = L L^H or U^H U, A Hermitian positive definite (c/zpftrf).
/// \return info: 0, or k > 0 when the leading minor of order k (1-based global column) is
/// not positive definite; the factorization stops there. Fences `exec` once at the end
/// (cuSOLVER writes info on the stream).
template <class ExecSpace, class T, class Mem>
[[nodiscard]] int pftrf(const ExecSpace& exec, const Matrix<T, Mem>& A, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf", A);
  if (A.n() == 0) return 0;
  compat::ScopedRegion region("kspd::rfp::pftrf");
  Kokkos::View<int*, Mem> info("kspd::rfp::pftrf::info", 2);
  auto info1 = Kokkos::subview(info, 0);
  auto info2 = Kokkos::subview(info, 1);
  const auto b = Impl::blocks(A);
  if constexpr (is_complex_v<T>) {
    // Hermitian: the blocks as stored (a transposed view would be a conjugate)
    Impl::pftrf_stored(exec, Impl::stored_blocks(A), info1, info2, opt);
  } else {
    // L11 = chol(A11); L21 = A21 L11^{-T}; A22 -= L21 L21^T; L22 = chol(A22). If A11 fails the
    // rest works on garbage but info1 is what is reported; no fence in between.
    potrf(exec, Uplo::Lower, b.t1, info1, opt);
    if (b.n2 > 0) {
      if (b.n1 > 0) {
        trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), b.t1, b.s, opt);
        syrk(exec, Uplo::Lower, Trans::NoTranspose, T(-1), b.s, T(1), b.t2, opt);
      }
      potrf(exec, Uplo::Lower, b.t2, info2, opt);
    }
  }
  auto h = Kokkos::create_mirror_view(info);
  Kokkos::deep_copy(exec, h, info);
  compat::fence(exec, "kspd::rfp::pftrf");
  if (h(0) != 0) return h(0);
  return h(1) > 0 ? int(b.n1) + h(1) : h(1);
}

/// Solves A X = B in place on the n x nrhs View B with the factor from pftrf (?pftrs).
template <class ExecSpace, class T, class Mem, class BV>
void pftrs(const ExecSpace& exec, const Matrix<T, Mem>& A, const BV& B, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrs", A);
  Impl::check_dense<ExecSpace>("kspd::rfp::pftrs", "B", B);
  KSPD_REQUIRE(size_type(B.extent(0)) == A.n(), DimensionMismatch,
               "kspd::rfp::pftrs: B has " << B.extent(0) << " rows but A is " << A.n() << " x " << A.n());
  if (A.n() == 0 || B.extent(1) == 0) return;
  compat::ScopedRegion region("kspd::rfp::pftrs");
  // A = L L^T for both uplo (U = L^T): forward with L, backward with L^T.
  if constexpr (is_complex_v<T>) {  // A = L L^H
    const auto b = Impl::stored_blocks(A);
    Impl::tfsm_stored(exec, Side::Left, false, Diag::NonUnit, T(1), b, B, opt);
    Impl::tfsm_stored(exec, Side::Left, true, Diag::NonUnit, T(1), b, B, opt);
  } else {
    const auto b = Impl::blocks(A);
    Impl::tfsm_lower(exec, Side::Left, false, Diag::NonUnit, T(1), b, B, opt);
    Impl::tfsm_lower(exec, Side::Left, true, Diag::NonUnit, T(1), b, B, opt);
  }
}

/// Factors A (pftrf) and, when it is positive definite, solves A X = B in place on B.
/// \return pftrf's info; B is untouched when info != 0.
template <class ExecSpace, class T, class Mem, class BV>
[[nodiscard]] int pfsv(const ExecSpace& exec, const Matrix<T, Mem>& A, const BV& B, const DenseOptions& opt = {}) {
  Impl::check_dense<ExecSpace>("kspd::rfp::pfsv", "B", B);
  KSPD_REQUIRE(size_type(B.extent(0)) == A.n(), DimensionMismatch,
               "kspd::rfp::pfsv: B has " << B.extent(0) << " rows but A is " << A.n() << " x " << A.n());
  const int info = pftrf(exec, A, opt);
  if (info == 0) pftrs(exec, A, B, opt);
  return info;
}

}  // namespace kspd::rfp
#endif
