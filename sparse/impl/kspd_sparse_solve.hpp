#ifndef KSPD_SPARSE_SOLVE_HPP
#define KSPD_SPARSE_SOLVE_HPP
/// \file kspd_sparse_solve.hpp
/// The host supernodal triangular solves on the permuted system, on `threads` std::threads:
/// forward L Y = B (per supernode: the diagonal triangle, the rows below times the solved
/// rows, subtracted from the rows they belong to), backward L^T X = Y (the rows below
/// gathered, their product subtracted, the transposed triangle). The schedule is
/// HostSolvePlan's: leaf subtrees in parallel (their updates outside them through private
/// buffers), then the top of the tree, its large panels shared by all threads in fixed
/// chunks; backward the top first, then the subtrees. Right-hand sides go in blocks of
/// kCols columns; with at least as many blocks as threads each thread takes whole blocks
/// through the top of the tree.
/// Every sum runs in an order fixed by the tree and the number of right-hand sides: the
/// result has the same bits for every thread count.

#include <algorithm>
#include <atomic>
#include <climits>
#include <cmath>
#include <condition_variable>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_host_solve_plan.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_solve_leaves.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// A reusable barrier for a fixed team: spins briefly, then sleeps on a condition variable
/// (on a shared machine a spinning or yielding waiter can hold the core its partner needs:
/// a 2-thread solve of elasticity 16^3 once took 122 ms instead of 8 on the loaded VM).
class SolveBarrier {
 public:
  explicit SolveBarrier(int n = 1) : n_(n) {}
  void reset(int n) { n_ = n; }
  void wait() {
    if (n_ <= 1) return;
    const int g = gen_.load(std::memory_order_acquire);
    if (count_.fetch_add(1, std::memory_order_acq_rel) + 1 == n_) {
      count_.store(0, std::memory_order_relaxed);
      {
        std::lock_guard<std::mutex> lk(m_);
        gen_.fetch_add(1, std::memory_order_release);
      }
      cv_.notify_all();
      return;
    }
    for (int spin = 0; spin < 2000; ++spin)
      if (gen_.load(std::memory_order_acquire) != g) return;
    std::unique_lock<std::mutex> lk(m_);
    cv_.wait(lk, [&] { return gen_.load(std::memory_order_acquire) != g; });
  }

 private:
  int n_;
  std::atomic<int> count_{0}, gen_{0};
  std::mutex m_;
  std::condition_variable cv_;
};

template <class Scalar>
class HostSolve {
 public:
  static constexpr size_type kCols = 16;  ///< right-hand sides per block

  HostSolve(const Symbolic& S, const HostSolvePlan& P, const Scalar* values, Scalar* W, size_type nrhs, size_type ldw)
      : S_(S), P_(P), v_(values), W_(W), nrhs_(nrhs), ldw_(ldw) {
    cw_ = nrhs <= kCols ? nrhs : kCols;
    nb_ = (nrhs + cw_ - 1) / cw_;
  }

  /// The number of threads the solve is worth (small systems: one).
  int useful_threads(int threads) const {
    const double work = P_.work * double(nrhs_);
    int T = std::max(1, threads);
    if (P_.work_per_thread > 0)  // (threads would cost more than they save)
      T = int(std::min<double>(T, std::max(1.0, std::floor(work / P_.work_per_thread))));
    const size_type items = size_type(P_.task_root.size()) * nb_;
    return int(std::max<size_type>(1, std::min<size_type>(T, std::max<size_type>(items, 1))));
  }

