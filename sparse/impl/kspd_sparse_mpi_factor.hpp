#ifndef KSPD_SPARSE_MPI_FACTOR_HPP
#define KSPD_SPARSE_MPI_FACTOR_HPP
/// \file kspd_sparse_mpi_factor.hpp
/// The MPI transport of the one engine (kspd_sparse_scheduler.hpp: Transport), and what the
/// distributed factorization agrees on (pivot failure, threads per rank).
///
/// Every rank runs Impl::Numeric (host placement) on the supernodes it owns
/// (MpiLayout::owner); the scheduler runs the task bodies on its workers. Fan-in: an
/// update task runs where its source supernode lives; an update into a supernode t owned by
/// another rank is scatter-added into this rank's zero-initialised copy of t's panel. When
/// this rank's last update into t is done (the scheduler counts them, from the symbolic
/// analysis), a worker packs the blocks of t that this rank's updates touched (FanInPlan,
/// computed once per analysis) and the rank's main thread sends them once to t's owner: a
/// header {t, words} (kTagNotice) and the payload in int-sized pieces (kTagData,
/// kspd_sparse_mpi_chunked.hpp; MPI's non-overtaking rule keeps both in order). The
/// owner's main thread polls (MPI_Iprobe between waits: MPI_THREAD_FUNNELED), adds the
/// payload into t's panel under t's scatter locks, and credits t's DiagFactor counter with
/// the number of update blocks the payload carries, as if they had run locally. No factor
/// panel travels during the factorization.
/// Failure: a failing potrf or an exception on a rank stops its scheduler and sends an
/// abort header {-1, 0} to every other rank, whose schedulers stop too. finish()
/// (collective) then exchanges the message counts and receives what is still in flight, so
/// no message is left behind; the caller agrees on the error (agree_error) and the pivot
/// failure (agree_pivot_failure): every rank returns the same info or throws the same error.

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <deque>
#include <limits>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_mpi_layout.hpp"
#include "kspd_sparse_scheduler.hpp"

namespace kspd::sparse::Impl {

/// The outcome of a distributed factorization, the same on every rank: info 0, or the
/// 1-based column (input's numbering) of the failing pivot with the smallest column.
struct MpiFactorResult {
  size_type info = 0;
  double pivot = 0;
  std::string message;  ///< names the column, the pivot and the rank that found it
};

/// Collective: the pivot failure with the smallest column over the ranks (failed: this
/// rank knows of one at column col, 0-based in the input's numbering, found by fail_rank),
/// the same outcome on every rank. One rank: no MPI call (the one-rank factorization has none).
inline MpiFactorResult agree_pivot_failure(MPI_Comm comm, bool failed, std::int64_t col, double pivot, int fail_rank) {
  int rank = 0, nranks = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &nranks));
  MpiFactorResult res;
  std::int64_t mine = failed ? col : std::numeric_limits<std::int64_t>::max(), mincol = mine;
  if (nranks > 1) KSPD_MPI_SAFE_CALL(MPI_Allreduce(&mine, &mincol, 1, MPI_INT64_T, MPI_MIN, comm));
  if (mincol == std::numeric_limits<std::int64_t>::max()) return res;
  // The lowest rank that knows the failure with the smallest column tells the pivot.
  int me = failed && col == mincol ? rank : nranks, root = 0;
  double info[2] = {pivot, double(fail_rank)};
  if (nranks > 1) {
    KSPD_MPI_SAFE_CALL(MPI_Allreduce(&me, &root, 1, MPI_INT, MPI_MIN, comm));
    KSPD_MPI_SAFE_CALL(MPI_Bcast(info, 2, MPI_DOUBLE, root, comm));
  }
  std::ostringstream os;
  os << "kspd::sparse::DistributedCholesky::factorize: the matrix is not positive definite: pivot " << info[0]
     << " at column " << mincol << " (0-based, the input's numbering), found on rank " << int(info[1]) << " of " << nranks;
  res.info = size_type(mincol + 1);
  res.pivot = info[0];
  res.message = os.str();
  return res;
}

