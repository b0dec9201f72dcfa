#ifndef KSPD_SPARSE_MPI_SOLVE_HPP
#define KSPD_SPARSE_MPI_SOLVE_HPP
/// \file kspd_sparse_mpi_solve.hpp
/// Distributed forward/backward supernodal solve on the factor the ranks' engines computed:
/// each rank reads the panels of the supernodes it owns (MpiLayout::owner) in its engine's
/// storage (panel s: nrows x ncols, ld = nrows), no copy. The right-hand side and the
/// solution are distributed by rows: a rank holds the rows of the supernodes it owns
/// (ascending supernodes, column-major, ld = local rows).
///
/// Forward (L Y = B): the owner of diag(s) waits for the contributions L(b) y_{s'} of every
/// off-diagonal block b targeting s, solves with L(s, s), and sends the segment y_s to the
/// ranks owning off-diagonal blocks of s; those compute L(b) y_s and send the product (the
/// partial solution segment) to the owner of diag(target(b)), or apply it locally.
/// Backward (L^T X = Y): the owner of diag(s) waits for L(b)^T x_{target(b)} from each
/// off-diagonal block b of s, solves with L(s, s)^T, and sends x_s to the owners of the
/// blocks targeting s. Message counts are exact, so no stray traffic is left.
/// A message is a header (kind, id, total bytes) and the payload, sent in int-sized pieces
/// (kspd_sparse_mpi_chunked.hpp); the receiver takes the first piece where it probed and
/// the rest from the same source and tag (MPI keeps their order).

#include <mpi.h>

#include <chrono>
#include <cstring>
#include <deque>
#include <vector>

#include "kspd_host_blas.hpp"
#include "kspd_sparse_mpi_layout.hpp"

namespace kspd::sparse::Impl {

template <class Scalar>
class MpiSolve {
 public:
  MpiSolve(const Symbolic& S, const MpiLayout& L, MPI_Comm comm, const Scalar* panels,
           const std::vector<size_type>& loc_off, DistributedStats& st)
      : S_(S), L_(L), comm_(comm), v_(panels), loc_(loc_off), st_(st) {
    const size_type ns = size_type(S.snodes.size());
    in_.assign(size_t(ns), {});
    for (size_type b = 0; b < size_type(S.blocks.size()); ++b)
      if (S.blocks[size_t(b)].row_offset != 0) in_[size_t(S.blocks[size_t(b)].target)].push_back(b);
  }

  /// X: nloc x nrhs (ld = nloc) local rows of B in, of X out (permuted numbering).
  void solve(Scalar* X, size_type nloc, size_type nrhs) {
    X_ = X;
    ld_ = nloc;
    nrhs_ = nrhs;
    phase(true);
    phase(false);
  }

 private:
  /// Block b in its supernode's panel (ld: ld(b)).
  const Scalar* blk(size_type b) const {
    const Block& B = S_.blocks[size_t(b)];
    return v_ + S_.snodes[size_t(B.snode)].value_offset + B.row_offset;
  }
  size_type ld(size_type b) const { return S_.snodes[size_t(S_.blocks[size_t(b)].snode)].nrows(); }
  bool local(size_type b) const { return L_.local_block(S_, b); }
  Scalar* seg(size_type s) { return X_ + loc_[size_t(s)]; }

