#ifndef KSPD_RFP_LOGDET_HPP
#define KSPD_RFP_LOGDET_HPP
/// \file kspd_rfp_logdet.hpp
/// log det(A) from the RFP Cholesky factor of pftrf: 2 sum_i log L_ii over the RFP diagonal
/// (Layout::diag(i)), one parallel_reduce where the factor lives; no copy.

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kspd_compat.hpp"
#include "kspd_rfp_blocks_impl.hpp"

namespace kspd::rfp {
namespace Impl {
// FIXME_CUDA: no extended lambda in a function template with an unnamed enable_if parameter.
template <class ExecSpace, class T, class Mem, class RV>
void logdet_into(const ExecSpace& exec, const Matrix<T, Mem>& L, const RV& result) {
  const Layout lay = L.layout();
  auto a = L.data();
  Kokkos::parallel_reduce(
      "kspd::rfp::pftrf_logdet", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, lay.n),
      KOKKOS_LAMBDA(const std::int64_t i, double& s) { s += 2.0 * compat::log(double(a(lay.diag(i)))); }, result);
}
}  // namespace Impl

/// \brief log det(A) = 2 sum_i log L(i,i) from the factor of A computed by kspd::rfp::pftrf
/// (any of the 8 variants). Non-blocking on `exec`.
/// \param result [out] rank-0 View<double>; a failed factor (non-positive or NaN pivot) gives
///        NaN or -inf. The sum is accumulated in double. n = 0 gives 0.
template <class ExecSpace, class T, class Mem, class RV, std::enable_if_t<Kokkos::is_view<RV>::value, int> = 0>
void pftrf_logdet(const ExecSpace& exec, const Matrix<T, Mem>& L, const RV& result) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf_logdet", L);
  static_assert(RV::rank == 0 && std::is_same<typename RV::non_const_value_type, double>::value,
                "kspd::rfp::pftrf_logdet: result must be a rank-0 View<double>");
  compat::ScopedRegion region("kspd::rfp::pftrf_logdet");
  Impl::logdet_into(exec, L, result);
}

/// \brief log det(A) from pftrf's factor (see above); fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] double pftrf_logdet(const ExecSpace& exec, const Matrix<T, Mem>& L) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf_logdet", L);
  compat::ScopedRegion region("kspd::rfp::pftrf_logdet");
  const Layout lay = L.layout();
  auto a = L.data();
  double s = 0;
  Kokkos::parallel_reduce(
      "kspd::rfp::pftrf_logdet", Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, lay.n),
      KOKKOS_LAMBDA(const std::int64_t i, double& acc) { acc += 2.0 * compat::log(double(a(lay.diag(i)))); }, s);
  compat::fence(exec, "kspd::rfp::pftrf_logdet");
  return s;
}

}  // namespace kspd::rfp
#endif
