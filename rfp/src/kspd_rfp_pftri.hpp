#ifndef KSPD_RFP_PFTRI_HPP
#define KSPD_RFP_PFTRI_HPP
/// \file kspd_rfp_pftri.hpp
/// Inverse of a triangular matrix in RFP format (?tftri) and of an SPD matrix from its RFP
/// Cholesky factor (?pftri), in place, LAPACK's algorithm: trtri and trmm on the blocks,
/// then the product inv(L)^T inv(L) by lauum + syrk + trmm + lauum. No workspace beyond
/// what the core kernels use (the recursive ones use none).

#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_herm_impl.hpp"

namespace kspd::rfp {
namespace Impl {
template <class ExecSpace, class T, class Mem>
int tftri_blocks(const ExecSpace& exec, Diag diag, const Blocks<T, Mem>& b, const DenseOptions& opt) {
  // inv([L11 0; L21 L22]) = [W11 0; -W22 L21 W11  W22]
  int info = trtri(exec, Uplo::Lower, diag, b.t1, opt);
  if (info != 0) return info;
  if (b.n2 == 0) return 0;
  if (b.n1 > 0) trmm(exec, Side::Right, Uplo::Lower, Trans::NoTranspose, diag, T(-1), b.t1, b.s, opt);
  info = trtri(exec, Uplo::Lower, diag, b.t2, opt);
  if (info != 0) return int(b.n1) + info;
  if (b.n1 > 0) trmm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, diag, T(1), b.t2, b.s, opt);
  return 0;
}
}  // namespace Impl

/// inv(A) in place for the `A.uplo()` triangle of A in RFP format (?tftri); diag = Unit
/// neither reads nor writes the diagonal. (The upper triangle is L^T and inv(L^T) =
/// inv(L)^T, so one block algorithm serves every variant.)
/// \return info: 0, or k > 0 if A(k,k) is exactly zero (1-based); A is then partly
/// overwritten. Fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] int tftri(const ExecSpace& exec, Diag diag, const Matrix<T, Mem>& A, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::tftri", A);
  KSPD_REQUIRE(diag == Diag::NonUnit || diag == Diag::Unit, InvalidArgument, "kspd::rfp::tftri: bad diag");
  if (A.n() == 0) return 0;
  compat::ScopedRegion region("kspd::rfp::tftri");
  if constexpr (is_complex_v<T>) return Impl::tftri_stored(exec, diag, Impl::stored_blocks(A), opt);
  else return Impl::tftri_blocks(exec, diag, Impl::blocks(A), opt);
}

/// inv(A) in place from the Cholesky factor of A computed by pftrf (?pftri):
/// inv(A) = inv(L)^T inv(L) = inv(U) inv(U)^T (^H for complex Hermitian A, c/zpftri).
/// \return info: 0, or k > 0 if the factor's k-th diagonal entry is zero. Fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] int pftri(const ExecSpace& exec, const Matrix<T, Mem>& A, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftri", A);
  if (A.n() == 0) return 0;
  compat::ScopedRegion region("kspd::rfp::pftri");
  if constexpr (is_complex_v<T>) {  // inv(A) = inv(L)^H inv(L)
    const int info = Impl::pftri_stored(exec, Impl::stored_blocks(A), opt);
    compat::fence(exec, "kspd::rfp::pftri");
    return info;
  } else {
    const auto b = Impl::blocks(A);
    const int info = Impl::tftri_blocks(exec, Diag::NonUnit, b, opt);
    if (info != 0) return info;
    // [W11 0; W21 W22]^T [W11 0; W21 W22] = [W11^T W11 + W21^T W21  .; W22^T W21  W22^T W22]
    lauum(exec, Uplo::Lower, b.t1, opt);
    if (b.n2 > 0) {
      if (b.n1 > 0) {
        syrk(exec, Uplo::Lower, Trans::Transpose, T(1), b.s, T(1), b.t1, opt);
        trmm(exec, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), b.t2, b.s, opt);
      }
      lauum(exec, Uplo::Lower, b.t2, opt);
    }
    compat::fence(exec, "kspd::rfp::pftri");
    return 0;
  }
}

}  // namespace kspd::rfp
#endif
