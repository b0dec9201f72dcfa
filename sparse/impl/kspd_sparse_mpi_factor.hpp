#ifndef KSPD_SPARSE_MPI_FACTOR_HPP
#define KSPD_SPARSE_MPI_FACTOR_HPP
/// \file kspd_sparse_mpi_factor.hpp
/// The distributed fan-out factorization (symPACK, section 3.3/3.4) over MPI, of the
/// separator supernodes only (MpiLayout::separator): the local subtrees below them are
/// factored by each rank with the single-process engine and their updates arrive summed in
/// the separators' blocks before run() (kspd_sparse_distributed.hpp).
/// FIXME(#17 item 1): still a second mechanism beside the engine's: its own task graph
/// (D/F/U per block pair, not Symbolic::tasks), its own worker pool and ready queues (not
/// the Scheduler with an MPI transport), its own device plan (kspd_sparse_mpi_device.hpp)
/// and its own host update + scatter (host_update) for the separators.
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
/// flush per get), or, where no window can be made, asks the owner for it and posts the
/// receive at once (MPI_Irecv: the rank goes on computing while the block travels), and then
/// decrements its consumers' dependency counters.
/// Threads (Options::threads per rank): the rank's main thread makes all MPI calls (progress:
/// MPI_Iprobe / MPI_Test between dispatches, a blocking MPI_Probe only when nothing at all is
/// under way), keeps the counters and the ready queue, and runs the device tasks; host tasks
/// (potrf, trsm, update of host blocks) go to threads - 1 workers (and to the main thread when
/// no device task is ready and the workers' queue is full), whose completions the main thread
/// collects and announces. Updates into the same target block are serialized by a
/// lock on their scatter (the products run concurrently). MPI_THREAD_FUNNELED suffices.
/// Errors: a failing potrf sends an abort notice to every rank; after the loop, message
/// counts are exchanged (so every message is received: no stray traffic) and the failure
/// with the smallest column is agreed with MPI_Allreduce: run() returns the same info on
/// every rank. Any other exception on a rank (an MPI call's error, a worker's or the
/// device's) sends an abort notice too, the loop ends on every rank the same way, and every
/// rank throws the lowest failing rank's error (agree_error). Every MPI call is checked
/// (KSPD_MPI_SAFE_CALL); block transfers are split into int-sized pieces (kspd_sparse_mpi_chunked.hpp).
///
/// Device offload (DistributedOptions, kspd_sparse_mpi_device.hpp): the blocks this rank
/// owns of "device" supernodes (big by the offload thresholds, closed upwards: a supernode
/// that a device supernode updates is one too) have a device copy, zero at the start. Host
/// updates accumulate into the host copy, device updates into the device copy; D and F of
/// such a block add the host copy into the device copy, run on the device, and download
/// the finished block into the host copy before announcing it (host staging). An update
/// into a device block runs on the device when m1 x m2 x width reaches update_threshold,
/// its sources used in place when resident, else uploaded into a device cache.

#include <mpi.h>

#include <chrono>
#include <cmath>
#include <condition_variable>
#include <deque>
#include <exception>
#include <limits>
#include <map>
#include <memory>
#include <mutex>
#include <queue>
#include <sstream>
#include <string>
#include <system_error>
#include <thread>
#include <unordered_map>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_host_blas.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_mpi_device.hpp"
#include "kspd_sparse_mpi_layout.hpp"

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
/// the same outcome on every rank.
inline MpiFactorResult agree_pivot_failure(MPI_Comm comm, bool failed, std::int64_t col, double pivot, int fail_rank) {
  int rank = 0, nranks = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &nranks));
  MpiFactorResult res;
  std::int64_t mine = failed ? col : std::numeric_limits<std::int64_t>::max(), mincol = 0;
  KSPD_MPI_SAFE_CALL(MPI_Allreduce(&mine, &mincol, 1, MPI_INT64_T, MPI_MIN, comm));
  if (mincol == std::numeric_limits<std::int64_t>::max()) return res;
  // The lowest rank that knows the failure with the smallest column tells the pivot.
  int me = failed && col == mincol ? rank : nranks, root = 0;
  KSPD_MPI_SAFE_CALL(MPI_Allreduce(&me, &root, 1, MPI_INT, MPI_MIN, comm));
  double info[2] = {pivot, double(fail_rank)};
  KSPD_MPI_SAFE_CALL(MPI_Bcast(info, 2, MPI_DOUBLE, root, comm));
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

/// Fault injection for tests (internal): the rank `rank` throws kspd::Error from its
/// factorization loop once it has run `after_tasks` tasks; -1: off.
struct MpiFaultInjection {
  int rank = -1;
  size_type after_tasks = 0;
};
inline MpiFaultInjection& mpi_fault_injection() {
  static MpiFaultInjection f;
  return f;
}

template <class Scalar, class DevExec = Kokkos::DefaultExecutionSpace>
class MpiFactor {
  using clock = std::chrono::steady_clock;
  static double since(clock::time_point t0) { return std::chrono::duration<double>(clock::now() - t0).count(); }

