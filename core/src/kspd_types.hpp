#ifndef KSPD_TYPES_HPP
#define KSPD_TYPES_HPP
/// \file kspd_types.hpp
/// Index types: every size and offset that can pass 2^31 elements is 64-bit.
#include <cstdint>
#include <type_traits>

namespace kspd {
using size_type = std::int64_t;    ///< matrix dimensions, element counts
using offset_type = std::int64_t;  ///< offsets into buffers, leading dimensions

template <class T>
struct is_blas_scalar : std::integral_constant<bool, std::is_same<T, float>::value ||
                                                         std::is_same<T, double>::value> {};
}  // namespace kspd
#endif