  void run(SolvePart part, int threads) {
    KSPD_REQUIRE(ldw_ <= INT_MAX && P_.max_rows <= INT_MAX && cw_ <= INT_MAX, InvalidArgument,
                 "kspd::sparse::solve: n = " << ldw_ << " does not fit the 32-bit host BLAS interface");
    fwd_ = int(part) & int(SolvePart::Forward);
    bwd_ = int(part) & int(SolvePart::Backward);
    const int T = useful_threads(threads);
    tmp_.assign(size_t(T), std::vector<Scalar>(size_t(std::max<size_type>(P_.max_rows, 1) * cw_)));
    if (fwd_) buf_.resize(size_t(P_.buf_rows * nrhs_));
    size_type chunks = 1;
    for (size_type s : P_.top)
      if (P_.big[size_t(s)]) chunks = std::max(chunks, (S_.snodes[size_t(s)].nrows() + P_.chunk - 1) / P_.chunk);
    // the chunks' partial products of a big backward panel: one slice per team (the team
    // count is known once the threads have started)
    auto setup = [&](int team) {
      part_.resize(size_t((nb_ >= size_type(team) ? team : 1) * chunks * P_.panel * cw_));
      all_.reset(team);
      nteam_ = team;
    };
    if (T == 1) {
      setup(1);
      body(0, 1);
      return;
    }
    // Workers wait for the final count (a refused thread leaves a smaller team, not a hang).
    std::mutex m;
    std::condition_variable cv;
    int team = 0;
    auto worker = [&](int t) {
      {
        std::unique_lock<std::mutex> lk(m);
        cv.wait(lk, [&] { return team > 0; });
        if (t >= team) return;
      }
      body(t, team);
    };
    std::vector<std::thread> pool;
    pool.reserve(size_t(T - 1));
    try {
      for (int t = 1; t < T; ++t) pool.push_back(kspd::Impl::start_thread(worker, t));
    } catch (const std::system_error&) {  // fewer threads: the started ones share the work
    }
    {
      std::lock_guard<std::mutex> lk(m);
      setup(int(pool.size()) + 1);
      team = int(pool.size()) + 1;
    }
    cv.notify_all();
    body(0, team);
    for (auto& th : pool) th.join();
  }

 private:
  void body(int t, int T) {
    const size_type nt = size_type(P_.task_root.size());
    if (fwd_)
      for (size_type q; (q = next_.fetch_add(1)) < nt * nb_;) forward_task(P_.task_order[size_t(q / nb_)], q % nb_, t);
    all_.wait();
    if (nb_ >= size_type(T)) {  // whole blocks per thread through the top
      for (size_type b; (b = next_top_.fetch_add(1)) < nb_;) top(b, 0, 1, t, nullptr);
    } else {
      for (size_type b = 0; b < nb_; ++b) top(b, t, T, t, &all_);
    }
    all_.wait();
    if (bwd_)
      for (size_type q; (q = next_bwd_.fetch_add(1)) < nt * nb_;) backward_task(P_.task_order[size_t(q / nb_)], q % nb_, t);
  }

  size_type ncols(size_type b) const { return std::min(cw_, nrhs_ - b * cw_); }
  Scalar* block(size_type b) const { return W_ + b * cw_ * ldw_; }
  Scalar* task_buf(size_type t, size_type b) const {
    const Supernode& rn = S_.snodes[size_t(P_.task_root[size_t(t)])];
    return const_cast<Scalar*>(buf_.data()) + P_.buf_off[size_t(t)] * nrhs_ + b * cw_ * (rn.nrows() - rn.ncols);
  }

  /// Forward on supernode s: rows inside its task (n_int of them) straight into W, the
  /// others added into buf (ld mb) at their slots.
  void forward_snode(size_type s, Scalar* Wb, size_type nr, Scalar* tmp, Scalar* buf, size_type mb) const {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const Scalar* L = v_ + sn.value_offset;
    Scalar* X = Wb + sn.first_col;
    leaves::diag_forward(L, k, ld, X, ldw_, nr);
    if (m == 0) return;
    leaves::below_forward(L + k, m, k, ld, X, ldw_, nr, tmp, m);
    const size_type* rows = S_.rows.data() + sn.row_begin + k;
    const size_type* slot = P_.slot.data() + sn.row_begin + k;
    const size_type ni = P_.n_int[size_t(s)];
    for (size_type r = 0; r < nr; ++r) {
      Scalar* w = Wb + r * ldw_;
      const Scalar* c = tmp + r * m;
      for (size_type i = 0; i < ni; ++i) w[rows[i]] -= c[i];
      Scalar* bb = buf + r * mb;
      for (size_type i = ni; i < m; ++i) bb[slot[i]] += c[i];
    }
  }