 public:
  /// one_sided: pull blocks with MPI_Get from a window (falls back to two-sided when the
  /// window cannot be created on every rank); false: request/reply messages.
  /// off: device offload (DistributedOptions::engine.offload) of the separators' blocks.
  /// threads: host threads of this rank (main thread included; 0: the node's cores shared
  /// among the ranks on the node, at least 1).
  MpiFactor(const Symbolic& S, const MpiLayout& L, MPI_Comm comm, std::vector<Scalar>& values, DistributedStats& st,
            bool one_sided = true, const Offload& off = Offload{}, int threads = 1)
      : S_(S), L_(L), comm_(comm), v_(values), st_(st), want_rma_(one_sided), off_(off),
        threads_(threads) {}
  ~MpiFactor() { stop_workers(); }
  MpiFactor(const MpiFactor&) = delete;
  MpiFactor& operator=(const MpiFactor&) = delete;

  /// Factors the local blocks in place (values hold A's entries of the owned blocks).
  /// Returns the agreed outcome; any other failure throws the same error on every rank.
  MpiFactorResult run() {
    const auto t0 = clock::now();
    const int threads = resolve_threads();  // may throw (thread level) on every rank: before any state or window
    agree(comm_, [&] { setup(); });
    plan_device();  // collective: may throw OutOfDeviceMemory on every rank
    for (size_type s = 0; s < ns(); ++s)  // after plan_device: the queue depends on the side
      if (L_.separator(s) && L_.local(S_.snodes[size_t(s)].block_begin) && deps_[size_t(s)] == 0) push(s);
    // One rank needs no window (and some one-sided components refuse a singleton).
    rma_ = false;
    if (L_.nranks > 1 && want_rma_) {
      // A window that cannot be created is no error: the two-sided pulls replace it.
      int ok = MPI_Win_create(v_.data(), MPI_Aint(v_.size() * sizeof(Scalar)), int(sizeof(Scalar)), MPI_INFO_NULL, comm_,
                              &win_) == MPI_SUCCESS;
      int all = 0;
      KSPD_MPI_SAFE_CALL(MPI_Allreduce(&ok, &all, 1, MPI_INT, MPI_MIN, comm_));
      rma_ = all == 1;
      if (rma_) KSPD_MPI_SAFE_CALL(MPI_Win_lock_all(MPI_MODE_NOCHECK, win_));
      else if (ok) KSPD_MPI_SAFE_CALL(MPI_Win_free(&win_));  // a window on every rank or on none
    }
    st_.one_sided = rma_;
    try {
      loop(threads);
    } catch (...) {
      local_failure(LocalError::current());
    }
    // After a failure: the workers finish the tasks they hold (they use this rank's
    // blocks), the blocks in flight arrive (their owners serve every request).
    try {
      while (in_flight_ > 0) collect(true);
      stop_workers();
      while (!fetches_.empty()) {
        progress_fetches();
        drain_one();
      }
      if (dev_) {
        dev_->fence();  // queued device work (after a failure) done before the exchange
        st_.bytes_to_device = dev_->bytes_to_device();
        st_.bytes_from_device = dev_->bytes_from_device();
        st_.device_peak_bytes = dev_->peak_bytes();
        st_.device_evictions = dev_->evictions();
      }
    } catch (...) {
      local_failure(LocalError::current());
    }
    finish();
    if (rma_) {
      KSPD_MPI_SAFE_CALL(MPI_Win_unlock_all(win_));
      KSPD_MPI_SAFE_CALL(MPI_Win_free(&win_));
    }
    st_.factor_seconds = since(t0);
    return agree_on_outcome();
  }

 private:
  /// The task loop of run(): until every local task is done or a failure is known.
  void loop(int threads) {
    const MpiFaultInjection fault = mpi_fault_injection();
    start_workers(threads);
    done_ = 0;
    while (done_ < ntasks_local_ && !failed_) {
      poll(false);
      progress_fetches();
      collect(false);
      KSPD_REQUIRE(fault.rank != L_.rank || done_ < fault.after_tasks, Error,
                   "kspd::sparse (MPI): injected failure after " << done_ << " tasks");
      if (failed_ || done_ == ntasks_local_) break;  // the last task may have just finished
      // Dispatch: host tasks to the workers (a few more than there are workers, so that a
      // worker finding its next task does not wait for this thread), then one task here (a
      // device task first; else a host task the workers have no room for), then progress.
      while (!workers_.empty() && !ready_.empty() && in_flight_ < 2 * int(workers_.size()) + 2) {
        const size_type t = ready_.top().second;
        ready_.pop();
        submit(t);
      }
      auto& mine = !ready_dev_.empty() ? ready_dev_ : ready_;
      if (!mine.empty()) {
        const size_type t = mine.top().second;
        mine.pop();
        run_task(t);
        continue;
      }
      const bool idle = in_flight_ == 0;  // (both ready queues are empty here)
      const auto w0 = clock::now();
      if (idle && fetches_.empty()) {
        poll(true);  // nothing under way here: wait for a message
      } else if (in_flight_ > 0) {
        collect(true);  // wait briefly for a worker, then poll again
      } else {
        std::this_thread::yield();  // only blocks in flight: their receives are posted
      }
      if (idle) st_.wait_seconds += since(w0);
    }
  }

