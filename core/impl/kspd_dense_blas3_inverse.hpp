#ifndef KSPD_DENSE_BLAS3_INVERSE_HPP
#define KSPD_DENSE_BLAS3_INVERSE_HPP
/// \file kspd_dense_blas3_inverse.hpp
/// TRTRI and LAUUM of a triangle as one full BLAS-3 call on an n x n workspace W:
///   trtri: W = I, W = op(A)^{-1} W (trsm) -> inv(A), whose triangle is copied back;
///   lauum: W = tri(A), W = A^H W (Lower, trmm) or W A^H (Upper) -> the Hermitian product.
/// Three times the flops of the triangular algorithms, but one large vendor call where
/// cuSOLVER's TRTRI and the recursion's small LAUUM leaves are latency-bound (the halves of
/// pftri at n = 4K-8K: pftri 0.70-0.88x of cuSOLVER potri in h100-rfp-blocking-2026-11-24).

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_dense.hpp"
#include "kspd_dense_mat.hpp"
#include "kspd_dense_native.hpp"
#include "kspd_dense_transposed.hpp"

namespace kspd::Impl {

/// The table behind DenseOptions::blas3_inverse = Auto, for trtri (non-unit) and lauum.
template <class ExecSpace, class T>
bool blas3_inverse(const ExecSpace& exec, const DenseOptions& opt, FactorOp fop, Diag diag, size_type n) {
  if (opt.blas3_inverse == Toggle::Off || n < 2) return false;
  if (fop == FactorOp::Potrf || fop == FactorOp::Potri) return false;  // potri: its two halves decide
  if (fop == FactorOp::Trtri && diag == Diag::Unit) return false;       // the unit diagonal is not ours to write
  bool pays = opt.blas3_inverse == Toggle::On;
  if constexpr (!compat::is_host_exec_v<ExecSpace> && !is_complex_v<T>) {
    // H100 (h100-rfp-upper-2026-11-24.md): pftri with its halves' TRTRI/LAUUM this way runs
    // 1.74-2.30x faster than with cuSOLVER's TRTRI and the LAUUM recursion for halves of
    // 2K-4K (fp64, fp32), 1.08-1.26x over the recursive TRTRI for 8K halves (fp64); larger
    // blocks not measured (3x the flops). Host LAPACK's own and complex on CUDA: not measured.
    pays = pays || (has_vendor_v<ExecSpace, T> && n >= 2048 && n <= 8192);
  }
  return pays && workspace_fits<ExecSpace, T>(exec, ScratchSlot::Blas3Inverse, n);
}

/// trtri (fop Trtri, non-unit; A's diagonal has no zero) or lauum (fop Lauum) of the `uplo`
/// triangle of the square A in place, through W (core's scratch: fences `exec` on devices
/// only when W is too large to keep).
template <class ExecSpace, class AV>
void blas3_inverse_apply(const ExecSpace& exec, FactorOp fop, Uplo uplo, const AV& A, const DenseOptions& opt) {
  using T = typename AV::non_const_value_type;
  const size_type n = A.extent(0);
  const SquareWorkspace<ExecSpace, T> work(exec, n, ScratchSlot::Blas3Inverse);
  const auto W = work.view();
  Kokkos::deep_copy(exec, W, T(0));
  const auto a = make_mat(A), w = make_mat(W);
  const Mat<T> al = uplo == Uplo::Upper ? a.t() : a, wl = uplo == Uplo::Upper ? w.t() : w;
  DenseOptions inner = opt;
  inner.blas3_inverse = Toggle::Off;
  if (fop == FactorOp::Trtri) {
    Kokkos::parallel_for(
        "kspd::blas3_inverse::identity", Kokkos::RangePolicy<ExecSpace>(exec, 0, n),
        KOKKOS_LAMBDA(const size_type i) { w(i, i) = T(1); });
    trsm(exec, Side::Left, uplo, Trans::NoTranspose, Diag::NonUnit, T(1), A, W, inner);
  } else {
    copy_lower<ExecSpace, T>(exec, al, wl, false);
    if (uplo == Uplo::Lower) trmm(exec, Side::Left, uplo, herm_trans<T>(), Diag::NonUnit, T(1), A, W, inner);
    else trmm(exec, Side::Right, uplo, herm_trans<T>(), Diag::NonUnit, T(1), A, W, inner);
  }
  copy_lower<ExecSpace, T>(exec, wl, al, false);
  work.release_after();
}

}  // namespace kspd::Impl
#endif
