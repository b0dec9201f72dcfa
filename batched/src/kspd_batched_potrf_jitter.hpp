#ifndef KSPD_BATCHED_POTRF_JITTER_HPP
#define KSPD_BATCHED_POTRF_JITTER_HPP
/// \file kspd_batched_potrf_jitter.hpp
/// Batched Cholesky with a per-matrix jitter retry (GPyTorch's psd_safe_cholesky, schedule
/// in kspd_jitter.hpp): kspd::batched::potrf on the whole batch, then, per retry, only the
/// matrices that failed are re-filled with their jitter into a compact workspace batch (as
/// many matrices as failed), factored there by kspd::batched::potrf and scattered back. The
/// batch is never copied, and matrices that succeeded are not touched again.
///
/// Why no in-place undo here (unlike kspd::rfp::pftrf_jitter): the batched kernels keep
/// going past a failing column (the two-sided recursion updates the trailing blocks with the
/// failed leaf), so a failed matrix holds no state that can be inverted. The matrix is
/// re-filled instead, either by the caller's functor or, without one, from the triangle that
/// potrf never writes (the caller stores the full symmetric matrix) plus a saved diagonal.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <type_traits>
#include <vector>

#include "kspd_batched_potrf.hpp"
#include "kspd_jitter.hpp"

namespace kspd::batched {

/// What a batched retry did, over the batch (per-matrix results are in infos / jitters).
struct BatchJitterSummary {
  size_type failed = 0;     ///< matrices still not factored after the last attempt
  size_type retried = 0;    ///< matrices that needed at least one retry
  int attempts = 0;         ///< rounds run (1: no matrix failed)
};

namespace Impl {
/// A_b(i,j) from the untouched other triangle (i != j) and the saved diagonal.
template <class AView, class DView>
struct MirrorFill {
  AView A;
  DView diag;
  KOKKOS_INLINE_FUNCTION typename AView::non_const_value_type operator()(size_type b, size_type i,
                                                                          size_type j) const {
    return i == j ? diag(b, i) : A(b, j, i);
  }
};

// FIXME_CUDA: no extended lambda in a function template with an unnamed enable_if parameter.
template <class ExecSpace, class AView, class DView>
void save_diagonal(const ExecSpace& exec, const AView& As, const DView& diag) {
  Kokkos::parallel_for(
      "kspd::batched::potrf_jitter::save_diag",
      Kokkos::MDRangePolicy<ExecSpace, Kokkos::Rank<2>>(exec, {0, 0},
                                                        {std::int64_t(diag.extent(0)), std::int64_t(diag.extent(1))}),
      KOKKOS_LAMBDA(const std::int64_t b, const std::int64_t i) { diag(b, i) = As(b, i, i); });
}

template <class ExecSpace, class AView, class InfoView, class JView, class Fill>
BatchJitterSummary potrf_jitter_impl(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos,
                                     const JView& jitters, const Fill& fill, const JitterOptions& jopt,
                                     const BatchOptions& bopt) {
  using T = typename AView::non_const_value_type;
  using Mem = typename AView::memory_space;
  using Range = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>;
  const size_type nb = As.extent(0), n = As.extent(1);
  const bool lower = uplo == Uplo::Lower;
  BatchJitterSummary sum;
  // First jitter of each matrix: rel_jitter * mean(diag(A_b)), or abs_jitter.
  Kokkos::View<double*, Mem> j1("kspd::batched::potrf_jitter::j1", size_t(nb));
  const double rel = jopt.rel_jitter, absj = jopt.abs_jitter;
  Kokkos::parallel_for(
      "kspd::batched::potrf_jitter::j1", Range(exec, 0, nb), KOKKOS_LAMBDA(const size_type b) {
        double s = 0;
        for (size_type i = 0; i < n; ++i) s += double(As(b, i, i));
        j1(b) = absj > 0 ? absj : rel * (n > 0 ? compat::fabs(s) / double(n) : 0.0);
        jitters(b) = 0;
      });
  potrf(exec, uplo, As, infos, bopt);
  sum.attempts = 1;
  auto h_info = Kokkos::create_mirror_view(infos);
  for (int r = 1; r <= jopt.max_retries + 1; ++r) {
    Kokkos::deep_copy(exec, h_info, infos);
    compat::fence(exec, "kspd::batched::potrf_jitter");
    std::vector<size_type> failed;
    for (size_type b = 0; b < nb; ++b)
      if (h_info(b) != 0) failed.push_back(b);
    sum.failed = size_type(failed.size());
    if (r == 1) sum.retried = sum.failed;
    if (failed.empty() || r > jopt.max_retries) break;
    const size_type nf = size_type(failed.size());
    Kokkos::View<size_type*, Mem> idx("kspd::batched::potrf_jitter::idx", size_t(nf));
    {
      Kokkos::View<size_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(failed.data(),
                                                                                            failed.size());
      Kokkos::deep_copy(exec, idx, h);
      compat::fence(exec, "kspd::batched::potrf_jitter");  // `failed` is freed at scope exit
    }
    double g = 1;
    for (int i = 1; i < r; ++i) g *= jopt.growth;
    // Batch-first LayoutLeft: consecutive threads of the batched kernels read consecutive matrices.
    Kokkos::View<T***, Kokkos::LayoutLeft, Mem> W(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::potrf_jitter::work"), size_t(nf), size_t(n),
        size_t(n));
    Kokkos::View<int*, Mem> winfo("kspd::batched::potrf_jitter::winfo", size_t(nf));
    const std::int64_t nn = std::int64_t(n) * n;
    Kokkos::parallel_for(
        "kspd::batched::potrf_jitter::refill",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(nf) * nn),
        KOKKOS_LAMBDA(const std::int64_t p) {
          const size_type k = size_type(p % nf), e = size_type(p / nf), i = e % n, j = e / n;
          const size_type b = idx(k);
          if (lower ? i >= j : i <= j) W(k, i, j) = fill(b, i, j) + (i == j ? T(g * j1(b)) : T(0));
          else W(k, i, j) = T(0);
        });
    potrf(exec, uplo, W, winfo, bopt);
    Kokkos::parallel_for(
        "kspd::batched::potrf_jitter::scatter",
        Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, std::int64_t(nf) * nn),
        KOKKOS_LAMBDA(const std::int64_t p) {
          const size_type k = size_type(p % nf), e = size_type(p / nf), i = e % n, j = e / n;
          const size_type b = idx(k);
          if (lower ? i >= j : i <= j) As(b, i, j) = W(k, i, j);
          if (e == 0) {
            infos(b) = winfo(k);
            jitters(b) = g * j1(b);
          }
        });
    sum.attempts = r + 1;
  }
  return sum;
}
}  // namespace Impl

