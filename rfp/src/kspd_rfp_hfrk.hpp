#ifndef KSPD_RFP_HFRK_HPP
#define KSPD_RFP_HFRK_HPP
/// \file kspd_rfp_hfrk.hpp
/// Hermitian rank-k update of a complex RFP matrix (c/zhfrk): herk + gemm + herk on the blocks
/// as stored (kspd_rfp_herm_impl.hpp), so every call is one column-major vendor call.

#include "kspd_rfp_herm_impl.hpp"
#include "kspd_rfp_sfrk.hpp"

namespace kspd::rfp {

/// C = alpha op(A) op(A)^H + beta C, C Hermitian in RFP format (?hfrk), alpha and beta real.
/// trans NoTranspose: A is n x k; ConjTranspose: A is k x n. As LAPACK: nothing happens when
/// (alpha == 0 or k == 0) and beta == 1, alpha == beta == 0 writes zeros without reading C,
/// and otherwise the diagonal's imaginary parts come out zero. Real scalars: sfrk.
template <class ExecSpace, class AV, class T, class Mem>
void hfrk(const ExecSpace& exec, Trans trans, real_t<T> alpha, const AV& A, real_t<T> beta, const Matrix<T, Mem>& C,
          const DenseOptions& opt = {}) {
  if constexpr (!is_complex_v<T>) {
    sfrk(exec, trans, alpha, A, beta, C, opt);
  } else {
    using R = real_t<T>;
    Impl::check_matrix<ExecSpace>("kspd::rfp::hfrk", C);
    KSPD_REQUIRE(trans != Trans::Transpose, InvalidArgument,
                 "kspd::rfp::hfrk: trans must be NoTranspose or ConjTranspose for complex scalars");
    const size_type k = Impl::update_rank<ExecSpace>("kspd::rfp::hfrk", "A", trans, A, C);
    if (C.n() == 0) return;
    if ((alpha == R(0) || k == 0) && beta == R(1)) return;
    compat::ScopedRegion region("kspd::rfp::hfrk");
    if (alpha == R(0) && beta == R(0)) return Impl::scale(exec, C, T(0));
    const auto b = Impl::stored_blocks(C);
    auto A1 = Impl::part(A, trans, 0, b.n1);
    auto A2 = Impl::part(A, trans, b.n1, b.n2);
    const bool nt = !is_trans(trans);
    const Trans N = Trans::NoTranspose, H = Trans::ConjTranspose;
    // [C11 .; C21 C22] = alpha [A1; A2] [A1; A2]^H + beta C (op(A) = A^H for trans C)
    herk(exec, b.t1.uplo, trans, alpha, A1, beta, b.t1.v, opt);
    if (b.n2 > 0) {
      // C21 = alpha op(A2) op(A1)^H + beta C21, or C12 = alpha op(A1) op(A2)^H + beta C12
      if (b.n1 > 0) {
        if (b.s.h) gemm(exec, nt ? N : H, nt ? H : N, T(alpha), A1, A2, T(beta), b.s.v);
        else gemm(exec, nt ? N : H, nt ? H : N, T(alpha), A2, A1, T(beta), b.s.v);
      }
      herk(exec, b.t2.uplo, trans, alpha, A2, beta, b.t2.v, opt);
    }
  }
}

}  // namespace kspd::rfp
#endif
