#ifndef KSPD_SPARSE_DISTRIBUTED_HPP
#define KSPD_SPARSE_DISTRIBUTED_HPP
/// \file kspd_sparse_distributed.hpp
/// Distributed supernodal sparse Cholesky over MPI (symPACK's fan-out algorithm).
///
/// \code
///   kspd::sparse::DistributedCholesky<double> chol(MPI_COMM_WORLD);  // collective
///   chol.factorize(A);            // A whole on rank 0 (ignored elsewhere), or
///   chol.factorize(Acols);        // DistributedColumns: each rank its column range
///   chol.solve(B, nrhs);          // B (n x nrhs, col-major) on rank 0, overwritten by X
///   chol.solve_local(Xloc, nrhs); // or rows distributed: local_rows() says which
/// \endcode
/// Every rank runs the same analysis (rank 0 computes the ordering and broadcasts it), then
/// each rank stores only the blocks the block map gives it (2D block-cyclic by default).
/// All member functions except the accessors are collective over the communicator, which
/// is duplicated so the library's messages never meet the application's.
/// A matrix that is not positive definite makes every rank throw the same
/// kspd::NotPositiveDefinite (1-based column in the input's numbering, pivot, failing rank
/// in the message); no rank hangs and the job is not aborted.
/// With DistributedOptions::offload on (one rank per GPU), the big supernodes' blocks of a
/// rank live on its device (DevExec's memory) and their potrf/trsm/updates run there; see
/// DistributedOptions for the rule. On host builds DevExec is a host space and the same path
/// runs in host memory.

#include <mpi.h>

