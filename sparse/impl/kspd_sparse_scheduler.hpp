#ifndef KSPD_SPARSE_SCHEDULER_HPP
#define KSPD_SPARSE_SCHEDULER_HPP
/// \file kspd_sparse_scheduler.hpp
/// The fan-out scheduler: dependency counters per task, a ready queue (symPACK's RTQ; the
/// local task list is Symbolic::tasks, its LTQ), "block finished" events that decrement the
/// counters of the consumers, and std::thread workers. In one process every event is
/// delivered locally; a distributed scheduler sends the same events to the owner ranks.
/// A SnodeSubset restricts the run to the tasks of its supernodes (the supernodes one rank
/// owns). Without a Transport (one process) events for tasks outside it are dropped. With
/// one (the distributed solver: MpiTransport, kspd_sparse_mpi_factor.hpp) the scheduler
/// counts this rank's updates into each supernode outside the subset and hands the
/// supernode to the transport once the last one is done (fan-in: the accumulated panel
/// travels once to its owner); the transport credits the DiagFactor counters of the
/// subset's supernodes with the updates that other ranks' aggregates carry (credit), as if
/// those updates had run here. The main thread then drives the transport (all MPI calls,
/// MPI_THREAD_FUNNELED) while `nthreads` workers run the tasks.
/// IdleStats says where the workers were when not in a task (timeline).

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
#include <system_error>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

class Scheduler;

/// How the ranks' schedulers meet (MpiTransport in kspd_sparse_mpi_factor.hpp). None (a
/// null pointer): one process, every event local, no cost.
class Transport {
 public:
  virtual ~Transport() = default;
  /// Worker thread: this rank's last update into supernode t, owned by another rank, is
  /// done (called once per such t).
  virtual void contribution_done(size_type t) = 0;
  /// Worker thread, before each task (fault injection of tests); may throw.
  virtual void task_started() {}
  /// Main thread: moves messages, credits arrived contributions (Scheduler::credit), stops
  /// the run on another rank's abort (Scheduler::remote_abort). True when it did something.
  virtual bool progress(Scheduler& sched) = 0;
  /// Main thread: every message this rank has to send is handed to MPI.
  virtual bool idle() const = 0;
  /// Main thread, once: this rank stopped on an error; tell the others.
  virtual void notify_abort() = 0;
};

class Scheduler {
 public:
  explicit Scheduler(const Symbolic& S, SnodeSubset subset = {})
      : S_(S), subset_(std::move(subset)), deps_(new std::atomic<int>[S.tasks.size()]) {}

  /// Supernodes whose updates are computed as one product after all of their TRSM tasks
  /// (the device computes L_below L_below^T at once): each of their Update tasks then waits
  /// for every TRSM task of the supernode, not only those at or below its block.
  void gather_updates(std::vector<char> flags) { gather_ = std::move(flags); }
  /// The distributed run (file comment); nullptr: one process.
  void set_transport(Transport* t) { transport_ = t; }

  /// Main thread (Transport::progress): n updates into supernode s arrived from another rank.
  void credit(size_type s, int n) {
    if (deps_[size_t(s)].fetch_sub(n, std::memory_order_acq_rel) != n) return;
    {
      std::lock_guard<std::mutex> lk(m_);
      push(s);
    }
    cv_.notify_one();
  }
  /// Main thread (Transport::progress): another rank stopped; this one stops too, quietly
  /// (the failure is agreed after the run). stopped_by_remote() tells.
  void remote_abort() {
    std::lock_guard<std::mutex> lk(m_);
    abort_ = true;
    remote_abort_ = true;
    cv_.notify_all();
  }
  bool stopped_by_remote() const { return remote_abort_; }

  /// Where the workers of the last run were when not in a task (wall seconds summed over
  /// them): from the run's start to their first task (thread start), between two tasks
  /// (the scheduler's bookkeeping, its mutex, and the waits for work), after their last
  /// task; the waits for work (sleeps on the condition variable), their seconds, and the
  /// seconds from the push that woke a sleeper to its waking.
  struct IdleStats {
    size_type sleeps = 0;
    double sleep_seconds = 0, wake_latency = 0;
    double start_seconds = 0, between_seconds = 0, end_seconds = 0;
    void add(const IdleStats& o) {
      sleeps += o.sleeps, sleep_seconds += o.sleep_seconds, wake_latency += o.wake_latency;
      start_seconds += o.start_seconds, between_seconds += o.between_seconds, end_seconds += o.end_seconds;
    }
  };
  const IdleStats& idle_stats() const { return idle_; }

