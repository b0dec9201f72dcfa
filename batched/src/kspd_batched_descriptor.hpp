#ifndef KSPD_BATCHED_DESCRIPTOR_HPP
#define KSPD_BATCHED_DESCRIPTOR_HPP
/// \file kspd_batched_descriptor.hpp
/// The variable-size batch operand (VarMats) and the host-side bounds and sign checks of
/// every batch descriptor: strided rank-3 Views (bounded by construction), pointer arrays
/// (ld >= rows, no null pointer where a matrix is not empty) and variable-size batches
/// (sizes >= 0, offsets >= 0, ld >= rows, the last element of every matrix inside the data
/// array). The descriptor arrays are read on the host: device arrays are copied to host
/// mirrors once per call (create_mirror_view_and_copy: no copy for host memory).

#include <Kokkos_Core.hpp>

#include <cstdint>
#include <type_traits>

#include "kspd_batched_mat.hpp"
#include "kspd_error.hpp"

namespace kspd::batched {

/// \brief One operand of a variable-size batch: matrix b is column-major at
/// data.data() + offsets(b) with leading dimension lds(b) (>= its row count), or its row count
/// when lds is empty (extent 0). The sizes come from the operation (ms / ns / ks). Every
/// View lives where the execution space can read it (device memory on GPUs).
/// A supernodal panel (nrows x ncols, ld = nrows) or its diagonal block (ncols x ncols, the
/// same ld) is `VarMats<T, Mem>{values, offsets, lds}` with offsets(b) its first element.
template <class T, class MemorySpace>
struct VarMats {
  Kokkos::View<T*, MemorySpace> data;
  Kokkos::View<const offset_type*, MemorySpace> offsets;
  Kokkos::View<const int*, MemorySpace> lds;  ///< empty: ld = the matrix's row count
};

/// VarMats from Views (deduces the scalar and the memory space).
template <class DataView, class OffView>
VarMats<typename DataView::value_type, typename DataView::memory_space> var_mats(const DataView& data,
                                                                                const OffView& offsets) {
  return {data, offsets, {}};
}
template <class DataView, class OffView, class LdView>
VarMats<typename DataView::value_type, typename DataView::memory_space> var_mats(const DataView& data,
                                                                                const OffView& offsets,
                                                                                const LdView& lds) {
  return {data, offsets, lds};
}

namespace Impl {

/// A read-only host copy of a descriptor array (no copy when it is already host-accessible).
template <class View>
auto host_copy(const View& v) {
  return Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);
}

/// The per-matrix sizes of a variable-size batch on the host: ns(b) >= 0 for every b.
template <class IntView>
auto host_sizes(const char* op, const char* name, const IntView& ns, size_type nb) {
  static_assert(std::is_same<typename IntView::non_const_value_type, int>::value,
                "kspd::batched: the sizes of a variable-size batch are a View of int");
  KSPD_REQUIRE(size_type(ns.extent(0)) >= nb, DimensionMismatch,
               op << ": " << name << " has " << ns.extent(0) << " entries for " << nb << " matrices");
  auto h = host_copy(ns);
  for (size_type b = 0; b < nb; ++b)
    KSPD_REQUIRE(h(b) >= 0, InvalidArgument,
                 op << ": matrix " << b << " has " << name << "(" << b << ") = " << h(b) << " (must be >= 0)");
  return h;
}

/// Checks operand `name` of a variable-size batch of nb matrices, matrix b being rows(b) x
/// cols(b), and returns its raw descriptor. rows / cols: host callables.
template <class T, class Mem, class Rows, class Cols>
BatchMat<T> var_batch(const char* op, const char* name, const VarMats<T, Mem>& a, size_type nb, const Rows& rows,
                      const Cols& cols) {
  KSPD_REQUIRE(size_type(a.offsets.extent(0)) >= nb, DimensionMismatch,
               op << ": " << name << ".offsets has " << a.offsets.extent(0) << " entries for " << nb << " matrices");
  const bool has_ld = a.lds.extent(0) > 0;
  KSPD_REQUIRE(!has_ld || size_type(a.lds.extent(0)) >= nb, DimensionMismatch,
               op << ": " << name << ".lds has " << a.lds.extent(0) << " entries for " << nb << " matrices");
  const offset_type extent = offset_type(a.data.extent(0));
  if (nb > 0) {
    auto off = host_copy(a.offsets);
    Kokkos::View<const int*, Kokkos::HostSpace> ld;
    if (has_ld) ld = host_copy(a.lds);
    for (size_type b = 0; b < nb; ++b) {
      const offset_type m = rows(b), n = cols(b), o = off(b);
      const offset_type l = has_ld ? offset_type(ld(b)) : (m > 1 ? m : 1);
      KSPD_REQUIRE(o >= 0, InvalidArgument, op << ": matrix " << b << ": " << name << ".offsets(" << b << ") = " << o
                                               << " is negative");
      KSPD_REQUIRE(l >= m && (l >= 1 || m == 0), InvalidArgument,
                   op << ": matrix " << b << ": " << name << ".lds(" << b << ") = " << l << " < its " << m << " rows");
      // The last element, (m - 1, n - 1), at o + (n - 1) * l + m - 1 (empty matrices read nothing).
      KSPD_REQUIRE(m == 0 || n == 0 || (o <= extent - m && n - 1 <= (extent - o - m) / l),  // no overflow
                   InvalidArgument,
                   op << ": matrix " << b << " (" << m << " x " << n << ", " << name << " offset " << o << ", ld " << l
                      << ") ends at element " << (o + (n > 0 ? n - 1 : 0) * l + m) << ", past the " << extent
                      << " elements of " << name << ".data");
    }
  }
  return offset_batch<T>(a.data.data(), a.offsets.data(), has_ld ? a.lds.data() : nullptr);
}

/// Checks a fixed-size pointer array: sizes >= 0, ld >= rows, the array itself not null where
/// the matrices are not empty. (The pointers are not read: that would cost a device-to-host
/// copy per call; where they point is the caller's contract, as in cuBLAS.)
template <class ExecSpace, class T>
void check_pointers(const char* op, const char* name, T* const* ptrs, size_type nb, size_type rows, size_type cols,
                    offset_type ld) {
  KSPD_REQUIRE(nb >= 0 && rows >= 0 && cols >= 0, InvalidArgument,
               op << ": " << name << ": negative size (nbatch " << nb << ", " << rows << " x " << cols << ")");
  KSPD_REQUIRE(ld >= (rows > 1 ? rows : 1), InvalidArgument,
               op << ": " << name << ": ld = " << ld << " < its " << rows << " rows");
  KSPD_REQUIRE(nb == 0 || rows == 0 || cols == 0 || ptrs != nullptr, InvalidArgument,
               op << ": " << name << ": the pointer array is null");
}

/// Checks a variable-size pointer array: ld(b) >= max(1, rows(b)), non-null pointers.
template <class ExecSpace, class T, class LdView, class Rows>
void check_var_pointers(const char* op, const char* name, T* const* ptrs, const LdView& lds, size_type nb,
                        const Rows& rows) {
  KSPD_REQUIRE(size_type(lds.extent(0)) >= nb, DimensionMismatch,
               op << ": lds has " << lds.extent(0) << " entries for " << nb << " matrices");
  if (nb == 0) return;
  KSPD_REQUIRE(ptrs != nullptr, InvalidArgument, op << ": " << name << ": the pointer array is null");
  // Read as integers: a View of pointers would parse `T* const*` as a rank-2 data type.
  Kokkos::View<const std::uintptr_t*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v(
      reinterpret_cast<const std::uintptr_t*>(ptrs), size_t(nb));
  auto h = host_copy(v);
  auto l = host_copy(lds);
  for (size_type b = 0; b < nb; ++b) {
    const size_type m = rows(b);
    KSPD_REQUIRE(l(b) >= m && (l(b) >= 1 || m == 0), InvalidArgument,
                 op << ": matrix " << b << ": lds(" << b << ") = " << l(b) << " < its " << m << " rows");
    KSPD_REQUIRE(m == 0 || h(b) != 0, InvalidArgument,
                 op << ": matrix " << b << ": " << name << "[" << b << "] is null");
  }
}

}  // namespace Impl
}  // namespace kspd::batched
#endif
