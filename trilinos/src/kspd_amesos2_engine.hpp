#ifndef KSPD_AMESOS2_ENGINE_HPP
#define KSPD_AMESOS2_ENGINE_HPP
/// \file kspd_amesos2_engine.hpp
/// The one place where the Amesos2 adapter calls kspd: each rank hands over the rows it owns
/// of the full symmetric matrix (CSR, global column indices), and kspd's distributed
/// factorization (sparse::DistributedCholesky) gets them as its column range of the lower
/// triangle. Nothing is gathered on one rank.
///
/// Numbering: the matrix's rows are numbered by position in rank order ("positional": rank
/// r's k-th row is offset(r) + k). This is the identity for a contiguous 0-based row map and
/// a compaction for any other (1-based, gaps, rows in any order per rank): a symmetric
/// permutation, under which B and X are numbered the same way. Every rank keeps the list of
/// all rows' global indices (n integers, as the distributed analysis keeps the whole
/// pattern) to translate column indices; no matrix or vector data travel to one rank.
///
/// Refactorization: the CSR pattern and entry order are hashed; new values reach kspd by a
/// precomputed slot per entry (duplicates summed, strictly upper entries of the lower
/// triangle's mirror ignored unless the symmetry check compares them).

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_options.hpp"

namespace kspd::amesos2 {

/// Settings the adapter reads from its Teuchos::ParameterList.
struct EngineSettings {
  sparse::Options options;      ///< ordering, threads, ...
  bool check_symmetry = false;  ///< verify that the two triangles agree (exactly)
};

/// kspd's distributed sparse Cholesky behind the three Amesos2 phases. All calls except the
/// accessors are collective over the communicator given to analyze.
template <class Scalar>
class Engine {
 public:
  using Chol = sparse::DistributedCholesky<Scalar, Kokkos::DefaultHostExecutionSpace>;

  Engine() = default;
  Engine(const Engine&) = delete;
  Engine& operator=(const Engine&) = delete;
  ~Engine() { free_comm(); }