/// Host threads of this rank for Options::threads = `threads` (collective): 0 gives the
/// node's cores shared among the ranks on the node (at least 1). More than 1 needs
/// MPI_THREAD_FUNNELED: else every rank throws InvalidArgument (0 then gives 1).
inline int rank_threads(MPI_Comm comm, int threads) {
  int level = MPI_THREAD_SINGLE;
  KSPD_MPI_SAFE_CALL(MPI_Query_thread(&level));
  // The level is the process's: agreed, so that every rank throws here (before any
  // collective of the factorization).
  agree(comm, [&] {
    KSPD_REQUIRE(threads <= 1 || level >= MPI_THREAD_FUNNELED, InvalidArgument,
                 "kspd::sparse::DistributedCholesky: Options::threads = "
                     << threads << " needs MPI initialized with at least MPI_THREAD_FUNNELED (MPI_Init_thread); "
                        "this process has level "
                     << level << " (set threads = 1, or 0 to fall back to one thread)");
  });
  if (level < MPI_THREAD_FUNNELED) return 1;  // threads = 0 (automatic): one thread
  if (threads > 0) return threads;
  int rank = 0;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  MPI_Comm node;
  KSPD_MPI_SAFE_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int local = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(node, &local));
  KSPD_MPI_SAFE_CALL(MPI_Comm_free(&node));
  const int cores = int(std::thread::hardware_concurrency());
  return std::max(1, cores / std::max(1, local));
}

/// Fault injection for tests (internal): a worker of rank `rank` throws kspd::Error before
/// the task after its first `after_tasks` (counted over the rank's workers); -1: off.
struct MpiFaultInjection {
  int rank = -1;
  size_type after_tasks = 0;
};
inline MpiFaultInjection& mpi_fault_injection() {
  static MpiFaultInjection f;
  return f;
}
/// A rank that owns no supernode (MpiLayout::idle) runs no task: the fault injection of
/// tests throws at the start of its factorization instead.
inline void idle_rank_fault(int rank) {
  if (mpi_fault_injection().rank == rank)
    throw Error("kspd::sparse (MPI): injected failure on rank " + std::to_string(rank) + ", which owns no supernode");
}

/// Which panels travel in the fan-in, for one rank (MpiLayout::rank), from the analysis
/// alone. A contribution is what rank `rank`'s updates add into supernode t of another
/// rank: the number of update blocks (t's DiagFactor counts one per block) and the blocks of
/// t they touch (ascending; each sent whole: rows x t's columns, column-major, ld = rows).
struct FanInPlan {
  struct Contribution {
    int rank = 0;
    int updates = 0;
    std::vector<size_type> blocks;
    size_type words = 0;
  };
  /// Per supernode t: the contributions this rank receives (t its own) or sends (t another's).
  std::vector<std::vector<Contribution>> by_target;

  void build(const Symbolic& S, const MpiLayout& L) {
    const size_type ns = size_type(S.snodes.size());
    by_target.assign(size_t(ns), {});
    for (size_type s = 0; s < ns; ++s) {
      const int h = L.owner[size_t(s)];
      const Supernode& sn = S.snodes[size_t(s)];
      for (size_type b1 = sn.block_begin + 1; b1 < sn.block_end; ++b1) {
        const size_type t = S.blocks[size_t(b1)].target;
        const int o = L.owner[size_t(t)];
        if (o == h || (h != L.rank && o != L.rank)) continue;
        auto& v = by_target[size_t(t)];
        auto it = std::find_if(v.begin(), v.end(), [&](const Contribution& c) { return c.rank == h; });
        if (it == v.end()) it = v.insert(v.end(), Contribution{h, 0, {}, 0});
        ++it->updates;
        // the product of s's rows from b1 down with block b1 lands in t's blocks of their targets
        for (size_type b2 = b1; b2 < sn.block_end; ++b2)
          it->blocks.push_back(MpiLayout::find_block(S, t, S.blocks[size_t(b2)].target));
      }
    }
    for (size_type t = 0; t < ns; ++t)
      for (Contribution& c : by_target[size_t(t)]) {
        std::sort(c.blocks.begin(), c.blocks.end());
        c.blocks.erase(std::unique(c.blocks.begin(), c.blocks.end()), c.blocks.end());
        c.words = 0;
        for (size_type b : c.blocks) c.words += S.blocks[size_t(b)].nrows * S.snodes[size_t(t)].ncols;
      }
  }
  const Contribution& find(size_type t, int rank) const {
    for (const Contribution& c : by_target[size_t(t)])
      if (c.rank == rank) return c;
    throw Error("kspd::sparse (MPI): internal error: no contribution of rank " + std::to_string(rank) +
                " to supernode " + std::to_string(t));
  }
};

