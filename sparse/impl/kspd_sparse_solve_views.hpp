#ifndef KSPD_SPARSE_SOLVE_VIEWS_HPP
#define KSPD_SPARSE_SOLVE_VIEWS_HPP
/// \file kspd_sparse_solve_views.hpp
/// Moving the user's right-hand sides (rank-1 or rank-2 Views of any layout, in any memory
/// space) into the solver's work array (n x nrhs, column-major, in the memory where the
/// factor lives), permuted, and back.

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kspd_types.hpp"

namespace kspd::sparse::Impl {

template <class V>
KOKKOS_INLINE_FUNCTION auto& rhs_at(const V& B, size_type i, size_type r) {
  if constexpr (V::rank == 1) {
    (void)r;
    return B(i);
  } else {
    return B(i, r);
  }
}

/// V itself when Exec can read it, else a copy in Exec's memory (copy = true) or an
/// uninitialized one of the same shape.
template <class Exec, class V>
auto reachable(const V& v, bool copy) {
  using M = typename Exec::memory_space;
  if constexpr (Kokkos::SpaceAccessibility<Exec, typename V::memory_space>::accessible) {
    (void)copy;
    return v;
  } else {
    auto m = Kokkos::create_mirror_view(M(), v);
    if (copy) Kokkos::deep_copy(m, v);
    return m;
  }
}

/// W(k, r) = B(perm[k], r) (perm null: B(k, r)); W has leading dimension n, Exec's memory.
template <class Exec, class BView, class Scalar>
void gather_rhs(const Exec& exec, const BView& B, Scalar* W, size_type n, size_type nrhs, const size_type* perm) {
  const auto Bx = reachable<Exec>(B, true);
  Kokkos::parallel_for(
      "kspd::sparse::gather_rhs", Kokkos::RangePolicy<Exec>(exec, 0, n * nrhs), KOKKOS_LAMBDA(const size_type q) {
        const size_type k = q % n, r = q / n;
        W[q] = Scalar(rhs_at(Bx, perm ? perm[k] : k, r));
      });
}

/// X(perm[k], r) = W(k, r) (perm null: X(k, r)).
template <class Exec, class XView, class Scalar>
void scatter_rhs(const Exec& exec, const Scalar* W, const XView& X, size_type n, size_type nrhs, const size_type* perm) {
  const auto Xx = reachable<Exec>(X, false);
  Kokkos::parallel_for(
      "kspd::sparse::scatter_rhs", Kokkos::RangePolicy<Exec>(exec, 0, n * nrhs), KOKKOS_LAMBDA(const size_type q) {
        const size_type k = q % n, r = q / n;
        rhs_at(Xx, perm ? perm[k] : k, r) = W[q];
      });
  if constexpr (!Kokkos::SpaceAccessibility<Exec, typename XView::memory_space>::accessible) {
    exec.fence();
    Kokkos::deep_copy(X, Xx);
  }
}

}  // namespace kspd::sparse::Impl
#endif