  void phase(bool forward) {
    const size_type ns = size_type(S_.snodes.size());
    const int tag = forward ? kTagFwd : kTagBwd;
    count_.assign(size_t(ns), 0);
    size_type items = 0;  // local diagonal solves + local off-diagonal block products
    std::vector<size_type> ready;
    for (size_type s = 0; s < ns; ++s) {
      const Supernode& sn = S_.snodes[size_t(s)];
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) items += local(b);
      if (!local(sn.block_begin)) continue;
      ++items;
      count_[size_t(s)] = forward ? int(in_[size_t(s)].size()) : int(sn.block_end - sn.block_begin - 1);
      if (count_[size_t(s)] == 0) ready.push_back(s);
    }
    size_type done = 0;
    std::vector<char> buf;
    while (done < items) {
      if (!ready.empty()) {
        const size_type s = ready.back();
        ready.pop_back();
        done += diag_solve(s, forward, tag, ready);
        continue;
      }
      MPI_Status status;
      const auto w0 = std::chrono::steady_clock::now();
      KSPD_MPI_SAFE_CALL(MPI_Probe(MPI_ANY_SOURCE, tag, comm_, &status));
      st_.solve_wait_seconds += std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
      const int src = status.MPI_SOURCE;
      size_t have = 0;
      for (;;) {  // the pieces up to the end of the header
        int bytes = 0;
        KSPD_MPI_SAFE_CALL(MPI_Get_count(&status, MPI_BYTE, &bytes));
        KSPD_REQUIRE(bytes >= 0 && bytes != MPI_UNDEFINED, Error, "kspd::sparse (MPI): internal error: bad solve message");
        buf.resize(have + size_t(bytes));
        KSPD_MPI_SAFE_CALL(MPI_Recv(buf.data() + have, bytes, MPI_BYTE, src, tag, comm_, MPI_STATUS_IGNORE));
        have += size_t(bytes);
        if (have >= kHeader) break;
        KSPD_MPI_SAFE_CALL(MPI_Probe(src, tag, comm_, &status));
      }
      std::int64_t hdr[3];
      std::memcpy(hdr, buf.data(), sizeof(hdr));
      if (size_t(hdr[2]) > have) {  // the rest of the payload
        buf.resize(size_t(hdr[2]));
        recv_n(buf.data() + have, std::int64_t(hdr[2]) - std::int64_t(have), src, tag, comm_);
      }
      const Scalar* data = reinterpret_cast<const Scalar*>(buf.data() + kHeader);
      tmp_.assign(data, data + (size_t(hdr[2]) - kHeader) / sizeof(Scalar));
      if (hdr[0] == 0) done += segment_arrived(size_type(hdr[1]), tmp_, forward, tag, ready);
      else apply(size_type(hdr[1]), tmp_.data(), forward, ready);
    }
    wait_all(reqs_);
    out_.clear();
  }

