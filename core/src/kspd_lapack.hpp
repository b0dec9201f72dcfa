#ifndef KSPD_LAPACK_HPP
#define KSPD_LAPACK_HPP
/// \file kspd_lapack.hpp
/// Cholesky and inversion: potrf, potrs, trtri, lauum, potri on rank-2 Views, float,
/// double and (Hermitian: A = L L^H, lauum L^H L) Kokkos::complex<float/double>. The `int` overloads fence `exec` and return LAPACK's info; the overloads taking a
/// rank-0 info View are non-blocking where the backend allows (cuSOLVER writes info on the
/// stream) and blocking otherwise.

#include <type_traits>

#include "kspd_dense.hpp"
#include "kspd_dense_blas3_inverse.hpp"
#include "kspd_dense_nan_scan.hpp"
#include "kspd_dense_transposed.hpp"

namespace kspd {
namespace Impl {

template <class ExecSpace, class AV>
int factor(const char* name, const ExecSpace& exec, FactorOp fop, Uplo uplo, Diag diag, const AV& A,
           const DenseOptions& opt, int* vendor_info = nullptr) {
  using T = typename AV::non_const_value_type;
  static_assert(!std::is_const<typename AV::value_type>::value, "kspd: A is overwritten; it cannot be const");
  check_matrix<ExecSpace>(name, "A", A);
  require_square(name, "A", A);
  compat::ScopedRegion region(name);
  const DenseOp dop = fop == FactorOp::Potrf   ? DenseOp::Potrf
                      : fop == FactorOp::Trtri ? DenseOp::Trtri
                      : fop == FactorOp::Lauum ? DenseOp::Lauum
                                               : DenseOp::Potri;
  auto a = make_mat(A);
  if (upper_via_lower<ExecSpace, T>(opt, fop, uplo, a)) {
    // in 'L' on W = A^H (kspd_dense_transposed.hpp): the triangle in, the same op, back out
    const Mat<T> s = uplo == Uplo::Upper ? a.t() : a;  // the triangle, indexed as a lower one
    const bool conj = uplo == Uplo::Upper;
    auto W = square_workspace<ExecSpace, T>(a.n);
    auto w = Kokkos::subview(W, Kokkos::make_pair(size_t(0), size_t(a.n)), Kokkos::ALL());
    copy_lower<ExecSpace, T>(exec, s, make_mat(w), conj);
    DenseOptions inner = opt;
    inner.upper_via_lower = Toggle::Off;
    const typename DeferredNanScan<ExecSpace, T>::Suspend now;  // W is gone before any flush
    const int info = factor(name, exec, fop, Uplo::Lower, diag, w, inner, vendor_info);
    copy_lower<ExecSpace, T>(exec, make_mat(w), s, conj);
    // W is freed on return (no stream-ordered free in every Kokkos): let the stream finish
    if constexpr (!compat::is_host_exec_v<ExecSpace>) compat::fence(exec, "kspd::transposed::work");
    return info;
  }
  if (fop == FactorOp::Potri && blas3_inverse<ExecSpace, T>(opt, FactorOp::Trtri, diag, a.n)) {
    // potri = trtri + lauum, each through its own table
    const int info = factor(name, exec, FactorOp::Trtri, uplo, Diag::NonUnit, A, opt, vendor_info);
    if (info == 0) (void)factor(name, exec, FactorOp::Lauum, uplo, Diag::NonUnit, A, opt);
    return info;
  }
  if (blas3_inverse<ExecSpace, T>(opt, fop, diag, a.n)) {
    // one trsm / trmm on a workspace (kspd_dense_blas3_inverse.hpp)
    InfoSlot<ExecSpace> slot(exec);
    int info = 0;
    if (fop == FactorOp::Trtri) {
      native::zero_diagonal<ExecSpace, T>(exec, a, slot.ptr());
      info = slot.read();
    }
    if (info == 0) blas3_inverse_apply(exec, fop, uplo, A, opt);
    if (vendor_info) {
      Kokkos::View<int, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(vendor_info);
      Kokkos::deep_copy(exec, dst, info);
    }
    return info;
  }
  const Algo algo = resolve<ExecSpace, T>(opt.algo, dop, A.extent(0));
  if (algo == Algo::Vendor && vendor_info) {  // the caller's info: nothing to allocate or read
    if (vendor_factor(exec, fop, uplo, diag, a, vendor_info)) {
      if (fop == FactorOp::Potrf && A.extent(0) > 0) {
        if (auto* later = DeferredNanScan<ExecSpace, T>::active()) later->record(a, vendor_info);  // kspd_dense_nan_scan.hpp
        else native::nan_diagonal<ExecSpace, T>(exec, a, vendor_info);
      }
      return 0;
    }
  }
  InfoSlot<ExecSpace> slot(exec);
  if (algo == Algo::Vendor && !vendor_info) {
    if (vendor_factor(exec, fop, uplo, diag, a, slot.ptr())) {
      if constexpr (compat::is_host_exec_v<ExecSpace>) {
        // host: scan the diagonal here, no kernel launch, so host potrf stays callable from
        // several threads at once (as host LAPACK is)
        int* info = slot.ptr();
        if (fop == FactorOp::Potrf && *info == 0)
          for (size_type i = 0; i < a.n; ++i)
            if (a(i, i) != a(i, i)) {
              *info = int(i + 1);
              break;
            }
      } else {
        if (fop == FactorOp::Potrf && A.extent(0) > 0) native::nan_diagonal<ExecSpace, T>(exec, a, slot.ptr());
      }
      return slot.read();
    }
  }
  auto r = recursive<ExecSpace, T>(exec, algo, opt);
  if (uplo == Uplo::Upper) a = a.t();  // U^T U = L L^T with L = U^T; inv(U)^T = inv(U^T)
  int info = 0;
  if (fop == FactorOp::Potrf) {
    info = r.potrf(a, slot);
  } else {
    if (fop != FactorOp::Lauum && !(fop == FactorOp::Trtri && diag == Diag::Unit)) {
      native::zero_diagonal<ExecSpace, T>(exec, a, slot.ptr());
      info = slot.read();
    }
    if (info == 0) {
      if (fop != FactorOp::Lauum) r.trtri(fop == FactorOp::Potri ? Diag::NonUnit : diag, a);
      if (fop != FactorOp::Trtri) recursive<ExecSpace, T>(exec, algo, opt, DenseOp::Lauum).lauum(a);
    }
  }
  if (vendor_info) {  // a caller's device info: store the value on the stream
    Kokkos::View<int, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dst(vendor_info);
    Kokkos::deep_copy(exec, dst, info);
  }
  return info;
}

template <class ExecSpace, class InfoView>
int* info_pointer(const InfoView& info) {
  static_assert(Kokkos::is_view<InfoView>::value && InfoView::rank == 0 &&
                    std::is_same<typename InfoView::non_const_value_type, int>::value,
                "kspd: info must be a rank-0 Kokkos::View<int>");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename InfoView::memory_space>::accessible,
                "kspd: the execution space cannot access the info View");
  return info.data();
}

}  // namespace Impl

