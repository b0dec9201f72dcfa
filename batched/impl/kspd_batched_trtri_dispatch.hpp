#ifndef KSPD_BATCHED_TRTRI_DISPATCH_HPP
#define KSPD_BATCHED_TRTRI_DISPATCH_HPP
/// \file kspd_batched_trtri_dispatch.hpp
/// Dispatch of batched TRTRI (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_trtri.hpp.

#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_gemm_dispatch.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf_dispatch.hpp"
#include "kspd_batched_trmm_dispatch.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched::Impl {
enum class InvOp { Trtri, Lauum, Potri, Poti };
template <class T>
struct InvertOp {
  KSPD_BATCHED_REAL_ONLY(T);
  InvOp op;
  Uplo uplo;
  Diag diag;
  BatchMat<T> A;
  Dims d;
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    const Mat<T> a = A.get(b, d.N(b), d.N(b));
    switch (op) {
      case InvOp::Trtri: return serial_trtri(uplo, diag, a);
      case InvOp::Lauum: serial_lauum(uplo, a); return 0;
      case InvOp::Potri: return serial_potri(uplo, a);
      default: return serial_poti(uplo, a);
    }
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    const Mat<T> a = A.get(b, d.N(b), d.N(b));
    switch (op) {
      case InvOp::Trtri: return team_trtri(m, uplo, diag, a);
      case InvOp::Lauum: team_lauum(m, uplo, a); return 0;
      case InvOp::Potri: return team_potri(m, uplo, a);
      default: return team_poti(m, uplo, a);
    }
  }
};
inline const char* label(InvOp op) {
  switch (op) {
    case InvOp::Trtri: return "kspd::batched::trtri";
    case InvOp::Lauum: return "kspd::batched::lauum";
    case InvOp::Potri: return "kspd::batched::potri";
    default: return "kspd::batched::poti";
  }
}
template <class ExecSpace, class T>
void invert_kernel(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, size_type nbatch, size_type n,
                   const BatchMat<T>& A, int* infos, const BatchOptions& opts) {
  Dims d;
  d.n = n;
  launch(exec, label(op), nbatch, InvertOp<T>{op, uplo, diag, A, d}, infos, opts, n);
}
/// Two-sided recursive inverse of a lower triangular matrix: inv(A11) and inv(A22) recurse,
/// then A21 := -inv(A22) A21 inv(A11) by two TRMMs (themselves recursive into GEMMs).
template <class ExecSpace, class T>
void trtri_rec(const ExecSpace& exec, Diag diag, size_type nbatch, size_type n, size_type col0, const BatchMat<T>& A,
               const RecInfo<ExecSpace>& info, const BatchOptions& opts) {
  if (n <= leaf_size(opts)) {
    invert_kernel(exec, InvOp::Trtri, Uplo::Lower, diag, nbatch, n, A, info.leaf(col0), opts);
    info.merge(exec, nbatch, col0);
    return;
  }
  const size_type n1 = rec_split(n), n2 = n - n1;
  trtri_rec(exec, diag, nbatch, n1, col0, A, info, opts);
  trtri_rec(exec, diag, nbatch, n2, col0 + n1, A.sub(n1, n1), info, opts);
  trmm_fixed(exec, Side::Right, Uplo::Lower, Trans::NoTranspose, diag, T(-1), nbatch, n2, n1, BatchMat<const T>(A),
             A.sub(n1, 0), opts);
  trmm_fixed(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, diag, T(1), nbatch, n2, n1,
             BatchMat<const T>(A.sub(n1, n1)), A.sub(n1, 0), opts);
}
/// Two-sided recursive L^T L in the lower triangle: A11 = L11^T L11 + L21^T L21 (LAUUM, then
/// SYRK), A21 = L22^T L21 (TRMM, before L22 is overwritten), A22 = L22^T L22.
template <class ExecSpace, class T>
void lauum_rec(const ExecSpace& exec, size_type nbatch, size_type n, const BatchMat<T>& A, const BatchOptions& opts) {
  if (n <= leaf_size(opts)) {
    invert_kernel(exec, InvOp::Lauum, Uplo::Lower, Diag::NonUnit, nbatch, n, A, nullptr, opts);
    return;
  }
  const size_type n1 = rec_split(n), n2 = n - n1;
  lauum_rec(exec, nbatch, n1, A, opts);
  syrk_fixed(exec, Uplo::Lower, Trans::Transpose, nbatch, n1, n2, T(1), BatchMat<const T>(A.sub(n1, 0)), T(1), A, opts);
  trmm_fixed(exec, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), nbatch, n2, n1,
             BatchMat<const T>(A.sub(n1, n1)), A.sub(n1, 0), opts);
  lauum_rec(exec, nbatch, n2, A.sub(n1, n1), opts);
}
template <class ExecSpace, class T>
void invert_run(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, size_type nbatch, size_type n,
                const BatchMat<T>& A, int* infos, const BatchOptions& opts);
