#ifndef KSPD_SPARSE_SCHEDULER_HPP
#define KSPD_SPARSE_SCHEDULER_HPP
/// \file kspd_sparse_scheduler.hpp
/// The fan-out scheduler: dependency counters per task, a ready queue (symPACK's RTQ; the
/// local task list is Symbolic::tasks, its LTQ), "block finished" events that decrement the
/// counters of the consumers, and std::thread workers. In one process every event is
/// delivered locally; a distributed scheduler sends the same events to the owner ranks.
/// A SnodeSubset restricts the run to the tasks of its supernodes (a rank's local subtrees):
/// events for tasks outside it are dropped.

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <exception>
#include <memory>
#include <mutex>
#include <queue>
#include <thread>
#include <utility>
#include <vector>

#include <string>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

class Scheduler {
 public:
  explicit Scheduler(const Symbolic& S, SnodeSubset subset = {})
      : S_(S), subset_(std::move(subset)), deps_(new std::atomic<int>[S.tasks.size()]) {}

  /// Supernodes whose updates are computed as one product after all of their TRSM tasks
  /// (the device computes L_below L_below^T at once): each of their Update tasks then waits
  /// for every TRSM task of the supernode, not only those at or below its block.
  void gather_updates(std::vector<char> flags) { gather_ = std::move(flags); }

  /// Runs every task with `nthreads` workers; run_task(task, worker) executes one task.
  /// The first exception a task throws stops all workers and is rethrown here.
  /// \return the workers that ran: fewer than nthreads when the system refused a thread
  /// (the ones already running share the queue and finish the work); none starting is a
  /// kspd::Error naming the count.
  template <class RunTask, class OnDiag>
  int run(int nthreads, RunTask&& run_task, OnDiag&& on_diag_done) {
    size_type nt = 0;
    ready_ = {};
    done_ = 0;
    running_ = 0;
    abort_ = false;
    error_ = nullptr;
    for (size_type t = 0; t < size_type(S_.tasks.size()); ++t) {
      deps_[size_t(t)].store(ndeps(t), std::memory_order_relaxed);
      if (!in_subset(subset_, S_.tasks[size_t(t)].snode)) continue;
      ++nt;
      if (ndeps(t) == 0) ready_.push(entry(t));
    }
    auto worker = [&](int w) {
      std::vector<size_type> newly;
      size_type t = -1;  // a task this worker kept from its last completion (no queue trip)
      for (;;) {
        if (t < 0) {
          std::unique_lock<std::mutex> lk(m_);
          cv_.wait(lk, [&] { return abort_ || done_ == nt || !ready_.empty() || running_ == 0; });
          if (abort_ || done_ == nt) return;
          if (ready_.empty()) {  // nothing ready, nothing running, work left: a broken graph
            if (!error_)
              error_ = std::make_exception_ptr(kspd::Error("kspd::sparse: task graph stalled with " +
                                                           std::to_string(nt - done_) + " tasks left"));
            abort_ = true;
            cv_.notify_all();
            return;
          }
          t = ready_.top().second;
          ready_.pop();
          ++running_;
        }
        try {
          run_task(t, w);
        } catch (...) {
          std::lock_guard<std::mutex> lk(m_);
          --running_;
          if (!error_) error_ = std::current_exception();
          abort_ = true;
          cv_.notify_all();
          return;
        }
        newly.clear();
        deliver(BlockEvent{S_.tasks[size_t(t)].kind, t}, newly);
        // Keep the most urgent newly ready task; the others go to the shared queue.
        size_type keep = -1;
        if (!newly.empty()) {
          size_t best = 0;
          for (size_t i = 1; i < newly.size(); ++i)
            if (entry(newly[i]) < entry(newly[best])) best = i;
          keep = newly[best];
          newly[best] = newly.back();
          newly.pop_back();
        }
        bool finished = false, idle = false, stop = false;
        {
          std::lock_guard<std::mutex> lk(m_);
          for (size_type c : newly) ready_.push(entry(c));
          finished = ++done_ == nt;
          if (keep < 0) idle = --running_ == 0;
          stop = abort_;
          if (S_.tasks[size_t(t)].kind == TaskKind::DiagFactor) on_diag_done(S_.tasks[size_t(t)].snode);
        }
        if (finished || idle || newly.size() > 1) cv_.notify_all();
        else if (newly.size() == 1) cv_.notify_one();
        if (stop) return;
        t = keep;
      }
    };
    int used = 1;
    if (nthreads <= 1) {
      worker(0);
    } else {
      std::vector<std::thread> pool;
      pool.reserve(size_t(nthreads));
      try {
        for (int w = 0; w < nthreads; ++w) pool.push_back(kspd::Impl::start_thread(worker, w));
      } catch (const std::system_error& e) {
        // A std::thread destroyed while joinable calls std::terminate: join the running ones
        // first. They take every task from the shared queue, so they finish without the rest.
        if (pool.empty()) throw Error(kspd::Impl::thread_start_failure("kspd::sparse::SupernodalCholesky", nthreads, 0, e));
      }
      for (auto& th : pool) th.join();
      used = int(pool.size());
    }
    if (error_) std::rethrow_exception(error_);
    return used;
  }

