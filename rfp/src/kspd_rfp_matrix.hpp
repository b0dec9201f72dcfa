#ifndef KSPD_RFP_MATRIX_HPP
#define KSPD_RFP_MATRIX_HPP
/// \file kspd_rfp_matrix.hpp
/// kspd::rfp::Matrix: a cheap value handle on an n x n symmetric, complex Hermitian (or
/// triangular) matrix in
/// Rectangular Full Packed format: n, transr, uplo and a 1D View of n(n+1)/2 entries laid
/// out exactly as LAPACK's ?trttf writes them (see kspd_rfp_layout.hpp); Scalar is float,
/// double or Kokkos::complex<float/double> (c/z RFP: transr N or C).

#include <Kokkos_Core.hpp>

#include <string>

#include "kspd_rfp_layout.hpp"

namespace kspd::rfp {

template <class Scalar, class MemorySpace = Kokkos::DefaultExecutionSpace::memory_space>
class Matrix {
 public:
  using value_type = Scalar;
  using memory_space = MemorySpace;
  using view_type = Kokkos::View<Scalar*, MemorySpace>;

  Matrix() = default;
  /// Wraps `data` (n(n+1)/2 entries; more is an error too, to catch wrong n).
  Matrix(size_type n, Trans transr, Uplo uplo, const view_type& data)
      : layout_(make_layout(n, transr, uplo)), data_(data) {
    KSPD_REQUIRE(offset_type(data.extent(0)) == layout_.size(), DimensionMismatch,
                 "kspd::rfp::Matrix: data has " << data.extent(0) << " entries but n = " << n << " needs n(n+1)/2 = "
                                                << layout_.size());
  }
  /// Allocates n(n+1)/2 entries (zero-initialized) under `label`.
  Matrix(const std::string& label, size_type n, Trans transr, Uplo uplo)
      : layout_(make_layout(n, transr, uplo)), data_(label, size_t(layout_.size())) {}

  size_type n() const { return layout_.n; }
  /// NoTranspose, or Transpose (real) / ConjTranspose (complex: LAPACK's transr = 'C').
  Trans transr() const {
    return is_complex_v<Scalar> && is_trans(layout_.transr) ? Trans::ConjTranspose : layout_.transr;
  }
  Uplo uplo() const { return layout_.uplo; }
  const Layout& layout() const { return layout_; }
  const view_type& data() const { return data_; }
  offset_type size() const { return layout_.size(); }

 private:
  Layout layout_;
  view_type data_;
};

/// Number of entries of an n x n RFP matrix, n(n+1)/2, in 64 bits.
inline offset_type packed_size(size_type n) { return offset_type(n) * (n + 1) / 2; }

}  // namespace kspd::rfp
#endif