/// TRTRI / LAUUM / POTRI / POTI on a fixed-size batch: recursive above the leaf size (Upper
/// is Lower on the transposed descriptors: inv(U) = inv(U^T)^T, U U^T = (U^T)^T U^T).
/// POTRI and POTI run the stages one after the other on the whole batch; infos keeps the
/// first stage's report (trtri's for POTRI, potrf's for POTI). POTRI's infos come in as
/// potrf's: the matrices with infos(b) != 0 are kept aside and put back, infos included.
/// POTI's failed matrices keep potrf's partial factor (the inversion stages skip them).
template <class ExecSpace, class T>
void invert_fixed(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, size_type nbatch, size_type n,
                  const BatchMat<T>& A, int* infos, const BatchOptions& opts) {
  compat::ScopedRegion region(label(op));
  if (op == InvOp::Potri && infos != nullptr) {
    const FailedGuard<ExecSpace, T> keep(exec, infos, nbatch, A, n, n, true);
    invert_run(exec, op, uplo, diag, nbatch, n, A, infos, opts);
    keep.restore();
    return;
  }
  invert_run(exec, op, uplo, diag, nbatch, n, A, infos, opts);
}
template <class ExecSpace, class T>
void invert_run(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, size_type nbatch, size_type n,
                const BatchMat<T>& A, int* infos, const BatchOptions& opts) {
  if (!(use_recursion<ExecSpace, T>(opts, n) && A.splittable())) {
    invert_kernel(exec, op, uplo, diag, nbatch, n, A, infos, opts);
    return;
  }
  const BatchMat<T> L = uplo == Uplo::Upper ? A.t() : A;
  if (op == InvOp::Poti) {  // the inversion must not touch the matrices potrf failed on
    potrf_fixed(exec, uplo, nbatch, n, A, infos, opts);
    const FailedGuard<ExecSpace, T> keep(exec, infos, nbatch, A, n, n);
    trtri_rec(exec, Diag::NonUnit, nbatch, n, 0, L, RecInfo<ExecSpace>(nullptr, nbatch), opts);
    lauum_rec(exec, nbatch, n, L, opts);
    keep.restore();
    return;
  }
  if (op != InvOp::Lauum) {
    const RecInfo<ExecSpace> info(infos, nbatch);
    trtri_rec(exec, op == InvOp::Trtri ? diag : Diag::NonUnit, nbatch, n, 0, L, info, opts);
  }
  if (op != InvOp::Trtri) lauum_rec(exec, nbatch, n, L, opts);
}
template <class ExecSpace, class AView, class InfoView>
void invert_strided(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, const AView& As, const InfoView* infos,
                    const BatchOptions& opts) {
  check_batch_view<ExecSpace, AView>(label(op), "As");
  static_assert(AView::rank == 3, "kspd::batched: As must be a rank-3 View (batch, n, n)");
  KSPD_REQUIRE(As.extent(1) == As.extent(2), DimensionMismatch,
               label(op) << ": As must hold square matrices (got " << As.extent(1) << " x " << As.extent(2) << ")");
  const size_type nb = As.extent(0);
  int* ip = infos != nullptr ? info_ptr<ExecSpace>(*infos, nb, label(op)) : nullptr;
  using T = typename AView::value_type;
  invert_fixed<ExecSpace, T>(exec, op, uplo, diag, nb, size_type(As.extent(1)), strided_batch(As), ip, opts);
}
template <class ExecSpace, class T, class InfoView>
void invert_pointers(const ExecSpace& exec, InvOp op, Uplo uplo, Diag diag, size_type nbatch, size_type n,
                     T* const* Aptrs, offset_type lda, const InfoView* infos, const BatchOptions& opts) {
  check_pointers<ExecSpace>(label(op), "Aptrs", Aptrs, nbatch, n, n, lda);
  int* ip = infos != nullptr ? info_ptr<ExecSpace>(*infos, nbatch, label(op)) : nullptr;
  invert_fixed<ExecSpace, T>(exec, op, uplo, diag, nbatch, n, pointer_batch(Aptrs, lda), ip, opts);
}
template <class ExecSpace>
using NoInfo = Kokkos::View<int*, typename ExecSpace::memory_space>;
}  // namespace kspd::batched::Impl
#endif
