#ifndef KSPD_SPARSE_DISTRIBUTED_HPP
#define KSPD_SPARSE_DISTRIBUTED_HPP
/// \file kspd_sparse_distributed.hpp
/// Distributed supernodal sparse Cholesky over MPI (symPACK's fan-out algorithm).
///
/// \code
///   kspd::sparse::DistributedCholesky<double> chol(MPI_COMM_WORLD);  // collective
///   chol.factorize(A);            // A whole on rank 0 (ignored elsewhere), or
///   chol.factorize(Acols);        // DistributedColumns: each rank its column range
///   size_type info = chol.factorize_info(A);  // or: info > 0 (not SPD) instead of a throw
///   chol.solve(B, nrhs);          // B (n x nrhs, col-major) on rank 0, overwritten by X
///   chol.solve_local(Xloc, nrhs); // or rows distributed: local_rows() says which
/// \endcode
/// Every rank runs the same analysis (rank 0 computes the ordering and broadcasts it), then
/// each rank stores only the blocks the block map gives it (2D block-cyclic by default).
/// All member functions except the accessors are collective over the communicator, which
/// is duplicated so the library's messages never meet the application's.
/// A matrix that is not positive definite makes every rank throw the same
/// kspd::NotPositiveDefinite (1-based column in the input's numbering, pivot, failing rank
/// in the message); no rank hangs and the job is not aborted. factorize_info returns that
/// column instead (LAPACK's info, MIN over the ranks' nonzero values: the same on every
/// rank; 0 on success).
/// Errors are collective: a bad argument found on one rank (rank 0's CscMatrix or B, the
/// user permutation, one rank's DistributedColumns) or an exception inside the
/// factorization on one rank makes every rank throw the same exception, whose message
/// names the rank where it was found. Every MPI call is checked (KSPD_MPI_SAFE_CALL:
/// kspd::sparse::MpiError), and counts past 2^31 travel in int-sized pieces
/// (kspd_sparse_mpi_chunked.hpp).
/// With DistributedOptions::offload on (one rank per GPU), the big supernodes' blocks of a
/// rank live on its device (DevExec's memory) and their potrf/trsm/updates run there; see
/// DistributedOptions for the rule. On host builds DevExec is a host space and the same path
/// runs in host memory.

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_mpi_factor.hpp"
#include "kspd_sparse_mpi_layout.hpp"
#include "kspd_sparse_mpi_solve.hpp"
#include "kspd_sparse_symbolic.hpp"

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

