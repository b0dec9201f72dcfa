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
  /// Entries of the full symmetric matrix (both triangles); the diagonal counts once.
  size_type nnz_full() const {
    size_type diag = 0;  // rows are sorted, so a stored diagonal entry leads its column
    for (size_type j = 0; j < n; ++j)
      if (colptr[size_t(j)] < colptr[size_t(j + 1)] && rowind[size_t(colptr[size_t(j)])] == j) ++diag;
    return 2 * nnz() - diag;
  }
};

/// A with its values converted to the scalar To (the same pattern and name): the fp32 copy of
/// a mixed-precision factorization, or a matrix in another precision for the tests.
template <class To, class From>
CscMatrix<To> cast_values(const CscMatrix<From>& A) {
  CscMatrix<To> B;
  B.n = A.n;
  B.colptr = A.colptr;
  B.rowind = A.rowind;
  B.values.assign(A.values.begin(), A.values.end());
  B.name = A.name;
  return B;
}

}  // namespace kspd::sparse
#endif
