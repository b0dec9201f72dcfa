#ifndef KSPD_PERF_RFP_COMMON_HPP
#define KSPD_PERF_RFP_COMMON_HPP
// Shared pieces of the rfp benchmarks: argument lists, median timing, device memory
// accounting (free memory before and the minimum free memory during a call, polled from a
// second host thread), the device's name.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_perf_utils.hpp"
#include "kspd_rfp.hpp"

#ifdef KSPD_ENABLE_CUDA_TPLS
#include <cuda_runtime.h>
#endif

namespace perf_rfp {
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
template <class T>
using Dense = Kokkos::View<T**, Kokkos::LayoutLeft, Mem>;
constexpr double GiB = 1024.0 * 1024.0 * 1024.0;

using kspd::perf::has;
using kspd::perf::median_time;
using kspd::perf::parse_list;
using kspd::perf::parse_words;

/// Free device memory in bytes (0 on host builds: nothing to measure there).
inline size_t free_bytes() {
#ifdef KSPD_ENABLE_CUDA_TPLS
  size_t f = 0, t = 0;
  cudaMemGetInfo(&f, &t);
  return f;
#else
  return 0;
#endif
}
inline size_t total_bytes() {
#ifdef KSPD_ENABLE_CUDA_TPLS
  size_t f = 0, t = 0;
  cudaMemGetInfo(&f, &t);
  return t;
#else
  return 0;
#endif
}

/// Peak device memory taken between construction and finish(): the free memory at the start
/// minus the smallest free memory seen (a second thread polls cudaMemGetInfo every 100 us).
/// Used only in untimed runs. On host builds it reports 0.
class PeakTracker {
 public:
  PeakTracker() : base_(free_bytes()), min_free_(base_) {
#ifdef KSPD_ENABLE_CUDA_TPLS
    poller_ = std::thread([this] {
      while (!stop_.load()) {
        sample();
        std::this_thread::sleep_for(std::chrono::microseconds(100));
      }
    });
#endif
  }
  ~PeakTracker() { finish(); }
  /// Bytes: peak use above the starting point.
  double finish() {
    if (poller_.joinable()) {
      stop_ = true;
      poller_.join();
    }
    sample();
    return double(base_ - std::min(base_, min_free_.load()));
  }

 private:
  void sample() {
    const size_t f = free_bytes();
    size_t cur = min_free_.load();
    while (f < cur && !min_free_.compare_exchange_weak(cur, f)) {
    }
  }
  size_t base_;
  std::atomic<size_t> min_free_;
  std::atomic<bool> stop_{false};
  std::thread poller_;
};

inline std::string device_name() {
#ifdef KSPD_ENABLE_CUDA_TPLS
  cudaDeviceProp p;
  int dev = 0;
  cudaGetDevice(&dev);
  cudaGetDeviceProperties(&p, dev);
  char buf[256];
  std::snprintf(buf, sizeof buf, "%s (%.1f GiB, %.1f GiB free)", p.name, double(total_bytes()) / GiB,
                double(free_bytes()) / GiB);
  return buf;
#else
  return std::string(Exec::name()) + " (host)";
#endif
}

/// --blocking words: auto, split, blocked, lookahead.
inline kspd::Blocking parse_blocking(const std::string& w) {
  if (w == "split") return kspd::Blocking::Split;
  if (w == "blocked") return kspd::Blocking::Blocked;
  if (w == "lookahead") return kspd::Blocking::LookAhead;
  if (w == "dense") return kspd::Blocking::Dense;
  if (w != "auto") {
    std::fprintf(stderr, "unknown blocking %s (auto, split, blocked, lookahead, dense)\n", w.c_str());
    std::exit(2);
  }
  return kspd::Blocking::Auto;
}
inline kspd::Toggle parse_toggle(const std::string& w) {
  if (w == "on") return kspd::Toggle::On;
  if (w == "off") return kspd::Toggle::Off;
  if (w != "auto") {
    std::fprintf(stderr, "unknown toggle %s (auto, off, on)\n", w.c_str());
    std::exit(2);
  }
  return kspd::Toggle::Auto;
}
inline const char* toggle_name(kspd::Toggle t) {
  return t == kspd::Toggle::On ? "on" : t == kspd::Toggle::Off ? "off" : "auto";
}
inline const char* blocking_name(kspd::Blocking b) {
  switch (b) {
    case kspd::Blocking::Split: return "split";
    case kspd::Blocking::Blocked: return "blocked";
    case kspd::Blocking::LookAhead: return "lookahead";
    case kspd::Blocking::Dense: return "dense";
    default: return "auto";
  }
}

/// A = X X^T / k + I in RFP format (SPD, condition number ~ 1 + ||X||^2/k), X n x k random in
/// (-1, 1); X is returned for the sfrk benchmark.
template <class T>
void make_spd(const kspd::rfp::Matrix<T, Mem>& A, const Dense<T>& X, unsigned seed) {
  Exec exec;
  Kokkos::Random_XorShift64_Pool<Exec> pool(seed);
  Kokkos::fill_random(X, pool, T(-1), T(1));
  kspd::rfp::sfrk(exec, kspd::Trans::NoTranspose, T(1) / T(X.extent(1)), X, T(0), A);
  kspd::rfp::add_to_diagonal(exec, A, T(1));
  exec.fence();
}

}  // namespace perf_rfp
#endif
