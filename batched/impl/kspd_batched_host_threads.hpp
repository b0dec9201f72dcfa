#ifndef KSPD_BATCHED_HOST_THREADS_HPP
#define KSPD_BATCHED_HOST_THREADS_HPP
/// \file kspd_batched_host_threads.hpp
/// Every core of the CPU for host batches. With an OpenMP or Threads Kokkos the kernels run
/// through Kokkos (RangePolicy over the batch). With a Serial Kokkos (Debian's Trilinos 13.2
/// build: one core) a small pool of std::threads, started on first use, takes chunks of the
/// batch: the calling thread and hardware_concurrency() - 1 workers (KSPD_BATCHED_THREADS
/// overrides the count; 1 turns the pool off). A call that finds the pool busy (another host
/// thread's batch) runs on its own thread. Small batches (less work than a thread wake-up)
/// stay on the caller.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdlib>
#include <exception>
#include <functional>
#include <mutex>
#include <thread>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_types.hpp"

namespace kspd::batched::Impl {

/// Threads a Serial-Kokkos host batch runs on.
inline int host_threads() {
  static const int n = [] {
    if (const char* e = std::getenv("KSPD_BATCHED_THREADS")) {
      const int v = std::atoi(e);
      if (v >= 1) return v;
    }
    const unsigned h = std::thread::hardware_concurrency();
    return h >= 1 ? int(h) : 1;
  }();
  return n;
}

class HostPool {
 public:
  static HostPool& instance() {
    static HostPool pool(host_threads() - 1);
    return pool;
  }
  /// Runs f(b0, b1) over [0, n) in chunks on the pool and the calling thread; false (nothing
  /// run) when the pool is busy with another caller's batch.
  bool run(size_type n, size_type chunk, const std::function<void(size_type, size_type)>& f) {
    std::unique_lock<std::mutex> busy(busy_, std::try_to_lock);
    if (!busy.owns_lock()) return false;
    {
      std::lock_guard<std::mutex> lk(m_);
      job_ = &f;
      n_ = n;
      chunk_ = chunk;
      next_.store(0);
      active_ = int(workers_.size());
      error_ = nullptr;
      ++gen_;
    }
    cv_.notify_all();
    work();
    std::unique_lock<std::mutex> lk(m_);
    done_.wait(lk, [&] { return active_ == 0; });
    job_ = nullptr;
    if (error_) std::rethrow_exception(error_);
    return true;
  }
  int size() const { return int(workers_.size()) + 1; }
  ~HostPool() {
    {
      std::lock_guard<std::mutex> lk(m_);
      stop_ = true;
    }
    cv_.notify_all();
    for (auto& t : workers_) t.join();
  }
  HostPool(const HostPool&) = delete;
  HostPool& operator=(const HostPool&) = delete;

 private:
  explicit HostPool(int nworkers) {
    for (int i = 0; i < nworkers; ++i) {
      try {
        workers_.emplace_back([this] { loop(); });
      } catch (const std::system_error&) {  // fewer threads than asked: run with those we have
        break;
      }
    }
  }
  void work() {
    for (;;) {
      const size_type c = next_.fetch_add(1);
      const size_type b0 = c * chunk_;
      if (b0 >= n_) return;
      try {
        (*job_)(b0, std::min(n_, b0 + chunk_));
      } catch (...) {
        std::lock_guard<std::mutex> lk(m_);
        if (!error_) error_ = std::current_exception();
      }
    }
  }
  void loop() {
    unsigned seen = 0;
    for (;;) {
      {
        std::unique_lock<std::mutex> lk(m_);
        cv_.wait(lk, [&] { return stop_ || gen_ != seen; });
        if (stop_) return;
        seen = gen_;
      }
      work();
      std::lock_guard<std::mutex> lk(m_);
      if (--active_ == 0) done_.notify_one();
    }
  }
  std::mutex busy_, m_;
  std::condition_variable cv_, done_;
  std::vector<std::thread> workers_;
  const std::function<void(size_type, size_type)>* job_ = nullptr;
  size_type n_ = 0, chunk_ = 1;
  std::atomic<size_type> next_{0};
  int active_ = 0;
  unsigned gen_ = 0;
  bool stop_ = false;
  std::exception_ptr error_;
};

/// While a CallerOnlyScope lives (any thread), host batches stay on the calling thread:
/// perf_batched's one-thread baseline for the per-core scaling, timed in the same run.
inline std::atomic<int>& caller_only_scopes() {
  static std::atomic<int> c{0};
  return c;
}
struct CallerOnlyScope {
  CallerOnlyScope() { ++caller_only_scopes(); }
  ~CallerOnlyScope() { --caller_only_scopes(); }
  CallerOnlyScope(const CallerOnlyScope&) = delete;
  CallerOnlyScope& operator=(const CallerOnlyScope&) = delete;
};

/// Below this much work (flops, roughly) a host batch stays on the calling thread.
constexpr double kHostThreadMinWork = 2e5;

/// f(b) for b in [0, n) on `exec`: GPUs and multi-threaded host backends through Kokkos; a
/// Serial Kokkos through the pool when the batch is worth it (work: flops per matrix).
/// A functor f that is not callable on a device (host-only) must only reach host backends.
template <class ExecSpace, class F>
void batch_for(const ExecSpace& exec, const char* label, size_type n, const F& f, double work = 1e9) {
  if (n <= 0) return;
  if constexpr (compat::is_host_exec_v<ExecSpace>) {
    if (exec.concurrency() == 1 && host_threads() > 1 && caller_only_scopes().load() == 0 && n > 1 &&
        double(n) * work >= kHostThreadMinWork) {
      compat::fence(exec, label);
      const size_type nt = size_type(HostPool::instance().size());
      // Chunks: about 8 per thread (load balance) and at least enough work to amortise a grab.
      size_type chunk = std::max<size_type>(1, n / (8 * nt));
      const std::function<void(size_type, size_type)> body = [&](size_type b0, size_type b1) {
        for (size_type b = b0; b < b1; ++b) f(b);
      };
      compat::ScopedRegion region(label);
      if (HostPool::instance().run(n, chunk, body)) return;
      body(0, n);
      return;
    }
  }
  Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, n), f);
}

}  // namespace kspd::batched::Impl
#endif