  void backward_snode(size_type s, Scalar* Wb, size_type nr, Scalar* tmp) const {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const Scalar* L = v_ + sn.value_offset;
    Scalar* X = Wb + sn.first_col;
    if (m > 0) {
      const size_type* rows = S_.rows.data() + sn.row_begin + k;
      for (size_type r = 0; r < nr; ++r) {
        const Scalar* w = Wb + r * ldw_;
        Scalar* g = tmp + r * m;
        for (size_type i = 0; i < m; ++i) g[i] = w[rows[i]];
      }
      leaves::below_backward(L + k, m, k, ld, tmp, m, nr, X, ldw_, true);
    }
    leaves::diag_backward(L, k, ld, X, ldw_, nr);
  }

  void forward_task(size_type t, size_type b, int th) {
    const size_type nr = ncols(b);
    const Supernode& rn = S_.snodes[size_t(P_.task_root[size_t(t)])];
    const size_type mb = rn.nrows() - rn.ncols;
    Scalar* buf = task_buf(t, b);
    for (size_type i = 0; i < mb * nr; ++i) buf[i] = Scalar(0);
    Scalar* tmp = tmp_[size_t(th)].data();
    for (size_type s = P_.task_first[size_t(t)]; s <= P_.task_root[size_t(t)]; ++s) forward_snode(s, block(b), nr, tmp, buf, mb);
  }

  void backward_task(size_type t, size_type b, int th) {
    Scalar* tmp = tmp_[size_t(th)].data();
    for (size_type s = P_.task_root[size_t(t)]; s >= P_.task_first[size_t(t)]; --s) backward_snode(s, block(b), ncols(b), tmp);
  }

  /// Block b through the top of the tree by a team of T (rank r; bar: its barrier).
  void top(size_type b, int r, int T, int th, SolveBarrier* bar) {
    const size_type nr = ncols(b);
    Scalar* Wb = block(b);
    Scalar* tmp = tmp_[size_t(th)].data();
    auto sync = [&] {
      if (bar) bar->wait();
    };
    if (fwd_) {
      if (r == 0)  // the tasks' buffers, in task order
        for (size_type t = 0; t < size_type(P_.task_root.size()); ++t) {
          const Supernode& rn = S_.snodes[size_t(P_.task_root[size_t(t)])];
          const size_type mb = rn.nrows() - rn.ncols;
          const size_type* rows = S_.rows.data() + rn.row_begin + rn.ncols;
          const Scalar* buf = task_buf(t, b);
          for (size_type c = 0; c < nr; ++c)
            for (size_type i = 0; i < mb; ++i) Wb[rows[i] + c * ldw_] -= buf[i + c * mb];
        }
      for (size_type s : P_.top) {
        if (!P_.big[size_t(s)]) {
          if (r == 0) forward_snode(s, Wb, nr, tmp, nullptr, 0);
          continue;
        }
        sync();  // rank 0's small supernodes are done
        forward_big(s, Wb, nr, tmp, r, T, sync);
      }
    }
    if (bwd_) {
      for (size_t q = P_.top.size(); q-- > 0;) {
        const size_type s = P_.top[q];
        if (!P_.big[size_t(s)]) {
          if (r == 0) backward_snode(s, Wb, nr, tmp);
          continue;
        }
        sync();
        backward_big(s, Wb, nr, tmp, r, T, sync, th);
      }
    }
    sync();
  }

  /// A big panel: column panels of P_.panel; rank 0 solves each triangle, then the product
  /// of the rows below it goes in chunks of P_.chunk rows, chunk c on rank c % T.
  template <class Sync>
  void forward_big(size_type s, Scalar* Wb, size_type nr, Scalar* tmp, int r, int T, Sync& sync) const {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows();
    const Scalar* L = v_ + sn.value_offset;
    Scalar* X = Wb + sn.first_col;
    const size_type* rows = S_.rows.data() + sn.row_begin;
    const size_type NP = P_.panel, NC = P_.chunk;
    for (size_type p = 0; p < k; p += NP) {
      const size_type pk = std::min(NP, k - p);
      if (r == 0) leaves::diag_forward(L + p + p * ld, pk, ld, X + p, ldw_, nr);
      sync();
      const size_type q0 = p + pk, nq = ld - q0;
      for (size_type c = 0; c * NC < nq; ++c) {
        if (int(c % size_type(T)) != r) continue;
        const size_type i0 = q0 + c * NC, mi = std::min(NC, ld - i0);
        leaves::below_forward(L + i0 + p * ld, mi, pk, ld, X + p, ldw_, nr, tmp, mi);
        for (size_type cc = 0; cc < nr; ++cc) {
          Scalar* w = Wb + cc * ldw_;
          for (size_type i = 0; i < mi; ++i) w[rows[i0 + i]] -= tmp[i + cc * mi];
        }
      }
      sync();
    }
  }

