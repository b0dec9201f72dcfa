#ifndef KSPD_RFP_PFTRF_JITTER_IMPL_HPP
#define KSPD_RFP_PFTRF_JITTER_IMPL_HPP
/// \file kspd_rfp_pftrf_jitter_impl.hpp
/// A Cholesky factorization that can be undone after a failure, on the lower triangle of
/// LayoutStride blocks (the RFP blocks of kspd_rfp_blocks_impl.hpp and their sub-blocks).
///
/// factor(): recursive right-looking Cholesky, L11 = chol(A11), L21 = A21 L11^-T,
/// A22 -= L21 L21^T, L22 = chol(A22), that stops at the first failing leaf and returns how
/// many columns it finished (leaves are factored in a leaf x leaf workspace and copied back
/// only on success, so a failing leaf is untouched whatever the backend's potrf leaves
/// behind). The state at a failure is therefore known exactly, and undo() inverts it in
/// place, in the reverse order: A22 = (undo A22) + L21 L21^T (syrk), A21 = L21 L11^T (trmm),
/// A11 = L11 L11^T (recursively; a leaf by syrk from the workspace). The undo does the same
/// flops as the part of the attempt that it reverts.

#include <Kokkos_Core.hpp>

#include <limits>

#include "kspd_rfp_blocks_impl.hpp"

namespace kspd::rfp::Impl {

template <class ExecSpace, class T, class Mem>
struct UndoableCholesky {
  using BV = BlockView<T, Mem>;
  using WV = Kokkos::View<T**, Kokkos::LayoutLeft, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  ExecSpace exec;
  DenseOptions opt;
  size_type leaf = 512;
  Kokkos::View<T*, Mem> work;  // leaf x leaf, NaN-poisoned: a read before a write shows

  UndoableCholesky(const ExecSpace& e, const DenseOptions& o, size_type leaf_size, size_type n) : exec(e), opt(o) {
    leaf = leaf_size > 0 ? leaf_size : (compat::is_host_exec_v<ExecSpace> ? 512 : 2048);
    const size_type w = n < leaf ? n : leaf;
    work = Kokkos::View<T*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::rfp::pftrf_jitter::work"),
                                 size_t(w > 0 ? w * w : 1));
    Kokkos::deep_copy(exec, work, std::numeric_limits<T>::quiet_NaN());
  }

  static BV sub(const BV& A, size_type r0, size_type c0, size_type m, size_type n) {
    return BV(A.data() + r0 * A.stride(0) + c0 * A.stride(1),
              Kokkos::LayoutStride(size_t(m), A.stride(0), size_t(n), A.stride(1)));
  }
  WV wview(size_type n) const { return WV(work.data(), size_t(n), size_t(n)); }

  /// W = lower(A), zero above the diagonal.
  void load(const BV& A, const WV& W) const {
    const int n = int(A.extent(0));
    Kokkos::parallel_for(
        "kspd::rfp::pftrf_jitter::load", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {n, n}),
        KOKKOS_LAMBDA(int i, int j) { W(i, j) = i >= j ? A(i, j) : T(0); });
  }
  void store(const WV& W, const BV& A) const {
    const int n = int(A.extent(0));
    Kokkos::parallel_for(
        "kspd::rfp::pftrf_jitter::store", Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0}, {n, n}),
        KOKKOS_LAMBDA(int i, int j) {
          if (i >= j) A(i, j) = W(i, j);
        });
  }

  /// Factors the lower triangle of the n x n block A; returns the columns finished (n on
  /// success) and sets info (1-based column within A) on failure.
  size_type factor(const BV& A, int& info) const {
    const size_type n = A.extent(0);
    if (n == 0) return 0;
    if (n <= leaf) {
      auto W = wview(n);
      load(A, W);
      const int i = potrf(exec, Uplo::Lower, W, opt);  // fences
      if (i != 0) {
        info = i;
        return 0;  // A untouched
      }
      store(W, A);
      return n;
    }
    const size_type n1 = n / 2;
    return factor_split(sub(A, 0, 0, n1, n1), sub(A, n1, 0, n - n1, n1), sub(A, n1, n1, n - n1, n - n1), info);
  }
  size_type factor_split(const BV& A11, const BV& A21, const BV& A22, int& info) const {
    const size_type n1 = A11.extent(0), n2 = A22.extent(0);
    const size_type f1 = factor(A11, info);
    if (f1 < n1 || n2 == 0) return f1;
    if (n1 > 0) {
      trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), A11, A21, opt);
      syrk(exec, Uplo::Lower, Trans::NoTranspose, T(-1), A21, T(1), A22, opt);
    }
    const size_type f2 = factor(A22, info);
    if (f2 < n2) info += int(n1);
    return n1 + f2;
  }

  /// Restores A to what it was before factor(A) returned f.
  void undo(const BV& A, size_type f) const {
    const size_type n = A.extent(0);
    if (n == 0 || f == 0) return;
    if (n <= leaf) {  // a leaf is all or nothing: f == n, A = L L^T
      auto W = wview(n);
      load(A, W);
      syrk(exec, Uplo::Lower, Trans::NoTranspose, T(1), W, T(0), A, opt);
      return;
    }
    const size_type n1 = n / 2;
    undo_split(sub(A, 0, 0, n1, n1), sub(A, n1, 0, n - n1, n1), sub(A, n1, n1, n - n1, n - n1), f);
  }
  void undo_split(const BV& A11, const BV& A21, const BV& A22, size_type f) const {
    const size_type n1 = A11.extent(0);
    if (f < n1 || A22.extent(0) == 0) {  // A21 and A22 were not touched yet
      undo(A11, f);
      return;
    }
    undo(A22, f - n1);
    if (n1 > 0) {
      syrk(exec, Uplo::Lower, Trans::NoTranspose, T(1), A21, T(1), A22, opt);
      trmm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), A11, A21, opt);
    }
    undo(A11, n1);
  }
};

/// mean(diag(A)) of an RFP matrix (fences).
template <class ExecSpace, class T, class Mem>
double mean_diagonal(const ExecSpace& exec, const Matrix<T, Mem>& A) {
  if (A.n() == 0) return 0;
  const Layout L = A.layout();
  auto a = A.data();
  double s = 0;
  Kokkos::parallel_reduce(
      "kspd::rfp::pftrf_jitter::mean_diagonal",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, L.n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += double(a(L.diag(i))); }, s);
  compat::fence(exec, "kspd::rfp::pftrf_jitter");
  return s / double(L.n);
}

}  // namespace kspd::rfp::Impl
#endif