/// The MPI transport (file comment). Engine: Impl::Numeric (host_panels, with_panel_locked).
template <class Scalar, class Engine>
class MpiTransport final : public Transport {
 public:
  MpiTransport(const Symbolic& S, const MpiLayout& L, const FanInPlan& plan, MPI_Comm comm, DistributedStats& st)
      : S_(S), L_(L), plan_(plan), comm_(comm), st_(st), sent_(size_t(L.nranks), 0), received_(size_t(L.nranks), 0),
        fault_(mpi_fault_injection()) {}
  /// The engine whose panels travel (before its run).
  void attach(Engine& engine) { engine_ = &engine; }
  MpiTransport(const MpiTransport&) = delete;
  MpiTransport& operator=(const MpiTransport&) = delete;

  /// Worker thread: packs this rank's accumulated blocks of t for the main thread to send.
  void contribution_done(size_type t) override {
    const FanInPlan::Contribution& c = plan_.find(t, L_.rank);
    Outgoing m;
    m.target = t;
    m.dest = L_.owner[size_t(t)];
    m.data.resize(size_t(c.words));
    const Supernode& tn = S_.snodes[size_t(t)];
    const Scalar* p = engine_->host_panels() + tn.value_offset;
    size_t q = 0;
    for (size_type b : c.blocks) {
      const Block& blk = S_.blocks[size_t(b)];
      for (size_type j = 0; j < tn.ncols; ++j)
        for (size_type i = 0; i < blk.nrows; ++i) m.data[q++] = p[blk.row_offset + i + j * tn.nrows()];
    }
    std::lock_guard<std::mutex> lk(m_);
    outbox_.push_back(std::move(m));
  }

  void task_started() override {
    if (fault_.rank == L_.rank && tasks_.fetch_add(1, std::memory_order_relaxed) >= fault_.after_tasks)
      throw Error("kspd::sparse (MPI): injected failure on rank " + std::to_string(L_.rank) + " after " +
                  std::to_string(fault_.after_tasks) + " tasks");
  }

  bool progress(Scheduler& sched) override {
    bool did = post_outbox();
    did = complete_sends() || did;
    for (;;) {
      int flag = 0;
      MPI_Status status;
      KSPD_MPI_SAFE_CALL(MPI_Iprobe(MPI_ANY_SOURCE, kTagNotice, comm_, &flag, &status));
      if (!flag) break;
      did = true;
      std::int64_t hdr[2] = {0, 0};
      const int src = status.MPI_SOURCE;
      receive(src, hdr);
      if (hdr[0] < 0) {
        sched.remote_abort();
        break;  // the rest is drained by finish()
      }
      const size_type t = size_type(hdr[0]);
      const FanInPlan::Contribution& c = plan_.find(t, src);
      KSPD_REQUIRE(L_.owner[size_t(t)] == L_.rank && hdr[1] == c.words, Error,
                   "kspd::sparse (MPI): internal error: rank " << src << " sent " << hdr[1] << " words for supernode "
                                                               << t << ", expected " << c.words);
      buf_.resize(size_t(c.words));
      recv_n(buf_.data(), c.words, src, kTagData, comm_);
      const Supernode& tn = S_.snodes[size_t(t)];
      engine_->with_panel_locked(t, [&](Scalar* p) {
        size_t q = 0;
        for (size_type b : c.blocks) {
          const Block& blk = S_.blocks[size_t(b)];
          for (size_type j = 0; j < tn.ncols; ++j)
            for (size_type i = 0; i < blk.nrows; ++i) p[blk.row_offset + i + j * tn.nrows()] += buf_[q++];
        }
      });
      sched.credit(t, c.updates);
    }
    return did;
  }

  bool idle() const override {
    std::lock_guard<std::mutex> lk(m_);
    return outbox_.empty();
  }

