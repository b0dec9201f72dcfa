#ifndef KSPD_DENSE_LOGDET_HPP
#define KSPD_DENSE_LOGDET_HPP
/// \file kspd_dense_logdet.hpp
/// log det(A) of an SPD matrix from its Cholesky factor (potrf): 2 sum_i log L_ii, one
/// parallel_reduce over the factor's diagonal where the factor lives (no copy of it).

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kspd_compat.hpp"
#include "kspd_error.hpp"
#include "kspd_types.hpp"

namespace kspd {
namespace Impl {
template <class ExecSpace, class LV>
void check_logdet_factor(const LV& L) {
  static_assert(Kokkos::is_view<LV>::value && LV::rank == 2, "kspd::potrf_logdet: L must be a rank-2 Kokkos::View");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename LV::memory_space>::accessible,
                "kspd::potrf_logdet: the execution space cannot access L");
  KSPD_REQUIRE(L.extent(0) == L.extent(1), DimensionMismatch,
               "kspd::potrf_logdet: L must be square, got " << L.extent(0) << " x " << L.extent(1));
}
// FIXME_CUDA: nvcc cannot compile an extended lambda in a function template with an unnamed
// enable_if parameter (it names it __T<k>), so the kernel lives here.
template <class ExecSpace, class LV, class RV>
void logdet_into(const ExecSpace& exec, const LV& L, const RV& result) {
  Kokkos::parallel_reduce(
      "kspd::potrf_logdet", Kokkos::RangePolicy<ExecSpace>(exec, 0, L.extent(0)),
      KOKKOS_LAMBDA(const int i, double& s) { s += 2.0 * compat::log(double(L(i, i))); }, result);
}
}  // namespace Impl

/// \brief log det(A) = 2 sum_i log(L(i,i)) from the Cholesky factor of A computed by
/// kspd::potrf (either uplo: the diagonal is the same; any layout). Non-blocking on `exec`.
/// \param L [in] the n x n factor (only its diagonal is read).
/// \param result [out] rank-0 View<double> (any memory space `exec` can write); a
///        non-positive or NaN diagonal entry (a failed factorization) gives NaN or -inf.
/// The sum is accumulated in double for float factors too. n = 0 gives 0.
template <class ExecSpace, class LV, class RV, std::enable_if_t<Kokkos::is_view<RV>::value, int> = 0>
void potrf_logdet(const ExecSpace& exec, const LV& L, const RV& result) {
  Impl::check_logdet_factor<ExecSpace>(L);
  static_assert(RV::rank == 0 && std::is_same<typename RV::non_const_value_type, double>::value,
                "kspd::potrf_logdet: result must be a rank-0 View<double>");
  compat::ScopedRegion region("kspd::potrf_logdet");
  Impl::logdet_into(exec, L, result);
}

/// \brief log det(A) from the potrf factor L (see above); fences `exec`.
template <class ExecSpace, class LV>
[[nodiscard]] double potrf_logdet(const ExecSpace& exec, const LV& L) {
  Impl::check_logdet_factor<ExecSpace>(L);
  compat::ScopedRegion region("kspd::potrf_logdet");
  double s = 0;
  Kokkos::parallel_reduce(
      "kspd::potrf_logdet", Kokkos::RangePolicy<ExecSpace>(exec, 0, L.extent(0)),
      KOKKOS_LAMBDA(const int i, double& acc) { acc += 2.0 * compat::log(double(L(i, i))); }, s);
  compat::fence(exec, "kspd::potrf_logdet");
  return s;
}

}  // namespace kspd
#endif
