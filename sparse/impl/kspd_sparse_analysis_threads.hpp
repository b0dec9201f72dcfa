#ifndef KSPD_SPARSE_ANALYSIS_THREADS_HPP
#define KSPD_SPARSE_ANALYSIS_THREADS_HPP
/// \file kspd_sparse_analysis_threads.hpp
/// std::thread helpers of the ordering and the symbolic analysis (Debian's Kokkos is
/// Serial-only, and the analysis runs before any execution space is chosen): a fork-join
/// over T threads, even cuts of a prefix-counted range, and a stable parallel counting sort
/// whose result does not depend on T.

#include <algorithm>
#include <atomic>
#include <ctime>
#include <cstddef>
#include <exception>
#include <memory>
#include <type_traits>
#include <utility>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_types.hpp"

namespace kspd::sparse::Impl {

/// An allocator whose resize() leaves new elements uninitialised, so that large work arrays
/// are first touched (and their pages faulted in) by the threads that fill them.
template <class T>
struct DefaultInitAllocator : std::allocator<T> {
  template <class U>
  struct rebind {
    using other = DefaultInitAllocator<U>;
  };
  DefaultInitAllocator() = default;
  template <class U>
  DefaultInitAllocator(const DefaultInitAllocator<U>&) noexcept {}
  template <class U>
  void construct(U* p) noexcept(std::is_nothrow_default_constructible_v<U>) {
    ::new (static_cast<void*>(p)) U;
  }
  template <class U, class... Args>
  void construct(U* p, Args&&... args) {
    ::new (static_cast<void*>(p)) U(std::forward<Args>(args)...);
  }
};
template <class T>
using WorkVector = std::vector<T, DefaultInitAllocator<T>>;

/// CPU seconds of the calling thread.
inline double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// CPU seconds of the whole process (all its threads).
inline double process_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return double(ts.tv_sec) + 1e-9 * double(ts.tv_nsec);
}

/// For the KSPD_ANALYSE_PROFILE report: the CPU seconds that threads spent beside the
/// busiest one of each fork-join (in nanoseconds). Process CPU minus this is the critical
/// path, what the phases would take on dedicated cores; on a shared machine (where the
/// scheduler gives a process one share however many threads it runs) wall times hide it.
inline std::atomic<long long>& parallel_excess_ns() {
  static std::atomic<long long> v{0};
  return v;
}

/// Adds sum - max of per-thread CPU seconds to parallel_excess_ns().
inline void add_parallel_excess(const std::vector<double>& cpu) {
  if (cpu.size() < 2) return;
  double sum = 0, mx = 0;
  for (const double c : cpu) sum += c, mx = std::max(mx, c);
  parallel_excess_ns() += (long long)((sum - mx) * 1e9);
}

/// Runs f(t) for t = 0..T-1, t > 0 on new threads; the first exception is rethrown. A
/// thread the system refuses is no error: its f(t) runs on the calling thread instead.
template <class F>
void run_threads(int T, F&& f) {
  if (T <= 1) {
    f(0);
    return;
  }
  std::mutex m;
  std::exception_ptr error;
  std::vector<double> cpu(static_cast<size_t>(T), 0.0);
  auto guarded = [&](int t) {
    const double c0 = thread_cpu_seconds();
    try {
      f(t);
    } catch (...) {
      std::lock_guard<std::mutex> lock(m);
      if (!error) error = std::current_exception();
    }
    cpu[size_t(t)] = thread_cpu_seconds() - c0;
  };
  std::vector<std::thread> pool;
  int started = 1;
  try {
    for (; started < T; ++started) pool.emplace_back(guarded, started);
  } catch (const std::system_error&) {  // joinable threads must be joined, not destroyed
  }
  guarded(0);
  for (int t = started; t < T; ++t) guarded(t);
  for (auto& th : pool) th.join();
  add_parallel_excess(cpu);
  if (error) std::rethrow_exception(error);
}

/// T + 1 cuts of the sources [0, nsrc) that split the items (ptr: prefix counts) evenly.
inline std::vector<size_type> balanced_cuts(const size_type* ptr, size_type nsrc, int T) {
  std::vector<size_type> cuts(static_cast<size_t>(T + 1), nsrc);
  cuts[0] = 0;
  for (int t = 1; t < T; ++t) {
    const size_type goal = ptr[0] + (ptr[nsrc] - ptr[0]) * t / T;
    cuts[size_t(t)] = std::max(cuts[size_t(t - 1)], size_type(std::lower_bound(ptr, ptr + nsrc + 1, goal) - ptr));
    cuts[size_t(t)] = std::min(cuts[size_t(t)], nsrc);
  }
  return cuts;
}

/// A stable counting sort of items into nb buckets: visit(src, emit) calls emit(bucket,
/// value, origin) for the items of source src, sources in the T chunks of cuts; the items land
/// in bucket order, and within a bucket in source order, whatever T is (so the result is
/// the serial one). Returns the bucket pointers; value[pos], origin[pos] hold the items.
template <class ValueVector, class OriginVector, class Visit>
std::vector<size_type> stable_buckets(int T, const std::vector<size_type>& cuts, size_type nb, Visit visit,
                                      ValueVector& value, OriginVector* origin) {
  using V = typename ValueVector::value_type;
  std::vector<std::vector<size_type>> cnt(static_cast<size_t>(T));
  run_threads(T, [&](int t) {
    auto& c = cnt[size_t(t)];
    c.assign(static_cast<size_t>(nb), 0);
    for (size_type src = cuts[size_t(t)]; src < cuts[size_t(t + 1)]; ++src)
      visit(src, [&](size_type b, size_type, size_type) { ++c[size_t(b)]; });
  });
  std::vector<size_type> ptr(static_cast<size_t>(nb + 1), 0);
  for (size_type b = 0; b < nb; ++b) {
    size_type at = ptr[size_t(b)];
    for (int t = 0; t < T; ++t) {
      const size_type k = cnt[size_t(t)][size_t(b)];
      cnt[size_t(t)][size_t(b)] = at;
      at += k;
    }
    ptr[size_t(b + 1)] = at;
  }
  value.resize(static_cast<size_t>(ptr[size_t(nb)]));
  if (origin) origin->resize(value.size());
  run_threads(T, [&](int t) {
    auto& c = cnt[size_t(t)];
    for (size_type src = cuts[size_t(t)]; src < cuts[size_t(t + 1)]; ++src)
      visit(src, [&](size_type b, size_type v, size_type o) {
        const size_type pos = c[size_t(b)]++;
        value[size_t(pos)] = V(v);
        if (origin) (*origin)[size_t(pos)] = o;
      });
  });
  return ptr;
}

}  // namespace kspd::sparse::Impl
#endif
