#ifndef KSPD_BATCHED_TEAM_HPP
#define KSPD_BATCHED_TEAM_HPP
/// \file kspd_batched_team.hpp
/// Device level, one team per matrix: `kspd::batched::Team<Op><modes...>::invoke(member, ...)`.
/// Operands are rank-2 Views (any layout, subviews included) or Impl::Mat (pointer +
/// strides, e.g. Impl::to_mat(p, m, n, rs, cs)). invoke returns LAPACK's info where LAPACK
/// has one (potrf, posv, trtri, potri, poti).

#include <type_traits>

#include "kspd_batched_serial.hpp"

namespace kspd::batched {

/// C = alpha op(A) op(B) + beta C.
template <Trans TA, Trans TB>
struct TeamGemm {
  template <class Member, class AV, class BV, class CV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, Impl::scalar_t<CV> alpha, const AV& A, const BV& B, Impl::scalar_t<CV> beta, const CV& C) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<CV>);
    Impl::team_gemm<Member, Impl::scalar_t<CV>>(member, TA, TB, alpha, Impl::as_mat(A), Impl::as_mat(B), beta, Impl::as_mat(C));
  }
};
/// C = alpha op(A) op(A)^T + beta C, uplo triangle.
template <Uplo U, Trans TR>
struct TeamSyrk {
  template <class Member, class AV, class CV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, Impl::scalar_t<CV> alpha, const AV& A, Impl::scalar_t<CV> beta, const CV& C) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<CV>);
    Impl::team_syrk<Member, Impl::scalar_t<CV>>(member, U, TR, alpha, Impl::as_mat(A), beta, Impl::as_mat(C));
  }
};
/// op(A) X = alpha B (Left) or X op(A) = alpha B (Right); X overwrites B.
template <Side S, Uplo U, Trans TR, Diag D>
struct TeamTrsm {
  template <class Member, class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, Impl::scalar_t<BV> alpha, const AV& A, const BV& B) {
    Impl::team_trsm<Member, Impl::scalar_t<BV>>(member, S, U, TR, D, alpha, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// B = alpha op(A) B (Left) or alpha B op(A) (Right).
template <Side S, Uplo U, Trans TR, Diag D>
struct TeamTrmm {
  template <class Member, class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, Impl::scalar_t<BV> alpha, const AV& A, const BV& B) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<BV>);
    Impl::team_trmm<Member, Impl::scalar_t<BV>>(member, S, U, TR, D, alpha, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// A = L L^T / U^T U (complex: L L^H / U^H U) in place; returns info.
template <Uplo U>
struct TeamPotrf {
  template <class Member, class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, const AV& A) {
    return Impl::team_potrf<Member, Impl::scalar_t<AV>>(member, U, Impl::as_mat(A));
  }
};
/// B = A^-1 B from potrf's factor.
template <Uplo U>
struct TeamPotrs {
  template <class Member, class AV, class BV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, const AV& A, const BV& B) {
    Impl::team_potrs<Member, Impl::scalar_t<BV>>(member, U, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// potrf then potrs; returns potrf's info.
template <Uplo U>
struct TeamPosv {
  template <class Member, class AV, class BV>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, const AV& A, const BV& B) {
    return Impl::team_posv<Member, Impl::scalar_t<BV>>(member, U, Impl::as_mat(A), Impl::as_mat(B));
  }
};
/// A = inv(A), A triangular; returns the first zero diagonal (1-based) or 0.
template <Uplo U, Diag D>
struct TeamTrtri {
  template <class Member, class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::team_trtri<Member, Impl::scalar_t<AV>>(member, U, D, Impl::as_mat(A));
  }
};
/// A = L^T L (Lower) or U U^T (Upper).
template <Uplo U>
struct TeamLauum {
  template <class Member, class AV>
  KOKKOS_INLINE_FUNCTION static void invoke(const Member& member, const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    Impl::team_lauum<Member, Impl::scalar_t<AV>>(member, U, Impl::as_mat(A));
  }
};
/// inv(A) from the Cholesky factor (trtri + lauum); returns trtri's info.
template <Uplo U>
struct TeamPotri {
  template <class Member, class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::team_potri<Member, Impl::scalar_t<AV>>(member, U, Impl::as_mat(A));
  }
};
/// inv(A) of SPD A (potrf + potri); returns potrf's info.
template <Uplo U>
struct TeamPoti {
  template <class Member, class AV>
  KOKKOS_INLINE_FUNCTION static int invoke(const Member& member, const AV& A) {
    KSPD_BATCHED_REAL_ONLY(Impl::scalar_t<AV>);
    return Impl::team_poti<Member, Impl::scalar_t<AV>>(member, U, Impl::as_mat(A));
  }
};

}  // namespace kspd::batched
#endif
