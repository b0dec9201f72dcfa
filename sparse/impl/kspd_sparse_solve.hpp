#ifndef KSPD_SPARSE_SOLVE_HPP
#define KSPD_SPARSE_SOLVE_HPP
/// \file kspd_sparse_solve.hpp
/// Supernodal triangular solves with many right-hand sides on the permuted system:
/// forward L Y = B (per supernode: trsm on the diagonal block, gemm into the rows below,
/// scatter-subtract), backward L^T X = Y (gather, gemm, trsm with the transpose).

#include <Kokkos_Core.hpp>

#include <vector>

#include "kspd_core.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// W: n x nrhs, column-major with leading dimension ldw, in the permuted numbering.
template <class Scalar>
void supernodal_solve(const Symbolic& S, const Scalar* values, Scalar* W, size_type nrhs, size_type ldw,
                      SolvePart part = SolvePart::Both) {
  using HMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::DefaultHostExecutionSpace exec;
  std::vector<Scalar> tmp;
  const size_type ns = size_type(S.snodes.size());
  auto pieces = [&](const Supernode& sn, CMat& D, CMat& B, HMat& X) {
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const Scalar* p = values + sn.value_offset;
    D = CMat(p, Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(k), size_t(ld)));
    B = CMat(p + k, Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(k), size_t(ld)));
    X = HMat(W + sn.first_col, Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(nrhs), size_t(ldw)));
  };
  for (size_type s = 0; s < ns && (int(part) & int(SolvePart::Forward)); ++s) {
    const Supernode& sn = S.snodes[size_t(s)];
    CMat D, B;
    HMat X;
    pieces(sn, D, B, X);
    kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, X);
    const size_type m = sn.nrows() - sn.ncols;
    if (m == 0) continue;
    tmp.resize(static_cast<size_t>(m * nrhs));
    HMat T(tmp.data(), Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(nrhs), size_t(m)));
    kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(1), B, X, Scalar(0), T);
    const size_type* rows = S.rows.data() + sn.row_begin + sn.ncols;
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < m; ++i) W[rows[i] + r * ldw] -= tmp[size_t(i + r * m)];
  }
  for (size_type s = ns - 1; s >= 0 && (int(part) & int(SolvePart::Backward)); --s) {
    const Supernode& sn = S.snodes[size_t(s)];
    CMat D, B;
    HMat X;
    pieces(sn, D, B, X);
    const size_type m = sn.nrows() - sn.ncols;
    if (m > 0) {
      tmp.resize(static_cast<size_t>(m * nrhs));
      const size_type* rows = S.rows.data() + sn.row_begin + sn.ncols;
      for (size_type r = 0; r < nrhs; ++r)
        for (size_type i = 0; i < m; ++i) tmp[size_t(i + r * m)] = W[rows[i] + r * ldw];
      CMat T(tmp.data(), Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(nrhs), size_t(m)));
      kspd::gemm(exec, Trans::Transpose, Trans::NoTranspose, Scalar(-1), B, T, Scalar(1), X);
    }
    kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), D, X);
  }
}

}  // namespace kspd::sparse::Impl
#endif
