#ifndef KSPD_SPARSE_UPDATE_HOST_HPP
#define KSPD_SPARSE_UPDATE_HOST_HPP
/// \file kspd_sparse_update_host.hpp
/// The rank-k modification of a host factor (kspd_sparse_update_impl.hpp has the method):
/// the path level by level; the supernodes of a level (different branches, disjoint W
/// columns) on the threads of one UpdatePool, started once per call. Inside a supernode the
/// columns go in blocks of kUpdateBlockCols: the panels of a block one after the other
/// (panel_transform, then the block's rows below the panel by gemm), then all the rows below
/// the block through the block's panels, in pieces that the pool's idle threads share. So
/// only a block's diagonal part is sequential, and a wide supernode (the root separator) is
/// spread over all the threads, with no thread started inside the level loop.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <exception>
#include <functional>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_runtime.hpp"
#include "kspd_sparse_update_impl.hpp"

namespace kspd::sparse::Impl {

/// The host threads of one update call, started once: they help with whichever parallel
/// loop (run) is open, the newest first (the supernodes of a level, the row pieces of a
/// block). The caller of run works on its own loop until no item is left, so a loop opened
/// inside an item of another (a supernode's row pieces) cannot deadlock; a thread works on
/// one item at a time, so per-thread buffers indexed by the thread's id are safe. A thread
/// the system refuses leaves the work to the others.
class UpdatePool {
 public:
  explicit UpdatePool(int threads) {
    try {
      for (int t = 1; t < threads; ++t) threads_.push_back(kspd::Impl::start_thread([this, t] { serve(t); }));
    } catch (const std::system_error&) {  // fewer threads: the started ones and the caller do the work
    }
  }
  UpdatePool(const UpdatePool&) = delete;
  UpdatePool& operator=(const UpdatePool&) = delete;
  ~UpdatePool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    wake_.notify_all();
    for (auto& t : threads_) t.join();
  }
  /// Thread ids are 0 (the pool's owner) .. size() - 1.
  int size() const { return int(threads_.size()) + 1; }
  /// f(i, id) for every i in [0, n), by the calling thread (its id: `id`) and idle pool
  /// threads; returns when all are done, rethrowing the first exception (the items after it
  /// are skipped).
  void run(size_type n, int id, const std::function<void(size_type, int)>& f) {
    if (n <= 0) return;
    Loop L{f, n};
    {
      std::lock_guard<std::mutex> lk(m_);
      open_.push_back(&L);
    }
    if (n > 1) wake_.notify_all();
    work(L, id);
    std::unique_lock<std::mutex> lk(m_);
    open_.erase(std::find(open_.begin(), open_.end(), &L));
    done_.wait(lk, [&] { return L.helpers == 0; });  // helpers finish the items they took
    if (L.error) std::rethrow_exception(L.error);
  }

 private:
  struct Loop {
    const std::function<void(size_type, int)>& f;
    size_type n;
    std::atomic<size_type> next{0};
    std::atomic<bool> failed{false};
    int helpers = 0;  // under m_
    std::exception_ptr error;
    std::mutex em;
  };
  static void work(Loop& L, int id) {
    for (size_type i; (i = L.next.fetch_add(1)) < L.n;) {
      if (L.failed) continue;
      try {
        L.f(i, id);
      } catch (...) {
        std::lock_guard<std::mutex> lk(L.em);
        if (!L.error) L.error = std::current_exception();
        L.failed = true;
      }
    }
  }
  Loop* newest() const {  // under m_
    for (auto it = open_.rbegin(); it != open_.rend(); ++it)
      if ((*it)->next.load() < (*it)->n) return *it;
    return nullptr;
  }
  void serve(int id) {
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      Loop* L = nullptr;
      wake_.wait(lk, [&] { return stop_ || (L = newest()) != nullptr; });
      if (stop_) return;
      ++L->helpers;
      lk.unlock();
      work(*L, id);
      lk.lock();
      if (--L->helpers == 0) done_.notify_all();
    }
  }
  std::vector<std::thread> threads_;
  std::mutex m_;
  std::condition_variable wake_, done_;
  std::vector<Loop*> open_;
  bool stop_ = false;
};

/// One host thread's buffers.
template <class Scalar>
struct UpdateHostWork {
  std::vector<Scalar> ws, q, small, x, rows;
};

/// Columns per block: the diagonal part of a block (kBlockCols^2 / 2 entries) is the
/// sequential part of a supernode.
inline constexpr size_type kUpdateBlockCols = 256;

