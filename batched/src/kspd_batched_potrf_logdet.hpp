#ifndef KSPD_BATCHED_POTRF_LOGDET_HPP
#define KSPD_BATCHED_POTRF_LOGDET_HPP
/// \file kspd_batched_potrf_logdet.hpp
/// Per-matrix log det from the factors of kspd::batched::potrf: one thread per matrix sums
/// 2 log L(i,i) over its diagonal, where the batch lives; no copy.

#include <Kokkos_Core.hpp>

#include <limits>
#include <type_traits>

#include "kspd_batched_launch.hpp"
#include "kspd_compat.hpp"

namespace kspd::batched {

/// \brief logdets(b) = log det(A_b) = 2 sum_i log L_b(i,i) from the factors that
/// kspd::batched::potrf left in As (either uplo; the diagonal is the same), or NaN where
/// infos(b) != 0 (a failed factorization). Accumulated in double. Non-blocking on `exec`.
/// \param As [in] rank-3 View (batch, n, n) of factors. \param infos [in] potrf's infos.
/// \param logdets [out] rank-1 View of >= batch entries (double or float).
template <class ExecSpace, class AView, class InfoView, class LView>
void potrf_logdet(const ExecSpace& exec, const AView& As, const InfoView& infos, const LView& logdets) {
  Impl::check_batch_view<ExecSpace, AView>("potrf_logdet", "As");
  Impl::check_batch_view<ExecSpace, LView>("potrf_logdet", "logdets");
  static_assert(AView::rank == 3, "kspd::batched::potrf_logdet: As must be a rank-3 View (batch, n, n)");
  static_assert(LView::rank == 1, "kspd::batched::potrf_logdet: logdets must be a rank-1 View");
  KSPD_REQUIRE(As.extent(1) == As.extent(2), DimensionMismatch,
               "kspd::batched::potrf_logdet: As must hold square matrices (got " << As.extent(1) << " x "
                                                                                << As.extent(2) << ")");
  const size_type nb = As.extent(0), n = As.extent(1);
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nb, "kspd::batched::potrf_logdet");
  KSPD_REQUIRE(size_type(logdets.extent(0)) >= nb, DimensionMismatch,
               "kspd::batched::potrf_logdet: logdets has " << logdets.extent(0) << " entries for " << nb
                                                           << " matrices");
  compat::ScopedRegion region("kspd::batched::potrf_logdet");
  using R = typename LView::non_const_value_type;
  const double nan = std::numeric_limits<double>::quiet_NaN();  // captured: no host-only call in the kernel
  Kokkos::parallel_for(
      "kspd::batched::potrf_logdet", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, nb),
      KOKKOS_LAMBDA(const size_type b) {
        if (ip[b] != 0) {
          logdets(b) = R(nan);
          return;
        }
        double s = 0;
        for (size_type i = 0; i < n; ++i) s += compat::log(double(As(b, i, i)));
        logdets(b) = R(2.0 * s);
      });
}

}  // namespace kspd::batched
#endif