  /// Solve with the diagonal block of s; then fan the segment out. Returns items done.
  size_type diag_solve(size_type s, bool forward, int tag, std::vector<size_type>& ready) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols;
    kspd::Impl::host::trsm('L', 'L', forward ? 'N' : 'T', 'N', k, nrhs_, Scalar(1), blk(sn.block_begin), sn.nrows(), seg(s), ld_);
    std::vector<Scalar> y(size_t(k * nrhs_));
    for (size_type r = 0; r < nrhs_; ++r)
      for (size_type i = 0; i < k; ++i) y[size_t(i + r * k)] = seg(s)[i + r * ld_];
    // Ranks holding consumers: forward, the off-diagonal blocks of s; backward, the blocks
    // targeting s.
    std::vector<char> mark(size_t(L_.nranks), 0);
    auto consider = [&](size_type b) {
      const int r = L_.block_owner(S_, b);
      if (r != L_.rank && !mark[size_t(r)]) {
        mark[size_t(r)] = 1;
        send(r, tag, 0, s, y.data(), k * nrhs_);
      }
    };
    if (forward)
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) consider(b);
    else
      for (size_type b : in_[size_t(s)]) consider(b);
    return 1 + segment_arrived(s, y, forward, tag, ready);
  }

  /// The segment of supernode s (y_s or x_s) is known here: run the local block products
  /// that need it. Returns the number of products run.
  size_type segment_arrived(size_type s, const std::vector<Scalar>& y, bool forward, int tag,
                            std::vector<size_type>& ready) {
    size_type n = 0;
    const Supernode& sn = S_.snodes[size_t(s)];
    if (forward) {
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) {
        if (!local(b)) continue;
        const Block& B = S_.blocks[size_t(b)];
        c_.assign(size_t(B.nrows * nrhs_), Scalar(0));
        kspd::Impl::host::gemm('N', 'N', B.nrows, nrhs_, sn.ncols, Scalar(1), blk(b), ld(b), y.data(), sn.ncols, Scalar(0),
                   c_.data(), B.nrows);
        deliver(b, B.target, tag, ready, forward);
        ++n;
      }
    } else {
      for (size_type b : in_[size_t(s)]) {
        if (!local(b)) continue;
        const Block& B = S_.blocks[size_t(b)];
        const size_type k = S_.snodes[size_t(B.snode)].ncols;
        const size_type* rows = S_.rows.data() + S_.snodes[size_t(B.snode)].row_begin + B.row_offset;
        g_.resize(size_t(B.nrows * nrhs_));
        for (size_type r = 0; r < nrhs_; ++r)
          for (size_type i = 0; i < B.nrows; ++i) g_[size_t(i + r * B.nrows)] = y[size_t(rows[i] - sn.first_col + r * sn.ncols)];
        c_.assign(size_t(k * nrhs_), Scalar(0));
        kspd::Impl::host::gemm('T', 'N', k, nrhs_, B.nrows, Scalar(1), blk(b), ld(b), g_.data(), B.nrows, Scalar(0), c_.data(), k);
        deliver(b, B.snode, tag, ready, forward);
        ++n;
      }
    }
    return n;
  }

  /// The product c_ of block b goes to the owner of diag(dest).
  void deliver(size_type b, size_type dest, int tag, std::vector<size_type>& ready, bool forward) {
    const int r = L_.owner[size_t(dest)];
    if (r == L_.rank) apply(b, c_.data(), forward, ready);
    else send(r, tag, 1, b, c_.data(), size_type(c_.size()));
  }

  /// Subtract a block product from the local segment it updates.
  void apply(size_type b, const Scalar* c, bool forward, std::vector<size_type>& ready) {
    const Block& B = S_.blocks[size_t(b)];
    if (forward) {
      const Supernode& tn = S_.snodes[size_t(B.target)];
      const size_type* rows = S_.rows.data() + S_.snodes[size_t(B.snode)].row_begin + B.row_offset;
      Scalar* x = seg(B.target);
      for (size_type r = 0; r < nrhs_; ++r)
        for (size_type i = 0; i < B.nrows; ++i) x[rows[i] - tn.first_col + r * ld_] -= c[i + r * B.nrows];
      if (--count_[size_t(B.target)] == 0) ready.push_back(B.target);
    } else {
      const size_type k = S_.snodes[size_t(B.snode)].ncols;
      Scalar* x = seg(B.snode);
      for (size_type r = 0; r < nrhs_; ++r)
        for (size_type i = 0; i < k; ++i) x[i + r * ld_] -= c[i + r * k];
      if (--count_[size_t(B.snode)] == 0) ready.push_back(B.snode);
    }
  }

  void send(int r, int tag, std::int64_t kind, size_type id, const Scalar* data, size_type n) {
    out_.emplace_back(kHeader + size_t(n) * sizeof(Scalar));
    std::vector<char>& m = out_.back();
    const std::int64_t hdr[3] = {kind, std::int64_t(id), std::int64_t(m.size())};
    std::memcpy(m.data(), hdr, sizeof(hdr));
    std::memcpy(m.data() + kHeader, data, size_t(n) * sizeof(Scalar));
    isend_n(m.data(), std::int64_t(m.size()), r, tag, comm_, reqs_);
    st_.bytes_sent += double(m.size());
    ++st_.solve_messages_sent;
  }

  static constexpr size_t kHeader = 3 * sizeof(std::int64_t);  ///< kind, id, message bytes

  const Symbolic& S_;
  const MpiLayout& L_;
  MPI_Comm comm_;
  const Scalar* v_;
  const std::vector<size_type>& loc_;
  DistributedStats& st_;
  std::vector<std::vector<size_type>> in_;
  std::vector<int> count_;
  Scalar* X_ = nullptr;
  size_type ld_ = 0, nrhs_ = 0;
  std::vector<Scalar> c_, g_, tmp_;
  std::deque<std::vector<char>> out_;
  std::deque<MPI_Request> reqs_;
};

}  // namespace kspd::sparse::Impl
#endif