/// Path supernode q modified in place by thread `id` of the pool, whose idle threads help
/// with the rows below its blocks. wc: the compact W (ncompact x P.k, ld ncompact); infos:
/// two per panel (panel_numbering); work: every thread's buffers.
template <class Scalar>
void update_snode_host(const Symbolic& S, Scalar* vals, const UpdatePlan& P, size_t q, Scalar* wc, Scalar sg,
                       UpdatePool& pool, int id, const std::vector<size_type>& pnum, int* infos,
                       std::vector<UpdateHostWork<Scalar>>& work) {
  UpdateHostWork<Scalar>& w = work[size_t(id)];
  const Supernode& sn = S.snodes[size_t(P.path[q])];
  const size_type m = sn.nrows(), c = sn.ncols, r0 = P.row_begin[q], a0 = P.act_begin[q];
  const size_type k = P.act_begin[q + 1] - a0, nb = update_panel_width(k, false), kb = nb + k, nc = P.ncompact;
  const size_type block = std::max(nb, kUpdateBlockCols / nb * nb);
  Scalar* panel = vals + sn.value_offset;
  w.ws.resize(size_t(m * k));
  w.q.resize(size_t((block / nb) * kb * kb));
  w.small.resize(size_t(panel_small_size(nb, k)));
  w.x.resize(size_t(std::min(block, c) * kb));
  Scalar* ws = w.ws.data();
  for (size_type j = 0; j < k; ++j)  // W's rows of this supernode, active columns (m x k, ld m)
    for (size_type i = 0; i < m; ++i)
      ws[i + j * m] = wc[size_t(P.rmap[size_t(r0 + i)] + P.act[size_t(a0 + j)] * nc)];
  std::vector<PanelQ> pq;
  for (size_type c0 = 0; c0 < c; c0 += block) {
    const size_type c1 = std::min(c, c0 + block);
    pq.clear();
    for (size_type p = c0; p < c1; p += nb) {
      const size_type bw = std::min(nb, c1 - p), qo = size_type(pq.size()) * kb * kb;
      pq.push_back(PanelQ{p, bw, qo});
      Scalar* const Q = w.q.data() + qo;
      panel_transform(HostTeam{}, panel + p + p * m, m, ws + p, m, int(bw), int(k), sg, w.small.data(), Q,
                      infos + 2 * (pnum[q] + p / nb));
      // the block's rows below the panel now: the block's later panels need them
      below_rows(panel, ws, m, k, std::vector<PanelQ>{PanelQ{p, bw, 0}}, Q, p + bw, c1, w.x.data());
    }
    // the rows below the block through all its panels, in pieces (rows are independent; a
    // piece stays in cache through the panels)
    constexpr size_type kChunk = 256;  // rows per piece of work
    const Scalar* qb = w.q.data();
    pool.run((m - c1 + kChunk - 1) / kChunk, id, [&](size_type piece, int t) {
      std::vector<Scalar>& x = work[size_t(t)].rows;
      x.resize(size_t(kChunk * kb));
      below_rows(panel, ws, m, k, pq, qb, c1 + piece * kChunk, std::min(m, c1 + (piece + 1) * kChunk), x.data());
    });
  }
  for (size_type j = 0; j < k; ++j)  // W'_B back to the compact W, for the ancestors
    for (size_type i = c; i < m; ++i) wc[size_t(P.rmap[size_t(r0 + i)] + P.act[size_t(a0 + j)] * nc)] = ws[i + j * m];
}

/// The modification of the host factor `vals` by `threads` >= 1 host threads. Returns the
/// first failure of a downdate (supernode, column within it; pivot NaN), after which the
/// factor is modified past it and unusable.
template <class Scalar>
PivotFailure update_host(const Symbolic& S, Scalar* vals, const UpdatePlan& P, const SparseColumns<Scalar>& W, Sign sign,
                         int threads) {
  if (P.path.empty() || P.k == 0) return {};
  const Scalar sg = sign == Sign::Plus ? Scalar(1) : Scalar(-1);
  threads = std::max(threads, 1);
  std::vector<Scalar> wc(size_t(P.ncompact * P.k), Scalar(0));
  for (size_type j = 0; j < P.k; ++j)
    for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p)
      wc[size_t(P.w_row[size_t(p)] + j * P.ncompact)] = W.values[size_t(p)];
  const std::vector<size_type> nbs = panel_widths(P, false), pnum = panel_numbering(S, P, nbs);
  std::vector<int> infos(size_t(2 * pnum.back()), 0);
  UpdatePool pool(threads);
  std::vector<UpdateHostWork<Scalar>> work(size_t(pool.size()));
  for (size_type l = 0; l < P.levels(); ++l) {
    const size_type b = P.level_begin[size_t(l)];
    pool.run(P.level_begin[size_t(l + 1)] - b, 0, [&](size_type i, int id) {
      update_snode_host(S, vals, P, size_t(P.level_order[size_t(b + i)]), wc.data(), sg, pool, id, pnum, infos.data(), work);
    });
  }
  return first_failure(S, P, nbs, [&](size_t i) { return infos[i]; });
}

}  // namespace kspd::sparse::Impl
#endif