  /// Backward on a big panel, the last column panel first: each chunk's product into its
  /// slot of part_, then the ranks subtract them in chunk order (32 columns each), and
  /// rank 0 solves the triangle.
  template <class Sync>
  void backward_big(size_type s, Scalar* Wb, size_type nr, Scalar* tmp, int r, int T, Sync& sync, int th) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows();
    const Scalar* L = v_ + sn.value_offset;
    Scalar* X = Wb + sn.first_col;
    const size_type* rows = S_.rows.data() + sn.row_begin;
    const size_type NP = P_.panel, NC = P_.chunk;
    // a team of one (whole blocks per thread) has its own slice of part_
    Scalar* part = part_.data() + (T == 1 ? size_type(th) * (part_.size() / size_t(nteam_)) : 0);
    for (size_type p = ((k - 1) / NP) * NP; p >= 0; p -= NP) {
      const size_type pk = std::min(NP, k - p);
      const size_type q0 = p + pk, nq = ld - q0, nchunk = (nq + NC - 1) / NC;
      for (size_type c = 0; c < nchunk; ++c) {
        if (int(c % size_type(T)) != r) continue;
        const size_type i0 = q0 + c * NC, mi = std::min(NC, ld - i0);
        for (size_type cc = 0; cc < nr; ++cc) {
          const Scalar* w = Wb + cc * ldw_;
          for (size_type i = 0; i < mi; ++i) tmp[i + cc * mi] = w[rows[i0 + i]];
        }
        leaves::below_backward(L + i0 + p * ld, mi, pk, ld, tmp, mi, nr, part + c * NP * nr, pk, false);
      }
      sync();
      // the chunks' products subtracted in chunk order, groups of 32 columns per rank
      constexpr size_type G = 32;
      for (size_type j0 = 0, grp = 0; j0 < pk; j0 += G, ++grp) {
        if (T > 1 && int(grp % size_type(T)) != r) continue;
        const size_type j1 = std::min(pk, j0 + G);
        for (size_type c = 0; c < nchunk; ++c)
          for (size_type cc = 0; cc < nr; ++cc)
            for (size_type j = j0; j < j1; ++j) X[p + j + cc * ldw_] -= part[c * NP * nr + j + cc * pk];
      }
      if (T > 1) sync();
      if (r == 0) leaves::diag_backward(L + p + p * ld, pk, ld, X + p, ldw_, nr);
      sync();
    }
  }

  const Symbolic& S_;
  const HostSolvePlan& P_;
  const Scalar* v_;
  Scalar* W_;
  size_type nrhs_, ldw_, cw_ = 1, nb_ = 1;
  bool fwd_ = true, bwd_ = true;
  std::vector<std::vector<Scalar>> tmp_;
  std::vector<Scalar> buf_, part_;
  SolveBarrier all_;
  int nteam_ = 1;
  std::atomic<size_type> next_{0}, next_top_{0}, next_bwd_{0};
};

/// W: n x nrhs, column-major with leading dimension ldw, in the permuted numbering.
template <class Scalar>
void supernodal_solve(const Symbolic& S, const HostSolvePlan& P, const Scalar* values, Scalar* W, size_type nrhs,
                      size_type ldw, SolvePart part, int threads) {
  if (nrhs <= 0 || S.n == 0) return;
  HostSolve<Scalar>(S, P, values, W, nrhs, ldw).run(part, threads);
}

}  // namespace kspd::sparse::Impl
#endif
