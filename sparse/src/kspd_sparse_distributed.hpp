#ifndef KSPD_SPARSE_DISTRIBUTED_HPP
#define KSPD_SPARSE_DISTRIBUTED_HPP
/// \file kspd_sparse_distributed.hpp
/// Distributed supernodal sparse Cholesky over MPI: the one engine on every rank, on the
/// supernodes it owns, with an MPI transport between the ranks' schedulers (fan-in).
///
/// \code
///   kspd::sparse::DistributedCholesky<double> chol(MPI_COMM_WORLD);  // collective
///   chol.factorize(A);            // A whole on rank 0 (ignored elsewhere), or
///   chol.factorize(Acols);        // DistributedColumns: each rank its column range
///   size_type info = chol.factorize_info(A);  // or: info > 0 (not SPD) instead of a throw
///   chol.solve(B, nrhs);          // B (n x nrhs, col-major) on rank 0, overwritten by X
///   chol.solve_local(Xloc, nrhs); // or rows distributed: local_rows() says which
/// \endcode
/// Every rank runs the same analysis (rank 0 computes the ordering and broadcasts it) and
/// the same map (Impl::MpiLayout, one place): Geist and Ng's layer (Impl::subtree_map,
/// weights = the subtrees' flops) cuts the assembly tree into whole subtrees per rank, its
/// "local subtrees", balanced to within 5 %; each "separator" supernode above them gets one
/// owner by list scheduling on a flop model (Impl::separator_owners): ranks with lighter
/// subtrees take more separator work, and the column chunks of a big separator (supernodes
/// of at most Options::max_supernode columns) go to different ranks (a pipelined 1D
/// distribution of the top chain).
/// factorize runs the one engine (Impl::Numeric: the Scheduler's dependency counters,
/// ready queue and workers, Numeric's task bodies: kspd::potrf with its NaN-pivot guard,
/// trsm, the one update + scatter) on every rank, on the supernodes the rank owns, with an
/// MPI transport (Impl::MpiTransport, kspd_sparse_mpi_factor.hpp): an update runs where
/// its source supernode lives and is summed into this rank's copy of the target's panel;
/// after this rank's last update into a target that another rank owns, the summed blocks
/// travel once to the owner (fan-in), which adds them and credits the target's dependency
/// counter as if the updates had run there. The rank's main thread makes every MPI call
/// (MPI_THREAD_FUNNELED) while the workers run the tasks. There is no second task graph,
/// pool or scatter, and no block storage beside the engine's: each rank's factor is its
/// engine's panels of the supernodes it owns, and the distributed solve (Impl::MpiSolve)
/// reads them there.
/// With one rank there is no transport and no MPI call in the factorization: the engine
/// factors the whole tree in any placement (host workers, resident on the GPU, top of the
/// tree) and solves (on the device for the resident placement). With more ranks and
/// DistributedOptions::engine.offload on (placement Resident, the resident factor within
/// every rank's Offload::device_memory_limit) the map is over devices, not ranks: ranks on
/// one node that share a device form a group whose lowest rank leads it
/// (kspd_sparse_mpi_groups.hpp), since two processes on one GPU only time-slice it and a
/// split between them adds transfers and nothing else. Only leaders own supernodes; the
/// other ranks send their entries of A, agree on the result and errors (waiting asleep,
/// Impl::quiet_barrier, not polling a core), and hold no rows in the solve. One group (every rank on one device): rank 0 runs the one-rank engine,
/// resident, on the whole tree, and solves on its device. Several groups: the top-rank map
/// (MpiLayout::top) over the leaders puts every separator on rank 0; each other leader
/// factors its local subtrees in one resident run and sends its contributions to the
/// separators once, packed on its device; rank 0 factors its subtrees and all separators in
/// ONE resident run whose level hook adds the contributions on the device as the levels
/// that need them come (Impl::TopFanIn, kspd_sparse_mpi_top.hpp). No host worker takes
/// part. Otherwise (offload off, placement TopOfTree, or a resident factor over the budget
/// with fallback cpu) every rank runs host workers with the fan-in transport on the
/// round-robin map over the ranks.
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

