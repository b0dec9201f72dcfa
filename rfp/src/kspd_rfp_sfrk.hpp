#ifndef KSPD_RFP_SFRK_HPP
#define KSPD_RFP_SFRK_HPP
/// \file kspd_rfp_sfrk.hpp
/// Symmetric rank-k / rank-2k / rank-1 / rank-2 updates of an RFP matrix: ?sfrk (as LAPACK),
/// and sfr2k, sfr, sfr2 (as cuRFP). Each is syrk (syr2k) + gemm + syrk (syr2k) on the blocks.

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_convert.hpp"

namespace kspd::rfp {
namespace Impl {

/// C = beta C on every entry (beta == 0 writes zeros without reading C).
template <class ExecSpace, class T, class Mem>
void scale(const ExecSpace& exec, const Matrix<T, Mem>& C, T beta) {
  if (beta == T(1)) return;
  auto c = C.data();
  Kokkos::parallel_for(
      "kspd::rfp::scale", Range64<ExecSpace>(exec, 0, C.size()),
      KOKKOS_LAMBDA(std::int64_t p) { c(p) = beta == T(0) ? T(0) : beta * c(p); });
}

template <class ExecSpace, class T, class Mem, class AV>
size_type update_rank(const char* op, const char* name, Trans trans, const AV& A, const Matrix<T, Mem>& C) {
  check_dense<ExecSpace>(op, name, A);
  const size_type an = is_trans(trans) ? A.extent(1) : A.extent(0);
  KSPD_REQUIRE(an == C.n(), DimensionMismatch,
               op << ": op(" << name << ") has " << an << " rows (" << name << " is " << A.extent(0) << " x "
                  << A.extent(1) << ", trans " << to_char(trans) << ") but C is " << C.n() << " x " << C.n());
  return is_trans(trans) ? A.extent(0) : A.extent(1);
}

/// Rows (trans N) or columns (trans T) [i0, i0+ni) of A: the part of op(A) in one block.
template <class AV>
auto part(const AV& A, Trans trans, size_type i0, size_type ni) {
  return Kokkos::subview(A, is_trans(trans) ? Kokkos::make_pair(size_t(0), size_t(A.extent(0)))
                                            : Kokkos::make_pair(size_t(i0), size_t(i0 + ni)),
                         is_trans(trans) ? Kokkos::make_pair(size_t(i0), size_t(i0 + ni))
                                         : Kokkos::make_pair(size_t(0), size_t(A.extent(1))));
}

}  // namespace Impl

/// C = alpha op(A) op(A)^T + beta C, C symmetric in RFP format (?sfrk). trans NoTranspose:
/// A is n x k; Transpose: A is k x n. beta == 0 does not read C.
template <class ExecSpace, class AV, class T, class Mem>
void sfrk(const ExecSpace& exec, Trans trans, T alpha, const AV& A, T beta, const Matrix<T, Mem>& C,
          const DenseOptions& opt = {}) {
  Impl::require_real<T>("kspd::rfp::sfrk");
  Impl::check_matrix<ExecSpace>("kspd::rfp::sfrk", C);
  const size_type k = Impl::update_rank<ExecSpace>("kspd::rfp::sfrk", "A", trans, A, C);
  if (C.n() == 0) return;
  compat::ScopedRegion region("kspd::rfp::sfrk");
  if (k == 0 || alpha == T(0)) return Impl::scale(exec, C, beta);
  const auto b = Impl::blocks(C);
  const Trans ot = is_trans(trans) ? Trans::NoTranspose : Trans::Transpose;  // op(.)^T
  auto A1 = Impl::part(A, trans, 0, b.n1);
  auto A2 = Impl::part(A, trans, b.n1, b.n2);
  // [C11 .; C21 C22] = alpha [A1; A2] [A1; A2]^T + beta C: syrk, gemm, syrk.
  syrk(exec, Uplo::Lower, trans, alpha, A1, beta, b.t1, opt);
  if (b.n2 > 0) {
    if (b.n1 > 0) gemm(exec, trans, ot, alpha, A2, A1, beta, b.s);
    syrk(exec, Uplo::Lower, trans, alpha, A2, beta, b.t2, opt);
  }
}

/// C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C, C in RFP format.
template <class ExecSpace, class AV, class BV, class T, class Mem>
void sfr2k(const ExecSpace& exec, Trans trans, T alpha, const AV& A, const BV& B, T beta, const Matrix<T, Mem>& C,
           const DenseOptions& opt = {}) {
  Impl::require_real<T>("kspd::rfp::sfr2k");
  Impl::check_matrix<ExecSpace>("kspd::rfp::sfr2k", C);
  const size_type k = Impl::update_rank<ExecSpace>("kspd::rfp::sfr2k", "A", trans, A, C);
  const size_type kb = Impl::update_rank<ExecSpace>("kspd::rfp::sfr2k", "B", trans, B, C);
  KSPD_REQUIRE(k == kb, DimensionMismatch,
               "kspd::rfp::sfr2k: A is " << A.extent(0) << " x " << A.extent(1) << " but B is " << B.extent(0)
                                         << " x " << B.extent(1));
  if (C.n() == 0) return;
  compat::ScopedRegion region("kspd::rfp::sfr2k");
  if (k == 0 || alpha == T(0)) return Impl::scale(exec, C, beta);
  const auto b = Impl::blocks(C);
  const Trans ot = is_trans(trans) ? Trans::NoTranspose : Trans::Transpose;
  auto A1 = Impl::part(A, trans, 0, b.n1);
  auto A2 = Impl::part(A, trans, b.n1, b.n2);
  auto B1 = Impl::part(B, trans, 0, b.n1);
  auto B2 = Impl::part(B, trans, b.n1, b.n2);
  syr2k(exec, Uplo::Lower, trans, alpha, A1, B1, beta, b.t1, opt);
  if (b.n2 > 0) {
    if (b.n1 > 0) {  // C21 = alpha (A2 B1^T + B2 A1^T) + beta C21
      gemm(exec, trans, ot, alpha, A2, B1, beta, b.s);
      gemm(exec, trans, ot, alpha, B2, A1, T(1), b.s);
    }
    syr2k(exec, Uplo::Lower, trans, alpha, A2, B2, beta, b.t2, opt);
  }
}

/// C = alpha x x^T + C (rank-1 update; x a rank-1 View of length n).
template <class ExecSpace, class XV, class T, class Mem>
void sfr(const ExecSpace& exec, T alpha, const XV& x, const Matrix<T, Mem>& C) {
  static_assert(Kokkos::is_view<XV>::value && XV::rank == 1, "kspd::rfp::sfr: x must be a rank-1 View");
  KSPD_REQUIRE(size_type(x.extent(0)) == C.n(), DimensionMismatch,
               "kspd::rfp::sfr: x has " << x.extent(0) << " entries but C is " << C.n() << " x " << C.n());
  sfrk(exec, Trans::NoTranspose, alpha, Impl::as_column(x), T(1), C);
}

/// C = alpha (x y^T + y x^T) + C (rank-2 update).
template <class ExecSpace, class XV, class YV, class T, class Mem>
void sfr2(const ExecSpace& exec, T alpha, const XV& x, const YV& y, const Matrix<T, Mem>& C) {
  static_assert(Kokkos::is_view<XV>::value && XV::rank == 1, "kspd::rfp::sfr2: x must be a rank-1 View");
  static_assert(Kokkos::is_view<YV>::value && YV::rank == 1, "kspd::rfp::sfr2: y must be a rank-1 View");
  KSPD_REQUIRE(size_type(x.extent(0)) == C.n() && size_type(y.extent(0)) == C.n(), DimensionMismatch,
               "kspd::rfp::sfr2: x has " << x.extent(0) << " and y " << y.extent(0) << " entries but C is " << C.n()
                                         << " x " << C.n());
  sfr2k(exec, Trans::NoTranspose, alpha, Impl::as_column(x), Impl::as_column(y), T(1), C);
}

}  // namespace kspd::rfp
#endif