  /// Symbolic phase (the ordering and the symbolic analysis run here). This rank's nloc rows: global indices row_gid[0, nloc) (0-based: the
  /// caller subtracts its index base, which `index_base` adds back in messages), their
  /// entries in CSR (global column indices, any order within a row, duplicates summed).
  /// n is the global number of rows.
  template <class Offset, class Index>
  void analyze(MPI_Comm comm, size_type n, size_type nloc, const Index* row_gid, const Offset* rowptr,
               const Index* colind, const Scalar* values, long long index_base, const EngineSettings& s) {
    free_comm();
    KSPD_MPI_SAFE_CALL(MPI_Comm_dup(comm, &comm_));
    KSPD_MPI_SAFE_CALL(MPI_Comm_set_errhandler(comm_, MPI_ERRORS_RETURN));
    KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm_, &rank_));
    KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm_, &nranks_));
    settings_ = s;
    base_ = index_base;
    factored_ = false;
    chol_.reset();
    number_rows(n, nloc, row_gid);
    sparse::Impl::agree(comm_, [&] { build_columns(nloc, rowptr, colind); });
    pattern_hash_ = hash_pattern(nloc, rowptr, colind);
    nnz_in_ = size_type(rowptr[nloc]);
    sparse::DistributedOptions opt;
    opt.engine = s.options;
    chol_ = std::make_unique<Chol>(comm_, opt);
    chol_->analyze(cols_);  // ordering + symbolic analysis here: numericFactorization only factors
    load_values(values);
    if (s.check_symmetry) check_symmetry();
  }

  /// Numeric phase: new values of the analysed pattern, in the same CSR entry order (the
  /// pattern is passed again and checked on every rank: a changed one is an error on every
  /// rank, not a wrong factor).
  /// \return 0, or the 1-based column (the positional numbering) where A is not positive
  /// definite, the same on every rank; message() tells more.
  template <class Offset, class Index>
  int factorize(size_type nloc, const Offset* rowptr, const Index* colind, const Scalar* values) {
    KSPD_REQUIRE(chol_ != nullptr, InvalidArgument, "kspd::amesos2::Engine::factorize: call analyze first");
    factored_ = false;
    sparse::Impl::agree(comm_, [&] {
      KSPD_REQUIRE(nloc == cols_.col_end - cols_.col_begin && size_type(rowptr[nloc]) == nnz_in_ &&
                       hash_pattern(nloc, rowptr, colind) == pattern_hash_,
                   InvalidArgument,
                   "kspd::amesos2: the matrix pattern differs from the analysed one; call symbolicFactorization()");
    });
    load_values(values);
    if (settings_.check_symmetry) check_symmetry();
    const size_type info = chol_->factorize_info(cols_);
    if (info != 0) {
      message_ = chol_->failure_message();
      return int(info);
    }
    index_solve_rows();
    factored_ = true;
    return 0;
  }

  /// Solves A X = B in place: X holds solve_rows() x nrhs values (column-major, leading
  /// dimension solve_rows()), B's rows in, X's rows out. nrhs is the same on every rank.
  void solve(Scalar* X, size_type nrhs) const {
    sparse::Impl::agree(comm_, [&] {
      KSPD_REQUIRE(factored_, InvalidArgument,
                   "kspd::amesos2::Engine::solve: the factorization failed or was not done");
    });
    chol_->solve_local(X, nrhs);
  }

  /// Rows this rank holds in solve(), in order.
  size_type solve_rows() const { return size_type(chol_ ? chol_->local_rows().size() : 0); }
  /// The global index (0-based) of solve row l.
  size_type solve_gid(size_type l) const { return gids_[size_t(chol_->local_rows()[size_t(l)])]; }
  /// The solve row of global index g (0-based), or -1 when this rank does not hold it.
  size_type solve_index(size_type g) const {
    const size_type p = position(g);
    if (p < 0) return -1;
    auto it = std::lower_bound(solve_pos_.begin(), solve_pos_.end(), std::make_pair(p, size_type(0)));
    return it != solve_pos_.end() && it->first == p ? it->second : -1;
  }

  size_type nnz_l() const { return chol_ && factored_ ? size_type(chol_->symbolic().stats.nnz_l) : 0; }
  const std::string& message() const { return message_; }

 private:
  void free_comm() {
    int finalized = 0;
    if (comm_ != MPI_COMM_NULL && MPI_Finalized(&finalized) == MPI_SUCCESS && !finalized) (void)MPI_Comm_free(&comm_);
    comm_ = MPI_COMM_NULL;
  }

  /// The positional numbering: every rank's row count and row indices, and the lookup.
  template <class Index>
  void number_rows(size_type n, size_type nloc, const Index* row_gid) {
    std::vector<std::int64_t> counts(static_cast<size_t>(nranks_)), displs(size_t(nranks_), 0);
    std::int64_t mine = nloc;
    KSPD_MPI_SAFE_CALL(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_));
    for (int r = 1; r < nranks_; ++r) displs[size_t(r)] = displs[size_t(r - 1)] + counts[size_t(r - 1)];
    const std::int64_t total = displs.back() + counts.back();
    sparse::Impl::agree(comm_, [&] {
      KSPD_REQUIRE(total == n, InvalidArgument,
                   "kspd::amesos2: the ranks own " << total << " rows in all, but the matrix has " << n
                                                   << " global rows (an overlapping or incomplete row map)");
    });
    offset_ = displs[size_t(rank_)];
    gids_.assign(size_t(n), 0);
    std::vector<size_type> mine_gids(row_gid, row_gid + nloc);
    sparse::Impl::allgatherv_n(mine_gids.data(), gids_.data(), counts, displs, comm_);
    lookup_.resize(size_t(n));
    for (size_type p = 0; p < n; ++p) lookup_[size_t(p)] = {gids_[size_t(p)], p};
    std::sort(lookup_.begin(), lookup_.end());
    sparse::Impl::agree(comm_, [&] {
      for (size_type p = 1; p < n; ++p)
        KSPD_REQUIRE(lookup_[size_t(p)].first != lookup_[size_t(p - 1)].first, InvalidArgument,
                     "kspd::amesos2: global row " << lookup_[size_t(p)].first + base_
                                                  << " is owned twice (an overlapping row map)");
    });
  }

  /// Position of global index g (0-based), or -1.
  size_type position(size_type g) const {
    auto it = std::lower_bound(lookup_.begin(), lookup_.end(), std::make_pair(g, size_type(-1)));
    return it != lookup_.end() && it->first == g ? it->second : -1;
  }

  /// This rank's rows as the columns [offset, offset + nloc) of the lower triangle: entry k
  /// of row j with position i >= j goes to slot_[k]; strictly lower ones (i < j) get -1.
  template <class Offset, class Index>
  void build_columns(size_type nloc, const Offset* rowptr, const Index* colind) {
    const size_type n = size_type(gids_.size());
    cols_ = {};
    cols_.n = n;
    cols_.col_begin = offset_;
    cols_.col_end = offset_ + nloc;
    cols_.colptr.assign(size_t(nloc + 1), 0);
    const size_type nnz = size_type(rowptr[nloc]);
    slot_.assign(size_t(nnz), -1);
    lower_.clear();
    std::vector<std::pair<size_type, size_type>> row;  // (position, entry)
    for (size_type l = 0; l < nloc; ++l) {
      const size_type j = offset_ + l;
      row.clear();
      for (size_type k = size_type(rowptr[l]); k < size_type(rowptr[l + 1]); ++k) {
        const size_type i = position(size_type(colind[k]));
        KSPD_REQUIRE(i >= 0, InvalidArgument,
                     "kspd::amesos2: column index " << size_type(colind[k]) + base_ << " in row "
                                                    << gids_[size_t(j)] + base_
                                                    << " is out of range (no row of the matrix has it)");
        if (i >= j) row.push_back({i, k});
        else if (settings_.check_symmetry) lower_.push_back({i, j, k});  // only the check reads them
      }
      std::sort(row.begin(), row.end());
      for (size_t q = 0; q < row.size(); ++q) {
        if (q == 0 || row[q].first != row[q - 1].first) cols_.rowind.push_back(row[q].first);
        slot_[size_t(row[q].second)] = size_type(cols_.rowind.size()) - 1;  // duplicates: the same slot
      }
      cols_.colptr[size_t(l + 1)] = size_type(cols_.rowind.size());
    }
    cols_.values.assign(cols_.rowind.size(), Scalar(0));
    // The strictly lower entries, by (column, row), duplicates next to each other.
    std::sort(lower_.begin(), lower_.end(), [](const Lower& a, const Lower& b) {
      return a.col != b.col ? a.col < b.col : a.row < b.row;
    });
  }

  void load_values(const Scalar* values) {
    std::fill(cols_.values.begin(), cols_.values.end(), Scalar(0));
    for (size_t k = 0; k < slot_.size(); ++k)
      if (slot_[k] >= 0) cols_.values[size_t(slot_[k])] += values[k];
    lower_values_.assign(lower_.size(), Scalar(0));
    for (size_t q = 0; q < lower_.size(); ++q) lower_values_[q] = values[size_t(lower_[q].entry)];
  }

  /// Every strictly lower entry (j, i), i < j, summed over duplicates, goes to the owner of
  /// column i, which compares it with its entry (j, i) from row i; both triangles must hold
  /// the same entries with the same values. Collective; a mismatch throws on every rank.
  void check_symmetry() {
    const size_type nloc = cols_.col_end - cols_.col_begin;
    std::vector<std::int64_t> scount(size_t(nranks_), 0), sdispl(size_t(nranks_), 0), rcount(size_t(nranks_), 0),
        rdispl(size_t(nranks_), 0);
    std::vector<size_type> sidx;  // (column, row) pairs
    std::vector<Scalar> sval;
    std::vector<std::int64_t> bounds(size_t(nranks_) + 1, 0);  // column offsets of the ranks
    {
      std::int64_t mine = nloc;
      std::vector<std::int64_t> counts(static_cast<size_t>(nranks_));
      KSPD_MPI_SAFE_CALL(MPI_Allgather(&mine, 1, MPI_INT64_T, counts.data(), 1, MPI_INT64_T, comm_));
      for (int r = 0; r < nranks_; ++r) bounds[size_t(r + 1)] = bounds[size_t(r)] + counts[size_t(r)];
    }
    for (size_t q = 0; q < lower_.size(); ++q) {  // merge duplicates; lower_ is sorted by column
      if (q > 0 && lower_[q].col == lower_[q - 1].col && lower_[q].row == lower_[q - 1].row) {
        sval.back() += lower_values_[q];
        continue;
      }
      sidx.push_back(lower_[q].col);
      sidx.push_back(lower_[q].row);
      sval.push_back(lower_values_[q]);
      const int r = int(std::upper_bound(bounds.begin(), bounds.end(), std::int64_t(lower_[q].col)) - bounds.begin()) - 1;
      ++scount[size_t(r)];
    }
    for (int r = 1; r < nranks_; ++r) sdispl[size_t(r)] = sdispl[size_t(r - 1)] + scount[size_t(r - 1)];
    KSPD_MPI_SAFE_CALL(MPI_Alltoall(scount.data(), 1, MPI_INT64_T, rcount.data(), 1, MPI_INT64_T, comm_));
    for (int r = 1; r < nranks_; ++r) rdispl[size_t(r)] = rdispl[size_t(r - 1)] + rcount[size_t(r - 1)];
    const std::int64_t nrecv = rdispl.back() + rcount.back();
    std::vector<size_type> ridx(size_t(2 * nrecv));
    std::vector<Scalar> rval(static_cast<size_t>(nrecv));
    auto twice = [](std::vector<std::int64_t> v) {
      for (auto& x : v) x *= 2;
      return v;
    };
    sparse::Impl::alltoallv_n(sidx.data(), twice(scount), twice(sdispl), ridx.data(), twice(rcount), twice(rdispl), comm_);
    sparse::Impl::alltoallv_n(sval.data(), scount, sdispl, rval.data(), rcount, rdispl, comm_);
    sparse::Impl::agree(comm_, [&] {
      size_type offdiag = 0;
      for (size_type l = 0; l < nloc; ++l)
        for (size_type p = cols_.colptr[size_t(l)]; p < cols_.colptr[size_t(l + 1)]; ++p)
          offdiag += cols_.rowind[size_t(p)] != cols_.col_begin + l;
      std::vector<char> seen(cols_.rowind.size(), 0);
      for (std::int64_t q = 0; q < nrecv; ++q) {
        const size_type c = ridx[size_t(2 * q)], i = ridx[size_t(2 * q + 1)], l = c - cols_.col_begin;
        const auto b = cols_.rowind.begin() + cols_.colptr[size_t(l)], e = cols_.rowind.begin() + cols_.colptr[size_t(l + 1)];
        const auto it = std::lower_bound(b, e, i);
        const bool found = it != e && *it == i;
        const size_t p = size_t(it - cols_.rowind.begin());
        KSPD_REQUIRE(found && cols_.values[p] == rval[size_t(q)], InvalidArgument,
                     "kspd::amesos2: the matrix is not symmetric: A(" << gids_[size_t(i)] + base_ << ", "
                         << gids_[size_t(c)] + base_ << ") = " << rval[size_t(q)] << " but A(" << gids_[size_t(c)] + base_
                         << ", " << gids_[size_t(i)] + base_ << ") = "
                         << (found ? double(cols_.values[p]) : 0.0) << (found ? "" : " (not stored)"));
        seen[p] = 1;
      }
      // An entry above the diagonal without its mirror below.
      if (nrecv != offdiag)
        for (size_type l = 0; l < nloc; ++l)
          for (size_type p = cols_.colptr[size_t(l)]; p < cols_.colptr[size_t(l + 1)]; ++p) {
            const size_type c = cols_.col_begin + l, i = cols_.rowind[size_t(p)];
            KSPD_REQUIRE(i == c || seen[size_t(p)], InvalidArgument,
                         "kspd::amesos2: the matrix is not symmetric: A(" << gids_[size_t(c)] + base_ << ", "
                             << gids_[size_t(i)] + base_ << ") = " << cols_.values[size_t(p)] << " but A("
                             << gids_[size_t(i)] + base_ << ", " << gids_[size_t(c)] + base_ << ") is not stored");
          }
    });
  }

  /// (position, solve row) of this rank's solve rows, sorted by position.
  void index_solve_rows() {
    const auto& rows = chol_->local_rows();
    solve_pos_.resize(rows.size());
    for (size_t l = 0; l < rows.size(); ++l) solve_pos_[l] = {rows[l], size_type(l)};
    std::sort(solve_pos_.begin(), solve_pos_.end());
  }

  /// FNV-1a over the local row offsets and column indices (entry order matters: the slots
  /// follow it).
  template <class Offset, class Index>
  static std::uint64_t hash_pattern(size_type nloc, const Offset* rowptr, const Index* colind) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(std::uint64_t(nloc));
    for (size_type i = 0; i <= nloc; ++i) mix(std::uint64_t(rowptr[i]));
    const size_type nnz = size_type(rowptr[nloc]);
    for (size_type k = 0; k < nnz; ++k) mix(std::uint64_t(colind[k]));
    return h;
  }

  struct Lower {
    size_type col, row, entry;  ///< (row, col) of a strictly lower entry (positions), its CSR entry
  };

  MPI_Comm comm_ = MPI_COMM_NULL;
  int rank_ = 0, nranks_ = 1;
  EngineSettings settings_;
  long long base_ = 0;
  size_type offset_ = 0;
  std::vector<size_type> gids_;                            ///< position -> global index (0-based)
  std::vector<std::pair<size_type, size_type>> lookup_;    ///< (global index, position), sorted
  std::vector<std::pair<size_type, size_type>> solve_pos_; ///< (position, solve row), sorted
  sparse::DistributedColumns<Scalar> cols_;
  std::vector<size_type> slot_;  ///< CSR entry -> cols_.values index, or -1 (strictly lower)
  std::vector<Lower> lower_;
  std::vector<Scalar> lower_values_;
  std::uint64_t pattern_hash_ = 0;
  size_type nnz_in_ = 0;
  std::unique_ptr<Chol> chol_;
  bool factored_ = false;
  std::string message_;
};

}  // namespace kspd::amesos2
#endif
