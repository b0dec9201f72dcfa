#ifndef KSPD_RFP_SFMM_HPP
#define KSPD_RFP_SFMM_HPP
/// \file kspd_rfp_sfmm.hpp
/// Symmetric matrix times dense matrix (sfmm) or vector (sfmv) with the symmetric matrix in
/// RFP format: symm + gemm per half.

#include "kspd_rfp_blocks_impl.hpp"

namespace kspd::rfp {

/// C = alpha A B + beta C (side Left: A n x n RFP, B and C n x m) or C = alpha B A + beta C
/// (side Right: B and C m x n). beta == 0 does not read C.
template <class ExecSpace, class T, class Mem, class BV, class CV>
void sfmm(const ExecSpace& exec, Side side, T alpha, const Matrix<T, Mem>& A, const BV& B, T beta, const CV& C) {
  Impl::require_real<T>("kspd::rfp::sfmm");
  Impl::check_matrix<ExecSpace>("kspd::rfp::sfmm", A);
  Impl::check_dense<ExecSpace>("kspd::rfp::sfmm", "B", B);
  Impl::check_dense<ExecSpace>("kspd::rfp::sfmm", "C", C);
  const size_type k = side == Side::Left ? B.extent(0) : B.extent(1);
  KSPD_REQUIRE(k == A.n() && B.extent(0) == C.extent(0) && B.extent(1) == C.extent(1), DimensionMismatch,
               "kspd::rfp::sfmm: A is " << A.n() << " x " << A.n() << ", B is " << B.extent(0) << " x " << B.extent(1)
                                        << ", C is " << C.extent(0) << " x " << C.extent(1) << " (side "
                                        << to_char(side) << ")");
  if (C.extent(0) == 0 || C.extent(1) == 0) return;
  compat::ScopedRegion region("kspd::rfp::sfmm");
  const auto b = Impl::blocks(A);
  const size_type n1 = b.n1, n2 = b.n2;
  const Trans N = Trans::NoTranspose, Tr = Trans::Transpose;
  // Each half of C first gets the symm with beta, then the coupling gemm adds to it.
  if (side == Side::Left) {  // [C1; C2] = alpha [A11 A21^T; A21 A22] [B1; B2] + beta [C1; C2]
    auto B1 = Impl::rows(B, 0, n1);
    auto B2 = Impl::rows(B, n1, n2);
    auto C1 = Impl::rows(C, 0, n1);
    auto C2 = Impl::rows(C, n1, n2);
    if (n1 > 0) {
      symm(exec, Side::Left, Uplo::Lower, alpha, b.t1, B1, beta, C1);
      if (n2 > 0) gemm(exec, Tr, N, alpha, b.s, B2, T(1), C1);
    }
    if (n2 > 0) {
      symm(exec, Side::Left, Uplo::Lower, alpha, b.t2, B2, beta, C2);
      if (n1 > 0) gemm(exec, N, N, alpha, b.s, B1, T(1), C2);
    }
  } else {  // [C1 C2] = alpha [B1 B2] [A11 A21^T; A21 A22] + beta [C1 C2]
    auto B1 = Impl::cols(B, 0, n1);
    auto B2 = Impl::cols(B, n1, n2);
    auto C1 = Impl::cols(C, 0, n1);
    auto C2 = Impl::cols(C, n1, n2);
    if (n1 > 0) {
      symm(exec, Side::Right, Uplo::Lower, alpha, b.t1, B1, beta, C1);
      if (n2 > 0) gemm(exec, N, N, alpha, B2, b.s, T(1), C1);
    }
    if (n2 > 0) {
      symm(exec, Side::Right, Uplo::Lower, alpha, b.t2, B2, beta, C2);
      if (n1 > 0) gemm(exec, N, Tr, alpha, B1, b.s, T(1), C2);
    }
  }
}

/// y = alpha A x + beta y, A symmetric in RFP format, x and y rank-1 Views of length n.
template <class ExecSpace, class T, class Mem, class XV, class YV>
void sfmv(const ExecSpace& exec, T alpha, const Matrix<T, Mem>& A, const XV& x, T beta, const YV& y) {
  static_assert(Kokkos::is_view<XV>::value && XV::rank == 1, "kspd::rfp::sfmv: x must be a rank-1 View");
  static_assert(Kokkos::is_view<YV>::value && YV::rank == 1, "kspd::rfp::sfmv: y must be a rank-1 View");
  KSPD_REQUIRE(size_type(x.extent(0)) == A.n() && size_type(y.extent(0)) == A.n(), DimensionMismatch,
               "kspd::rfp::sfmv: x has " << x.extent(0) << " and y " << y.extent(0) << " entries but A is " << A.n()
                                         << " x " << A.n());
  sfmm(exec, Side::Left, alpha, A, Impl::as_column(x), beta, Impl::as_column(y));
}

}  // namespace kspd::rfp
#endif