/// \brief Cholesky of every matrix of the batch (as kspd::batched::potrf), retrying each
/// matrix that fails with A_b + j I for the schedule j = j_1(b), j_1(b) growth, ... (at most
/// max_retries retries; j_1(b) = rel_jitter mean(diag(A_b)) or abs_jitter).
/// \param fill device functor, `T operator()(size_type b, size_type i, size_type j) const`
///        returning the input A_b(i,j) (called for the `uplo` triangle of failed matrices).
/// \param infos [out] per matrix: 0, or the last attempt's info.
/// \param jitters [out] per matrix: the jitter of its factor (0: none needed; on failure the
///        last one tried). Rank-1 View<double*>.
/// \return counts over the batch. Fences `exec` (once per round: the failed matrices are
/// gathered on the host). The other triangle of every matrix is not written.
template <class ExecSpace, class AView, class InfoView, class JView, class Fill,
          std::enable_if_t<Kokkos::is_view<AView>::value && !std::is_same<std::decay_t<Fill>, JitterOptions>::value,
                           int> = 0>
[[nodiscard]] BatchJitterSummary potrf_jitter(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos,
                                              const JView& jitters, const Fill& fill, const JitterOptions& jopt = {},
                                              const BatchOptions& bopt = {}) {
  Impl::check_batch_view<ExecSpace, AView>("potrf_jitter", "As");
  Impl::check_batch_view<ExecSpace, JView>("potrf_jitter", "jitters");
  static_assert(AView::rank == 3, "kspd::batched::potrf_jitter: As must be a rank-3 View (batch, n, n)");
  static_assert(JView::rank == 1 && std::is_same<typename JView::non_const_value_type, double>::value,
                "kspd::batched::potrf_jitter: jitters must be a rank-1 View<double*>");
  KSPD_REQUIRE(As.extent(1) == As.extent(2), DimensionMismatch,
               "kspd::batched::potrf_jitter: As must hold square matrices (got " << As.extent(1) << " x "
                                                                                << As.extent(2) << ")");
  KSPD_REQUIRE(jopt.max_retries >= 0 && jopt.growth > 0, InvalidArgument,
               "kspd::batched::potrf_jitter: max_retries must be >= 0 and growth > 0");
  KSPD_REQUIRE(jitters.extent(0) >= As.extent(0), DimensionMismatch,
               "kspd::batched::potrf_jitter: jitters has " << jitters.extent(0) << " entries for " << As.extent(0)
                                                           << " matrices");
  (void)Impl::info_ptr<ExecSpace>(infos, As.extent(0), "kspd::batched::potrf_jitter");
  compat::ScopedRegion region("kspd::batched::potrf_jitter");
  return Impl::potrf_jitter_impl(exec, uplo, As, infos, jitters, fill, jopt, bopt);
}

/// \brief As above without a functor: As must hold the full symmetric matrices (both
/// triangles). potrf writes only the `uplo` triangle, so a failed matrix is re-filled from
/// the other one plus its diagonal, saved before the first attempt (batch x n entries of
/// workspace, not a copy of the batch).
template <class ExecSpace, class AView, class InfoView, class JView,
          std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
[[nodiscard]] BatchJitterSummary potrf_jitter(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos,
                                              const JView& jitters, const JitterOptions& jopt = {},
                                              const BatchOptions& bopt = {}) {
  static_assert(AView::rank == 3, "kspd::batched::potrf_jitter: As must be a rank-3 View (batch, n, n)");
  using T = typename AView::non_const_value_type;
  using Mem = typename AView::memory_space;
  KSPD_REQUIRE(As.extent(1) == As.extent(2), DimensionMismatch,
               "kspd::batched::potrf_jitter: As must hold square matrices (got " << As.extent(1) << " x "
                                                                                << As.extent(2) << ")");
  const size_type nb = As.extent(0), n = As.extent(1);
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> diag(
      Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::potrf_jitter::diag"), size_t(nb), size_t(n));
  Impl::save_diagonal(exec, As, diag);
  return potrf_jitter(exec, uplo, As, infos, jitters, Impl::MirrorFill<AView, decltype(diag)>{As, diag}, jopt, bopt);
}

}  // namespace kspd::batched
#endif