  /// The consumers of an event: decrement their counters; those reaching zero are ready.
  void deliver(const BlockEvent& ev, std::vector<size_type>& newly) {
    const Task& task = S_.tasks[size_t(ev.task)];
    const Supernode& sn = S_.snodes[size_t(task.snode)];
    auto dec = [&](size_type c) {
      if (!in_subset(subset_, S_.tasks[size_t(c)].snode)) return;  // a separator's task: another phase's
      if (deps_[size_t(c)].fetch_sub(1, std::memory_order_acq_rel) == 1) newly.push_back(c);
    };
    switch (ev.producer) {
      case TaskKind::DiagFactor:
        for (size_type b = sn.block_begin + 1; b < sn.block_end;) {
          const size_type tt = S_.blocks[size_t(b)].trsm_task;
          dec(tt);
          b = sn.block_begin + S_.tasks[size_t(tt)].block_end;
        }
        break;
      case TaskKind::Trsm: {
        const size_type last = gathered(task.snode) ? sn.block_end : sn.block_begin + task.block_end;
        for (size_type b = sn.block_begin + 1; b < last; ++b) {
          const size_type u = S_.update_task[size_t(b)];  // once per task: at its first block
          if (sn.block_begin + S_.tasks[size_t(u)].block_begin == b) dec(u);
        }
        break;
      }
      case TaskKind::Update:  // each block's target, once per block
        for (size_type b = task.block_begin; b < task.block_end; ++b) dec(S_.blocks[size_t(sn.block_begin + b)].target);
        break;
    }
  }

 private:
  bool gathered(size_type s) const { return !gather_.empty() && gather_[size_t(s)]; }
  int ndeps(size_type t) const {
    const Task& task = S_.tasks[size_t(t)];
    if (task.kind != TaskKind::Update || !gathered(task.snode)) return task.ndeps;
    const Supernode& sn = S_.snodes[size_t(task.snode)];  // every TRSM task of the supernode
    return int(S_.blocks[size_t(sn.block_end - 1)].trsm_task - S_.blocks[size_t(sn.block_begin + 1)].trsm_task + 1);
  }
  std::vector<char> gather_;
  using Entry = std::pair<size_type, size_type>;  // (priority key, task); smaller key first
  Entry entry(size_type t) const {
    const Task& task = S_.tasks[size_t(t)];
    size_type key = task.snode;
    if (task.kind == TaskKind::Update) key = S_.blocks[size_t(S_.snodes[size_t(task.snode)].block_begin + task.block_begin)].target;
    return {key, t};
  }
  const Symbolic& S_;
  SnodeSubset subset_;
  std::unique_ptr<std::atomic<int>[]> deps_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready_;
  std::mutex m_;
  std::condition_variable cv_;
  size_type done_ = 0, running_ = 0;
  bool abort_ = false;
  std::exception_ptr error_;
};

}  // namespace kspd::sparse::Impl
#endif
