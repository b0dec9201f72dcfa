#ifndef KSPD_SPARSE_UPDATE_HPP
#define KSPD_SPARSE_UPDATE_HPP
/// \file kspd_sparse_update.hpp
/// The operand of a rank-k modification of a sparse Cholesky factor
/// (SupernodalCholesky::update): W, an n x k matrix (k <= 64) stored by sparse columns, in
/// the input's numbering, and the sign of W W^T.

#include <Kokkos_Core.hpp>

#include <vector>

#include "kspd_error.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

/// L L^T + W W^T (Plus, an update) or L L^T - W W^T (Minus, a downdate).
enum class Sign { Plus, Minus };

/// An nrows x ncols() matrix by sparse columns: the rows of column j are
/// rowind[colptr[j] .. colptr[j + 1]), strictly increasing, with their values.
template <class Scalar>
struct SparseColumns {
  size_type nrows = 0;
  std::vector<size_type> colptr{0};  ///< ncols() + 1 offsets
  std::vector<size_type> rowind;
  std::vector<Scalar> values;
  size_type ncols() const { return size_type(colptr.size()) - 1; }
  size_type nnz() const { return colptr.empty() ? 0 : colptr.back(); }
};

/// The nonzero entries of a dense host matrix W (n x k, any layout) as SparseColumns.
template <class WView>
SparseColumns<typename WView::non_const_value_type> sparse_columns(const WView& W) {
  static_assert(Kokkos::is_view<WView>::value && WView::rank == 2, "kspd::sparse::sparse_columns: W must be a rank-2 View");
  static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename WView::memory_space>::accessible,
                "kspd::sparse::sparse_columns: W must be host-accessible");
  SparseColumns<typename WView::non_const_value_type> S;
  S.nrows = size_type(W.extent(0));
  for (size_t j = 0; j < W.extent(1); ++j) {
    for (size_t i = 0; i < W.extent(0); ++i)
      if (W(i, j) != 0) {
        S.rowind.push_back(size_type(i));
        S.values.push_back(W(i, j));
      }
    S.colptr.push_back(size_type(S.rowind.size()));
  }
  return S;
}

}  // namespace kspd::sparse
#endif