#include <algorithm>
#include <memory>
#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
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
    Impl::mpi_check(MPI_Comm_dup(comm, &comm_), "MPI_Comm_dup");
    MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN);
    MPI_Comm_rank(comm_, &rank_);
    MPI_Comm_size(comm_, &nranks_);
  }
  ~DistributedCholesky() {
    int finalized = 0;
    MPI_Finalized(&finalized);
    if (!finalized) MPI_Comm_free(&comm_);
  }
  DistributedCholesky(const DistributedCholesky&) = delete;
  DistributedCholesky& operator=(const DistributedCholesky&) = delete;

  int rank() const { return rank_; }
  int nranks() const { return nranks_; }
  MPI_Comm comm() const { return comm_; }

  /// Analysis of A's pattern, A whole on rank 0.
  void analyze(const CscMatrix<Scalar>& A) {
    std::int64_t nn[2] = {A.n, A.nnz()};
    if (rank_ == 0) check(A.n, A.colptr, A.rowind, A.values);
    MPI_Bcast(nn, 2, MPI_INT64_T, 0, comm_);
    std::vector<size_type> colptr, rowind;
    if (rank_ == 0) {
      colptr = A.colptr;
      rowind = A.rowind;
    } else {
      colptr.resize(size_t(nn[0] + 1));
      rowind.resize(size_t(nn[1]));
    }
    MPI_Bcast(colptr.data(), int(colptr.size()), MPI_INT64_T, 0, comm_);
    bcast_big(rowind);
    analyse_pattern(nn[0], colptr, rowind);
  }

  /// Factorization of A given whole on rank 0 (its values are scattered by owner).
  void factorize(const CscMatrix<Scalar>& A) {
    if (!symbolic_) analyze(A);
    const auto t0 = MPI_Wtime();
    const Impl::Symbolic& S = *symbolic_;
    std::vector<int> counts(size_t(nranks_), 0), displs(size_t(nranks_), 0);
    std::vector<Scalar> sendbuf;
    for_each_entry(0, S.n, [&](size_type, size_type, int r, size_type, size_type) { ++counts[size_t(r)]; });
    for (int r = 1; r < nranks_; ++r) displs[size_t(r)] = displs[size_t(r - 1)] + counts[size_t(r - 1)];
    if (rank_ == 0) {
      KSPD_REQUIRE(A.n == S.n && A.colptr == S.a_colptr && A.rowind == S.a_rowind, InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: A's pattern differs from the analysed one");
      sendbuf.resize(A.values.size());
      std::vector<int> pos(displs);
      for_each_entry(0, S.n, [&](size_type p, size_type, int r, size_type, size_type) {
        sendbuf[size_t(pos[size_t(r)]++)] = A.values[size_t(p)];
      });
    }
    std::vector<Scalar> mine(static_cast<size_t>(counts[size_t(rank_)]));
    MPI_Scatterv(sendbuf.data(), counts.data(), displs.data(), Impl::mpi_type<Scalar>(), mine.data(),
                 counts[size_t(rank_)], Impl::mpi_type<Scalar>(), 0, comm_);
    assemble(0, S.n, mine);
    stats_.distribute_seconds = MPI_Wtime() - t0;
    factor();
  }

  /// Factorization of A distributed by columns (every rank passes its range).
  void factorize(const DistributedColumns<Scalar>& A) {
    const size_type nloc = A.col_end - A.col_begin;
    KSPD_REQUIRE(nloc >= 0 && size_type(A.colptr.size()) == nloc + 1 && A.colptr[0] == 0 &&
                     size_type(A.rowind.size()) == A.colptr.back() && A.values.size() == A.rowind.size(),
                 InvalidArgument,
                 "kspd::sparse::DistributedCholesky::factorize: the local columns [" << A.col_begin << ", " << A.col_end
                                                                                   << ") are inconsistent on rank " << rank_);
    // Gather the pattern on every rank.
    std::int64_t mine[3] = {A.col_begin, A.col_end, A.colptr.back()};
    std::vector<std::int64_t> all(size_t(3 * nranks_));
    MPI_Allgather(mine, 3, MPI_INT64_T, all.data(), 3, MPI_INT64_T, comm_);
    const size_type n = A.n;
    std::vector<int> ccount(static_cast<size_t>(nranks_)), cdispl(static_cast<size_t>(nranks_)), ecount(static_cast<size_t>(nranks_)), edispl(static_cast<size_t>(nranks_));
    for (int r = 0; r < nranks_; ++r) {
      KSPD_REQUIRE(all[size_t(3 * r)] == (r == 0 ? 0 : all[size_t(3 * r - 2)]) && (r + 1 < nranks_ || all[size_t(3 * r + 1)] == n),
                   InvalidArgument,
                   "kspd::sparse::DistributedCholesky::factorize: column ranges must be contiguous, ascending with the rank "
                   "and cover [0, n); rank " << r << " has [" << all[size_t(3 * r)] << ", " << all[size_t(3 * r + 1)] << ")");
      ccount[size_t(r)] = int(all[size_t(3 * r + 1)] - all[size_t(3 * r)]);
      ecount[size_t(r)] = int(all[size_t(3 * r + 2)]);
      if (r > 0) {
        cdispl[size_t(r)] = cdispl[size_t(r - 1)] + ccount[size_t(r - 1)];
        edispl[size_t(r)] = edispl[size_t(r - 1)] + ecount[size_t(r - 1)];
      }
    }
    const size_type nnz = size_type(edispl.back()) + ecount.back();
    std::vector<size_type> lens(static_cast<size_t>(n)), colptr(size_t(n + 1), 0), rowind(static_cast<size_t>(nnz));
    std::vector<size_type> mylen(static_cast<size_t>(nloc));
    for (size_type j = 0; j < nloc; ++j) mylen[size_t(j)] = A.colptr[size_t(j + 1)] - A.colptr[size_t(j)];
    MPI_Allgatherv(mylen.data(), int(nloc), MPI_INT64_T, lens.data(), ccount.data(), cdispl.data(), MPI_INT64_T, comm_);
    MPI_Allgatherv(A.rowind.data(), int(A.rowind.size()), MPI_INT64_T, rowind.data(), ecount.data(), edispl.data(),
                   MPI_INT64_T, comm_);
    for (size_type j = 0; j < n; ++j) colptr[size_t(j + 1)] = colptr[size_t(j)] + lens[size_t(j)];
    if (!symbolic_ || symbolic_->a_colptr != colptr || symbolic_->a_rowind != rowind) {
      if (rank_ == 0) {
        std::vector<Scalar> none(rowind.size());
        check(n, colptr, rowind, none);
      }
      analyse_pattern(n, colptr, rowind);
    }
    const auto t0 = MPI_Wtime();
    // Values: each rank sends the entries of its columns to their owners (entry order).
    std::vector<int> scount(size_t(nranks_), 0), sdispl(size_t(nranks_), 0), rcount(size_t(nranks_), 0),
        rdispl(size_t(nranks_), 0);
    for_each_entry(A.col_begin, A.col_end, [&](size_type, size_type, int r, size_type, size_type) { ++scount[size_t(r)]; });
    for (int r = 1; r < nranks_; ++r) sdispl[size_t(r)] = sdispl[size_t(r - 1)] + scount[size_t(r - 1)];
    std::vector<Scalar> sendbuf(A.values.size());
    std::vector<int> pos(sdispl);
    const size_type base = colptr[size_t(A.col_begin)];
    for_each_entry(A.col_begin, A.col_end, [&](size_type p, size_type, int r, size_type, size_type) {
      sendbuf[size_t(pos[size_t(r)]++)] = A.values[size_t(p - base)];
    });
    MPI_Alltoall(scount.data(), 1, MPI_INT, rcount.data(), 1, MPI_INT, comm_);
    for (int r = 1; r < nranks_; ++r) rdispl[size_t(r)] = rdispl[size_t(r - 1)] + rcount[size_t(r - 1)];
    std::vector<Scalar> recv(size_t(rdispl.back() + rcount.back()));
    MPI_Alltoallv(sendbuf.data(), scount.data(), sdispl.data(), Impl::mpi_type<Scalar>(), recv.data(), rcount.data(),
                  rdispl.data(), Impl::mpi_type<Scalar>(), comm_);
    assemble(0, n, recv);
    stats_.distribute_seconds = MPI_Wtime() - t0;
    factor();
  }

  /// Solves A X = B; B (n x nrhs, column-major, the input's numbering) is significant on
  /// rank 0 and overwritten there by X.
  void solve(std::vector<Scalar>& B, size_type nrhs = 1) {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::DistributedCholesky::solve: call factorize first");
    std::int64_t nr = nrhs;
    MPI_Bcast(&nr, 1, MPI_INT64_T, 0, comm_);
    if (rank_ == 0)
      KSPD_REQUIRE(size_type(B.size()) == n() * nr, DimensionMismatch,
                   "kspd::sparse::DistributedCholesky::solve: B has " << B.size() << " entries, expected n * nrhs = "
                                                                      << n() * nr);
    std::vector<Scalar> X = scatter_rhs(B.data(), nr);
    solve_local(X.data(), nr);
    gather_solution(X.data(), nr, B.data());
  }

  /// Solves with the right-hand side distributed by rows: X holds local_rows().size() x
  /// nrhs values (column-major), B's rows in, X's rows out.
  void solve_local(Scalar* X, size_type nrhs) {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::DistributedCholesky::solve: call factorize first");
    const auto t0 = MPI_Wtime();
    Impl::MpiSolve<Scalar>(*symbolic_, layout_, comm_, values_, loc_off_, stats_).solve(X, size_type(local_rows_.size()), nrhs);
    stats_.solve_seconds = MPI_Wtime() - t0;
  }

  /// The rows (input's numbering) this rank holds in solve_local, in local order.
  const std::vector<size_type>& local_rows() const { return local_rows_; }

  /// Rank 0's B (n x nrhs) -> this rank's rows (local_rows().size() x nrhs).
  std::vector<Scalar> scatter_rhs(const Scalar* B, size_type nrhs) const {
    std::vector<int> counts, displs;
    std::vector<Scalar> send;
    if (rank_ == 0) send = pack_by_rank(B, nrhs, counts, displs, true);
    std::vector<Scalar> X(local_rows_.size() * size_t(nrhs));
    MPI_Scatterv(send.data(), counts.data(), displs.data(), Impl::mpi_type<Scalar>(), X.data(), int(X.size()),
                 Impl::mpi_type<Scalar>(), 0, comm_);
    return X;
  }
  /// This rank's rows of X -> rank 0's B (n x nrhs).
  void gather_solution(const Scalar* X, size_type nrhs, Scalar* B) const {
    std::vector<int> counts, displs;
    std::vector<Scalar> recv;
    if (rank_ == 0) recv = pack_by_rank(nullptr, nrhs, counts, displs, false);
    MPI_Gatherv(X, int(local_rows_.size() * size_t(nrhs)), Impl::mpi_type<Scalar>(), recv.data(), counts.data(),
                displs.data(), Impl::mpi_type<Scalar>(), 0, comm_);
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
  static void check(size_type n, const std::vector<size_type>& colptr, const std::vector<size_type>& rowind,
                    const std::vector<Scalar>& values) {
    KSPD_REQUIRE(n >= 0 && size_type(colptr.size()) == n + 1 && colptr[0] == 0 && size_type(rowind.size()) == colptr.back() &&
                     values.size() == rowind.size(),
                 InvalidArgument,
                 "kspd::sparse::DistributedCholesky: A is inconsistent (n = " << n << ", colptr " << colptr.size() << ", rowind "
                                                                            << rowind.size() << ", values " << values.size() << ")");
  }

  void bcast_big(std::vector<size_type>& v) {
    const size_t chunk = size_t(1) << 28;
    for (size_t o = 0; o < v.size(); o += chunk)
      MPI_Bcast(v.data() + o, int(std::min(chunk, v.size() - o)), MPI_INT64_T, 0, comm_);
  }

  /// Rank 0 orders, every rank runs the same analysis with that ordering.
  void analyse_pattern(size_type n, const std::vector<size_type>& colptr, const std::vector<size_type>& rowind) {
    const auto t0 = MPI_Wtime();
    Impl::PatternRef P{n, colptr.data(), rowind.data()};
    std::vector<size_type> perm(static_cast<size_t>(n));
    if (rank_ == 0) perm = opt_.ordering == Ordering::User ? opt_.user_permutation : Impl::compute_ordering(P, opt_);
    bcast_big(perm);
    Options o = opt_;
    o.ordering = Ordering::User;
    o.user_permutation = std::move(perm);
    symbolic_ = std::make_unique<Impl::Symbolic>(Impl::analyse(P, o));
    Impl::Symbolic& S = *symbolic_;
    layout_.build(S, opt_, rank_, nranks_);
    for (size_t b = 0; b < S.blocks.size(); ++b) S.blocks[b].owner = layout_.owner[b];
    loc_off_.assign(S.snodes.size(), -1);
    local_rows_ = rows_of(rank_);
    size_type q = 0;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.diag_owner(S, size_type(s)) == rank_) {
        loc_off_[s] = q;
        q += S.snodes[s].ncols;
      }
    factored_ = false;
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

  void factor() {
    const Impl::Symbolic& S = *symbolic_;
    factored_ = false;
    stats_.local_values = double(values_.size());
    stats_.local_blocks = 0;
    for (size_t b = 0; b < S.blocks.size(); ++b) stats_.local_blocks += layout_.owner[b] == rank_;
    stats_.wait_seconds = stats_.bytes_get = stats_.bytes_sent = stats_.flops = 0;
    stats_.gets = stats_.messages_sent = 0;
    Impl::MpiFactor<Scalar, DevExec>(S, layout_, comm_, values_, stats_, opt_.one_sided, opt_.offload, opt_.gpu_direct,
                                    opt_.threads)
        .run();
    factored_ = true;
  }

  std::vector<size_type> rows_of(int r) const {
    const Impl::Symbolic& S = *symbolic_;
    std::vector<size_type> rows;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.diag_owner(S, size_type(s)) == r)
        for (size_type i = 0; i < S.snodes[s].ncols; ++i) rows.push_back(S.perm[size_t(S.snodes[s].first_col + i)]);
    return rows;
  }

  std::vector<Scalar> pack_by_rank(const Scalar* B, size_type nrhs, std::vector<int>& counts, std::vector<int>& displs,
                                   bool fill) const {
    counts.assign(size_t(nranks_), 0);
    displs.assign(size_t(nranks_), 0);
    std::vector<Scalar> buf(size_t(n() * nrhs));
    size_type q = 0;
    for (int r = 0; r < nranks_; ++r) {
      const auto rows = rows_of(r);
      const size_type m = size_type(rows.size());
      counts[size_t(r)] = int(m * nrhs);
      displs[size_t(r)] = int(q);
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
};

}  // namespace kspd::sparse
#endif
