#ifndef KSPD_SPARSE_MPI_FACTOR_HPP
#define KSPD_SPARSE_MPI_FACTOR_HPP
/// \file kspd_sparse_mpi_factor.hpp
/// The distributed fan-out factorization (symPACK, section 3.3/3.4) over MPI.
///
/// Tasks, each run by the owner of the block it writes:
///   D(s)          potrf of the diagonal block of s;
///   F(b)          trsm of the off-diagonal block b of s with L(s, s);
///   U(s, b1, b2)  (b1 <= b2 off-diagonal blocks of s) the product L(b2) L(b1)^T scattered
///                 into the block of target(b1) whose rows belong to target(b2).
/// Fan-out: updates are computed by the owner of the updated block from the two source
/// blocks, so no partial sums travel. A finished factor block (D, F) is announced with a
/// small MPI_Isend of its block id to every other rank that runs a consumer; the consumer
/// pulls the block with MPI_Get from the producer's window (passive target, lock_all once,
/// flush per get) and decrements its consumers' dependency counters. Single-threaded
/// progress: MPI_Iprobe between tasks, a blocking MPI_Probe when nothing is ready.
/// Errors: a failing potrf sends an abort notice to every rank; after the loop, message
/// counts are exchanged (so every message is received: no stray traffic) and the failure
/// with the smallest column is agreed with MPI_Allreduce; every rank throws the same error.

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <deque>
#include <limits>
#include <map>
#include <queue>
#include <sstream>
#include <unordered_map>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_host_blas.hpp"
#include "kspd_sparse_mpi_layout.hpp"

namespace kspd::sparse::Impl {

template <class Scalar>
class MpiFactor {
  using clock = std::chrono::steady_clock;
  static double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

 public:
  /// one_sided: pull blocks with MPI_Get from a window (falls back to two-sided when the
  /// window cannot be created on every rank); false: request/reply messages.
  MpiFactor(const Symbolic& S, const MpiLayout& L, MPI_Comm comm, std::vector<Scalar>& values, DistributedStats& st,
            bool one_sided = true)
      : S_(S), L_(L), comm_(comm), v_(values), st_(st), want_rma_(one_sided) {}

  /// Factors the local blocks in place (values hold A's entries of the owned blocks).
  void run() {
    const auto t0 = clock::now();
    setup();
    // One rank needs no window (and some one-sided components refuse a singleton).
    rma_ = false;
    if (L_.nranks > 1 && want_rma_) {
      int ok = MPI_Win_create(v_.data(), MPI_Aint(v_.size() * sizeof(Scalar)), int(sizeof(Scalar)), MPI_INFO_NULL, comm_,
                              &win_) == MPI_SUCCESS;
      int all = 0;
      MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_);
      rma_ = all == 1;
      if (rma_) MPI_Win_lock_all(MPI_MODE_NOCHECK, win_);
      else if (ok) MPI_Win_free(&win_);  // a window on every rank or on none
    }
    st_.one_sided = rma_;
    size_type done = 0;
    while (done < ntasks_local_ && !failed_) {
      poll(false);
      while (!pending_.empty() && !failed_) {  // notices that arrived during a two-sided fetch
        const size_type b = pending_.front();
        pending_.pop_front();
        deliver(b);
      }
      if (failed_) break;
      if (ready_.empty()) {
        const auto w0 = clock::now();
        poll(true);
        st_.wait_seconds += since(w0);
        continue;
      }
      const size_type t = ready_.top().second;
      ready_.pop();
      run_task(t);
      ++done;
    }
    finish();
    if (rma_) {
      MPI_Win_unlock_all(win_);
      MPI_Win_free(&win_);
    }
    st_.factor_seconds = since(t0);
    agree_on_error();
  }

 private:
  struct UTask {
    size_type s, b1, b2, tblock;
  };
  struct Cached {
    std::vector<Scalar> data;
    int uses = 0;
  };

  // Task ids: D(s) = s; F(b) = ns + b; U(k) = ns + nblocks + k (local list index).
  size_type ns() const { return size_type(S_.snodes.size()); }
  size_type nb() const { return size_type(S_.blocks.size()); }
  static std::int64_t key(size_type b1, size_type b2) { return (std::int64_t(b1) << 32) ^ std::int64_t(b2); }
  size_type ublock(size_type b1, size_type b2) const {
    return MpiLayout::find_block(S_, S_.blocks[size_t(b1)].target, S_.blocks[size_t(b2)].target);
  }