template <class Scalar, class DevExec = Kokkos::DefaultExecutionSpace>
class DistributedCholesky {
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "kspd::sparse::DistributedCholesky: Scalar must be float or double");
  static_assert(sizeof(size_type) == 8, "kspd::sparse::DistributedCholesky: 64-bit indices expected");

 public:
  explicit DistributedCholesky(MPI_Comm comm, const DistributedOptions& opt = {}) : opt_(opt) {
    // Before any collective: a process started like the others throws on every rank.
    kspd::Impl::require_kokkos_initialized("kspd::sparse::DistributedCholesky");
    KSPD_MPI_SAFE_CALL(MPI_Comm_dup(comm, &comm_));
    KSPD_MPI_SAFE_CALL(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm_, &rank_));
    KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm_, &nranks_));
  }
  ~DistributedCholesky() {
    int finalized = 0;  // a destructor does not throw: a failure leaves the communicator
    if (MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized && comm_ != MPI_COMM_NULL) (void)MPI_Comm_free(&comm_);
  }
  DistributedCholesky(const DistributedCholesky&) = delete;
  DistributedCholesky& operator=(const DistributedCholesky&) = delete;

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  MPI_Comm comm() const { return comm_; }

  /// Analysis of A's pattern, A whole on rank 0. A problem with A (found on rank 0) or with
  /// the ordering makes every rank throw the same error.
  void analyze(const CscMatrix<Scalar>& A) {
    std::int64_t nn[2] = {0, 0};
    Impl::agree(comm_, [&] {
      if (rank_ != 0) return;
      check_matrix(A);
      nn[0] = A.n;
      nn[1] = A.nnz();
    });
    KSPD_MPI_SAFE_CALL(MPI_Bcast(nn, 2, MPI_INT64_T, 0, comm_));
    std::vector<size_type> colptr, rowind;
    Impl::agree(comm_, [&] {  // (allocation)
      if (rank_ == 0) {
        colptr = A.colptr;
        rowind = A.rowind;
      } else {
        colptr.resize(size_t(nn[0] + 1));
        rowind.resize(size_t(nn[1]));
      }
    });
    Impl::bcast_n(colptr.data(), nn[0] + 1, 0, comm_);
    Impl::bcast_n(rowind.data(), nn[1], 0, comm_);
    analyse_pattern(nn[0], colptr, rowind);
  }

  /// Factorization of A given whole on rank 0 (its values are scattered by owner).
  /// Throws kspd::NotPositiveDefinite on every rank when A is not positive definite.
  void factorize(const CscMatrix<Scalar>& A) { require_spd_on_every_rank(factorize_info(A)); }
  /// Factorization of A distributed by columns (every rank passes its range).
  void factorize(const DistributedColumns<Scalar>& A) { require_spd_on_every_rank(factorize_info(A)); }

  /// Like factorize, but a matrix that is not positive definite is reported, not thrown:
  /// returns 0, or the 1-based column (in the input's numbering) of the failing pivot with
  /// the smallest column over all ranks, the same value on every rank (LAPACK's info;
  /// failure_message() and failure_pivot() tell more). Other errors still throw on every rank.
  size_type factorize_info(const CscMatrix<Scalar>& A) {
    factored_ = false;
    if (!symbolic_) analyze(A);
    const auto t0 = MPI_Wtime();
    const Impl::Symbolic& S = *symbolic_;
    std::vector<std::int64_t> counts(size_t(nranks_), 0), displs(size_t(nranks_), 0);
    std::vector<Scalar> sendbuf, mine;
    Impl::agree(comm_, [&] {
      for_each_entry(0, S.n, [&](size_type, size_type, int r, size_type, size_type) { ++counts[size_t(r)]; });
      for (int r = 1; r < nranks_; ++r) displs[size_t(r)] = displs[size_t(r - 1)] + counts[size_t(r - 1)];
      mine.resize(size_t(counts[size_t(rank_)]));
      if (rank_ != 0) return;
      KSPD_REQUIRE(S.same_pattern(A.n, A.colptr, A.rowind), InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: A's pattern differs from the analysed one");
      KSPD_REQUIRE(A.values.size() == A.rowind.size(), InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: A has " << A.values.size() << " values for "
                                                                          << A.rowind.size() << " entries");
      sendbuf.resize(A.values.size());
      std::vector<std::int64_t> pos(displs);
      for_each_entry(0, S.n, [&](size_type p, size_type, int r, size_type, size_type) {
        sendbuf[size_t(pos[size_t(r)]++)] = A.values[size_t(p)];
      });
    });
    Impl::scatterv_n(sendbuf.data(), counts, displs, mine.data(), counts[size_t(rank_)], 0, comm_);
    assemble(0, S.n, mine);
    stats_.distribute_seconds = MPI_Wtime() - t0;
    return factor();
  }

  /// factorize_info for A distributed by columns. The ranks' column ranges must be
  /// contiguous and ascending with the rank; an inconsistency found on one rank (ranges,
  /// sizes, rows out of range or above the diagonal) makes every rank throw the same
  /// InvalidArgument naming it and the rank.
  size_type factorize_info(const DistributedColumns<Scalar>& A) {
    factored_ = false;
    Impl::agree(comm_, [&] { check_columns(A); });
    const size_type nloc = A.col_end - A.col_begin;
    // Gather the pattern on every rank (the checks below see the same data on every rank).
    std::int64_t mine[4] = {A.n, A.col_begin, A.col_end, A.colptr.back()};
    std::vector<std::int64_t> all(size_t(4 * nranks_));
    KSPD_MPI_SAFE_CALL(MPI_Allgather(mine, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm_));
    const size_type n = all[0];
    std::vector<std::int64_t> ccount(size_t(nranks_), 0), cdispl(size_t(nranks_), 0), ecount(size_t(nranks_), 0),
        edispl(size_t(nranks_), 0);
    for (int r = 0; r < nranks_; ++r) {
      const std::int64_t* a = all.data() + 4 * r;
      KSPD_REQUIRE(a[0] == n, InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: DistributedColumns::n differs between the ranks: rank "
                       << r << " has n = " << a[0] << ", rank 0 has n = " << n);
      KSPD_REQUIRE(a[1] == (r == 0 ? 0 : all[size_t(4 * r - 2)]) && (r + 1 < nranks_ || a[2] == n), InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: column ranges must be contiguous, ascending with the rank "
                   "and cover [0, n = " << n << "); rank " << r << " has [" << a[1] << ", " << a[2] << ")");
      ccount[size_t(r)] = a[2] - a[1];
      ecount[size_t(r)] = a[3];
      if (r > 0) {
        cdispl[size_t(r)] = cdispl[size_t(r - 1)] + ccount[size_t(r - 1)];
        edispl[size_t(r)] = edispl[size_t(r - 1)] + ecount[size_t(r - 1)];
      }
    }
    const size_type nnz = size_type(edispl.back()) + ecount.back();
    std::vector<size_type> lens, colptr, rowind, mylen;
    Impl::agree(comm_, [&] {  // (allocation)
      lens.resize(size_t(n));
      colptr.assign(size_t(n + 1), 0);
      rowind.resize(size_t(nnz));
      mylen.resize(size_t(nloc));
    });
    for (size_type j = 0; j < nloc; ++j) mylen[size_t(j)] = A.colptr[size_t(j + 1)] - A.colptr[size_t(j)];
    Impl::allgatherv_n(mylen.data(), lens.data(), ccount, cdispl, comm_);
    Impl::allgatherv_n(A.rowind.data(), rowind.data(), ecount, edispl, comm_);
    for (size_type j = 0; j < n; ++j) colptr[size_t(j + 1)] = colptr[size_t(j)] + lens[size_t(j)];
    if (!symbolic_ || !symbolic_->same_pattern(n, colptr, rowind)) analyse_pattern(n, colptr, rowind);
    const auto t0 = MPI_Wtime();
    // Values: each rank sends the entries of its columns to their owners (entry order).
    std::vector<std::int64_t> scount(size_t(nranks_), 0), sdispl(size_t(nranks_), 0), rcount(size_t(nranks_), 0),
        rdispl(size_t(nranks_), 0);
    std::vector<Scalar> sendbuf;
    Impl::agree(comm_, [&] {
      for_each_entry(A.col_begin, A.col_end, [&](size_type, size_type, int r, size_type, size_type) { ++scount[size_t(r)]; });
      for (int r = 1; r < nranks_; ++r) sdispl[size_t(r)] = sdispl[size_t(r - 1)] + scount[size_t(r - 1)];
      sendbuf.resize(A.values.size());
      std::vector<std::int64_t> pos(sdispl);
      const size_type base = colptr[size_t(A.col_begin)];
      for_each_entry(A.col_begin, A.col_end, [&](size_type p, size_type, int r, size_type, size_type) {
        sendbuf[size_t(pos[size_t(r)]++)] = A.values[size_t(p - base)];
      });
    });
    KSPD_MPI_SAFE_CALL(MPI_Alltoall(scount.data(), 1, MPI_INT64_T, rcount.data(), 1, MPI_INT64_T, comm_));
    for (int r = 1; r < nranks_; ++r) rdispl[size_t(r)] = rdispl[size_t(r - 1)] + rcount[size_t(r - 1)];
    std::vector<Scalar> recv;
    Impl::agree(comm_, [&] { recv.resize(size_t(rdispl.back() + rcount.back())); });
    Impl::alltoallv_n(sendbuf.data(), scount, sdispl, recv.data(), rcount, rdispl, comm_);
    assemble(0, n, recv);
    stats_.distribute_seconds = MPI_Wtime() - t0;
    return factor();
  }

  /// After a factorize_info that returned info > 0: the failing pivot and the message
  /// (column, pivot, rank that found it), the same on every rank.
  double failure_pivot() const { return fail_pivot_; }
  const std::string& failure_message() const { return fail_message_; }

  /// Solves A X = B; B (n x nrhs, column-major, the input's numbering) and nrhs are
  /// significant on rank 0 and B is overwritten there by X. A wrong B or nrhs on rank 0
  /// makes every rank throw.
  void solve(std::vector<Scalar>& B, size_type nrhs = 1) {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::DistributedCholesky::solve: call factorize first");
    std::int64_t nr = nrhs;
    Impl::agree(comm_, [&] {
      if (rank_ != 0) return;
      KSPD_REQUIRE(nrhs >= 0, InvalidArgument, "kspd::sparse::DistributedCholesky::solve: nrhs = " << nrhs << " < 0");
      KSPD_REQUIRE(size_type(B.size()) == n() * nrhs, DimensionMismatch,
                   "kspd::sparse::DistributedCholesky::solve: B has " << B.size() << " entries, expected n * nrhs = "
                                                                      << n() * nrhs);
    });
    KSPD_MPI_SAFE_CALL(MPI_Bcast(&nr, 1, MPI_INT64_T, 0, comm_));
    std::vector<Scalar> X = scatter_rhs(B.data(), nr);
    solve_local(X.data(), nr);
    gather_solution(X.data(), nr, B.data());
  }

  /// Solves with the right-hand side distributed by rows: X holds local_rows().size() x
  /// nrhs values (column-major), B's rows in, X's rows out. nrhs must be the same on every rank.
  void solve_local(Scalar* X, size_type nrhs) {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::DistributedCholesky::solve: call factorize first");
    std::int64_t mm[2] = {-nrhs, nrhs}, g[2] = {0, 0};
    KSPD_MPI_SAFE_CALL(MPI_Allreduce(mm, g, 2, MPI_INT64_T, MPI_MAX, comm_));
    KSPD_REQUIRE(-g[0] == g[1] && nrhs >= 0, InvalidArgument,
                 "kspd::sparse::DistributedCholesky::solve_local: nrhs must be >= 0 and the same on every rank (from "
                     << -g[0] << " to " << g[1] << ")");
    Impl::agree(comm_, [&] {
      KSPD_REQUIRE(X != nullptr || local_rows_.empty() || nrhs == 0, InvalidArgument,
                   "kspd::sparse::DistributedCholesky::solve_local: X is null with " << local_rows_.size() << " local rows");
    });
    const auto t0 = MPI_Wtime();
    Impl::MpiSolve<Scalar>(*symbolic_, layout_, comm_, values_, loc_off_, stats_).solve(X, size_type(local_rows_.size()), nrhs);
    stats_.solve_seconds = MPI_Wtime() - t0;
  }

  /// The rows (input's numbering) this rank holds in solve_local, in local order.
  const std::vector<size_type>& local_rows() const { return local_rows_; }

  /// Rank 0's B (n x nrhs) -> this rank's rows (local_rows().size() x nrhs).
  std::vector<Scalar> scatter_rhs(const Scalar* B, size_type nrhs) const {
    std::vector<std::int64_t> counts, displs;
    std::vector<Scalar> send;
    if (rank_ == 0) send = pack_by_rank(B, nrhs, counts, displs, true);
    std::vector<Scalar> X(local_rows_.size() * size_t(nrhs));
    Impl::scatterv_n(send.data(), counts, displs, X.data(), std::int64_t(X.size()), 0, comm_);
    return X;
  }
  /// This rank's rows of X -> rank 0's B (n x nrhs).
  void gather_solution(const Scalar* X, size_type nrhs, Scalar* B) const {
    std::vector<std::int64_t> counts, displs;
    std::vector<Scalar> recv;
    if (rank_ == 0) recv = pack_by_rank(nullptr, nrhs, counts, displs, false);
    Impl::gatherv_n(X, std::int64_t(local_rows_.size()) * nrhs, recv.data(), counts, displs, 0, comm_);
    if (rank_ != 0) return;
    size_type q = 0;
    for (int r = 0; r < nranks_; ++r) {
      const auto rows = rows_of(r);
      const size_type m = size_type(rows.size());
      for (size_type c = 0; c < nrhs; ++c)
        for (size_type i = 0; i < m; ++i) B[rows[size_t(i)] + c * n()] = recv[size_t(q + i + c * m)];
      q += m * nrhs;
    }
  }

  size_type n() const { return symbolic().n; }
  const Impl::Symbolic& symbolic() const {
    KSPD_REQUIRE(symbolic_ != nullptr, InvalidArgument, "kspd::sparse::DistributedCholesky: call analyze first");
    return *symbolic_;
  }
  const Impl::MpiLayout& layout() const { return layout_; }
  const DistributedStats& stats() const { return stats_; }
  /// The owned blocks' values (block b at layout().offset[b], nrows x ncols column-major).
  const std::vector<Scalar>& local_values() const { return values_; }

 private:
  /// Rank 0's whole matrix: sizes, column pointers, rows (lower triangle, sorted, unique).
  static void check_matrix(const CscMatrix<Scalar>& A) {
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
  /// Rows of columns [c0, c1) (local colptr, starting at 0) within [j, n), ascending.
  static void check_rows(size_type n, size_type c0, size_type c1, const size_type* colptr, const size_type* rowind) {
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
  /// One rank's DistributedColumns, by themselves (the ranges together are checked after
  /// they are gathered).
  static void check_columns(const DistributedColumns<Scalar>& A) {
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
  void check_options_agree() const {
    const char* names[] = {"relax.nrelax[0]", "relax.nrelax[1]", "relax.nrelax[2]", "relax.zrelax[0]",
                           "relax.zrelax[1]", "relax.zrelax[2]", "relax.enabled",   "max_supernode",
                           "max_trsm_rows",   "subtree_granularity", "map (given or not)"};
    constexpr int K = 11;
    const Relaxation& r = opt_.relax;
    const double mine[K] = {double(r.nrelax[0]), double(r.nrelax[1]), double(r.nrelax[2]), r.zrelax[0],
                            r.zrelax[1],         r.zrelax[2],         double(r.enabled),   double(opt_.max_supernode),
                            double(opt_.max_trsm_rows), opt_.subtree_granularity, double(bool(opt_.map))};
    double root[K];
    std::copy(mine, mine + K, root);
    KSPD_MPI_SAFE_CALL(MPI_Bcast(root, K, MPI_DOUBLE, 0, comm_));
    Impl::agree(comm_, [&] {
      for (int k = 0; k < K; ++k)
        KSPD_REQUIRE(mine[k] == root[k] || (mine[k] != mine[k] && root[k] != root[k]), InvalidArgument,
                     "kspd::sparse::DistributedCholesky: DistributedOptions::" << names[k] << " = " << mine[k]
                                                                               << " differs from rank 0's " << root[k]
                                                                               << " (it must be the same on every rank)");
    });
  }

  /// Rank 0 orders, every rank runs the same analysis with that ordering. A failure on any
  /// rank (ordering, user permutation, analysis, block map) throws on every rank and
  /// leaves no analysis.
  void analyse_pattern(size_type n, const std::vector<size_type>& colptr, const std::vector<size_type>& rowind) {
    const auto t0 = MPI_Wtime();
    symbolic_.reset();
    factored_ = false;
    check_options_agree();
    Impl::PatternRef P{n, colptr.data(), rowind.data()};
    std::vector<size_type> perm;
    Impl::agree(comm_, [&] {
      if (rank_ == 0) perm = Impl::compute_ordering(P, opt_);  // Ordering::User: its size and entries checked
      else perm.resize(size_t(n));
    });
    Impl::bcast_n(perm.data(), n, 0, comm_);
    std::unique_ptr<Impl::Symbolic> sym;
    Impl::MpiLayout layout;
    Impl::agree(comm_, [&] {
      Options o = opt_;
      o.ordering = Ordering::User;
      o.user_permutation = std::move(perm);
      sym = std::make_unique<Impl::Symbolic>(Impl::analyse(P, o));
      layout.build(*sym, opt_, rank_, nranks_);
    });
    // The same owners on every rank (a given map must not depend on the calling rank).
    std::uint64_t h = 1469598103934665603ull, h0 = 0;
    for (int o : layout.owner) h = (h ^ std::uint64_t(o)) * 1099511628211ull;
    h0 = h;
    KSPD_MPI_SAFE_CALL(MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, comm_));
    Impl::agree(comm_, [&] {
      KSPD_REQUIRE(h == h0, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the block map gives other owners here than on rank 0 (a "
                   "DistributedOptions::map must give the same rank for a block on every rank)");
    });
    symbolic_ = std::move(sym);
    layout_ = std::move(layout);
    Impl::Symbolic& S = *symbolic_;
    for (size_t b = 0; b < S.blocks.size(); ++b) S.blocks[b].owner = layout_.owner[b];
    loc_off_.assign(S.snodes.size(), -1);
    local_rows_ = rows_of(rank_);
    size_type q = 0;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.diag_owner(S, size_type(s)) == rank_) {
        loc_off_[s] = q;
        q += S.snodes[s].ncols;
      }
    stats_ = DistributedStats{};
    stats_.analyse_seconds = MPI_Wtime() - t0;
  }

  /// f(p, j, owner rank, block, offset in block) for the entries of columns [c0, c1).
  template <class F>
  void for_each_entry(size_type c0, size_type c1, F&& f) const {
    const Impl::Symbolic& S = *symbolic_;
    for (size_type j = c0; j < c1; ++j)
      for (size_type p = S.a_colptr[size_t(j)]; p < S.a_colptr[size_t(j + 1)]; ++p) {
        size_type b = 0, off = 0;
        Impl::MpiLayout::locate(S, S.a_rowind[size_t(p)], j, p, b, off);
        f(p, j, layout_.owner[size_t(b)], b, off);
      }
  }

  /// Fills the local blocks from this rank's values, given in entry order.
  void assemble(size_type c0, size_type c1, const std::vector<Scalar>& mine) {
    values_.assign(size_t(layout_.local_size[size_t(rank_)]), Scalar(0));
    size_t q = 0;
    for_each_entry(c0, c1, [&](size_type, size_type, int r, size_type b, size_type off) {
      if (r == rank_) values_[size_t(layout_.offset[size_t(b)] + off)] = mine[q++];
    });
  }

  /// The factorization of the assembled blocks; returns the agreed info (0: success).
  size_type factor() {
    const Impl::Symbolic& S = *symbolic_;
    factored_ = false;
    stats_.local_values = double(values_.size());
    stats_.local_blocks = 0;
    for (size_t b = 0; b < S.blocks.size(); ++b) stats_.local_blocks += layout_.owner[b] == rank_;
    stats_.wait_seconds = stats_.bytes_get = stats_.bytes_sent = stats_.flops = 0;
    stats_.gets = stats_.messages_sent = 0;
    const auto f = Impl::MpiFactor<Scalar, DevExec>(S, layout_, comm_, values_, stats_, opt_.one_sided, opt_.offload,
                                                    opt_.gpu_direct, opt_.threads)
                       .run();
    fail_pivot_ = f.pivot;
    fail_message_ = f.message;
    factored_ = f.info == 0;
    return f.info;
  }
  void require_spd_on_every_rank(size_type info) const {
    if (info != 0) throw NotPositiveDefinite(fail_message_, info, fail_pivot_);
  }

  std::vector<size_type> rows_of(int r) const {
    const Impl::Symbolic& S = *symbolic_;
    std::vector<size_type> rows;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.diag_owner(S, size_type(s)) == r)
        for (size_type i = 0; i < S.snodes[s].ncols; ++i) rows.push_back(S.perm[size_t(S.snodes[s].first_col + i)]);
    return rows;
  }

  std::vector<Scalar> pack_by_rank(const Scalar* B, size_type nrhs, std::vector<std::int64_t>& counts,
                                   std::vector<std::int64_t>& displs, bool fill) const {
    counts.assign(size_t(nranks_), 0);
    displs.assign(size_t(nranks_), 0);
    std::vector<Scalar> buf(size_t(n() * nrhs));
    size_type q = 0;
    for (int r = 0; r < nranks_; ++r) {
      const auto rows = rows_of(r);
      const size_type m = size_type(rows.size());
      counts[size_t(r)] = m * nrhs;
      displs[size_t(r)] = q;
      if (fill)
        for (size_type c = 0; c < nrhs; ++c)
          for (size_type i = 0; i < m; ++i) buf[size_t(q + i + c * m)] = B[rows[size_t(i)] + c * n()];
      q += m * nrhs;
    }
    return buf;
  }

  DistributedOptions opt_;
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, nranks_ = 1;
  std::unique_ptr<Impl::Symbolic> symbolic_;
  Impl::MpiLayout layout_;
  std::vector<Scalar> values_;
  std::vector<size_type> loc_off_, local_rows_;
  DistributedStats stats_;
  bool factored_ = false;
  double fail_pivot_ = 0;
  std::string fail_message_;
};

}  // namespace kspd::sparse
#endif
