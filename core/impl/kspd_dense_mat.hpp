#ifndef KSPD_DENSE_MAT_HPP
#define KSPD_DENSE_MAT_HPP
/// \file kspd_dense_mat.hpp
/// Impl::Mat: a raw pointer with two 64-bit strides. Every dense algorithm works on these,
/// so a transpose is a swap of strides and all variants reduce to a few recursion bodies.

#include <Kokkos_Core.hpp>

#include <type_traits>

#include "kspd_error.hpp"
#include "kspd_tags.hpp"
#include "kspd_types.hpp"

namespace kspd::Impl {

template <class T>
struct Mat {
  T* p = nullptr;
  size_type m = 0, n = 0;
  offset_type rs = 1, cs = 1;  // element (i,j) is p[i*rs + j*cs]

  KOKKOS_INLINE_FUNCTION T& operator()(size_type i, size_type j) const { return p[i * rs + j * cs]; }
  KOKKOS_INLINE_FUNCTION Mat sub(size_type i, size_type j, size_type mm, size_type nn) const {
    return Mat{p + i * rs + j * cs, mm, nn, rs, cs};
  }
  KOKKOS_INLINE_FUNCTION Mat t() const { return Mat{p, n, m, cs, rs}; }
  template <class U = T, class = std::enable_if_t<!std::is_const<U>::value>>
  KOKKOS_INLINE_FUNCTION operator Mat<const U>() const {
    return Mat<const U>{p, m, n, rs, cs};
  }
  KOKKOS_INLINE_FUNCTION bool empty() const { return m == 0 || n == 0; }
};

/// conj(x) when `c` (complex scalars), x otherwise: the reads of op(A) = A^H.
template <class T>
KOKKOS_INLINE_FUNCTION T conj_if(bool c, const T& x) {
  if constexpr (is_complex_v<T>) {
    return c ? Kokkos::conj(x) : x;
  } else {
    (void)c;
    return x;
  }
}
/// Re(x) as a T when `r` (complex scalars), x otherwise: a Hermitian diagonal.
template <class T>
KOKKOS_INLINE_FUNCTION T real_if(bool r, const T& x) {
  if constexpr (is_complex_v<T>) {
    return r ? T(x.real()) : x;
  } else {
    (void)r;
    return x;
  }
}
template <class T>
KOKKOS_INLINE_FUNCTION real_t<T> real_part(const T& x) {
  if constexpr (is_complex_v<T>) return x.real();
  else return x;
}
/// The transpose of the Hermitian algorithms: A^H for complex scalars, A^T for real ones.
template <class T>
constexpr Trans herm_trans() {
  return is_complex_v<T> ? Trans::ConjTranspose : Trans::Transpose;
}

/// Mat<const T> with T in a non-deduced context, so a Mat<T> argument converts to it.
template <class T>
struct NonDeduced {
  using type = T;
};
template <class T>
using CMat = Mat<const typename NonDeduced<T>::type>;

/// A column-major operand as BLAS sees it.
template <class T>
struct ColMajor {
  T* p;
  size_type m, n;
  offset_type ld;
};

/// True when `a` can be handed to BLAS as it is (unit row stride).
template <class T>
bool is_col_major(const Mat<T>& a) {
  if (a.m <= 1) return a.n <= 1 || a.cs >= 1;
  return a.rs == 1 && (a.n <= 1 || a.cs >= a.m);
}
template <class T>
ColMajor<T> col_major(const Mat<T>& a) {
  offset_type ld = a.n <= 1 ? (a.m > 1 ? a.m : 1) : a.cs;
  if (ld < a.m) ld = a.m;
  if (ld < 1) ld = 1;
  return ColMajor<T>{a.p, a.m, a.n, ld};
}

template <class View>
Mat<typename View::value_type> make_mat(const View& v) {
  static_assert(Kokkos::is_view<View>::value, "kspd: expected a Kokkos::View");
  static_assert(View::rank == 2, "kspd: expected a rank-2 Kokkos::View");
  return Mat<typename View::value_type>{v.data(), static_cast<size_type>(v.extent(0)),
                                        static_cast<size_type>(v.extent(1)),
                                        static_cast<offset_type>(v.stride(0)),
                                        static_cast<offset_type>(v.stride(1))};
}

/// Largest power of two below n (half of n when n is a power of two): the paper's split,
/// which keeps the GEMM operands power-of-two sized.
inline size_type recursion_split(size_type n) {
  size_type p = 1;
  while (p * 2 < n) p *= 2;
  return p;
}

template <class ExecSpace, class View>
void check_accessible(const char* op, const char* arg) {
  static_assert(Kokkos::is_view<View>::value, "kspd: operands must be Kokkos::Views");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "kspd: the execution space cannot access this View's memory space");
  (void)op;
  (void)arg;
}

}  // namespace kspd::Impl
#endif