  void setup() {
    deps_.assign(size_t(ns() + nb()), 0);
    utasks_.clear();
    ukey_.clear();
    ntasks_local_ = 0;
    for (size_type s = 0; s < ns(); ++s) {
      const Supernode& sn = S_.snodes[size_t(s)];
      if (L_.local(sn.block_begin)) ++ntasks_local_;
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b)
        if (L_.local(b)) {
          ++ntasks_local_;
          deps_[size_t(ns() + b)] = 1;
        }
    }
    for (size_type s = 0; s < ns(); ++s) {
      const Supernode& sn = S_.snodes[size_t(s)];
      for (size_type b1 = sn.block_begin + 1; b1 < sn.block_end; ++b1)
        for (size_type b2 = b1; b2 < sn.block_end; ++b2) {
          const size_type tb = ublock(b1, b2);
          if (!L_.local(tb)) continue;
          const Block& t = S_.blocks[size_t(tb)];
          ++deps_[size_t(t.row_offset == 0 ? t.target : ns() + tb)];
          ukey_[key(b1, b2)] = size_type(utasks_.size());
          utasks_.push_back(UTask{s, b1, b2, tb});
        }
    }
    ntasks_local_ += size_type(utasks_.size());
    udeps_.assign(utasks_.size(), 0);
    for (size_t k = 0; k < utasks_.size(); ++k) udeps_[k] = utasks_[k].b1 == utasks_[k].b2 ? 1 : 2;
    st_.local_tasks = ntasks_local_;
    ready_ = {};
    for (size_type s = 0; s < ns(); ++s)
      if (L_.local(S_.snodes[size_t(s)].block_begin) && deps_[size_t(s)] == 0) push(s);
    cache_.clear();
    sent_to_.assign(size_t(L_.nranks), 0);
    recv_from_.assign(size_t(L_.nranks), 0);
    failed_ = false;
    fail_col_ = std::numeric_limits<std::int64_t>::max();
  }

  void push(size_type t) {
    // Priority: the supernode whose column the task advances (smaller first).
    size_type key = t;
    if (t >= ns() + nb()) key = S_.blocks[size_t(utasks_[size_t(t - ns() - nb())].tblock)].snode;
    else if (t >= ns()) key = S_.blocks[size_t(t - ns())].snode;
    ready_.push({key, t});
  }

  const Scalar* block_ptr(size_type b) const {
    if (L_.local(b)) return v_.data() + L_.offset[size_t(b)];
    auto it = cache_.find(b);
    KSPD_REQUIRE(it != cache_.end(), Error, "kspd::sparse (MPI): internal error: block " << b << " not fetched");
    return it->second.data.data();
  }
  void release(size_type b) {
    if (L_.local(b)) return;
    auto it = cache_.find(b);
    if (--it->second.uses == 0) cache_.erase(it);
  }

  void run_task(size_type t) {
    if (t < ns()) return diag(t);
    if (t < ns() + nb()) return trsm(t - ns());
    const UTask& u = utasks_[size_t(t - ns() - nb())];
    const Supernode& sn = S_.snodes[size_t(u.s)];
    const Block &B1 = S_.blocks[size_t(u.b1)], &B2 = S_.blocks[size_t(u.b2)], &T = S_.blocks[size_t(u.tblock)];
    const Supernode& tn = S_.snodes[size_t(T.snode)];
    const size_type k = sn.ncols, m1 = B1.nrows, m2 = B2.nrows;
    const Scalar *a1 = block_ptr(u.b1), *a2 = block_ptr(u.b2);
    c_.resize(size_t(m1 * m2));
    if (u.b1 == u.b2) kspd::Impl::host::syrk('L', 'N', m1, k, Scalar(1), a1, m1, Scalar(0), c_.data(), m1);
    else kspd::Impl::host::gemm('N', 'T', m2, m1, k, Scalar(1), a2, m2, a1, m1, Scalar(0), c_.data(), m2);
    st_.flops += u.b1 == u.b2 ? double(m1) * double(m1 + 1) * double(k) : 2.0 * double(m1) * double(m2) * double(k);
    // Scatter: rows of B2 -> rows of T (a superset), columns = rows of B1 - first column of T.
    const size_type* r1 = S_.rows.data() + sn.row_begin + B1.row_offset;
    const size_type* r2 = S_.rows.data() + sn.row_begin + B2.row_offset;
    const size_type* rt = S_.rows.data() + tn.row_begin + T.row_offset;
    rel_.resize(size_t(m2));
    for (size_type i = 0, q = 0; i < m2; ++i) {
      while (rt[q] != r2[i]) ++q;
      rel_[size_t(i)] = q;
    }
    Scalar* pt = v_.data() + L_.offset[size_t(u.tblock)];
    for (size_type j = 0; j < m1; ++j) {
      Scalar* col = pt + (r1[j] - tn.first_col) * T.nrows;
      const Scalar* cj = c_.data() + j * m2;
      for (size_type i = u.b1 == u.b2 ? j : 0; i < m2; ++i) col[rel_[size_t(i)]] -= cj[i];
    }
    release(u.b1);
    if (u.b2 != u.b1) release(u.b2);
    const size_type target = T.row_offset == 0 ? T.snode : ns() + u.tblock;
    if (--deps_[size_t(target)] == 0) push(target);
  }

  void diag(size_type s) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols;
    Scalar* p = v_.data() + L_.offset[size_t(sn.block_begin)];
    dsave_.assign(p, p + k * k);
    const int info = kspd::Impl::host::potrf('L', k, p, k);
    st_.flops += double(k) * double(k) * double(k) / 3.0;
    if (info != 0) return fail(s, info);
    announce(sn.block_begin);
  }

  void trsm(size_type b) {
    const Block& blk = S_.blocks[size_t(b)];
    const Supernode& sn = S_.snodes[size_t(blk.snode)];
    const size_type k = sn.ncols;
    kspd::Impl::host::trsm('R', 'L', 'T', 'N', blk.nrows, k, Scalar(1), block_ptr(sn.block_begin), k,
               v_.data() + L_.offset[size_t(b)], blk.nrows);
    st_.flops += double(blk.nrows) * double(k) * double(k);
    release(sn.block_begin);
    announce(b);
  }

  /// The consumers of a finished factor block b: (rank, local task) pairs, via f(rank, task).
  template <class F>
  void consumers(size_type b, F&& f) const {
    const Block& blk = S_.blocks[size_t(b)];
    const Supernode& sn = S_.snodes[size_t(blk.snode)];
    if (blk.row_offset == 0) {
      for (size_type c = sn.block_begin + 1; c < sn.block_end; ++c) f(L_.owner[size_t(c)], b, c);
      return;
    }
    for (size_type c = sn.block_begin + 1; c < sn.block_end; ++c) {
      const size_type b1 = std::min(b, c), b2 = std::max(b, c);
      f(L_.owner[size_t(ublock(b1, b2))], b1, b2);
    }
  }

  /// Producer side: notify every other rank with a consumer (once per rank), then deliver
  /// locally.
  void announce(size_type b) {
    marks_.assign(size_t(L_.nranks), 0);
    consumers(b, [&](int r, size_type, size_type) {
      if (r == L_.rank || marks_[size_t(r)]) return;
      marks_[size_t(r)] = 1;
      send(r, kTagNotice, double(b), 0, 0);
    });
    deliver(b);
  }

  void send(int r, int tag, double a, double c, double d) {
    sends_.push_back(Outgoing{{a, c, d}, MPI_REQUEST_NULL});
    Outgoing& o = sends_.back();
    mpi_check(MPI_Isend(o.buf, 3, MPI_DOUBLE, r, tag, comm_, &o.req), "MPI_Isend");
    ++sent_to_[size_t(r)];
    ++st_.messages_sent;
    st_.bytes_sent += 3 * sizeof(double);
    // Retire completed sends from the front.
    while (!sends_.empty()) {
      int flag = 0;
      MPI_Test(&sends_.front().req, &flag, MPI_STATUS_IGNORE);
      if (!flag) break;
      sends_.pop_front();
    }
  }

  /// Consumer side: decrement the counters of the local consumers of block b (fetching it
  /// first when it lives elsewhere).
  void deliver(size_type b) {
    const bool remote = !L_.local(b);
    int uses = 0;
    const bool is_diag = S_.blocks[size_t(b)].row_offset == 0;
    consumers(b, [&](int r, size_type x, size_type y) {
      if (r != L_.rank) return;
      ++uses;
      if (is_diag) {
        if (--deps_[size_t(ns() + y)] == 0) push(ns() + y);
      } else {
        const size_type k = ukey_.at(key(x, y));
        if (--udeps_[size_t(k)] == 0) push(ns() + nb() + k);
      }
    });
    // Every local consumer task reads b once and releases it once.
    if (!remote || uses == 0) return;
    Cached& c = cache_[b];
    c.uses = uses;
    c.data.resize(size_t(L_.block_size(S_, b)));
    const auto w0 = clock::now();
    const int src = L_.owner[size_t(b)];
    if (!rma_) {
      fetch_two_sided(b, src, c.data);
      st_.wait_seconds += since(w0);
      st_.bytes_get += double(c.data.size() * sizeof(Scalar));
      ++st_.gets;
      return;
    }
    mpi_check(MPI_Get(c.data.data(), int(c.data.size()), mpi_type<Scalar>(), src, MPI_Aint(L_.offset[size_t(b)]),
                      int(c.data.size()), mpi_type<Scalar>(), win_),
              "MPI_Get");
    mpi_check(MPI_Win_flush(src, win_), "MPI_Win_flush");
    st_.wait_seconds += since(w0);
    st_.bytes_get += double(c.data.size() * sizeof(Scalar));
    ++st_.gets;
  }

  /// Receives pending messages; with block = true waits for at least one.
  void poll(bool block) {
    for (;;) {
      MPI_Status status;
      int flag = 0;
      if (block) {
        mpi_check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &status), "MPI_Probe");
        flag = 1;
        block = false;
      } else {
        MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
      }
      if (!flag) return;
      receive(status, true);
      if (failed_) return;
    }
  }

  void receive(const MPI_Status& status, bool act) {
    double buf[3];
    mpi_check(MPI_Recv(buf, 3, MPI_DOUBLE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE), "MPI_Recv");
    ++recv_from_[size_t(status.MPI_SOURCE)];
    if (status.MPI_TAG == kTagAbort) {
      record_failure(std::int64_t(buf[0]), buf[1], int(buf[2]));
    } else if (status.MPI_TAG == kTagRequest) {
      serve(size_type(buf[0]), status.MPI_SOURCE);  // always, even after a failure
    } else if (act && !failed_) {
      if (in_fetch_) pending_.push_back(size_type(buf[0]));
      else deliver(size_type(buf[0]));
    }
  }

  /// Two-sided pull: ask the owner for block b and wait for it, serving the requests and
  /// keeping the notices that arrive meanwhile (no deadlock: every rank serves while it waits).
  void fetch_two_sided(size_type b, int src, std::vector<Scalar>& out) {
    send(src, kTagRequest, double(b), 0, 0);
    in_fetch_ = true;
    for (;;) {
      MPI_Status status;
      mpi_check(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &status), "MPI_Probe");
      if (status.MPI_TAG == kTagData && status.MPI_SOURCE == src) {
        mpi_check(MPI_Recv(out.data(), int(out.size()), mpi_type<Scalar>(), src, kTagData, comm_, MPI_STATUS_IGNORE),
                  "MPI_Recv");
        ++recv_from_[size_t(src)];
        break;
      }
      receive(status, true);
    }
    in_fetch_ = false;
  }

  /// Owner side of a two-sided pull: the factor block is final, send it from the storage.
  void serve(size_type b, int dst) {
    data_reqs_.emplace_back();
    mpi_check(MPI_Isend(v_.data() + L_.offset[size_t(b)], int(L_.block_size(S_, b)), mpi_type<Scalar>(), dst, kTagData,
                        comm_, &data_reqs_.back()),
              "MPI_Isend");
    ++sent_to_[size_t(dst)];
    ++st_.messages_sent;
  }

  void record_failure(std::int64_t col, double pivot, int rank) {
    if (!failed_ || col < fail_col_) {
      fail_col_ = col;
      fail_pivot_ = pivot;
      fail_rank_ = rank;
    }
    failed_ = true;
  }

  /// A failed potrf: find the pivot again (unblocked, long double), tell every rank.
  void fail(size_type s, int info) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols;
    const auto [bad, pivot] = failing_pivot(dsave_, k, info);
    const std::int64_t orig = std::int64_t(S_.perm[size_t(sn.first_col + bad)]);
    record_failure(orig, double(pivot), L_.rank);
    for (int r = 0; r < L_.nranks; ++r)
      if (r != L_.rank) send(r, kTagAbort, double(orig), double(pivot), double(L_.rank));
  }

  /// After the loop: every message sent to this rank is received (counts exchanged), so
  /// the communicator holds no stray traffic; sends complete.
  void finish() {
    std::vector<std::int64_t> expect(size_t(L_.nranks));
    std::vector<std::int64_t> sent(sent_to_.begin(), sent_to_.end());
    // Complete the sends while draining (a peer may wait for us to receive).
    MPI_Request req;
    MPI_Ialltoall(sent.data(), 1, MPI_INT64_T, expect.data(), 1, MPI_INT64_T, comm_, &req);
    for (;;) {
      int flag = 0;
      MPI_Test(&req, &flag, MPI_STATUS_IGNORE);
      if (flag) break;
      drain_one();
    }
    for (int r = 0; r < L_.nranks; ++r)
      while (recv_from_[size_t(r)] < expect[size_t(r)]) {
        MPI_Status status;
        MPI_Probe(r, MPI_ANY_TAG, comm_, &status);
        receive(status, false);
      }
    for (auto& o : sends_) MPI_Wait(&o.req, MPI_STATUS_IGNORE);
    sends_.clear();
    for (auto& r : data_reqs_) MPI_Wait(&r, MPI_STATUS_IGNORE);
    data_reqs_.clear();
  }
  void drain_one() {
    MPI_Status status;
    int flag = 0;
    MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status);
    if (flag) receive(status, false);
  }

  void agree_on_error() {
    std::int64_t col = failed_ ? fail_col_ : std::numeric_limits<std::int64_t>::max(), mincol = 0;
    MPI_Allreduce(&col, &mincol, 1, MPI_INT64_T, MPI_MIN, comm_);
    if (mincol == std::numeric_limits<std::int64_t>::max()) return;
    // The lowest rank that knows the failure with the smallest column tells the pivot.
    int me = failed_ && fail_col_ == mincol ? L_.rank : L_.nranks, root = 0;
    MPI_Allreduce(&me, &root, 1, MPI_INT, MPI_MIN, comm_);
    double info[2] = {fail_pivot_, double(fail_rank_)};
    MPI_Bcast(info, 2, MPI_DOUBLE, root, comm_);
    std::ostringstream os;
    os << "kspd::sparse::DistributedCholesky::factorize: the matrix is not positive definite: pivot " << info[0]
       << " at column " << mincol << " (0-based, the input's numbering), found on rank " << int(info[1]) << " of "
       << L_.nranks;
    throw NotPositiveDefinite(os.str(), size_type(mincol + 1), info[0]);
  }

  struct Outgoing {
    double buf[3];
    MPI_Request req;
  };

  const Symbolic& S_;
  const MpiLayout& L_;
  MPI_Comm comm_;
  std::vector<Scalar>& v_;
  DistributedStats& st_;
  MPI_Win win_ = MPI_WIN_NULL;
  std::vector<int> deps_, udeps_;
  std::vector<UTask> utasks_;
  std::unordered_map<std::int64_t, size_type> ukey_;
  size_type ntasks_local_ = 0;
  std::priority_queue<std::pair<size_type, size_type>, std::vector<std::pair<size_type, size_type>>,
                      std::greater<std::pair<size_type, size_type>>>
      ready_;
  std::unordered_map<size_type, Cached> cache_;
  std::deque<Outgoing> sends_;
  std::deque<MPI_Request> data_reqs_;
  std::deque<size_type> pending_;
  bool want_rma_ = true, rma_ = false, in_fetch_ = false;
  std::vector<std::int64_t> sent_to_, recv_from_;
  std::vector<char> marks_;
  std::vector<Scalar> c_, dsave_;
  std::vector<size_type> rel_;
  bool failed_ = false;
  std::int64_t fail_col_ = 0;
  double fail_pivot_ = 0;
  int fail_rank_ = -1;
};

}  // namespace kspd::sparse::Impl
#endif
