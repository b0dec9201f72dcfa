#ifndef KSPD_TYPES_HPP
#define KSPD_TYPES_HPP
/// \file kspd_types.hpp
/// Index types: every size and offset that can pass 2^31 elements is 64-bit.
#include <cstdint>
#include <type_traits>

#include <Kokkos_Complex.hpp>

namespace kspd {
using size_type = std::int64_t;    ///< matrix dimensions, element counts
using offset_type = std::int64_t;  ///< offsets into buffers, leading dimensions

template <class T>
struct is_blas_scalar : std::integral_constant<bool, std::is_same<T, float>::value ||
                                                         std::is_same<T, double>::value> {};

/// Kokkos::complex<float/double>: what Views of complex Hermitian matrices hold. It is
/// layout-compatible with std::complex and Fortran COMPLEX, so the bindings reinterpret
/// pointers to it.
template <class T>
struct is_complex_scalar : std::false_type {};
template <class R>
struct is_complex_scalar<Kokkos::complex<R>> : is_blas_scalar<R> {};
template <class T>
inline constexpr bool is_complex_v = is_complex_scalar<std::remove_cv_t<T>>::value;

/// The scalars the host BLAS/LAPACK and cuBLAS/cuSOLVER backends serve: s, d, c, z.
template <class T>
struct is_vendor_scalar
    : std::integral_constant<bool, is_blas_scalar<T>::value || is_complex_scalar<T>::value> {};

/// The real type under a scalar (float for Kokkos::complex<float>).
template <class T>
struct real_of {
  using type = T;
};
template <class R>
struct real_of<Kokkos::complex<R>> {
  using type = R;
};
template <class T>
using real_t = typename real_of<std::remove_cv_t<T>>::type;
}  // namespace kspd
#endif