  /// Runs every task with `nthreads` workers; run_task(task, worker) executes one task.
  /// The first exception a task throws stops all workers and is rethrown here.
  /// \return the workers that ran: fewer than nthreads when the system refused a thread
  /// (the ones already running share the queue and finish the work); none starting is a
  /// kspd::Error naming the count.
  template <class RunTask, class OnDiag>
  int run(int nthreads, RunTask&& run_task, OnDiag&& on_diag_done) {
    ready_ = {};
    done_ = 0;
    running_ = 0;
    abort_ = false;
    sleepers_ = 0;
    idle_ = IdleStats{};
    error_ = nullptr;
    remote_abort_ = wake_ = false;
    const Clock::time_point run_start = Clock::now();
    std::vector<size_type> initial;
    const size_type nt = start(initial);
    for (size_type t : initial) push(t);
    const size_type ns = size_type(S_.snodes.size());
    if (transport_) {  // a supernode outside the subset counts this rank's updates into it
      for (size_type s = 0; s < ns; ++s)
        if (!in_subset(subset_, s)) deps_[size_t(s)].store(0, std::memory_order_relaxed);
      for (size_type s = 0; s < ns; ++s) {
        if (!in_subset(subset_, s)) continue;
        const Supernode& sn = S_.snodes[size_t(s)];
        for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) {
          const size_type t = S_.blocks[size_t(b)].target;
          if (!in_subset(subset_, t)) deps_[size_t(t)].fetch_add(1, std::memory_order_relaxed);
        }
      }
    }
    auto worker = [&](int w) {
      std::vector<size_type> newly;
      IdleStats idle;
      Clock::time_point last_end = run_start;  // of this worker's last task (the run's start before its first)
      struct Report {  // the worker's counts, added to idle_ when it returns (also on an error)
        Scheduler& s;
        IdleStats& i;
        const Clock::time_point& last_end;
        ~Report() {
          i.end_seconds += seconds(last_end, Clock::now());
          std::lock_guard<std::mutex> lk(s.m_);
          s.idle_.add(i);
        }
      } report{*this, idle, last_end};
      size_type t = -1;  // a task this worker kept from its last completion (no queue trip)
      bool first = true;
      for (;;) {
        if (t < 0 && (t = acquire(nt, idle)) < 0) return;
        try {
          if (transport_) transport_->task_started();
          (first ? idle.start_seconds : idle.between_seconds) += seconds(last_end, Clock::now());
          first = false;
          run_task(t, w);
          last_end = Clock::now();
          newly.clear();
          deliver(BlockEvent{S_.tasks[size_t(t)].kind, t}, newly);
        } catch (...) {
          std::lock_guard<std::mutex> lk(m_);
          --running_;
          if (!error_) error_ = std::current_exception();
          abort_ = true;
          cv_.notify_all();
          main_cv_.notify_one();
          return;
        }
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
        bool finished = false, idle_now = false, stop = false;
        {
          std::lock_guard<std::mutex> lk(m_);
          for (size_type c : newly) push(c);
          finished = ++done_ == nt;
          if (keep < 0) idle_now = --running_ == 0;
          stop = abort_;
          if (S_.tasks[size_t(t)].kind == TaskKind::DiagFactor) on_diag_done(S_.tasks[size_t(t)].snode);
        }
        if (finished || idle_now || newly.size() > 1) cv_.notify_all();
        else if (newly.size() == 1) cv_.notify_one();
        if (finished && transport_) main_cv_.notify_one();
        if (stop) return;
        t = keep;
      }
    };
    int used = 1;
    if (transport_) {
      used = run_distributed(nthreads, worker, nt);
    } else if (nthreads <= 1) {
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

  /// Sets every task's counter; the tasks ready at once are appended to `ready`.
  /// \return the number of tasks of the run (those of the subset).
  size_type start(std::vector<size_type>& ready) {
    size_type nt = 0;
    for (size_type t = 0; t < size_type(S_.tasks.size()); ++t) {
      deps_[size_t(t)].store(ndeps(t), std::memory_order_relaxed);
      if (!in_subset(subset_, S_.tasks[size_t(t)].snode)) continue;
      ++nt;
      if (ndeps(t) == 0) ready.push_back(t);
    }
    return nt;
  }

  using Entry = std::pair<size_type, size_type>;  // (priority key, task); smaller key first
  /// A task's place in the ready queue: the supernode it factors or updates (postorder: the
  /// deepest first), then the task.
  Entry entry(size_type t) const {
    const Task& task = S_.tasks[size_t(t)];
    size_type key = task.snode;
    if (task.kind == TaskKind::Update) key = S_.blocks[size_t(S_.snodes[size_t(task.snode)].block_begin + task.block_begin)].target;
    return {key, t};
  }

  /// The consumers of an event: decrement their counters; those reaching zero are ready.
  void deliver(const BlockEvent& ev, std::vector<size_type>& newly) {
    const Task& task = S_.tasks[size_t(ev.task)];
    const Supernode& sn = S_.snodes[size_t(task.snode)];
    auto dec = [&](size_type c) {
      if (!in_subset(subset_, S_.tasks[size_t(c)].snode)) {  // another rank's supernode (only DiagFactor: c = t)
        if (transport_ && deps_[size_t(c)].fetch_sub(1, std::memory_order_acq_rel) == 1) {
          transport_->contribution_done(c);
          {
            std::lock_guard<std::mutex> lk(m_);
            wake_ = true;
          }
          main_cv_.notify_one();
        }
        return;
      }
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
  using Clock = std::chrono::steady_clock;
  static double seconds(Clock::time_point a, Clock::time_point b) { return std::chrono::duration<double>(b - a).count(); }
  /// With m_ held: task t into the ready queue (the time noted when a worker sleeps).
  void push(size_type t) {
    ready_.push(entry(t));
    if (sleepers_ > 0) last_push_ = Clock::now();
  }
  /// A worker without a task takes the most urgent ready one, sleeping until there is one.
  /// -1: the run is over (finished, stopped, or its task graph stalled).
  size_type acquire(size_type nt, IdleStats& idle) {
    std::unique_lock<std::mutex> lk(m_);
    for (;;) {
      if (abort_ || done_ == nt) return -1;
      if (!ready_.empty()) {
        const size_type t = ready_.top().second;
        ready_.pop();
        ++running_;
        return t;
      }
      // (with a transport, work may be left for another rank's contribution)
      if (running_ == 0 && !transport_) {  // nothing ready, nothing running, work left: a broken graph
        if (!error_)
          error_ = std::make_exception_ptr(
              kspd::Error("kspd::sparse: task graph stalled with " + std::to_string(nt - done_) + " tasks left"));
        abort_ = true;
        cv_.notify_all();
        return -1;
      }
      ++idle.sleeps;
      ++sleepers_;
      const Clock::time_point s0 = Clock::now();
      cv_.wait(lk);
      --sleepers_;
      const Clock::time_point s1 = Clock::now();
      idle.sleep_seconds += seconds(s0, s1);
      if (!ready_.empty() && last_push_ > s0) idle.wake_latency += seconds(last_push_, s1);
    }
  }

  /// The workers on threads, the main thread drives the transport until the tasks are
  /// done and the messages handed to MPI, or the run stops (here or on another rank).
  template <class Worker>
  int run_distributed(int nthreads, Worker& worker, size_type nt) {
    std::vector<std::thread> pool;
    pool.reserve(size_t(std::max(nthreads, 1)));
    try {
      for (int w = 0; w < std::max(nthreads, 1); ++w) pool.push_back(kspd::Impl::start_thread(worker, w));
    } catch (const std::system_error& e) {
      if (pool.empty()) {
        std::lock_guard<std::mutex> lk(m_);
        error_ = std::make_exception_ptr(
            Error(kspd::Impl::thread_start_failure("kspd::sparse::DistributedCholesky", nthreads, 0, e)));
        abort_ = true;
      }
    }
    bool told = false;
    for (;;) {
      bool did = false;
      try {
        did = transport_->progress(*this);
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
        abort_ = true;
        cv_.notify_all();
      }
      bool stop = false, failed = false, finished = false;
      {
        std::lock_guard<std::mutex> lk(m_);
        stop = abort_;
        failed = error_ != nullptr;
        finished = done_ == nt;
      }
      if (failed && !told) {
        told = true;
        try {
          transport_->notify_abort();
        } catch (...) {  // the local error is the one reported; the others learn it in the agreement
        }
      }
      if (stop || (finished && transport_->idle())) break;
      if (did) continue;
      std::unique_lock<std::mutex> lk(m_);  // until a contribution is queued, the end, or the next poll
      main_cv_.wait_for(lk, std::chrono::microseconds(200), [&] { return wake_ || abort_ || done_ == nt; });
      wake_ = false;
    }
    for (auto& th : pool) th.join();
    return int(pool.size());
  }

  bool gathered(size_type s) const { return !gather_.empty() && gather_[size_t(s)]; }
  int ndeps(size_type t) const {
    const Task& task = S_.tasks[size_t(t)];
    if (task.kind != TaskKind::Update || !gathered(task.snode)) return task.ndeps;
    const Supernode& sn = S_.snodes[size_t(task.snode)];  // every TRSM task of the supernode
    return int(S_.blocks[size_t(sn.block_end - 1)].trsm_task - S_.blocks[size_t(sn.block_begin + 1)].trsm_task + 1);
  }
  std::vector<char> gather_;
  const Symbolic& S_;
  SnodeSubset subset_;
  std::unique_ptr<std::atomic<int>[]> deps_;
  std::priority_queue<Entry, std::vector<Entry>, std::greater<Entry>> ready_;
  std::mutex m_;
  std::condition_variable cv_, main_cv_;
  size_type done_ = 0, running_ = 0;
  bool abort_ = false, remote_abort_ = false, wake_ = false;
  int sleepers_ = 0;               ///< workers asleep on cv_ (m_ held)
  Clock::time_point last_push_{};  ///< the last push while a worker slept
  IdleStats idle_;
  Transport* transport_ = nullptr;
  std::exception_ptr error_;
};

}  // namespace kspd::sparse::Impl
#endif
