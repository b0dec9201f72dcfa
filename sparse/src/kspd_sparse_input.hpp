#ifndef KSPD_SPARSE_INPUT_HPP
#define KSPD_SPARSE_INPUT_HPP
/// \file kspd_sparse_input.hpp
/// A symmetric matrix as an application has it, turned into what the analysis reads.
///
/// \code
///   // an FEM code's CSR of the full matrix, 32-bit indices, duplicates from assembly
///   kspd::sparse::InputFormat fmt{kspd::sparse::Compression::Csr, kspd::sparse::Stored::Full};
///   fmt.sum_duplicates = true;
///   auto in = kspd::sparse::make_input(n, rowptr, colind, values, fmt);  // pointers, Views, CrsMatrix
///   chol.analyze(in.matrix());
///   chol.factorize(in.matrix());
///   ...
///   in.update_values(new_values);   // same pattern, the input's entry order: one scatter
///   chol.factorize(in.matrix());
/// \endcode
///
/// Accepted: CSR or CSC; the lower, upper or both triangles (Stored::Full: the entries with
/// inner index <= outer index are used, i.e. CSR's lower and CSC's upper triangle, and the
/// others are ignored or, with check_symmetry, compared with them); any integer type for
/// offsets and indices (int, int64_t, size_t, ...); entries unsorted within a row/column;
/// duplicates summed on request. Output: the lower triangle in CscMatrix form (rows sorted
/// and unique), built in O(n + nnz) with no copy of the pattern beyond the output, plus a
/// map from input entries to output entries (8 bytes per input entry).
///
/// Errors (InvalidArgument / DimensionMismatch, each naming its case): negative n, a pointer
/// array not starting at 0 or not monotone (the position), its last entry differing from
/// nnz, an index out of range ("row 12 of column 3 is out of range [0, 10)"), an entry in
/// the triangle the format says is absent, a duplicate without sum_duplicates, a full
/// matrix that is not symmetric under check_symmetry (the entry pair).

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_input_impl.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

/// The converted matrix and the entry map; cheap to keep next to a SupernodalCholesky.
template <class Scalar>
class SymmetricInput {
 public:
  using scalar_type = Scalar;
  SymmetricInput() = default;

  /// The lower triangle, CSC, rows sorted and unique: what analyze/factorize take.
  const CscMatrix<Scalar>& matrix() const { return A_; }

  size_type n() const { return A_.n; }
  /// Entries of the input (both triangles for Stored::Full).
  size_type input_nnz() const { return size_type(map_.size()); }
  /// Output position of input entry k, or -1 when the entry belongs to the ignored triangle.
  const std::vector<size_type>& entry_map() const { return map_; }
  const InputFormat& format() const { return fmt_; }
  bool had_duplicates() const { return summed_; }

  /// New values of the same pattern, in the input's entry order (host pointer, input_nnz()
  /// of them): one pass over the map.
  template <class InScalar>
  void update_values(const InScalar* values) {
    KSPD_REQUIRE(values != nullptr || map_.empty(), InvalidArgument,
                 "kspd::sparse::SymmetricInput::update_values: values is null");
    update_values(values, A_);
  }
  /// The same into another CscMatrix of this pattern (e.g. one moved out of matrix()).
  template <class InScalar>
  void update_values(const InScalar* values, CscMatrix<Scalar>& A) const {
    KSPD_REQUIRE(A.values.size() == A_.rowind.size(), DimensionMismatch,
                 "kspd::sparse::SymmetricInput::update_values: the target holds " << A.values.size()
                                                                                  << " values, the pattern "
                                                                                  << A_.rowind.size());
    const size_type m = size_type(map_.size());
    if (summed_) std::fill(A.values.begin(), A.values.end(), Scalar(0));
    Scalar* out = A.values.data();
    const size_type* map = map_.data();
    if (summed_) {
      for (size_type k = 0; k < m; ++k)
        if (map[k] >= 0) out[map[k]] += Scalar(values[k]);
    } else {
      for (size_type k = 0; k < m; ++k)
        if (map[k] >= 0) out[map[k]] = Scalar(values[k]);
    }
  }
  /// New values as a rank-1 View of input_nnz() entries (any memory space: a device View is
  /// copied to the host first).
  template <class VView, std::enable_if_t<Kokkos::is_view<VView>::value, int> = 0>
  void update_values(const VView& values) {
    static_assert(VView::rank == 1, "kspd::sparse::SymmetricInput::update_values: values must be rank 1");
    KSPD_REQUIRE(size_type(values.extent(0)) == input_nnz(), DimensionMismatch,
                 "kspd::sparse::SymmetricInput::update_values: " << values.extent(0) << " values for "
                                                                 << input_nnz() << " input entries");
    auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), values);
    KSPD_REQUIRE(h.span_is_contiguous() || h.extent(0) <= 1, InvalidArgument,
                 "kspd::sparse::SymmetricInput::update_values: values must be contiguous");
    update_values(h.data());
  }

  /// Builds from host arrays (the make_input functions call this).
  template <class Offset, class Index, class InScalar>
  static SymmetricInput build(size_type n, size_type nnz, const Offset* ptr, const Index* ind,
                              const InScalar* values, const InputFormat& fmt) {
    Impl::validate_input(n, nnz, ptr, ind, values, fmt);
    SymmetricInput in;
    in.fmt_ = fmt;
    in.summed_ = Impl::convert(n, ptr, ind, values, Impl::keep_rule(fmt.compression, fmt.stored), fmt, in.A_, in.map_);
    if (fmt.stored == Stored::Full && fmt.check_symmetry) Impl::check_symmetric(n, ptr, ind, values, fmt, in.A_);
    in.A_.name = std::string("input ") + to_string(fmt.compression) + " " + to_string(fmt.stored);
    return in;
  }

 private:
  CscMatrix<Scalar> A_;
  std::vector<size_type> map_;
  InputFormat fmt_;
  bool summed_ = false;
};

