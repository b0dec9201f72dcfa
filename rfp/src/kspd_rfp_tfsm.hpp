#ifndef KSPD_RFP_TFSM_HPP
#define KSPD_RFP_TFSM_HPP
/// \file kspd_rfp_tfsm.hpp
/// Triangular solve with a triangle stored in RFP format (?tfsm): two trsm and one gemm on
/// the blocks.

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_herm_impl.hpp"

namespace kspd::rfp {
namespace Impl {

/// B = alpha op(L)^{-1} B (Left) or alpha B op(L)^{-1} (Right), L the lower triangle made of
/// the blocks (t1, s, t2); tl says op(L) = L^T.
template <class ExecSpace, class T, class Mem, class BV>
void tfsm_lower(const ExecSpace& exec, Side side, bool tl, Diag diag, T alpha, const Blocks<T, Mem>& b,
                const BV& B, const DenseOptions& opt) {
  const Uplo lo = Uplo::Lower;
  const Trans N = Trans::NoTranspose, Tr = Trans::Transpose;
  const size_type n1 = b.n1, n2 = b.n2;
  // The gemm that couples the halves is skipped when one half is empty; alpha then goes to
  // the second solve.
  if (side == Side::Left) {
    auto B1 = rows(B, 0, n1);
    auto B2 = rows(B, n1, n2);
    if (!tl) {  // [L11 0; L21 L22] X = alpha B
      trsm(exec, Side::Left, lo, N, diag, alpha, b.t1, B1, opt);
      T a2 = T(1);
      if (n1 > 0) gemm(exec, N, N, T(-1), b.s, B1, alpha, B2);
      else a2 = alpha;
      trsm(exec, Side::Left, lo, N, diag, a2, b.t2, B2, opt);
    } else {  // [L11^T L21^T; 0 L22^T] X = alpha B
      trsm(exec, Side::Left, lo, Tr, diag, alpha, b.t2, B2, opt);
      T a1 = T(1);
      if (n2 > 0) gemm(exec, Tr, N, T(-1), b.s, B2, alpha, B1);
      else a1 = alpha;
      trsm(exec, Side::Left, lo, Tr, diag, a1, b.t1, B1, opt);
    }
  } else {
    auto B1 = cols(B, 0, n1);
    auto B2 = cols(B, n1, n2);
    if (!tl) {  // [X1 X2] [L11 0; L21 L22] = alpha [B1 B2]
      trsm(exec, Side::Right, lo, N, diag, alpha, b.t2, B2, opt);
      T a1 = T(1);
      if (n2 > 0) gemm(exec, N, N, T(-1), B2, b.s, alpha, B1);
      else a1 = alpha;
      trsm(exec, Side::Right, lo, N, diag, a1, b.t1, B1, opt);
    } else {  // [X1 X2] [L11^T L21^T; 0 L22^T] = alpha [B1 B2]
      trsm(exec, Side::Right, lo, Tr, diag, alpha, b.t1, B1, opt);
      T a2 = T(1);
      if (n1 > 0) gemm(exec, N, Tr, T(-1), B1, b.s, alpha, B2);
      else a2 = alpha;
      trsm(exec, Side::Right, lo, Tr, diag, a2, b.t2, B2, opt);
    }
  }
}

}  // namespace Impl

/// Triangular solve with the `A.uplo()` triangle of the RFP matrix A (?tfsm), in place on
/// the m x n View B: B = alpha op(A)^{-1} B (side Left, A is m x m) or B = alpha B op(A)^{-1}
/// (side Right, A is n x n). diag = Unit takes the diagonal as ones without reading it.
/// Complex scalars (c/ztfsm): trans NoTranspose or ConjTranspose.
/// Non-blocking on `exec` where the backend is.
template <class ExecSpace, class T, class Mem, class BV>
void tfsm(const ExecSpace& exec, Side side, Trans trans, Diag diag, typename BV::const_value_type alpha,
          const Matrix<T, Mem>& A, const BV& B, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::tfsm", A);
  Impl::check_dense<ExecSpace>("kspd::rfp::tfsm", "B", B);
  const size_type k = side == Side::Left ? B.extent(0) : B.extent(1);
  KSPD_REQUIRE(k == A.n(), DimensionMismatch,
               "kspd::rfp::tfsm: B is " << B.extent(0) << " x " << B.extent(1) << " but A is " << A.n() << " x "
                                        << A.n() << " (side " << to_char(side) << ")");
  if (B.extent(0) == 0 || B.extent(1) == 0) return;
  compat::ScopedRegion region("kspd::rfp::tfsm");
  // The upper triangle is L^T (L^H) for the lower triangle L the blocks describe.
  const bool tl = is_trans(trans) != (A.uplo() == Uplo::Upper);
  if constexpr (is_complex_v<T>) {
    KSPD_REQUIRE(trans != Trans::Transpose, InvalidArgument,
                 "kspd::rfp::tfsm: trans must be NoTranspose or ConjTranspose for complex scalars");
    Impl::tfsm_stored(exec, side, tl, diag, T(alpha), Impl::stored_blocks(A), B, opt);
  } else {
    Impl::tfsm_lower(exec, side, tl, diag, T(alpha), Impl::blocks(A), B, opt);
  }
}

}  // namespace kspd::rfp
#endif
