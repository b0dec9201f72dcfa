#ifndef KSPD_SPARSE_CSC_HPP
#define KSPD_SPARSE_CSC_HPP
/// \file kspd_sparse_csc.hpp
/// The host representation of a sparse symmetric matrix that the readers and generators
/// produce and the analysis consumes: the lower triangle (row >= column), compressed by
/// column, rows sorted and unique within each column. All indices and counts are 64-bit.

#include <cstdint>
#include <string>
#include <vector>

#include "kspd_types.hpp"

namespace kspd::sparse {

template <class Scalar>
struct CscMatrix {
  size_type n = 0;
  std::vector<size_type> colptr;  ///< n + 1 offsets into rowind/values
  std::vector<size_type> rowind;  ///< row of each entry, >= its column, sorted per column
  std::vector<Scalar> values;
  std::string name;               ///< file name or generator description, for reports

  size_type nnz() const { return colptr.empty() ? 0 : colptr.back(); }
  /// Entries of the full symmetric matrix (both triangles).
  size_type nnz_full() const { return 2 * nnz() - n; }
};

}  // namespace kspd::sparse
#endif
