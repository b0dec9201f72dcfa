#ifndef KSPD_SPARSE_MPI_INPUT_HPP
#define KSPD_SPARSE_MPI_INPUT_HPP
/// \file kspd_sparse_mpi_input.hpp
/// The distributed solver's argument checks (DistributedCholesky): rank 0's whole matrix,
/// one rank's column range, and the options that must agree over the ranks. They throw
/// on the rank that finds the problem; the caller runs them inside agree (every rank throws).

#include <mpi.h>

#include <algorithm>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

namespace Impl {

/// Rows of columns [c0, c1) (local colptr, starting at 0) within [j, n), ascending.
inline void check_rows(size_type n, size_type c0, size_type c1, const size_type* colptr, const size_type* rowind) {
  for (size_type j = c0; j < c1; ++j)
    for (size_type p = colptr[size_t(j - c0)]; p < colptr[size_t(j - c0 + 1)]; ++p) {
      const size_type i = rowind[size_t(p)];
      KSPD_REQUIRE(i >= j && i < n, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: row " << i << " in column " << j
                                                            << " is outside the lower triangle [column, n = " << n << ")");
      KSPD_REQUIRE(p == colptr[size_t(j - c0)] || i > rowind[size_t(p - 1)], InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the rows of column " << j << " are not sorted and unique (row "
                                                                            << i << ")");
    }
}
/// Rank 0's whole matrix: sizes, column pointers, rows (lower triangle, sorted, unique).
template <class Scalar>
inline void check_matrix(const CscMatrix<Scalar>& A) {
  const size_type n = A.n;
  KSPD_REQUIRE(n >= 0 && size_type(A.colptr.size()) == n + 1 && A.colptr[0] == 0, InvalidArgument,
               "kspd::sparse::DistributedCholesky: A is inconsistent: n = " << n << " needs n + 1 colptr entries "
               "starting at 0, colptr has " << A.colptr.size());
  for (size_type j = 0; j < n; ++j)
    KSPD_REQUIRE(A.colptr[size_t(j)] <= A.colptr[size_t(j + 1)], InvalidArgument,
                 "kspd::sparse::DistributedCholesky: A's colptr decreases at column " << j);
  KSPD_REQUIRE(size_type(A.rowind.size()) == A.colptr.back() && A.values.size() == A.rowind.size(), InvalidArgument,
               "kspd::sparse::DistributedCholesky: A is inconsistent: colptr ends at " << A.colptr.back() << ", rowind has "
                                                                                      << A.rowind.size() << " entries, values "
                                                                                      << A.values.size());
  check_rows(n, 0, n, A.colptr.data(), A.rowind.data());
}
/// Rank 0's A against the analysis S: the same pattern, one value per entry.
template <class Scalar>
inline void check_values(const Symbolic& S, const CscMatrix<Scalar>& A) {
  KSPD_REQUIRE(S.same_pattern(A.n, A.colptr, A.rowind), InvalidArgument,
               "kspd::sparse::DistributedCholesky::factorize: A's pattern differs from the analysed one");
  KSPD_REQUIRE(A.values.size() == A.rowind.size(), InvalidArgument,
               "kspd::sparse::DistributedCholesky::factorize: A has " << A.values.size() << " values for "
                                                                      << A.rowind.size() << " entries");
}
/// One rank's DistributedColumns, by themselves (the ranges together are checked after
/// they are gathered).
template <class Columns>  // DistributedColumns<Scalar>
inline void check_columns(const Columns& A) {
  const char* who = "kspd::sparse::DistributedCholesky::factorize: the local columns";
  KSPD_REQUIRE(A.n >= 0 && 0 <= A.col_begin && A.col_begin <= A.col_end && A.col_end <= A.n, InvalidArgument,
               who << " [" << A.col_begin << ", " << A.col_end << ") are not a column range of [0, n = " << A.n << ")");
  const size_type nloc = A.col_end - A.col_begin;
  KSPD_REQUIRE(size_type(A.colptr.size()) == nloc + 1 && A.colptr[0] == 0, InvalidArgument,
               who << " [" << A.col_begin << ", " << A.col_end << ") need " << nloc + 1
                   << " colptr entries starting at 0, colptr has " << A.colptr.size());
  for (size_type j = 0; j < nloc; ++j)
    KSPD_REQUIRE(A.colptr[size_t(j)] <= A.colptr[size_t(j + 1)], InvalidArgument,
                 who << ": colptr decreases at column " << A.col_begin + j);
  KSPD_REQUIRE(size_type(A.rowind.size()) == A.colptr.back() && A.values.size() == A.rowind.size(), InvalidArgument,
               who << ": colptr ends at " << A.colptr.back() << ", rowind has " << A.rowind.size() << " entries, values "
                   << A.values.size());
  check_rows(A.n, A.col_begin, A.col_end, A.colptr.data(), A.rowind.data());
}

/// The options that shape the analysis and the block map are the same on every rank
/// (rank 0's ordering is the one used); else every rank throws, naming the option and
/// the lowest rank whose value differs from rank 0's.
inline void check_options_agree(const DistributedOptions& opt, MPI_Comm comm) {
  const char* names[] = {"engine.relax.nrelax[0]", "engine.relax.nrelax[1]", "engine.relax.nrelax[2]",
                         "engine.relax.zrelax[0]", "engine.relax.zrelax[1]", "engine.relax.zrelax[2]",
                         "engine.relax.enabled",   "engine.max_supernode",   "engine.max_trsm_rows",
                         "local_subtrees",         "map (given or not)"};
  constexpr int K = 11;
  const Options& e = opt.engine;
  const Relaxation& r = e.relax;
  const double mine[K] = {double(r.nrelax[0]),       double(r.nrelax[1]),          double(r.nrelax[2]),
                          r.zrelax[0],               r.zrelax[1],                  r.zrelax[2],
                          double(r.enabled),         double(e.max_supernode),      double(e.max_trsm_rows),
                          double(opt.local_subtrees), double(bool(opt.map))};
  double root[K];
  std::copy(mine, mine + K, root);
  KSPD_MPI_SAFE_CALL(MPI_Bcast(root, K, MPI_DOUBLE, 0, comm));
  Impl::agree(comm, [&] {
    for (int k = 0; k < K; ++k)
      KSPD_REQUIRE(mine[k] == root[k] || (mine[k] != mine[k] && root[k] != root[k]), InvalidArgument,
                   "kspd::sparse::DistributedCholesky: DistributedOptions::" << names[k] << " = " << mine[k]
                                                                             << " differs from rank 0's " << root[k]
                                                                             << " (it must be the same on every rank)");
  });
}

}  // namespace Impl
}  // namespace kspd::sparse
#endif