/// Cholesky factorization A = L L^T (Lower) or U^T U (Upper) in place (?potrf). Fences exec.
/// \return info: 0, or k > 0 when the leading minor of order k is not positive definite.
template <class ExecSpace, class AV>
[[nodiscard]] int potrf(const ExecSpace& exec, Uplo uplo, const AV& A, const DenseOptions& opt = {}) {
  return Impl::factor("kspd::potrf", exec, Impl::FactorOp::Potrf, uplo, Diag::NonUnit, A, opt);
}
/// potrf writing info into a rank-0 View (non-blocking with cuSOLVER, except through the
/// transposed copy of DenseOptions::upper_via_lower, which fences to free its workspace).
template <class ExecSpace, class AV, class InfoView,
          class = std::enable_if_t<Kokkos::is_view<InfoView>::value>>
void potrf(const ExecSpace& exec, Uplo uplo, const AV& A, const InfoView& info, const DenseOptions& opt = {}) {
  (void)Impl::factor("kspd::potrf", exec, Impl::FactorOp::Potrf, uplo, Diag::NonUnit, A, opt,
                     Impl::info_pointer<ExecSpace>(info));
}

/// Inverse of a triangular matrix in place (?trtri). \return info: k > 0 if A(k,k) == 0.
template <class ExecSpace, class AV>
[[nodiscard]] int trtri(const ExecSpace& exec, Uplo uplo, Diag diag, const AV& A, const DenseOptions& opt = {}) {
  return Impl::factor("kspd::trtri", exec, Impl::FactorOp::Trtri, uplo, diag, A, opt);
}

/// Product L^T L (Lower) or U U^T (Upper) in place (?lauum).
template <class ExecSpace, class AV>
void lauum(const ExecSpace& exec, Uplo uplo, const AV& A, const DenseOptions& opt = {}) {
  (void)Impl::factor("kspd::lauum", exec, Impl::FactorOp::Lauum, uplo, Diag::NonUnit, A, opt);
}

/// Inverse of an SPD matrix from its Cholesky factor, in place (?potri = trtri + lauum).
/// \return info: k > 0 if the factor's k-th diagonal entry is zero.
template <class ExecSpace, class AV>
[[nodiscard]] int potri(const ExecSpace& exec, Uplo uplo, const AV& A, const DenseOptions& opt = {}) {
  return Impl::factor("kspd::potri", exec, Impl::FactorOp::Potri, uplo, Diag::NonUnit, A, opt);
}

/// Solves A X = B with the Cholesky factor from potrf, in place on B (?potrs).
template <class ExecSpace, class AV, class BV>
void potrs(const ExecSpace& exec, Uplo uplo, const AV& A, const BV& B, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::potrs", "A", A);
  Impl::check_matrix<ExecSpace>("kspd::potrs", "B", B);
  Impl::require_square("kspd::potrs", "A", A);
  KSPD_REQUIRE(A.extent(0) == B.extent(0), DimensionMismatch,
               "kspd::potrs: A is " << A.extent(0) << " x " << A.extent(1) << " but B has " << B.extent(0)
                                    << " rows");
  Impl::require_no_alias("kspd::potrs", "B", B, "A", A);
  compat::ScopedRegion region("kspd::potrs");
  using T = typename BV::non_const_value_type;
  // A = L L^H (Lower) or U^H U (Upper); ^H is ^T for real scalars
  const Trans h = Impl::herm_trans<T>();
  trsm(exec, Side::Left, uplo, uplo == Uplo::Lower ? Trans::NoTranspose : h, Diag::NonUnit, T(1), A, B, opt);
  trsm(exec, Side::Left, uplo, uplo == Uplo::Lower ? h : Trans::NoTranspose, Diag::NonUnit, T(1), A, B, opt);
}

}  // namespace kspd
#endif
