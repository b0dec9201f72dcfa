#ifndef KSPD_BATCHED_TRTRI_HPP
#define KSPD_BATCHED_TRTRI_HPP
/// \file kspd_batched_trtri.hpp
/// Batched in-place inversions: TRTRI (triangular inverse), LAUUM (L^T L / U U^T), POTRI
/// (SPD inverse from the Cholesky factor = TRTRI + LAUUM fused in one kernel) and POTI
/// (POTRF + POTRI in one kernel). None of them exists batched in cuBLAS/cuSOLVER.

#include "kspd_batched_trtri_dispatch.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_gemm.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf.hpp"
#include "kspd_batched_trmm.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

/// \brief A_b = inv(A_b), A_b triangular; infos(b) = first exactly zero diagonal (1-based).
template <class ExecSpace, class AView, class InfoView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void trtri(const ExecSpace& exec, Uplo uplo, Diag diag, const AView& As, const InfoView& infos,
           const BatchOptions& opts = {}) {
  Impl::invert_strided(exec, Impl::InvOp::Trtri, uplo, diag, As, &infos, opts);
}
template <class ExecSpace, class T, class InfoView>
void trtri(const ExecSpace& exec, Uplo uplo, Diag diag, size_type nbatch, size_type n, T* const* Aptrs, offset_type lda,
           const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::invert_pointers(exec, Impl::InvOp::Trtri, uplo, diag, nbatch, n, Aptrs, lda, &infos, opts);
}
/// \brief A_b = L_b^T L_b (Lower) or U_b U_b^T (Upper), in the same triangle.
template <class ExecSpace, class AView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void lauum(const ExecSpace& exec, Uplo uplo, const AView& As, const BatchOptions& opts = {}) {
  Impl::invert_strided<ExecSpace, AView, Impl::NoInfo<ExecSpace>>(exec, Impl::InvOp::Lauum, uplo, Diag::NonUnit, As,
                                                                  nullptr, opts);
}
template <class ExecSpace, class T>
void lauum(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, T* const* Aptrs, offset_type lda,
           const BatchOptions& opts = {}) {
  Impl::invert_pointers<ExecSpace, T, Impl::NoInfo<ExecSpace>>(exec, Impl::InvOp::Lauum, uplo, Diag::NonUnit, nbatch,
                                                               n, Aptrs, lda, nullptr, opts);
}
/// \brief A_b = inv(A_b) (uplo triangle) from potrf's factor.
/// \param infos [in,out] potrf's infos on entry: a matrix with infos(b) != 0 has no factor, so
///        A_b and infos(b) are left untouched; for the others infos(b) = trtri's info (0 after
///        a successful potrf). Pass zeros for factors that did not come from potrf.
template <class ExecSpace, class AView, class InfoView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void potri(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::invert_strided(exec, Impl::InvOp::Potri, uplo, Diag::NonUnit, As, &infos, opts);
}
template <class ExecSpace, class T, class InfoView>
void potri(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, T* const* Aptrs, offset_type lda,
           const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::invert_pointers(exec, Impl::InvOp::Potri, uplo, Diag::NonUnit, nbatch, n, Aptrs, lda, &infos, opts);
}
/// \brief A_b = inv(A_b) (uplo triangle) of SPD A_b in one kernel (potrf + potri);
/// infos(b) [out] = potrf's info: a failed matrix holds potrf's partial factor and is not inverted.
template <class ExecSpace, class AView, class InfoView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void poti(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::invert_strided(exec, Impl::InvOp::Poti, uplo, Diag::NonUnit, As, &infos, opts);
}
template <class ExecSpace, class T, class InfoView>
void poti(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, T* const* Aptrs, offset_type lda,
          const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::invert_pointers(exec, Impl::InvOp::Poti, uplo, Diag::NonUnit, nbatch, n, Aptrs, lda, &infos, opts);
}

}  // namespace kspd::batched
#endif
