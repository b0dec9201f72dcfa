#ifndef KSPD_SPARSE_DISTRIBUTED_HPP
#define KSPD_SPARSE_DISTRIBUTED_HPP
/// \file kspd_sparse_distributed.hpp
/// Distributed supernodal sparse Cholesky over MPI: the single-process engine on each
/// rank's subtrees, symPACK's fan-out on the separators above them.
///
/// \code
///   kspd::sparse::DistributedCholesky<double> chol(MPI_COMM_WORLD);  // collective
///   chol.factorize(A);            // A whole on rank 0 (ignored elsewhere), or
///   chol.factorize(Acols);        // DistributedColumns: each rank its column range
///   size_type info = chol.factorize_info(A);  // or: info > 0 (not SPD) instead of a throw
///   chol.solve(B, nrhs);          // B (n x nrhs, col-major) on rank 0, overwritten by X
///   chol.solve_local(Xloc, nrhs); // or rows distributed: local_rows() says which
/// \endcode
/// Every rank runs the same analysis (rank 0 computes the ordering and broadcasts it). The
/// 1-rank case is the single-process engine: the assembly tree is cut by proportional
/// mapping (Impl::subtree_map, weights = the subtrees' flops) into whole subtrees per rank,
/// its "local subtrees", and the "separator" supernodes above them. factorize then runs:
///  1. each rank's local subtrees alone, with the single-process engine (Impl::Numeric on
///     the SnodeSubset of the rank's supernodes: host workers of the Scheduler, or resident
///     on the rank's GPU, as DistributedOptions::engine says). The separators' panels in the
///     engine's storage start at zero and accumulate the subtrees' updates (fan-in);
///  2. those accumulated updates go, aggregated, once to the owners of the separators'
///     blocks (one MPI_Alltoallv) and are summed there;
///  3. the separator supernodes by the fan-out among the ranks (Impl::MpiFactor restricted
///     to them; their blocks are mapped 2D block-cyclically, or by DistributedOptions::map).
/// A subset mask was chosen over a restricted Symbolic: the engine keeps the one analysis
/// (tasks, value map, levels) and skips the tasks of the supernodes outside the subset, so
/// no second numbering of supernodes exists. With one rank the subset is the whole tree,
/// steps 2 and 3 have nothing to do, and the factorization is the single-process one.
/// With one rank the engine keeps its factor and solves (on the device for the resident
/// placement). With more, the local subtrees' panels are copied into the rank's block
/// storage after step 1, where the distributed solve (Impl::MpiSolve) reads them.
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
/// With DistributedOptions::engine.offload on (a GPU per rank, or shared), the local
/// subtrees run on the engine's device placement (resident, or top of the tree), and the
/// separators' big supernodes' blocks live on the rank's device (DevExec's memory) with
/// their potrf/trsm/updates (kspd_sparse_mpi_device.hpp: the supernode is big by the
/// offload thresholds, closed upwards). On host builds DevExec is a host space and the same
/// paths run in host memory.

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
#include "kspd_sparse_numeric.hpp"
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
      for_each_entry(0, S.n, [&](size_type, int r, size_type) { ++counts[size_t(r)]; });
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
      for_each_entry(0, S.n, [&](size_type p, int r, size_type) {
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
      for_each_entry(A.col_begin, A.col_end, [&](size_type, int r, size_type) { ++scount[size_t(r)]; });
      for (int r = 1; r < nranks_; ++r) sdispl[size_t(r)] = sdispl[size_t(r - 1)] + scount[size_t(r - 1)];
      sendbuf.resize(A.values.size());
      std::vector<std::int64_t> pos(sdispl);
      const size_type base = colptr[size_t(A.col_begin)];
      for_each_entry(A.col_begin, A.col_end, [&](size_type p, int r, size_type) {
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
  /// With one rank the engine solves (its factor stays where it was computed: on the device
  /// for the resident placement); with more, Impl::MpiSolve on the block storage.
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
    if (engine_) engine_solve(X, nrhs);
    else Impl::MpiSolve<Scalar>(*symbolic_, layout_, comm_, values_, loc_off_, stats_).solve(X, size_type(local_rows_.size()), nrhs);
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

 private:
  /// One rank: X (n x nrhs) holds the rows in the factor's numbering (local_rows() is the
  /// permutation), solved in place by the engine where its factor lives.
  void engine_solve(Scalar* X, size_type nrhs) const {
    const size_type n = symbolic_->n;
    if (n == 0 || nrhs == 0) return;
    const DevExec exec;
    if (engine_->resident()) {
      using Mem = typename DevExec::memory_space;
      Kokkos::View<Scalar*, Mem> W(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::distributed::solve::W"),
                                   size_t(n * nrhs));
      using HostX = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      Kokkos::deep_copy(exec, W, HostX(X, size_t(n * nrhs)));
      engine_->solve(exec, W.data(), nrhs, n, SolvePart::Both);
      Kokkos::deep_copy(exec, HostX(X, size_t(n * nrhs)), W);
    } else {
      engine_->solve(exec, X, nrhs, n, SolvePart::Both);
    }
    exec.fence();
  }

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
    const char* names[] = {"engine.relax.nrelax[0]", "engine.relax.nrelax[1]", "engine.relax.nrelax[2]",
                           "engine.relax.zrelax[0]", "engine.relax.zrelax[1]", "engine.relax.zrelax[2]",
                           "engine.relax.enabled",   "engine.max_supernode",   "engine.max_trsm_rows",
                           "local_subtrees",         "map (given or not)"};
    constexpr int K = 11;
    const Options& e = opt_.engine;
    const Relaxation& r = e.relax;
    const double mine[K] = {double(r.nrelax[0]),       double(r.nrelax[1]),          double(r.nrelax[2]),
                            r.zrelax[0],               r.zrelax[1],                  r.zrelax[2],
                            double(r.enabled),         double(e.max_supernode),      double(e.max_trsm_rows),
                            double(opt_.local_subtrees), double(bool(opt_.map))};
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
      if (rank_ == 0) perm = Impl::compute_ordering(P, opt_.engine);  // Ordering::User: its size and entries checked
      else perm.resize(size_t(n));
    });
    Impl::bcast_n(perm.data(), n, 0, comm_);
    std::unique_ptr<Impl::Symbolic> sym;
    Impl::MpiLayout layout;
    Impl::agree(comm_, [&] {
      Options o = opt_.engine;
      o.ordering = Ordering::User;
      o.user_permutation = std::move(perm);
      sym = std::make_unique<Impl::Symbolic>(Impl::analyse(P, o));
      layout.build(*sym, opt_, rank_, nranks_);
    });
    // The same owners on every rank (a given map must not depend on the calling rank).
    std::uint64_t h = 1469598103934665603ull, h0 = 0;
    for (int o : layout.owner) h = (h ^ std::uint64_t(o)) * 1099511628211ull;
    h ^= layout.map_hash;
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
    fanin_ = fanin_blocks(S, layout_);
    map_entries();
    stats_ = DistributedStats{};
    stats_.analyse_seconds = MPI_Wtime() - t0;
  }

  /// Per entry p of A (analysed order): its owner rank and where it goes there (Impl::
  /// MpiLayout::locate, once per analysis): an offset in the block storage, or -1 - p for an
  /// entry of a local subtree (the engine's input, in entry order).
  void map_entries() {
    const Impl::Symbolic& S = *symbolic_;
    const size_t nnz = S.a_rowind.size();
    entry_owner_.resize(nnz);
    entry_pos_.resize(nnz);
    for (size_type j = 0; j < S.n; ++j)
      for (size_type p = S.a_colptr[size_t(j)]; p < S.a_colptr[size_t(j + 1)]; ++p) {
        size_type b = 0, off = 0;
        Impl::MpiLayout::locate(S, S.a_rowind[size_t(p)], j, p, b, off);
        entry_owner_[size_t(p)] = layout_.owner[size_t(b)];
        entry_pos_[size_t(p)] = layout_.separator(S.blocks[size_t(b)].snode) ? layout_.offset[size_t(b)] + off : -1 - p;
      }
  }
  /// f(p, owner rank, position: map_entries) for the entries of columns [c0, c1).
  template <class F>
  void for_each_entry(size_type c0, size_type c1, F&& f) const {
    const Impl::Symbolic& S = *symbolic_;
    for (size_type p = S.a_colptr[size_t(c0)]; p < S.a_colptr[size_t(c1)]; ++p)
      f(p, entry_owner_[size_t(p)], entry_pos_[size_t(p)]);
  }

  /// This rank's values, given in entry order: the separators' entries into the block
  /// storage, the local subtrees' into the engine's input (zero elsewhere: the separators'
  /// panels in the engine start at zero and collect the fan-in).
  void assemble(size_type c0, size_type c1, const std::vector<Scalar>& mine) {
    values_.assign(size_t(layout_.local_size[size_t(rank_)]), Scalar(0));
    engine_a_.assign(symbolic_->a_rowind.size(), Scalar(0));
    size_t q = 0;
    for_each_entry(c0, c1, [&](size_type, int r, size_type pos) {
      if (r != rank_) return;
      if (pos >= 0) values_[size_t(pos)] = mine[q++];
      else engine_a_[size_t(-1 - pos)] = mine[q++];
    });
  }

  /// Per rank h: the separator blocks that h's local subtrees update (ascending), the
  /// fan-in h sends to their owners after its local factorization. Every rank computes
  /// every rank's list, so no list travels.
  static std::vector<std::vector<size_type>> fanin_blocks(const Impl::Symbolic& S, const Impl::MpiLayout& L) {
    std::vector<std::vector<size_type>> out(size_t(L.nranks));
    for (size_type u = 0; u < size_type(S.snodes.size()); ++u) {
      const int h = L.home[size_t(u)];
      if (h < 0) continue;
      const Impl::Supernode& sn = S.snodes[size_t(u)];
      for (size_type b1 = sn.block_begin + 1; b1 < sn.block_end; ++b1) {
        const size_type t = S.blocks[size_t(b1)].target;
        if (!L.separator(t)) continue;  // inside the subtree (its ancestors above are separators)
        for (size_type b2 = b1; b2 < sn.block_end; ++b2) {
          out[size_t(h)].push_back(Impl::MpiLayout::find_block(S, t, S.blocks[size_t(b2)].target));
        }
      }
    }
    for (auto& v : out) {
      std::sort(v.begin(), v.end());
      v.erase(std::unique(v.begin(), v.end()), v.end());
    }
    return out;
  }

  /// Block b's rows of its supernode's panel (engine storage, ld = the panel's rows) ->
  /// f(i, j, value) for each entry (i within the block, j the column).
  template <class F>
  void for_each_panel_entry(const Scalar* panels, size_type b, F&& f) const {
    const Impl::Symbolic& S = *symbolic_;
    const Impl::Block& blk = S.blocks[size_t(b)];
    const Impl::Supernode& sn = S.snodes[size_t(blk.snode)];
    const Scalar* p = panels + sn.value_offset + blk.row_offset;
    for (size_type j = 0; j < sn.ncols; ++j)
      for (size_type i = 0; i < blk.nrows; ++i) f(i, j, p[i + j * sn.nrows()]);
  }

  /// Step 1 (file comment): this rank's local subtrees by the engine, their panels into
  /// the block storage, and the separators' accumulated updates into `send` (by owner rank,
  /// fanin_ order). Returns the local pivot failure's column (input's numbering, 0-based;
  /// -1: none) and its pivot. Collective only through agree (an exception on any rank).
  std::int64_t factor_local(int threads, double& pivot, std::vector<Scalar>& send) {
    const Impl::Symbolic& S = *symbolic_;
    const double t0 = MPI_Wtime();
    engine_opt_ = opt_.engine;
    engine_opt_.threads = threads;
    std::int64_t col = -1;
    send.clear();
    engine_stats_ = FactorStats{};
    engine_.reset();
    Impl::agree(comm_, [&] {
      if (stats_.local_supernodes == 0) return;
      auto engine = std::make_unique<Impl::Numeric<Scalar, DevExec>>(S, engine_opt_, layout_.subset_of(rank_));
      const Impl::PivotFailure f = engine->factorize(DevExec(), engine_a_.data());
      engine_stats_ = engine->stats();
      if (f.failed()) {
        col = std::int64_t(S.perm[size_t(S.snodes[size_t(f.snode)].first_col + f.col)]);
        pivot = f.pivot;
        return;
      }
      if (nranks_ == 1) {  // the whole tree: the engine's factor is the factor (and solves)
        engine_ = std::move(engine);
        stats_.local_seconds = MPI_Wtime() - t0;
        return;
      }
      const Scalar* pv = engine->values();
      for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
        if (layout_.home[size_t(s)] != rank_) continue;
        const Impl::Supernode& sn = S.snodes[size_t(s)];
        for (size_type b = sn.block_begin; b < sn.block_end; ++b) {
          Scalar* dst = values_.data() + layout_.offset[size_t(b)];
          const size_type m = S.blocks[size_t(b)].nrows;
          for_each_panel_entry(pv, b, [&](size_type i, size_type j, Scalar x) { dst[i + j * m] = x; });
        }
      }
      const auto& mine = fanin_[size_t(rank_)];
      size_type words = 0;
      for (size_type b : mine) words += layout_.block_size(S, b);
      send.reserve(size_t(words));
      for (int d = 0; d < nranks_; ++d)
        for (size_type b : mine)
          if (layout_.owner[size_t(b)] == d)
            for_each_panel_entry(pv, b, [&](size_type, size_type, Scalar x) { send.push_back(x); });
      stats_.local_seconds = MPI_Wtime() - t0;  // (before agree's collective: this rank's time)
    });
    return col;
  }

  /// Step 2: the accumulated updates to the separators' owners (one MPI_Alltoallv), summed
  /// into their blocks (the engine's panels hold minus the sum of the updates).
  void fan_in(const std::vector<Scalar>& send) {
    const Impl::Symbolic& S = *symbolic_;
    const double t0 = MPI_Wtime();
    std::vector<std::int64_t> sc(size_t(nranks_), 0), sd(size_t(nranks_), 0), rc(size_t(nranks_), 0),
        rd(size_t(nranks_), 0);
    for (size_type b : fanin_[size_t(rank_)]) sc[size_t(layout_.owner[size_t(b)])] += layout_.block_size(S, b);
    for (int h = 0; h < nranks_; ++h)
      for (size_type b : fanin_[size_t(h)])
        if (layout_.owner[size_t(b)] == rank_) rc[size_t(h)] += layout_.block_size(S, b);
    for (int r = 1; r < nranks_; ++r) {
      sd[size_t(r)] = sd[size_t(r - 1)] + sc[size_t(r - 1)];
      rd[size_t(r)] = rd[size_t(r - 1)] + rc[size_t(r - 1)];
    }
    std::vector<Scalar> recv;
    Impl::agree(comm_, [&] { recv.resize(size_t(rd.back() + rc.back())); });
    Impl::alltoallv_n(send.data(), sc, sd, recv.data(), rc, rd, comm_);
    size_t q = 0;
    for (int h = 0; h < nranks_; ++h)
      for (size_type b : fanin_[size_t(h)]) {
        if (layout_.owner[size_t(b)] != rank_) continue;
        Scalar* dst = values_.data() + layout_.offset[size_t(b)];
        const size_type sz = layout_.block_size(S, b);
        for (size_type i = 0; i < sz; ++i) dst[i] += recv[q + size_t(i)];
        q += size_t(sz);
      }
    stats_.fanin_seconds = MPI_Wtime() - t0;
    stats_.fanin_bytes = double(send.size()) * sizeof(Scalar);
  }

  /// The factorization of the assembled blocks; returns the agreed info (0: success).
  size_type factor() {
    const Impl::Symbolic& S = *symbolic_;
    factored_ = false;
    const double t0 = MPI_Wtime();
    stats_.local_values = double(values_.size());
    stats_.local_blocks = 0;
    for (size_t b = 0; b < S.blocks.size(); ++b) stats_.local_blocks += layout_.owner[b] == rank_;
    stats_.wait_seconds = stats_.bytes_get = stats_.bytes_sent = stats_.flops = 0;
    stats_.gets = stats_.messages_sent = 0;
    stats_.local_seconds = stats_.fanin_seconds = stats_.fanin_bytes = 0;
    stats_.local_supernodes = 0;
    for (int h : layout_.home) stats_.local_supernodes += h == rank_;
    const int threads = Impl::rank_threads(comm_, opt_.engine.threads);
    double pivot = 0;
    std::vector<Scalar> send;
    const std::int64_t col = factor_local(threads, pivot, send);
    // A pivot failure in a local subtree: agreed (the smallest column); the separators are
    // not factored then.
    Impl::MpiFactorResult f = Impl::agree_pivot_failure(comm_, col >= 0, col, pivot, rank_);
    if (f.info == 0) {
      fan_in(send);
      send = {};
      f = Impl::MpiFactor<Scalar, DevExec>(S, layout_, comm_, values_, stats_, opt_.one_sided, opt_.engine.offload,
                                           threads)
              .run();
    }
    // The engine's work on the local subtrees (MpiFactor counts the separators').
    for (int i = 0; i < 3; ++i) {
      stats_.host_ops[i] += engine_stats_.host_ops[i];
      stats_.device_ops[i] += engine_stats_.device_ops[i];
    }
    stats_.offload = opt_.engine.offload.any();
    stats_.device_fallback = stats_.device_fallback || engine_stats_.fallbacks > 0;
    stats_.local_resident = engine_stats_.resident;
    // the threads that ran: the engine's workers on the local subtrees, or the fan-out's
    if (stats_.local_supernodes > 0 && !engine_stats_.resident)
      stats_.host_threads = std::max(stats_.host_threads, engine_stats_.threads);
    if (engine_) stats_.local_values = double(S.nvalues);  // one rank: the engine's storage is L
    stats_.factor_seconds = MPI_Wtime() - t0;
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
  Options engine_opt_;  ///< opt_.engine with this rank's threads (the engine keeps a reference)
  FactorStats engine_stats_;
  std::vector<std::vector<size_type>> fanin_;
  std::vector<int> entry_owner_;        ///< per entry of A: its owner rank (map_entries)
  std::vector<size_type> entry_pos_;    ///< per entry of A: block storage offset, or -1 - p (local subtree)
  std::vector<Scalar> engine_a_;        ///< A's entries of this rank's local subtrees (the engine's input)
  std::unique_ptr<Impl::Numeric<Scalar, DevExec>> engine_;  ///< one rank: the factor
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
