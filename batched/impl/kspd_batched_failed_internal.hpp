#ifndef KSPD_BATCHED_FAILED_INTERNAL_HPP
#define KSPD_BATCHED_FAILED_INTERNAL_HPP
/// \file kspd_batched_failed_internal.hpp
/// Operations that follow a factorization (potrs, posv, trsm after potrf, potri, poti) must
/// leave the matrices whose factorization failed untouched. Their kernels (register, streaming,
/// recursive: one batched GEMM per level cannot skip single matrices) run on the whole batch,
/// so FailedGuard keeps the operand of every failed matrix (infos(b) != 0) aside and puts it
/// back afterwards, with the infos where the operation writes them. Counting the failures
/// first (one reduction, which fences `exec`) means a batch without failures allocates and
/// copies nothing.

#include <Kokkos_Core.hpp>

#include "kspd_batched_mat.hpp"

namespace kspd::batched::Impl {

struct CountFailed {
  const int* infos;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b, size_type& n) const {
    if (infos[b] != 0) ++n;
  }
};
/// Copies the rows x cols operand of the failed matrices to / from `keep` (and their infos).
template <class T>
struct CopyFailed {
  BatchMat<T> B;
  T* keep;
  int* infos;
  int* saved;
  int rows, cols;
  bool restore;
  bool with_infos;  // the operation writes infos: put the failed matrices' entries back too
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    if (!restore) saved[b] = infos[b];  // every entry: restore reads saved, not the overwritten infos
    if (saved[b] == 0) return;
    const Mat<T> x = B.get(b, rows, cols);
    T* y = keep + b * offset_type(rows) * cols;
    for (int j = 0; j < cols; ++j)
      for (int i = 0; i < rows; ++i) {
        if (restore) x(i, j) = y[i + offset_type(j) * rows];
        else y[i + offset_type(j) * rows] = x(i, j);
      }
    if (restore && with_infos) infos[b] = saved[b];
  }
};

template <class ExecSpace, class T>
class FailedGuard {
 public:
  using Policy = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>;
  /// infos == nullptr: nothing failed (nothing kept). with_infos: the guarded operation
  /// writes infos, so restore() puts the failed matrices' entries back as well.
  FailedGuard(const ExecSpace& exec, const int* infos, size_type nbatch, const BatchMat<T>& B, size_type rows,
              size_type cols, bool with_infos = false)
      : exec_(exec), infos_(const_cast<int*>(infos)), nb_(nbatch), B_(B), rows_(rows), cols_(cols),
        with_infos_(with_infos) {
    if (infos == nullptr || nbatch <= 0) return;
    Kokkos::parallel_reduce("kspd::batched::count_failed", Policy(exec, 0, nbatch), CountFailed{infos}, failed_);
    if (failed_ == 0) return;
    keep_ = decltype(keep_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::failed::keep"),
                            size_t(nbatch * rows * cols));
    saved_ = decltype(saved_)(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::failed::infos"),
                              size_t(nbatch));
    run(false);
  }
  /// How many matrices had failed (known once constructed).
  size_type failed() const { return failed_; }
  /// Puts the kept operands and infos back (enqueued on exec).
  void restore() const {
    if (failed_ > 0) run(true);
  }

 private:
  void run(bool restore) const {
    Kokkos::parallel_for("kspd::batched::keep_failed", Policy(exec_, 0, nb_),
                         CopyFailed<T>{B_, keep_.data(), infos_, saved_.data(), int(rows_), int(cols_), restore, with_infos_});
  }
  ExecSpace exec_;
  int* infos_;
  size_type nb_;
  BatchMat<T> B_;
  size_type rows_, cols_;
  bool with_infos_;
  size_type failed_ = 0;
  Kokkos::View<T*, typename ExecSpace::memory_space> keep_;
  Kokkos::View<int*, typename ExecSpace::memory_space> saved_;
};

}  // namespace kspd::batched::Impl
#endif
