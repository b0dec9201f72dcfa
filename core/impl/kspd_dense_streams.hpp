#ifndef KSPD_DENSE_STREAMS_HPP
#define KSPD_DENSE_STREAMS_HPP
/// \file kspd_dense_streams.hpp
/// Impl::Lanes: the caller's execution-space instance and a second one of the same backend
/// for look-ahead (work that may overlap the caller's), with device-side joins between them
/// (stream_wait, also for other users of several instances: the sparse resident factor).
/// On CUDA the second instance is one of kSideLanes from Kokkos::Experimental::partition_space,
/// created once per process and freed by a Kokkos finalize hook (`side_index` picks one, so
/// several Lanes can have side lanes that run beside each other: the sparse update's wide
/// panels); the joins are CUDA events (no host
/// fence). Host backends have one lane: the second instance is the caller's, so the same
/// algorithm runs in program order.
///
/// An urgent side lane (SidePriority::Urgent) runs on a stream of the device's highest
/// priority, so its short kernels (a look-ahead panel) are scheduled ahead of the blocks of a
/// long GEMM on the caller's stream instead of queueing behind it: with two streams of equal
/// priority the panel waits for the GEMM to drain and look-ahead overlaps almost nothing
/// (1-3% over no look-ahead on the H100, perf_tests/results/h100-rfp-blocking-2026-11-24.md).

#include <Kokkos_Core.hpp>

#include <mutex>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_cuda_bindings.hpp"

namespace kspd::Impl {

/// The waiter instance's later work waits for the signaler's work enqueued so far: on the
/// device with a CUDA event (no host wait), else a host fence of the signaler (host
/// backends, whose instances run in program order anyway; CUDA without the TPLs).
template <class ExecSpace>
void stream_wait(const ExecSpace& waiter, const ExecSpace& signaler) {
#if defined(KSPD_ENABLE_CUDA_TPLS)
  if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
    cuda::stream_wait(waiter.cuda_stream(), signaler.cuda_stream());
    return;
  }
#endif
  (void)waiter;
  compat::fence(signaler, "kspd::stream_wait");
}

enum class SidePriority { Same, Urgent };

template <class ExecSpace>
class Lanes {
 public:
  static constexpr int kSideLanes = 4;
  /// concurrent = false: both lanes are `exec` (no second instance is created). side_index
  /// (mod kSideLanes): which of the cached side instances (SidePriority::Same).
  Lanes(const ExecSpace& exec, bool concurrent, SidePriority priority = SidePriority::Same, int side_index = 0)
      : main_(exec), side_(exec), concurrent_(concurrent && has_second_instance) {
    if (concurrent_) side_ = priority == SidePriority::Urgent ? urgent_instance(exec) : side_instance(exec, side_index);
  }
  const ExecSpace& main() const { return main_; }
  const ExecSpace& side() const { return side_; }
  bool concurrent() const { return concurrent_; }
  /// The side lane's later work waits for the main lane's work enqueued so far.
  void side_waits_main() const { wait(side_, main_); }
  void main_waits_side() const { wait(main_, side_); }

 private:
  ExecSpace main_, side_;
  bool concurrent_ = false;

  static constexpr bool has_second_instance = compat::is_cuda_exec_v<ExecSpace>;

  void wait(const ExecSpace& waiter, const ExecSpace& signaler) const {
    if (concurrent_) stream_wait(waiter, signaler);  // (one lane: program order)
  }

  // The cached side instances (CUDA), or exec itself.
  static ExecSpace side_instance(const ExecSpace& exec, int index) {
#if defined(KOKKOS_ENABLE_CUDA)
    if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
      static std::mutex m;
      static std::vector<ExecSpace>* cache = nullptr;
      std::lock_guard<std::mutex> lock(m);
      if (!cache) {
        cache = new std::vector<ExecSpace>(Kokkos::Experimental::partition_space(exec, 1, 1, 1, 1));
        static_assert(kSideLanes == 4, "kspd::Impl::Lanes: one partition weight per side lane");
        Kokkos::push_finalize_hook([] {
          std::lock_guard<std::mutex> l(m);
          delete cache;
          cache = nullptr;
        });
      }
      return (*cache)[size_t(index % kSideLanes)];
    }
#endif
    (void)index;
    return exec;
  }

  // The cached instance on a highest-priority stream (CUDA with the TPLs; otherwise the plain
  // second instance). The finalize hook frees the instance before its stream.
  static ExecSpace urgent_instance(const ExecSpace& exec) {
#if defined(KOKKOS_ENABLE_CUDA) && defined(KSPD_ENABLE_CUDA_TPLS)
    if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
      static std::mutex m;
      static ExecSpace* cache = nullptr;
      static cudaStream_t stream = nullptr;
      std::lock_guard<std::mutex> lock(m);
      if (!cache) {
        stream = cuda::stream_create_urgent();
        cache = new ExecSpace(stream);
        Kokkos::push_finalize_hook([] {
          std::lock_guard<std::mutex> l(m);
          delete cache;
          cache = nullptr;
          cuda::stream_destroy(stream);
          stream = nullptr;
        });
      }
      return *cache;
    }
#endif
    return side_instance(exec, 0);
  }
};

}  // namespace kspd::Impl
#endif
