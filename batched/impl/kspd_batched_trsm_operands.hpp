#ifndef KSPD_BATCHED_TRSM_OPERANDS_HPP
#define KSPD_BATCHED_TRSM_OPERANDS_HPP
/// \file kspd_batched_trsm_operands.hpp
/// The operand list of a batched TRSM / TRMM (the BLAS argument list: side, uplo, trans, diag,
/// alpha, A, B and B's m x n), held by value by every kernel that solves or multiplies with a
/// triangular batch: the shared-memory (smem::TrsmArgs), register (RegTrsm), streaming
/// (StreamTrsm) and host-lane (LaneTrsm) kernels and the portable TrsmOp / TrmmOp. The dispatch
/// builds it once and hands it down; kernels add only their own launch parameters.

#include <climits>
#include <type_traits>

#include "kspd_batched_mat.hpp"
#include "kspd_batched_trsm_internal.hpp"
#include "kspd_error.hpp"

namespace kspd::batched::Impl {

/// One m x n for the whole batch as the small-matrix kernels take it: two ints (the kernels
/// index in 32 bits; Dims is the size_type / per-matrix form of the portable kernels).
struct FixedDims {
  int m = 0, n = 0;
  KOKKOS_INLINE_FUNCTION int M(size_type) const { return m; }
  KOKKOS_INLINE_FUNCTION int N(size_type) const { return n; }
};
/// m x n as FixedDims; sizes past INT_MAX are an error, not a silent truncation.
inline FixedDims fixed_dims(size_type m, size_type n, const char* op) {
  KSPD_REQUIRE(m >= 0 && n >= 0 && m <= INT_MAX && n <= INT_MAX, InvalidArgument,
               op << ": m = " << m << ", n = " << n << " do not fit the small-matrix kernels' int sizes");
  return FixedDims{int(m), int(n)};
}

/// op(A_b) X_b = alpha B_b (Left) or X_b op(A_b) = alpha B_b (Right) for TRSM; B_b = alpha
/// op(A_b) B_b or alpha B_b op(A_b) for TRMM. A_b is k x k with k = M(b) (Left) or N(b) (Right).
/// D: FixedDims (the small-matrix kernels) or Dims (the portable kernels, variable sizes).
/// A value type passed by value to kernels: trivially copyable, no virtuals.
template <class T, class D = FixedDims>
struct TrsmOperands {
  Side side;
  Uplo uplo;
  Trans trans;
  Diag diag;
  T alpha;
  BatchMat<const T> A;
  BatchMat<T> B;
  D d;  ///< B_b is d.M(b) x d.N(b)

  /// The order of A_b.
  KOKKOS_INLINE_FUNCTION auto ka(size_type b) const { return side == Side::Left ? d.M(b) : d.N(b); }
  KOKKOS_INLINE_FUNCTION Mat<const T> mat_a(size_type b) const {
    const auto k = ka(b);
    return A.get(b, k, k);
  }
  KOKKOS_INLINE_FUNCTION Mat<T> mat_b(size_type b) const { return B.get(b, d.M(b), d.N(b)); }
};
static_assert(std::is_trivially_copyable<TrsmOperands<double>>::value &&
                  std::is_trivially_copyable<TrsmOperands<float, Dims>>::value,
              "kspd::batched: TrsmOperands is passed to kernels by value");

/// A TRSM on matrix b reduced to a lower, Left, NoTranspose solve a x = alpha x (a k x k,
/// x k x ncols): reduce_left_notrans swaps strides for Right / transposed problems, and an
/// upper a is read in reversed index order (P A P is lower for the reversal P, and the rows
/// of x reversed with it) through negated strides, so the kernels index a lower triangle only.
/// Shared by the register (RegTrsm), streaming (StreamTrsm) and host-lane (LaneTrsm) kernels.
template <class T>
struct LowerSolve {
  Mat<const T> a;
  Mat<T> x;
  int k, ncols;
};
template <class T>
KOKKOS_INLINE_FUNCTION LowerSolve<T> lower_solve(const TrsmOperands<T>& op, size_type b) {
  const int k = op.ka(b);
  Mat<const T> a = op.mat_a(b);
  Mat<T> x = op.mat_b(b);
  if (!reduce_left_notrans(op.side, op.uplo, op.trans, a, x) && k > 0) {
    a = Mat<const T>{a.p + offset_type(k - 1) * (a.rs + a.cs), a.m, a.n, -a.rs, -a.cs};
    x = Mat<T>{x.p + offset_type(k - 1) * x.rs, x.m, x.n, -x.rs, x.cs};
  }
  return {a, x, k, int(x.n)};
}

}  // namespace kspd::batched::Impl
#endif
