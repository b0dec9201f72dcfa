#ifndef KSPD_BATCHED_MAT_HPP
#define KSPD_BATCHED_MAT_HPP
/// \file kspd_batched_mat.hpp
/// The raw representations every batched kernel works on:
///  - Impl::Mat<T> (core): one matrix as pointer + row/column strides;
///  - BatchMat<T>: where matrix b of a batch lives (strided rank-3 View, array of pointers,
///    or a buffer plus per-matrix offsets/leading dimensions), resolved inside the kernel;
///  - Dims: the batch's dimensions, fixed or per matrix (variable-size batches).
/// One descriptor type for all interfaces keeps the number of kernel instantiations (and the
/// compile time) to one per operation and scalar type.

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kspd_compat.hpp"
#include "kspd_dense_mat.hpp"
#include "kspd_tags.hpp"
#include "kspd_types.hpp"

namespace kspd::batched::Impl {

template <class T>
using Mat = kspd::Impl::Mat<T>;

/// A rank-2 View (any layout, device or host) as a Mat; callable in kernels.
template <class View>
KOKKOS_INLINE_FUNCTION Mat<typename View::value_type> to_mat(const View& v) {
  static_assert(Kokkos::is_view<View>::value, "kspd::batched: expected a Kokkos::View");
  static_assert(View::rank == 2, "kspd::batched: expected a rank-2 Kokkos::View");
  return Mat<typename View::value_type>{v.data(), size_type(v.extent(0)), size_type(v.extent(1)),
                                        offset_type(v.stride(0)), offset_type(v.stride(1))};
}
/// A raw column/row-strided matrix as a Mat.
template <class T>
KOKKOS_INLINE_FUNCTION Mat<T> to_mat(T* p, size_type m, size_type n, offset_type rs, offset_type cs) {
  return Mat<T>{p, m, n, rs, cs};
}

/// Where matrix b of a batch lives. Exactly one of the modes is active:
///  strided:  base + b*bs, strides rs/cs (a rank-3 View with the batch index first);
///  pointers: ptrs[b], column-major, leading dimension ld (or lds[b] when lds is set);
///  offsets:  base + offs[b], column-major, leading dimension = its row count (or lds[b]).
template <class T>
struct BatchMat {
  T* base = nullptr;
  T* const* ptrs = nullptr;
  const offset_type* offs = nullptr;
  const int* lds = nullptr;
  offset_type bs = 0, rs = 1, cs = 1;
  offset_type off = 0;  ///< pointers mode: the matrix starts at ptrs[b] + off (a sub-block)

  KOKKOS_INLINE_FUNCTION Mat<T> get(size_type b, size_type m, size_type n) const {
    if (ptrs != nullptr) return Mat<T>{ptrs[b] + off, m, n, rs, lds != nullptr ? offset_type(lds[b]) : cs};
    if (offs != nullptr) return Mat<T>{base + offs[b], m, n, 1, lds != nullptr ? offset_type(lds[b]) : (m > 0 ? m : 1)};
    return Mat<T>{base + b * bs, m, n, rs, cs};
  }
  /// True when consecutive matrices are adjacent in memory element by element (LayoutLeft
  /// with the batch index first): one thread per matrix then reads coalesced.
  /// The same batch, read-only.
  template <class U = T, std::enable_if_t<!std::is_const<U>::value, int> = 0>
  operator BatchMat<const U>() const {
    BatchMat<const U> c;
    c.base = base;
    c.ptrs = ptrs;
    c.offs = offs;
    c.lds = lds;
    c.bs = bs;
    c.rs = rs;
    c.cs = cs;
    c.off = off;
    return c;
  }
  KOKKOS_INLINE_FUNCTION bool batch_unit_stride() const { return ptrs == nullptr && offs == nullptr && bs == 1; }
  /// Fixed-size strided or pointer batches (no per-matrix offsets or leading dimensions):
  /// the ones whose sub-blocks are batches of the same kind (see sub / t).
  bool splittable() const { return offs == nullptr && lds == nullptr; }
  /// The batch of sub-blocks starting at (i0, j0) of every matrix (same strides).
  BatchMat sub(size_type i0, size_type j0) const {
    BatchMat s = *this;
    const offset_type d = offset_type(i0) * rs + offset_type(j0) * cs;
    if (ptrs != nullptr) s.off += d;
    else s.base += d;
    return s;
  }
  /// The batch of transposed matrices (strides swapped).
  BatchMat t() const {
    BatchMat s = *this;
    s.rs = cs;
    s.cs = rs;
    return s;
  }
};

/// Batch dimensions: fixed (m, n, k) or, where the pointer is set, per matrix.
struct Dims {
  size_type m = 0, n = 0, k = 0;
  const int* ms = nullptr;
  const int* ns = nullptr;
  const int* ks = nullptr;
  KOKKOS_INLINE_FUNCTION size_type M(size_type b) const { return ms != nullptr ? size_type(ms[b]) : m; }
  KOKKOS_INLINE_FUNCTION size_type N(size_type b) const { return ns != nullptr ? size_type(ns[b]) : n; }
  KOKKOS_INLINE_FUNCTION size_type K(size_type b) const { return ks != nullptr ? size_type(ks[b]) : k; }
};

/// A strided batch from a rank-3 View (batch index first), any layout.
template <class View>
BatchMat<typename View::value_type> strided_batch(const View& v) {
  static_assert(Kokkos::is_view<View>::value, "kspd::batched: expected a Kokkos::View");
  static_assert(View::rank == 3, "kspd::batched: a strided batch is a rank-3 View (batch, rows, cols)");
  BatchMat<typename View::value_type> d;
  d.base = v.data();
  d.bs = offset_type(v.stride(0));
  d.rs = offset_type(v.stride(1));
  d.cs = offset_type(v.stride(2));
  return d;
}
template <class T>
BatchMat<T> pointer_batch(T* const* ptrs, offset_type ld) {
  BatchMat<T> d;
  d.ptrs = ptrs;
  d.cs = ld;
  return d;
}
template <class T>
BatchMat<T> offset_batch(T* base, const offset_type* offs, const int* lds = nullptr) {
  BatchMat<T> d;
  d.base = base;
  d.offs = offs;
  d.lds = lds;
  return d;
}

}  // namespace kspd::batched::Impl
#endif
