#ifndef KSPD_RFP_BLOCKS_IMPL_HPP
#define KSPD_RFP_BLOCKS_IMPL_HPP
/// \file kspd_rfp_blocks_impl.hpp
/// The three blocks of an RFP matrix as unmanaged LayoutStride Views with one orientation
/// for all 8 variants: t1 and t2 are n1 x n1 and n2 x n2 views whose LOWER triangle is the
/// stored triangle of A11 / A22 (a stored upper triangle is viewed transposed), and s is
/// the n2 x n1 view of A21 (a stored A12 is viewed transposed). The core dense layer turns a
/// transposed operand back into a column-major vendor call (flipping uplo / trans / side),
/// so every block operation below is one large BLAS/LAPACK call.

#include <Kokkos_Core.hpp>

#include "kspd_core.hpp"
#include "kspd_rfp_matrix.hpp"

namespace kspd::rfp::Impl {

template <class T, class Mem>
using BlockView = Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class T, class Mem>
BlockView<T, Mem> block_view(T* base, const Block& b, bool transposed) {
  const size_t m = size_t(b.rows), n = size_t(b.cols), ld = size_t(b.ld);
  T* p = base + b.offset;
  if (transposed) return BlockView<T, Mem>(p, Kokkos::LayoutStride(n, ld, m, 1));
  return BlockView<T, Mem>(p, Kokkos::LayoutStride(m, 1, n, ld));
}

template <class T, class Mem>
struct Blocks {
  size_type n1 = 0, n2 = 0;
  BlockView<T, Mem> t1, t2, s;  // lower(A11), lower(A22), A21
};

template <class T, class Mem>
Blocks<T, Mem> blocks(const Matrix<T, Mem>& A) {
  const Layout& L = A.layout();
  T* base = A.data().data();
  Blocks<T, Mem> b;
  b.n1 = L.n1;
  b.n2 = L.n2;
  b.t1 = block_view<T, Mem>(base, L.t1, L.t1.uplo == Uplo::Upper);
  b.t2 = block_view<T, Mem>(base, L.t2, L.t2.uplo == Uplo::Upper);
  b.s = block_view<T, Mem>(base, L.s, L.s.holds_a12);
  return b;
}

/// Real-only operations (the symmetric ones: sfrk, sfmm, lansf, pfcon, ...).
template <class T>
constexpr void require_real(const char*) {
  static_assert(!is_complex_v<T>, "kspd::rfp: this operation is for real symmetric matrices; the complex "
                                  "Hermitian ones are hfrk, lanhf, pftrf/pftrs/pftri, tfsm and the conversions");
}

/// Rows [r0, r0+nr) of a rank-2 View, as a LayoutStride subview.
template <class V>
auto rows(const V& B, size_type r0, size_type nr) {
  return Kokkos::subview(B, Kokkos::make_pair(size_t(r0), size_t(r0 + nr)), Kokkos::ALL());
}
template <class V>
auto cols(const V& B, size_type c0, size_type nc) {
  return Kokkos::subview(B, Kokkos::ALL(), Kokkos::make_pair(size_t(c0), size_t(c0 + nc)));
}

template <class ExecSpace, class T, class Mem>
void check_matrix(const char* op, const Matrix<T, Mem>&) {
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, Mem>::accessible,
                "kspd::rfp: the execution space cannot access the RFP matrix's memory space");
  static_assert(is_vendor_scalar<T>::value,
                "kspd::rfp: the scalar type must be float, double or Kokkos::complex<float/double>");
  (void)op;
}

template <class ExecSpace, class V>
void check_dense(const char* op, const char* name, const V& B) {
  static_assert(Kokkos::is_view<V>::value, "kspd::rfp: dense operands must be Kokkos::Views");
  static_assert(V::rank == 2, "kspd::rfp: dense operands must be rank-2 Views");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible,
                "kspd::rfp: the execution space cannot access a dense operand");
  (void)op;
  (void)name;
  (void)B;
}

/// A rank-1 View seen as an n x 1 rank-2 LayoutStride View (vector operations reuse the
/// matrix ones).
template <class V>
auto as_column(const V& x) {
  using T = typename V::value_type;
  using R = Kokkos::View<T**, Kokkos::LayoutStride, typename V::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  return R(x.data(), Kokkos::LayoutStride(x.extent(0), x.stride(0) > 0 ? x.stride(0) : 1, 1, x.extent(0) + 1));
}

}  // namespace kspd::rfp::Impl
#endif