  struct UTask {
    size_type s, b1, b2, tblock;
  };
  /// A host task handed to a worker: its operands resolved by the main thread (the cache
  /// and counters are the main thread's alone), the result read back by it.
  struct Job {
    size_type t = 0;
    const Scalar *a1 = nullptr, *a2 = nullptr;  ///< source blocks (diagonal block for trsm)
    Scalar* p = nullptr;                       ///< the block written
    int info = 0;
    std::vector<Scalar> save;  ///< potrf: the block before factoring (for the pivot report)
    std::exception_ptr error;
  };
  /// A block being received after a request to its owner (two-sided pull).
  struct Fetch {
    size_type b;
    int src;
    std::vector<MPI_Request> reqs;  ///< one per piece (kspd_sparse_mpi_chunked.hpp)
  };
  struct Cached {
    std::vector<Scalar> data;
    int uses = 0;
    bool uploaded = false;  ///< a device copy was made from data (fence before freeing it)
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
      if (!L_.separator(s)) continue;  // a local subtree's: factored by the engine (Numeric)
      const Supernode& sn = S_.snodes[size_t(s)];
      if (L_.local(sn.block_begin)) ++ntasks_local_;
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b)
        if (L_.local(b)) {
          ++ntasks_local_;
          deps_[size_t(ns() + b)] = 1;
        }
    }
    for (size_type s = 0; s < ns(); ++s) {
      if (!L_.separator(s)) continue;
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
    ready_dev_ = {};
    cache_.clear();
    fetches_.clear();
    sent_to_.assign(size_t(L_.nranks), 0);
    recv_from_.assign(size_t(L_.nranks), 0);
    failed_ = false;
    fail_col_ = std::numeric_limits<std::int64_t>::max();
    local_error_ = LocalError{};
    told_error_ = false;
  }

  void push(size_type t) {
    // Priority: the supernode whose column the task advances (smaller first).
    size_type key = t;
    if (t >= ns() + nb()) key = S_.blocks[size_t(utasks_[size_t(t - ns() - nb())].tblock)].snode;
    else if (t >= ns()) key = S_.blocks[size_t(t - ns())].snode;
    (device_task(t) ? ready_dev_ : ready_).push({key, t});
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
    if (--it->second.uses > 0) return;
    if (it->second.uploaded) dev_->fence();  // an upload may still read the host copy
    cache_.erase(it);
  }

  /// Device classification and memory (collective). Device supernodes: big by the
  /// thresholds, then closed upwards (targets have larger indices: one ascending pass).
  void plan_device() {
    st_.offload = off_.any();
    st_.cuda_aware_mpi = off_.any() && cuda_aware_mpi();
    st_.device_fallback = false;
    for (int i = 0; i < 3; ++i) st_.host_ops[i] = st_.device_ops[i] = 0;
    st_.device_supernodes = st_.device_blocks = st_.device_need_bytes = st_.device_peak_bytes = st_.device_evictions = 0;
    st_.bytes_to_device = st_.bytes_from_device = st_.device_seconds = 0;
    dev_sn_.assign(size_t(ns()), 0);
    doff_.assign(size_t(nb()), -1);
    dirty_.assign(size_t(nb()), 0);
    udev_.assign(utasks_.size(), 0);
    dev_on_ = false;
    dev_.reset();
    if (!off_.any()) return;
    dev_ = std::make_unique<MpiDevice<Scalar, DevExec>>();
    auto reaches = [](std::int64_t threshold, double x) { return threshold >= 0 && x >= double(threshold); };
    for (size_type s = 0; s < ns(); ++s) {
      const Supernode& sn = S_.snodes[size_t(s)];
      const double k = double(sn.ncols), m = double(sn.nrows() - sn.ncols);
      if (reaches(off_.potrf_threshold, k) || reaches(off_.trsm_threshold, m * k) || reaches(off_.update_threshold, m * m * k))
        dev_sn_[size_t(s)] = 1;
      if (dev_sn_[size_t(s)])
        for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) dev_sn_[size_t(S_.blocks[size_t(b)].target)] = 1;
      st_.device_supernodes += dev_sn_[size_t(s)];
    }
    // Resident blocks; workspace: merge buffer / potrf copy / update product; cache: the
    // non-resident sources of the largest single task.
    size_type resident = 0, work = 0, cache = 0, nblocks = 0;
    for (size_type b = 0; b < nb(); ++b) {
      const Block& blk = S_.blocks[size_t(b)];
      if (!L_.local(b) || !dev_sn_[size_t(blk.snode)] || !L_.separator(blk.snode)) continue;
      const size_type sz = L_.block_size(S_, b), k = S_.snodes[size_t(blk.snode)].ncols;
      doff_[size_t(b)] = resident;
      resident += sz;
      ++nblocks;
      work = std::max(work, sz);
      if (blk.row_offset != 0 && !L_.local(S_.snodes[size_t(blk.snode)].block_begin)) cache = std::max(cache, k * k);
    }
    for (size_t q = 0; q < utasks_.size(); ++q) {
      const UTask& u = utasks_[q];
      const size_type m1 = S_.blocks[size_t(u.b1)].nrows, m2 = S_.blocks[size_t(u.b2)].nrows,
                      k = S_.snodes[size_t(u.s)].ncols;
      if (doff_[size_t(u.tblock)] < 0 || !reaches(off_.update_threshold, double(m1) * double(m2) * double(k))) continue;
      udev_[q] = 1;
      work = std::max(work, m1 * m2);
      size_type src = doff_[size_t(u.b1)] < 0 ? m1 * k : 0;
      if (u.b2 != u.b1 && doff_[size_t(u.b2)] < 0) src += m2 * k;
      cache = std::max(cache, src);
    }
    const std::int64_t need = nblocks == 0 ? 0
                                           : std::int64_t((resident + work + cache) * size_type(sizeof(Scalar)) +
                                                          size_type(S_.rows.size() * sizeof(size_type)));
    st_.device_need_bytes = need;
    const bool ok = nblocks == 0 || dev_->allocate(resident, work, cache, S_.rows, off_.device_memory_limit);
    std::int64_t over = ok ? 0 : need, worst = 0;
    KSPD_MPI_SAFE_CALL(MPI_Allreduce(&over, &worst, 1, MPI_INT64_T, MPI_MAX, comm_));
    if (worst > 0 && off_.fallback == OffloadFallback::Fail) {
      int me = over == worst ? L_.rank : L_.nranks, who = 0;
      KSPD_MPI_SAFE_CALL(MPI_Allreduce(&me, &who, 1, MPI_INT, MPI_MIN, comm_));
      std::ostringstream os;
      os << "kspd::sparse::DistributedCholesky::factorize: rank " << who << " of " << L_.nranks << " needs " << worst
         << " bytes of device memory (its blocks of device supernodes, workspace and cache), over "
            "Offload::device_memory_limit = "
         << off_.device_memory_limit << " (or the device refused them); raise the limit, raise the thresholds, add ranks "
                                        "or use fallback cpu";
      throw OutOfDeviceMemory(os.str());
    }
    if (!ok) {  // this rank factors on the host; the others go on with their devices
      st_.device_fallback = true;
      doff_.assign(size_t(nb()), -1);
      udev_.assign(utasks_.size(), 0);
      dev_.reset();
      return;
    }
    dev_on_ = nblocks > 0;
    st_.device_blocks = nblocks;
  }

  bool resident(size_type b) const { return doff_[size_t(b)] >= 0; }
  Scalar* dblock(size_type b) { return dev_->resident(doff_[size_t(b)]); }
  /// The device copy of source block b: resident, or cached (uploaded from the host copy).
  const Scalar* dsrc(size_type b, size_type keep) {
    if (resident(b)) return dblock(b);
    if (!L_.local(b)) cache_.at(b).uploaded = true;
    return dev_->cached(b, block_ptr(b), L_.block_size(S_, b), keep);
  }
  void drelease(size_type b) {
    if (!resident(b)) dev_->release(b);
  }

  /// Whether task t runs on the device (then on the main thread).
  bool device_task(size_type t) const {
    if (t < ns()) return resident(S_.snodes[size_t(t)].block_begin);
    if (t < ns() + nb()) return resident(t - ns());
    return udev_[size_t(t - ns() - nb())] != 0;
  }

  /// Runs task t on the main thread.
  void run_task(size_type t) {
    if (!device_task(t)) {
      Job j = prepare(t);
      compute(j);
      post(j);
      return;
    }
    ++done_;
    if (t < ns()) return device_diag(t);
    if (t < ns() + nb()) return device_trsm(t - ns());
    const size_type q = t - ns() - nb();
    const UTask& u = utasks_[size_t(q)];
    const Supernode& sn = S_.snodes[size_t(u.s)];
    const Block &B1 = S_.blocks[size_t(u.b1)], &B2 = S_.blocks[size_t(u.b2)], &T = S_.blocks[size_t(u.tblock)];
    const Supernode& tn = S_.snodes[size_t(T.snode)];
    const size_type k = sn.ncols, m1 = B1.nrows, m2 = B2.nrows;
    const auto d0 = clock::now();
    const Scalar* d1 = dsrc(u.b1, u.b2);
    const Scalar* d2 = u.b2 == u.b1 ? d1 : dsrc(u.b2, u.b1);
    const size_type* rows = dev_->rows();
    dev_->update(d1, m1, d2, m2, k, u.b1 == u.b2, rows + sn.row_begin + B1.row_offset, rows + sn.row_begin + B2.row_offset,
                rows + tn.row_begin + T.row_offset, T.nrows, tn.first_col, dblock(u.tblock));
    dirty_[size_t(u.tblock)] = 1;
    drelease(u.b1);
    if (u.b2 != u.b1) drelease(u.b2);
    ++st_.device_ops[2];
    st_.device_seconds += since(d0);
    finish_update(u);
  }

  /// Host task t: its operands (main thread).
  Job prepare(size_type t) const {
    Job j;
    j.t = t;
    if (t < ns()) {
      const Supernode& sn = S_.snodes[size_t(t)];
      j.p = v_.data() + L_.offset[size_t(sn.block_begin)];
      j.save.assign(j.p, j.p + sn.ncols * sn.ncols);
    } else if (t < ns() + nb()) {
      const size_type b = t - ns();
      j.a1 = block_ptr(S_.snodes[size_t(S_.blocks[size_t(b)].snode)].block_begin);
      j.p = v_.data() + L_.offset[size_t(b)];
    } else {
      const UTask& u = utasks_[size_t(t - ns() - nb())];
      j.a1 = block_ptr(u.b1);
      j.a2 = block_ptr(u.b2);
      j.p = v_.data() + L_.offset[size_t(u.tblock)];
    }
    return j;
  }

  /// Host task: the arithmetic (any thread; touches only the job's blocks).
  void compute(Job& j) const {
    const size_type t = j.t;
    if (t < ns()) {
      // core's potrf (no kernel launch on a host space: thread-safe) reports NaN pivots too
      using Panel = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      const size_type k = S_.snodes[size_t(t)].ncols;
      j.info = kspd::potrf(Kokkos::DefaultHostExecutionSpace(), Uplo::Lower, Panel(j.p, size_t(k), size_t(k)));
    } else if (t < ns() + nb()) {
      const Block& blk = S_.blocks[size_t(t - ns())];
      const size_type k = S_.snodes[size_t(blk.snode)].ncols;
      kspd::Impl::host::trsm('R', 'L', 'T', 'N', blk.nrows, k, Scalar(1), j.a1, k, j.p, blk.nrows);
    } else {
      host_update(utasks_[size_t(t - ns() - nb())], j.a1, j.a2, j.p);
    }
  }

  /// Host task: bookkeeping after the arithmetic (main thread).
  void post(Job& j) {
    ++done_;
    if (j.error) std::rethrow_exception(j.error);
    const size_type t = j.t;
    if (t < ns()) {
      const size_type k = S_.snodes[size_t(t)].ncols;
      st_.flops += double(k) * double(k) * double(k) / 3.0;
      ++st_.host_ops[0];
      if (j.info != 0) {
        dsave_ = std::move(j.save);
        return fail(t, j.info);
      }
      return announce(S_.snodes[size_t(t)].block_begin);
    }
    if (t < ns() + nb()) {
      const size_type b = t - ns();
      const Block& blk = S_.blocks[size_t(b)];
      const size_type k = S_.snodes[size_t(blk.snode)].ncols;
      st_.flops += double(blk.nrows) * double(k) * double(k);
      ++st_.host_ops[1];
      release(S_.snodes[size_t(blk.snode)].block_begin);
      return announce(b);
    }
    ++st_.host_ops[2];
    finish_update(utasks_[size_t(t - ns() - nb())]);
  }

  /// An update task is done: flops, sources released, its target's counter.
  void finish_update(const UTask& u) {
    const size_type k = S_.snodes[size_t(u.s)].ncols, m1 = S_.blocks[size_t(u.b1)].nrows,
                    m2 = S_.blocks[size_t(u.b2)].nrows;
    st_.flops += u.b1 == u.b2 ? double(m1) * double(m1 + 1) * double(k) : 2.0 * double(m1) * double(m2) * double(k);
    release(u.b1);
    if (u.b2 != u.b1) release(u.b2);
    const Block& T = S_.blocks[size_t(u.tblock)];
    const size_type target = T.row_offset == 0 ? T.snode : ns() + u.tblock;
    if (--deps_[size_t(target)] == 0) push(target);
  }

  /// L(b2) L(b1)^T into a private buffer, then scattered into the target block under its lock.
  void host_update(const UTask& u, const Scalar* a1, const Scalar* a2, Scalar* pt) const {
    const Supernode& sn = S_.snodes[size_t(u.s)];
    const Block &B1 = S_.blocks[size_t(u.b1)], &B2 = S_.blocks[size_t(u.b2)], &T = S_.blocks[size_t(u.tblock)];
    const Supernode& tn = S_.snodes[size_t(T.snode)];
    const size_type k = sn.ncols, m1 = B1.nrows, m2 = B2.nrows;
    thread_local std::vector<Scalar> c;
    thread_local std::vector<size_type> rel;
    c.resize(size_t(m1 * m2));
    if (u.b1 == u.b2) kspd::Impl::host::syrk('L', 'N', m1, k, Scalar(1), a1, m1, Scalar(0), c.data(), m1);
    else kspd::Impl::host::gemm('N', 'T', m2, m1, k, Scalar(1), a2, m2, a1, m1, Scalar(0), c.data(), m2);
    // Scatter: rows of B2 -> rows of T (a superset), columns = rows of B1 - first column of T.
    const size_type* r1 = S_.rows.data() + sn.row_begin + B1.row_offset;
    const size_type* r2 = S_.rows.data() + sn.row_begin + B2.row_offset;
    const size_type* rt = S_.rows.data() + tn.row_begin + T.row_offset;
    rel.resize(size_t(m2));
    for (size_type i = 0, q = 0; i < m2; ++i) {
      while (rt[q] != r2[i]) ++q;
      rel[size_t(i)] = q;
    }
    std::unique_lock<std::mutex> lk;
    if (!workers_.empty()) lk = std::unique_lock<std::mutex>(locks_[size_t(u.tblock) % kLocks]);
    for (size_type j = 0; j < m1; ++j) {
      Scalar* col = pt + (r1[j] - tn.first_col) * T.nrows;
      const Scalar* cj = c.data() + j * m2;
      for (size_type i = u.b1 == u.b2 ? j : 0; i < m2; ++i) col[rel[size_t(i)]] -= cj[i];
    }
  }

  // ---- worker threads ----
  int resolve_threads() const { return rank_threads(comm_, threads_); }
  void start_workers(int threads) {
    st_.host_threads = threads;
    in_flight_ = 0;
    stop_ = false;
    if (threads <= 1) return;
    if (!locks_) locks_.reset(new std::mutex[kLocks]);
    try {
      for (int w = 0; w + 1 < threads; ++w) workers_.push_back(kspd::Impl::start_thread([this] { work(); }));
    } catch (const std::system_error&) {
      // The system refused a thread: go on with the workers that started (the main thread
      // runs host tasks too, so none is also fine). No rank throws here, so no rank is left
      // waiting in a collective; host_threads records what ran.
      st_.host_threads = int(workers_.size()) + 1;
    }
  }
  void stop_workers() {
    if (workers_.empty()) return;
    {
      std::lock_guard<std::mutex> lk(qm_);
      stop_ = true;
    }
    qcv_.notify_all();
    for (auto& w : workers_) w.join();
    workers_.clear();
  }
  void work() {
    for (;;) {
      std::unique_ptr<Job> j;
      {
        std::unique_lock<std::mutex> lk(qm_);
        qcv_.wait(lk, [&] { return stop_ || !jobs_.empty(); });
        if (jobs_.empty()) return;
        j = std::move(jobs_.front());
        jobs_.pop_front();
      }
      try {
        compute(*j);
      } catch (...) {
        j->error = std::current_exception();
      }
      {
        std::lock_guard<std::mutex> lk(qm_);
        done_q_.push_back(std::move(j));
      }
      dcv_.notify_one();
    }
  }
  void submit(size_type t) {
    auto j = std::make_unique<Job>(prepare(t));
    ++in_flight_;
    {
      std::lock_guard<std::mutex> lk(qm_);
      jobs_.push_back(std::move(j));
    }
    qcv_.notify_one();
  }
  /// Post-processes finished host tasks; wait: first wait up to 50 us for one.
  void collect(bool wait) {
    if (workers_.empty()) return;
    std::deque<std::unique_ptr<Job>> done;
    {
      std::unique_lock<std::mutex> lk(qm_);
      if (wait) dcv_.wait_for(lk, std::chrono::microseconds(50), [&] { return !done_q_.empty(); });
      done.swap(done_q_);
    }
    for (auto& j : done) {
      --in_flight_;
      if (failed_) {  // after a failure only the count matters
        ++done_;
        continue;
      }
      post(*j);
    }
  }

  /// potrf of a resident diagonal block: host contributions merged, factored on the device,
  /// downloaded into the host copy (which other ranks read).
  void device_diag(size_type s) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols;
    Scalar* p = v_.data() + L_.offset[size_t(sn.block_begin)];
    st_.flops += double(k) * double(k) * double(k) / 3.0;
    const auto d0 = clock::now();
    Scalar* d = dblock(sn.block_begin);
    dev_->merge(d, p, k * k, dirty_[size_t(sn.block_begin)]);
    const int info = dev_->potrf(d, k, dsave_);  // dsave_: the merged block, on failure
    if (info == 0) dev_->download(p, d, k * k);
    ++st_.device_ops[0];
    st_.device_seconds += since(d0);
    if (info != 0) return fail(s, info);
    announce(sn.block_begin);
  }

  /// trsm of a resident off-diagonal block, likewise.
  void device_trsm(size_type b) {
    const Block& blk = S_.blocks[size_t(b)];
    const Supernode& sn = S_.snodes[size_t(blk.snode)];
    const size_type k = sn.ncols;
    Scalar* p = v_.data() + L_.offset[size_t(b)];
    const auto d0 = clock::now();
    Scalar* d = dblock(b);
    dev_->merge(d, p, blk.nrows * k, dirty_[size_t(b)]);
    dev_->trsm(dsrc(sn.block_begin, b), k, d, blk.nrows);
    dev_->download(p, d, blk.nrows * k);
    drelease(sn.block_begin);
    ++st_.device_ops[1];
    st_.device_seconds += since(d0);
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
    KSPD_MPI_SAFE_CALL(MPI_Isend(o.buf, 3, MPI_DOUBLE, r, tag, comm_, &o.req));
    ++sent_to_[size_t(r)];
    ++st_.messages_sent;
    st_.bytes_sent += 3 * sizeof(double);
    // Retire completed sends from the front.
    while (!sends_.empty()) {
      int flag = 0;
      KSPD_MPI_SAFE_CALL(MPI_Test(&sends_.front().req, &flag, MPI_STATUS_IGNORE));
      if (!flag) break;
      sends_.pop_front();
    }
  }

  /// Consumer side: block b is final. Local consumers: its counters are decremented now, or
  /// once it has arrived when it lives elsewhere (MPI_Get, or a request and a posted receive).
  void deliver(size_type b) {
    const bool remote = !L_.local(b);
    int uses = 0, device_uses = 0;
    const bool is_diag = S_.blocks[size_t(b)].row_offset == 0;
    consumers(b, [&](int r, size_type x, size_type y) {
      if (r != L_.rank) return;
      ++uses;
      device_uses += is_diag ? resident(y) : udev_[size_t(ukey_.at(key(x, y)))];
    });
    if (uses == 0) return;
    // Device reads of a non-resident block: its device cache entry lives until the last.
    if (device_uses > 0 && !resident(b)) dev_->add_uses(b, device_uses);
    if (!remote) return arrived(b);
    // Every local consumer task reads b once and releases it once.
    Cached& c = cache_[b];
    c.uses = uses;
    c.data.resize(size_t(L_.block_size(S_, b)));
    const int src = L_.owner[size_t(b)];
    st_.bytes_get += double(c.data.size() * sizeof(Scalar));
    ++st_.gets;
    if (!rma_) {  // the receives are posted before the request leaves: the reply's pieces match them
      fetches_.push_back(Fetch{b, src, {}});
      irecv_n(c.data.data(), std::int64_t(c.data.size()), src, kTagData, comm_, fetches_.back().reqs);
      send(src, kTagRequest, double(b), 0, 0);
      return;
    }
    const auto w0 = clock::now();
    get_n(c.data.data(), std::int64_t(c.data.size()), src, L_.offset[size_t(b)], win_);
    KSPD_MPI_SAFE_CALL(MPI_Win_flush(src, win_));
    st_.wait_seconds += since(w0);
    arrived(b);
  }
  /// Block b is here: its local consumers' counters.
  void arrived(size_type b) {
    const bool is_diag = S_.blocks[size_t(b)].row_offset == 0;
    consumers(b, [&](int r, size_type x, size_type y) {
      if (r != L_.rank) return;
      if (is_diag) {
        if (--deps_[size_t(ns() + y)] == 0) push(ns() + y);
      } else {
        const size_type k = ukey_.at(key(x, y));
        if (--udeps_[size_t(k)] == 0) push(ns() + nb() + k);
      }
    });
  }
  /// Completed two-sided pulls.
  void progress_fetches() {
    for (size_t i = 0; i < fetches_.size();) {
      int flag = 0;
      auto& reqs = fetches_[i].reqs;
      KSPD_MPI_SAFE_CALL(MPI_Testall(int(reqs.size()), reqs.data(), &flag, MPI_STATUSES_IGNORE));
      if (!flag) {
        ++i;
        continue;
      }
      const size_type b = fetches_[i].b;
      fetches_.erase(fetches_.begin() + std::ptrdiff_t(i));
      if (!failed_) arrived(b);
    }
  }

  /// Receives pending messages; with block = true waits for at least one.
  void poll(bool block) {
    for (;;) {
      MPI_Status status;
      int flag = 0;
      if (block) {
        KSPD_MPI_SAFE_CALL(MPI_Probe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &status));
        flag = 1;
        block = false;
      } else {
        KSPD_MPI_SAFE_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status));
      }
      if (!flag) return;
      receive(status, true);
      if (failed_) return;
    }
  }

  void receive(const MPI_Status& status, bool act) {
    double buf[3];
    KSPD_MPI_SAFE_CALL(MPI_Recv(buf, 3, MPI_DOUBLE, status.MPI_SOURCE, status.MPI_TAG, comm_, MPI_STATUS_IGNORE));
    ++recv_from_[size_t(status.MPI_SOURCE)];
    if (status.MPI_TAG == kTagAbort && buf[0] < 0) {
      failed_ = true;  // an error on another rank: agreed (and thrown) after the loop
    } else if (status.MPI_TAG == kTagAbort) {
      record_failure(std::int64_t(buf[0]), buf[1], int(buf[2]));
    } else if (status.MPI_TAG == kTagRequest) {
      serve(size_type(buf[0]), status.MPI_SOURCE);  // always, even after a failure
    } else if (act && !failed_) {
      deliver(size_type(buf[0]));
    }
  }

  /// Owner side of a two-sided pull: the factor block is final, send it from the storage.
  void serve(size_type b, int dst) {
    isend_n(v_.data() + L_.offset[size_t(b)], L_.block_size(S_, b), dst, kTagData, comm_, data_reqs_);
    ++st_.messages_sent;  // not in sent_to_: replies are matched by posted receives, waited for
  }

  void record_failure(std::int64_t col, double pivot, int rank) {
    if (!failed_ || col < fail_col_) {
      fail_col_ = col;
      fail_pivot_ = pivot;
      fail_rank_ = rank;
    }
    failed_ = true;
  }

  /// An exception on this rank (inside a catch block): the loop ends here, and every other
  /// rank is told (once) to end its loop too; the error is agreed after the exchange.
  void local_failure(LocalError e) {
    if (!local_error_) local_error_ = std::move(e);
    failed_ = true;
    if (told_error_) return;
    told_error_ = true;
    try {
      for (int r = 0; r < L_.nranks; ++r)
        if (r != L_.rank) send(r, kTagAbort, -1.0, 0, double(L_.rank));
    } catch (...) {  // the ranks not told wait in their loops: nothing better to do here
    }
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
  /// the communicator holds no stray traffic; sends complete. The counts cover notices,
  /// aborts and requests: each request is served on receipt, and its reply goes to a receive
  /// posted before the request left, which the requester completes before this exchange (a
  /// reply served after the owner's count snapshot would otherwise let the requester stop
  /// receiving one notice early, a stray notice for the next factorization).
  void finish() {
    std::vector<std::int64_t> expect(size_t(L_.nranks));
    std::vector<std::int64_t> sent(sent_to_.begin(), sent_to_.end());
    // Complete the sends while draining (a peer may wait for us to receive).
    MPI_Request req;
    KSPD_MPI_SAFE_CALL(MPI_Ialltoall(sent.data(), 1, MPI_INT64_T, expect.data(), 1, MPI_INT64_T, comm_, &req));
    for (;;) {
      int flag = 0;
      KSPD_MPI_SAFE_CALL(MPI_Test(&req, &flag, MPI_STATUS_IGNORE));
      if (flag) break;
      drain_one();
    }
    for (int r = 0; r < L_.nranks; ++r)
      while (recv_from_[size_t(r)] < expect[size_t(r)]) {
        MPI_Status status;
        KSPD_MPI_SAFE_CALL(MPI_Probe(r, MPI_ANY_TAG, comm_, &status));
        receive(status, false);
      }
    for (auto& o : sends_) KSPD_MPI_SAFE_CALL(MPI_Wait(&o.req, MPI_STATUS_IGNORE));
    sends_.clear();
    wait_all(data_reqs_);
  }
  void drain_one() {
    MPI_Status status;
    int flag = 0;
    KSPD_MPI_SAFE_CALL(MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, comm_, &flag, &status));
    if (flag) receive(status, false);
  }

  /// Collective, after finish(): an exception on any rank is thrown on every rank (the
  /// lowest failing rank's); else the pivot failure with the smallest column, if any.
  MpiFactorResult agree_on_outcome() {
    agree_error(comm_, local_error_);
    return agree_pivot_failure(comm_, failed_, fail_col_, fail_pivot_, fail_rank_);
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
      ready_, ready_dev_;  ///< host tasks, device tasks
  std::unordered_map<size_type, Cached> cache_;
  std::deque<Outgoing> sends_;
  std::deque<MPI_Request> data_reqs_;
  std::vector<Fetch> fetches_;
  bool want_rma_ = true, rma_ = false;
  std::vector<std::int64_t> sent_to_, recv_from_;
  std::vector<char> marks_;
  std::vector<Scalar> dsave_;
  bool failed_ = false;
  LocalError local_error_;   ///< an exception on this rank (not a pivot failure)
  bool told_error_ = false;  ///< the other ranks were sent the error's abort notice
  std::int64_t fail_col_ = 0;
  double fail_pivot_ = 0;
  int fail_rank_ = -1;
  // Device offload: classification per supernode, device offsets per block (-1: none),
  // per block whether device updates reached its device copy, per update task the side.
  Offload off_;
  bool dev_on_ = false;
  std::vector<char> dev_sn_, dirty_, udev_;
  std::vector<size_type> doff_;
  std::unique_ptr<MpiDevice<Scalar, DevExec>> dev_;  ///< with offload on only (needs Kokkos)
  // Host workers: jobs out, finished jobs back (under qm_); updates lock their target's stripe.
  static constexpr size_t kLocks = 256;
  int threads_ = 1;
  size_type done_ = 0;
  int in_flight_ = 0;
  bool stop_ = false;
  std::vector<std::thread> workers_;
  std::mutex qm_;
  std::condition_variable qcv_, dcv_;
  std::deque<std::unique_ptr<Job>> jobs_, done_q_;
  std::unique_ptr<std::mutex[]> locks_;
};

}  // namespace kspd::sparse::Impl
#endif
