#ifndef KSPD_BATCHED_TRMM_HPP
#define KSPD_BATCHED_TRMM_HPP
/// \file kspd_batched_trmm.hpp
/// Batched triangular multiply, every variant: B_b = alpha op(A_b) B_b (Left) or
/// alpha B_b op(A_b) (Right). (cuBLAS has no batched TRMM.)

#include "kspd_batched_trmm_dispatch.hpp"
#include "kspd_batched_gemm.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

/// \brief Strided batch: As (batch, k, k), k = m (Left) or n (Right); Bs (batch, m, n).
template <class ExecSpace, class AView, class BView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void trmm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BView::const_value_type alpha, const AView& As, const BView& Bs, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("trmm", "As");
  Impl::check_batch_view<ExecSpace, BView>("trmm", "Bs");
  static_assert(AView::rank == 3 && BView::rank == 3, "kspd::batched::trmm: As and Bs must be rank-3 Views");
  const size_type m = Bs.extent(1), n = Bs.extent(2), k = side == Side::Left ? m : n;
  KSPD_REQUIRE(As.extent(0) == Bs.extent(0), DimensionMismatch,
               "kspd::batched::trmm: As holds " << As.extent(0) << " matrices, Bs " << Bs.extent(0));
  KSPD_REQUIRE(size_type(As.extent(1)) == k && size_type(As.extent(2)) == k, DimensionMismatch,
               "kspd::batched::trmm: As must be " << k << " x " << k << " (got " << As.extent(1) << " x " << As.extent(2) << ")");
  using T = typename BView::non_const_value_type;
  Impl::trmm_fixed<ExecSpace, T>(exec, side, uplo, trans, diag, alpha, size_type(Bs.extent(0)), m, n,
                                 Impl::BatchMat<const T>(Impl::strided_batch(As)), Impl::strided_batch(Bs), opts);
}
/// \brief Pointer arrays, column-major: A_b k x k (lda), B_b m x n (ldb).
template <class ExecSpace, class T>
void trmm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch, size_type m,
          size_type n, const T* const* Aptrs, offset_type lda, T* const* Bptrs, offset_type ldb,
          const BatchOptions& opts = {}) {
  const size_type k = side == Side::Left ? m : n;
  KSPD_REQUIRE(nbatch >= 0 && m >= 0 && n >= 0, InvalidArgument, "kspd::batched::trmm: nbatch, m, n must be >= 0");
  KSPD_REQUIRE(lda >= (k > 1 ? k : 1), InvalidArgument, "kspd::batched::trmm: lda = " << lda << " < " << k);
  KSPD_REQUIRE(ldb >= (m > 1 ? m : 1), InvalidArgument, "kspd::batched::trmm: ldb = " << ldb << " < m = " << m);
  Impl::trmm_fixed<ExecSpace, T>(exec, side, uplo, trans, diag, alpha, nbatch, m, n, Impl::pointer_batch(Aptrs, lda),
                                 Impl::pointer_batch(Bptrs, ldb), opts);
}

}  // namespace kspd::batched
#endif