#include <mpi.h>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <sstream>
#include <string>
#include <type_traits>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_distributed_columns.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_distribute.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_mpi_factor.hpp"
#include "kspd_sparse_mpi_groups.hpp"
#include "kspd_sparse_mpi_input.hpp"
#include "kspd_sparse_mpi_layout.hpp"
#include "kspd_sparse_mpi_solve.hpp"
#include "kspd_sparse_mpi_top.hpp"
#include "kspd_sparse_numeric.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

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
    groups_ = Impl::find_device_groups(comm_, DevExec());
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
      Impl::check_matrix(A);
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

  /// Analysis of A's pattern, A distributed by columns (with `always` false: a new pattern only).
  void analyze(const DistributedColumns<Scalar>& A, bool always = true) {
    Impl::agree(comm_, [&] { Impl::check_columns(A); });
    size_type n = 0;
    std::vector<size_type> colptr, rowind;
    Impl::allgather_pattern(comm_, A, n, colptr, rowind);
    if (always || !symbolic_ || !symbolic_->same_pattern(n, colptr, rowind)) analyse_pattern(n, colptr, rowind);
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
    compat::ScopedRegion region("kspd::sparse::DistributedCholesky::factorize");
    factored_ = false;
    if (!symbolic_) analyze(A);
    const auto t0 = MPI_Wtime();
    const Impl::Symbolic& S = *symbolic_;
    if (layout_.single()) {  // rank 0's engine reads A's values in place, as the single-process solver does
      Impl::agree(comm_, [&] {
        if (rank_ == 0) Impl::check_values(*symbolic_, A);
      });
      stats_.distribute_seconds = MPI_Wtime() - t0;
      return factor(A.values.data());
    }
    // Each rank gets its panels' entries through the analysis' per-rank entry lists. The
    // top-rank map: rank 0 owns every separator and holds A, so its engine reads A in place
    // (the entries of other ranks' subtrees land in panels it neither factors nor reads).
    const bool in_place = layout_.top && rank_ == 0;
    std::vector<std::int64_t> counts(entry_count_), displs(size_t(nranks_), 0);
    if (layout_.top) counts[0] = 0;
    for (int r = 1; r < nranks_; ++r) displs[size_t(r)] = displs[size_t(r - 1)] + counts[size_t(r - 1)];
    std::vector<Scalar> sendbuf, mine;
    Impl::agree(comm_, [&] {
      if (!in_place) mine.resize(my_entries_.size());
      if (rank_ != 0) return;
      Impl::check_values(*symbolic_, A);
      sendbuf.resize(size_t(displs.back() + counts.back()));
      const size_type skip = layout_.top ? entry_count_[0] : 0;  // (rank 0's: in place)
      for (size_t q = 0; q < sendbuf.size(); ++q) sendbuf[q] = A.values[size_t(entries_by_rank_[q + size_t(skip)])];
    });
    Impl::scatterv_n(sendbuf.data(), counts, displs, mine.data(), std::int64_t(mine.size()), 0, comm_);
    if (!in_place) assemble(mine);
    stats_.distribute_seconds = MPI_Wtime() - t0;
    return factor(in_place ? A.values.data() : nullptr);
  }

  /// factorize_info for A distributed by columns (ranges contiguous, ascending with the
  /// rank); an inconsistency found on one rank (ranges, sizes, rows out of range or above
  /// the diagonal) makes every rank throw the same InvalidArgument naming it and the rank.
  size_type factorize_info(const DistributedColumns<Scalar>& A) {
    compat::ScopedRegion region("kspd::sparse::DistributedCholesky::factorize");
    factored_ = false;
    analyze(A, false);  // (a new analysis only for a new pattern)
    const auto t0 = MPI_Wtime();
    const std::vector<Scalar> recv = Impl::route_values(comm_, A.values.data(), entry_owner_, symbolic_->a_colptr[size_t(A.col_begin)],
                                                        symbolic_->a_colptr[size_t(A.col_end)]);
    if (!layout_.idle(rank_)) assemble(recv);
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
  /// With one rank (or one device group) rank 0's engine solves (its factor stays where it
  /// was computed: on the device for the resident placement); with more, Impl::MpiSolve on
  /// the engines' panels.
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
    if (!layout_.single())
      Impl::MpiSolve<Scalar>(*symbolic_, layout_, comm_, engine_ ? engine_->values() : nullptr, loc_off_, stats_)
          .solve(X, size_type(local_rows_.size()), nrhs);
    else if (rank_ == 0) engine_solve(X, nrhs);  // (the other ranks hold no rows)
    if (layout_.leaders.size() < size_t(nranks_)) Impl::quiet_barrier(comm_, layout_.idle(rank_));
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

  /// Rank 0 orders, every rank runs the same analysis with that ordering. A failure on any
  /// rank (ordering, user permutation, analysis, block map) throws on every rank and
  /// leaves no analysis.
  void analyse_pattern(size_type n, const std::vector<size_type>& colptr, const std::vector<size_type>& rowind) {
    const auto t0 = MPI_Wtime();
    top_.reset();
    engine_.reset();  // (it refers to the analysis)
    symbolic_.reset();
    factored_ = false;
    Impl::check_options_agree(opt_, comm_);
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
    });
    // Device offload with several ranks: the map over the device groups, the top-rank map
    // (every separator on rank 0's device) over several, when the resident factor fits
    // every rank's budget (file comment).
    const Offload& off = opt_.engine.offload;
    int fits = nranks_ > 1 && off.any() && off.placement == Offload::Placement::Resident &&
               Impl::ResidentFactor<Scalar, DevExec>::bytes_needed(*sym) <= double(off.device_memory_limit);
    KSPD_MPI_SAFE_CALL(MPI_Allreduce(MPI_IN_PLACE, &fits, 1, MPI_INT, MPI_MIN, comm_));
    Impl::agree(comm_, [&] { layout.build(*sym, opt_, rank_, nranks_, fits != 0, fits ? &groups_ : nullptr); });
    // The same owners on every rank (a given map must not depend on the calling rank).
    std::uint64_t h = 1469598103934665603ull, h0 = 0;
    for (int o : layout.owner) h = (h ^ std::uint64_t(o)) * 1099511628211ull;
    h ^= layout.map_hash;
    h0 = h;
    KSPD_MPI_SAFE_CALL(MPI_Bcast(&h0, 1, MPI_UINT64_T, 0, comm_));
    Impl::agree(comm_, [&] {
      KSPD_REQUIRE(h == h0, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the supernode map gives other owners here than on rank 0 (a "
                   "DistributedOptions::map must give the same rank for a supernode on every rank)");
    });
    symbolic_ = std::move(sym);
    layout_ = std::move(layout);
    Impl::Symbolic& S = *symbolic_;
    for (auto& blk : S.blocks) blk.owner = layout_.owner[size_t(blk.snode)];
    loc_off_.assign(S.snodes.size(), -1);
    local_rows_ = rows_of(rank_);
    size_type q = 0;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.owner[s] == rank_) {
        loc_off_[s] = q;
        q += S.snodes[s].ncols;
      }
    plan_.build(S, layout_);
    // Per entry of A: its panel's owner; this rank's entries; rank 0: all, grouped by rank.
    const size_type nnz = size_type(S.a_rowind.size());
    entry_owner_.resize(size_t(nnz));
    entry_count_.assign(size_t(nranks_), 0);
    for (size_type j = 0; j < S.n; ++j)
      for (size_type p = S.a_colptr[size_t(j)]; p < S.a_colptr[size_t(j + 1)]; ++p) {
        const size_type ni = S.iperm[size_t(S.a_rowind[size_t(p)])], nj = S.iperm[size_t(j)];
        const int o = layout_.owner[size_t(S.col_snode[size_t(std::min(ni, nj))])];
        entry_owner_[size_t(p)] = o;
        ++entry_count_[size_t(o)];
      }
    my_entries_.clear();
    my_entries_.reserve(size_t(entry_count_[size_t(rank_)]));
    for (size_type p = 0; p < nnz; ++p)
      if (entry_owner_[size_t(p)] == rank_) my_entries_.push_back(p);
    entries_by_rank_.clear();
    if (rank_ == 0 && nranks_ > 1) {
      std::vector<std::int64_t> pos(size_t(nranks_), 0);
      for (int r = 1; r < nranks_; ++r) pos[size_t(r)] = pos[size_t(r - 1)] + entry_count_[size_t(r - 1)];
      entries_by_rank_.resize(size_t(nnz));
      for (size_type p = 0; p < nnz; ++p) entries_by_rank_[size_t(pos[size_t(entry_owner_[size_t(p)])]++)] = p;
    }
    engine_a_.clear();  // (allocated and zeroed once by the first assemble)
    engine_.reset();
    const size_type analyses = stats_.analyses + 1;
    stats_ = DistributedStats{};
    stats_.analyse_seconds = MPI_Wtime() - t0;
    stats_.analyses = analyses;
  }

  /// This rank's values (its entries, in entry order) into the engine's input, which is
  /// zero elsewhere since the analysis: the panels of other ranks' supernodes collect this
  /// rank's updates into them.
  void assemble(const std::vector<Scalar>& mine) {
    if (engine_a_.size() != symbolic_->a_rowind.size()) engine_a_.assign(symbolic_->a_rowind.size(), Scalar(0));
    for (size_t q = 0; q < mine.size(); ++q) engine_a_[size_t(my_entries_[q])] = mine[q];
  }

  /// The factorization (file comment); returns the agreed info (0: success).
  size_type factor(const Scalar* avalues = nullptr) {
    if (!avalues) avalues = engine_a_.data();
    const Impl::Symbolic& S = *symbolic_;
    factored_ = false;
    const double t0 = MPI_Wtime();
    const int threads = Impl::rank_threads(comm_, opt_.engine.threads);
    engine_opt_ = opt_.engine;
    engine_opt_.threads = threads;
    const bool top = layout_.top, fanin = !layout_.single() && !top;
    const bool idle = layout_.idle(rank_);  // (a rank sharing its leader's device: no engine)
    bool device_fallback = false;
    if (fanin && opt_.engine.offload.any()) {
      // More ranks without the top-rank map (placement TopOfTree, or a resident factor over
      // the device budget): host workers with the transport, which needs host panels.
      const bool resident = opt_.engine.offload.placement == Offload::Placement::Resident;
      Impl::agree(comm_, [&] {
        KSPD_REQUIRE(!resident || opt_.engine.offload.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                     "kspd::sparse: the device-resident factor needs "
                         << std::int64_t(Impl::ResidentFactor<Scalar, DevExec>::bytes_needed(S))
                         << " bytes of device memory, over the budget Offload::device_memory_limit = "
                         << opt_.engine.offload.device_memory_limit << " on some rank; raise it, or use fallback cpu");
      });
      device_fallback = resident;
      Offload host;
      host.timeline = opt_.engine.offload.timeline;
      engine_opt_.offload = host;
    }
    // The top-rank map was chosen because the resident factor fits the budget: a failing
    // allocation is an error (every rank throws it), not a silent host fallback.
    if (top) engine_opt_.offload.fallback = OffloadFallback::Fail;
    using Engine = Impl::Numeric<Scalar, DevExec>;
    // The engine of the last successful factorization is reused (same analysis, options
    // and subset: its storage is already in memory, as in the single-process refactorization).
    std::unique_ptr<Impl::MpiTransport<Scalar, Engine>> transport;
    Impl::PivotFailure f;
    bool sent = false;
    stats_.fanin_bytes = 0;
    stats_.fanin_messages = 0;
    const DevExec exec;
    Impl::LocalError err = Impl::LocalError::capture([&] {
      if (idle) return Impl::idle_rank_fault(rank_);
      if (top_) top_->begin();  // (first: a rank that fails below still drains every message)
      // every rank gets a transport first: one whose engine fails still tells the others
      if (fanin) transport = std::make_unique<Impl::MpiTransport<Scalar, Engine>>(S, layout_, plan_, comm_, stats_);
      if (!engine_) {
        top_.reset();
        engine_ = std::make_unique<Engine>(S, engine_opt_, layout_.single() ? Impl::SnodeSubset{} : layout_.subset_of(rank_));
        if (top)
          top_ = std::make_unique<Impl::TopFanIn<Scalar, DevExec>>(S, layout_, plan_, comm_,
                                                                    engine_->resident_factor().schedule(), opt_.device_aware_mpi);
      }
      if (transport) {
        transport->attach(*engine_);
        engine_->set_transport(transport.get());
      }
      if (!top) {
        f = engine_->factorize(exec, avalues);
        return;
      }
      KSPD_REQUIRE(engine_->resident(), Error, "kspd::sparse (MPI): internal error: the top-rank map needs the resident placement");
      Scalar* dvals = engine_->resident_factor().values().data();
      engine_->set_level_hook([this, dvals](const DevExec& ex, size_type l) { top_->before_level(ex, dvals, l); });
      stats_.fanin_in_place = top_->in_place();
      try {
        f = engine_->factorize(exec, avalues);
      } catch (const Impl::RemoteAbort&) {  // the failure is the other rank's (agreed below)
        exec.fence();
      }
      if (rank_ != layout_.kTopRank) {
        sent = true;  // (a failing send is an MPI error: no second header)
        top_->send(exec, dvals, !f.failed(), stats_);
      }
    });
    if (fanin) {
      Impl::LocalError late = Impl::LocalError::capture([&] {
        KSPD_REQUIRE(transport != nullptr, Error, "kspd::sparse (MPI): the transport could not be created");
        if (err || f.failed()) transport->notify_abort();  // (once: a failing scheduler told already)
      });
      if (!err) err = late;
      if (transport) transport->finish(err || f.failed());  // collective
    } else if (top && !idle) {  // the top rank receives what is left; another leader that failed first says so
      Impl::LocalError late = Impl::LocalError::capture([&] {
        if (rank_ == layout_.kTopRank) Impl::top_drain<Scalar>(comm_, layout_, top_ ? top_->received() : std::vector<char>());
        else if (!sent) Impl::top_send_abort(comm_);
      });
      if (!err) err = late;
    }
    const FactorStats es = engine_ ? engine_->stats() : FactorStats{};
    if (err || f.failed()) {  // a failed run's engine is not reused (its queued work done first)
      exec.fence();
      top_.reset();
      engine_.reset();
    }
    if (layout_.leaders.size() < size_t(nranks_)) Impl::quiet_barrier(comm_, idle);  // (idle ranks: no polling)
    Impl::agree_error(comm_, err);
    std::int64_t col = -1;
    if (f.failed()) col = std::int64_t(S.perm[size_t(S.snodes[size_t(f.snode)].first_col + f.col)]);
    const Impl::MpiFactorResult res = Impl::agree_pivot_failure(comm_, col >= 0, col, f.pivot, rank_);
    stats_.local_seconds = es.seconds;
    for (int i = 0; i < 3; ++i) {
      stats_.host_ops[i] = es.host_ops[i];
      stats_.device_ops[i] = es.device_ops[i];
    }
    stats_.timeline = es.timeline;
    stats_.offload = opt_.engine.offload.any();
    stats_.device_fallback = device_fallback || es.fallbacks > 0;
    stats_.local_resident = es.resident;
    stats_.host_threads = es.resident ? 1 : es.threads;
    stats_.local_supernodes = stats_.owned_separators = 0;
    stats_.local_values = 0;
    for (size_t s = 0; s < S.snodes.size(); ++s) {
      if (layout_.owner[s] != rank_) continue;
      ++(layout_.home[s] == rank_ ? stats_.local_supernodes : stats_.owned_separators);
      stats_.local_values += double(S.snodes[s].nrows() * S.snodes[s].ncols);
    }
    stats_.factor_seconds = MPI_Wtime() - t0;
    fail_pivot_ = res.pivot;
    fail_message_ = res.message;
    factored_ = res.info == 0;
    return res.info;
  }
  void require_spd_on_every_rank(size_type info) const {
    if (info != 0) throw NotPositiveDefinite(fail_message_, info, fail_pivot_);
  }

  std::vector<size_type> rows_of(int r) const {
    const Impl::Symbolic& S = *symbolic_;
    std::vector<size_type> rows;
    for (size_t s = 0; s < S.snodes.size(); ++s)
      if (layout_.owner[s] == r)
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
  Options engine_opt_;  ///< opt_.engine with this rank's threads and placement (the engine keeps a reference)
  std::vector<int> entry_owner_;                ///< per entry of A: its owner rank
  std::vector<std::int64_t> entry_count_;       ///< per rank: its entries of A
  std::vector<size_type> my_entries_;           ///< this rank's entries of A (ascending)
  std::vector<size_type> entries_by_rank_;      ///< rank 0: every rank's entries, grouped by rank
  std::vector<Scalar> engine_a_;        ///< this rank's entries of A (the engine's input, entry order; zero elsewhere)
  std::unique_ptr<Impl::Numeric<Scalar, DevExec>> engine_;  ///< this rank's engine: its panels are its part of L
  std::unique_ptr<Impl::TopFanIn<Scalar, DevExec>> top_;    ///< the top-rank map: this rank's copy plan (with engine_)
  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, nranks_ = 1;
  Impl::DeviceGroups groups_;  ///< the ranks that share a device (from the constructor)
  std::unique_ptr<Impl::Symbolic> symbolic_;
  Impl::MpiLayout layout_;
  Impl::FanInPlan plan_;
  std::vector<size_type> loc_off_, local_rows_;
  DistributedStats stats_;
  bool factored_ = false;
  double fail_pivot_ = 0;
  std::string fail_message_;
};

}  // namespace kspd::sparse
#endif
