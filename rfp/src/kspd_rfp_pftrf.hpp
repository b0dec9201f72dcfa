#ifndef KSPD_RFP_PFTRF_HPP
#define KSPD_RFP_PFTRF_HPP
/// \file kspd_rfp_pftrf.hpp
/// Cholesky factorization in RFP format (?pftrf), the solve with its factor (?pftrs) and
/// both in one call (pfsv). pftrf is a blocked Cholesky across the RFP blocks
/// (kspd_rfp_pftrf_blocked_impl.hpp): LAPACK's potrf + trsm + syrk + potrf on the halves, or
/// nb-column steps with look-ahead; every step is a large call of the core layer and no
/// n x n workspace exists, unless Blocking::Dense asks for one (kspd_rfp_pftrf_dense_impl.hpp).

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_herm_impl.hpp"
#include "kspd_rfp_pftrf_blocked_impl.hpp"
#include "kspd_rfp_pftrf_dense_impl.hpp"
#include "kspd_rfp_tfsm.hpp"

namespace kspd::rfp {

/// A = L L^T (uplo Lower) or U^T U (Upper) in place, A SPD in RFP format (?pftrf); for
/// complex scalars A = L L^H or U^H U, A Hermitian positive definite (c/zpftrf).
/// \return info: 0, or k > 0 when the leading minor of order k (1-based global column) is
/// not positive definite (the blocks after the failing one hold garbage). Fences `exec` once
/// at the end (cuSOLVER writes info on the stream). opt.blocking / opt.block_size override
/// core's choice of blocking (for benchmarks).
template <class ExecSpace, class T, class Mem>
[[nodiscard]] int pftrf(const ExecSpace& exec, const Matrix<T, Mem>& A, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf", A);
  if (A.n() == 0) return 0;
  compat::ScopedRegion region("kspd::rfp::pftrf");
  // opt.blocking (benchmark override) or core's measured table: LAPACK's four calls, or the
  // blocked Cholesky across the blocks with look-ahead on a second stream
  auto choice = kspd::Impl::resolve_blocking<ExecSpace, T>(opt, A.n());
  if (choice.kind == Blocking::Dense) {
    // real only: complex on CUDA reported info 33 for a failing pivot at 32 of 64 (H100, s7;
    // not seen with LAPACK on the host), not yet understood
    if constexpr (!is_complex_v<T>)
      if (Impl::pftrf_dense_fits<ExecSpace, T>(exec, A.n())) return Impl::pftrf_dense(exec, A, opt);
    choice.kind = Blocking::Split;  // complex, or no room for the dense workspace: the blocks
  }
  return Impl::pftrf_blocked(exec, Impl::stored_blocks(A), choice, opt);
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
