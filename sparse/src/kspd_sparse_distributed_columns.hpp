#ifndef KSPD_SPARSE_DISTRIBUTED_COLUMNS_HPP
#define KSPD_SPARSE_DISTRIBUTED_COLUMNS_HPP
/// \file kspd_sparse_distributed_columns.hpp
/// The input of DistributedCholesky when each rank holds a slice of the matrix' columns.

#include <vector>

#include "kspd_types.hpp"

namespace kspd::sparse {

/// The columns [col_begin, col_end) of the lower triangle held by one rank; the ranks'
/// ranges are contiguous and ascending with the rank. colptr is local (starts at 0).
template <class Scalar>
struct DistributedColumns {
  size_type n = 0;
  size_type col_begin = 0, col_end = 0;
  std::vector<size_type> colptr, rowind;
  std::vector<Scalar> values;
};

}  // namespace kspd::sparse
#endif