  void notify_abort() override {
    if (told_) return;
    told_ = true;
    for (int r = 0; r < L_.nranks; ++r) {
      if (r == L_.rank) continue;
      pending_.emplace_back();
      Pending& p = pending_.back();
      p.hdr[0] = -1;
      p.hdr[1] = 0;
      p.reqs.emplace_back(MPI_REQUEST_NULL);
      ++sent_[size_t(r)];
      KSPD_MPI_SAFE_CALL(MPI_Isend(p.hdr, 2, MPI_INT64_T, r, kTagNotice, comm_, &p.reqs.back()));
    }
  }

  /// Collective, after the run on every rank (also one that failed before or during it):
  /// after a failure the queued contributions are dropped; the message counts are
  /// exchanged, what is still in flight is received (and dropped), every send completes.
  void finish(bool failed) {
    if (failed) {
      std::lock_guard<std::mutex> lk(m_);
      outbox_.clear();
    } else {
      post_outbox();
    }
    std::vector<std::int64_t> expect(size_t(L_.nranks), 0);
    KSPD_MPI_SAFE_CALL(MPI_Alltoall(sent_.data(), 1, MPI_INT64_T, expect.data(), 1, MPI_INT64_T, comm_));
    for (int r = 0; r < L_.nranks; ++r)
      while (received_[size_t(r)] < expect[size_t(r)]) {
        std::int64_t hdr[2] = {0, 0};
        receive(r, hdr);
        if (hdr[0] < 0) continue;
        buf_.resize(size_t(hdr[1]));
        recv_n(buf_.data(), hdr[1], r, kTagData, comm_);
      }
    for (Pending& p : pending_) wait_all(p.reqs);
    pending_.clear();
  }

 private:
  struct Outgoing {
    size_type target = 0;
    int dest = 0;
    std::vector<Scalar> data;
  };
  struct Pending {
    std::int64_t hdr[2] = {0, 0};
    std::vector<Scalar> data;
    std::vector<MPI_Request> reqs;
  };

  /// The header of the next message from src (probed, or known to come).
  void receive(int src, std::int64_t (&hdr)[2]) {
    KSPD_MPI_SAFE_CALL(MPI_Recv(hdr, 2, MPI_INT64_T, src, kTagNotice, comm_, MPI_STATUS_IGNORE));
    ++received_[size_t(src)];
  }

  /// The queued contributions to MPI (main thread).
  bool post_outbox() {
    std::deque<Outgoing> out;
    {
      std::lock_guard<std::mutex> lk(m_);
      out.swap(outbox_);
    }
    for (Outgoing& m : out) {
      pending_.emplace_back();
      Pending& p = pending_.back();
      p.hdr[0] = std::int64_t(m.target);
      p.hdr[1] = std::int64_t(m.data.size());
      p.data = std::move(m.data);
      p.reqs.emplace_back(MPI_REQUEST_NULL);
      ++sent_[size_t(m.dest)];
      KSPD_MPI_SAFE_CALL(MPI_Isend(p.hdr, 2, MPI_INT64_T, m.dest, kTagNotice, comm_, &p.reqs.back()));
      isend_n(p.data.data(), std::int64_t(p.data.size()), m.dest, kTagData, comm_, p.reqs);
      st_.fanin_bytes += double(p.data.size()) * sizeof(Scalar);
      ++st_.fanin_messages;
    }
    return !out.empty();
  }

  /// Frees the buffers of completed sends (oldest first).
  bool complete_sends() {
    bool did = false;
    while (!pending_.empty()) {
      Pending& p = pending_.front();
      int flag = 0;
      KSPD_MPI_SAFE_CALL(MPI_Testall(int(p.reqs.size()), p.reqs.data(), &flag, MPI_STATUSES_IGNORE));
      if (!flag) break;
      pending_.pop_front();
      did = true;
    }
    return did;
  }

  const Symbolic& S_;
  const MpiLayout& L_;
  const FanInPlan& plan_;
  MPI_Comm comm_;
  Engine* engine_ = nullptr;
  DistributedStats& st_;
  mutable std::mutex m_;
  std::deque<Outgoing> outbox_;  ///< packed by workers, sent by the main thread
  std::deque<Pending> pending_;  ///< posted sends (their buffers live until complete)
  std::vector<std::int64_t> sent_, received_;  ///< headers per rank
  std::vector<Scalar> buf_;
  bool told_ = false;
  MpiFaultInjection fault_;
  std::atomic<size_type> tasks_{0};
};

}  // namespace kspd::sparse::Impl
#endif
