#ifndef KSPD_BATCHED_SERIAL_HPP
#define KSPD_BATCHED_SERIAL_HPP
/// \file kspd_batched_serial.hpp
/// Device level, one thread per matrix: `kspd::batched::Serial<Op><modes...>::invoke(...)`.
/// Operands are rank-2 Views (any layout, subviews included) or Impl::Mat (pointer +
/// strides, e.g. Impl::to_mat(p, m, n, rs, cs)). invoke returns LAPACK's info where LAPACK
/// has one (potrf, posv, trtri, potri, poti).

#include <type_traits>

#include "kspd_batched_gemm_internal.hpp"
#include "kspd_batched_trtri_internal.hpp"
#include "kspd_batched_tuning.hpp"

namespace kspd::batched {
namespace Impl {
template <class X, class Enable = void>
struct ScalarOf;
template <class T>
struct ScalarOf<Mat<T>, void> {
  using type = std::remove_const_t<T>;
};
template <class V>
struct ScalarOf<V, std::enable_if_t<Kokkos::is_view<V>::value>> {
  using type = typename V::non_const_value_type;
};
template <class X>
using scalar_t = typename ScalarOf<X>::type;

template <class T>
KOKKOS_INLINE_FUNCTION Mat<T> as_mat(const Mat<T>& a) {
  return a;
}
template <class V, std::enable_if_t<Kokkos::is_view<V>::value, int> = 0>
KOKKOS_INLINE_FUNCTION Mat<typename V::value_type> as_mat(const V& a) {
  return to_mat(a);
}
}  // namespace Impl

/// C = alpha op(A) op(B) + beta C.
template <Trans TA, Trans TB>
struct SerialGemm {
  template <class AV, class BV, class CV>
  KOKKOS_INLINE_FUNCTION static void invoke(Impl::scalar_t<CV> alpha, const AV& A, const BV& B, Impl::scalar_t<CV> beta, const CV& C) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<CV>);
    Impl::serial_gemm<Impl::scalar_t<CV>>(TA, TB, alpha, Impl::as_mat(A), Impl::as_mat(B), beta, Impl::as_mat(C));
  }
};
/// C = alpha op(A) op(A)^T + beta C, uplo triangle.
template <Uplo U, Trans TR>
struct SerialSyrk {
  template <class AV, class CV>
  KOKKOS_INLINE_FUNCTION static void invoke(Impl::scalar_t<CV> alpha, const AV& A, Impl::scalar_t<CV> beta, const CV& C) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<CV>);
    Impl::serial_syrk<Impl::scalar_t<CV>>(U, TR, alpha, Impl::as_mat(A), beta, Impl::as_mat(C));
  }
};
/// op(A) X = alpha B (Left) or X op(A) = alpha B (Right); X overwrites B.
template <Side S, Uplo U, Trans TR, Diag D>
struct SerialTrsm {
  template <class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(Impl::scalar_t<BV> alpha, const AV& A, const BV& B) {
    Impl::serial_trsm<Impl::scalar_t<BV>>(S, U, TR, D, alpha, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// B = alpha op(A) B (Left) or alpha B op(A) (Right).
template <Side S, Uplo U, Trans TR, Diag D>
struct SerialTrmm {
  template <class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(Impl::scalar_t<BV> alpha, const AV& A, const BV& B) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<BV>);
    Impl::serial_trmm<Impl::scalar_t<BV>>(S, U, TR, D, alpha, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// A = L L^T / U^T U (complex: L L^H / U^H U) in place; returns info.
template <Uplo U>
struct SerialPotrf {
  template <class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const AV& A) {
    return Impl::serial_potrf<Impl::scalar_t<AV>>(U, Impl::as_mat(A));
  }
};
/// B = A^-1 B from potrf's factor.
template <Uplo U>
struct SerialPotrs {
  template <class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(const AV& A, const BV& B) {
    Impl::serial_potrs<Impl::scalar_t<BV>>(U, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// potrf then potrs; returns potrf's info.
template <Uplo U>
struct SerialPosv {
  template <class AV, class BV>
  KOKKOS_INLINE_FUNCTION static int invoke(const AV& A, const BV& B) {
    return Impl::serial_posv<Impl::scalar_t<BV>>(U, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// A = inv(A), A triangular; returns the first zero diagonal (1-based) or 0.
template <Uplo U, Diag D>
struct SerialTrtri {
  template <class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::serial_trtri<Impl::scalar_t<AV>>(U, D, Impl::as_mat(A));
  }
};
/// A = L^T L (Lower) or U U^T (Upper).
template <Uplo U>
struct SerialLauum {
  template <class AV>
  KOKKOS_INLINE_FUNCTION static void invoke(const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    Impl::serial_lauum<Impl::scalar_t<AV>>(U, Impl::as_mat(A));
  }
};
/// inv(A) from the Cholesky factor (trtri + lauum); returns trtri's info.
template <Uplo U>
struct SerialPotri {
  template <class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::serial_potri<Impl::scalar_t<AV>>(U, Impl::as_mat(A));
  }
};
/// inv(A) of SPD A (potrf + potri); returns potrf's info.
template <Uplo U>
struct SerialPoti {
  template <class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::serial_poti<Impl::scalar_t<AV>>(U, Impl::as_mat(A));
  }
};

}  // namespace kspd::batched
#endif