/// \brief From raw host arrays: ptr has n + 1 entries (ptr[n] == nnz), ind and values nnz.
/// \param[in] n      the order (rows = columns)
/// \param[in] nnz    entries in ind/values (checked against ptr[n])
/// \param[in] ptr    row (CSR) or column (CSC) offsets, starting at 0
/// \param[in] ind    column (CSR) or row (CSC) indices, 0-based, any order within a row/column
/// \param[in] values entry values (may be null: pattern only, values zero)
template <class Scalar, class Offset, class Index>
SymmetricInput<Scalar> make_input(size_type n, size_type nnz, const Offset* ptr, const Index* ind,
                                  const Scalar* values, const InputFormat& fmt) {
  return SymmetricInput<Scalar>::build(n, nnz, ptr, ind, values, fmt);
}

namespace Impl {
template <class V>
auto host_contiguous(const V& v, const char* what) {
  static_assert(Kokkos::is_view<V>::value && V::rank == 1, "kspd::sparse::make_input: arrays must be rank-1 Views");
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v);  // no copy for host Views
  KSPD_REQUIRE(h.span_is_contiguous() || h.extent(0) <= 1, InvalidArgument,
               "kspd::sparse::make_input: " << what << " must be contiguous");
  return h;
}
}  // namespace Impl

/// \brief From rank-1 Kokkos Views in any memory space (device Views are copied to the host
/// once; host Views are read in place). n = ptr.extent(0) - 1.
template <class PtrView, class IndView, class ValView,
          std::enable_if_t<Kokkos::is_view<PtrView>::value && Kokkos::is_view<IndView>::value &&
                               Kokkos::is_view<ValView>::value,
                           int> = 0>
SymmetricInput<std::remove_const_t<typename ValView::value_type>> make_input(const PtrView& ptr, const IndView& ind,
                                                                             const ValView& values,
                                                                             const InputFormat& fmt) {
  using Scalar = std::remove_const_t<typename ValView::value_type>;
  KSPD_REQUIRE(ptr.extent(0) >= 1, InvalidArgument,
               "kspd::sparse::make_input: " << Impl::ptr_name(fmt.compression) << " must hold n + 1 >= 1 entries");
  KSPD_REQUIRE(ind.extent(0) == values.extent(0), DimensionMismatch,
               "kspd::sparse::make_input: nnz mismatch: " << ind.extent(0) << " indices but " << values.extent(0)
                                                          << " values");
  auto hp = Impl::host_contiguous(ptr, Impl::ptr_name(fmt.compression));
  auto hi = Impl::host_contiguous(ind, "the index array");
  auto hv = Impl::host_contiguous(values, "the value array");
  return SymmetricInput<Scalar>::build(size_type(ptr.extent(0)) - 1, size_type(ind.extent(0)), hp.data(), hi.data(),
                                       hv.data(), fmt);
}

/// \brief From a KokkosSparse::CrsMatrix (any device): CSR, the triangle(s) fmt.stored says
/// (fmt.compression is ignored). Needs numRows() == numCols().
template <class CrsMatrix, std::enable_if_t<!Kokkos::is_view<CrsMatrix>::value, int> = 0,
          class = decltype(std::declval<const CrsMatrix&>().graph.row_map)>
SymmetricInput<std::remove_const_t<typename CrsMatrix::value_type>> make_input(const CrsMatrix& A, InputFormat fmt) {
  KSPD_REQUIRE(A.numRows() == A.numCols(), DimensionMismatch,
               "kspd::sparse::make_input: the CrsMatrix is " << A.numRows() << " x " << A.numCols()
                                                             << ", not square");
  fmt.compression = Compression::Csr;
  if (A.numRows() == 0) {
    const size_type zero = 0;
    return SymmetricInput<std::remove_const_t<typename CrsMatrix::value_type>>::build(
        0, 0, &zero, static_cast<const size_type*>(nullptr),
        static_cast<const std::remove_const_t<typename CrsMatrix::value_type>*>(nullptr), fmt);
  }
  return make_input(A.graph.row_map, A.graph.entries, A.values, fmt);
}

}  // namespace kspd::sparse
#endif
