#ifndef KSPD_BATCHED_SCRATCH_INTERNAL_HPP
#define KSPD_BATCHED_SCRATCH_INTERNAL_HPP
/// \file kspd_batched_scratch_internal.hpp
/// Device scratch of the batched operations that outlives one call: on CUDA one buffer per
/// (stream, slot), kept across calls and freed by a Kokkos finalize hook (an allocation per
/// call would cost a cudaMalloc and, on release, a cudaFree that waits for the device; at n =
/// 64 that is more than the work). Stream order makes the reuse by the next call on the same
/// stream safe; growing a buffer drops the map's reference to the old one, which lives on
/// while a caller still holds it. Other backends allocate per call (host threads may run
/// several calls at once on one instance). Slots: 0 the sub-block pointers of cuBLAS
/// gemmBatched, 1 the batch-first repack workspace.

#include <Kokkos_Core.hpp>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "kspd_compat.hpp"

namespace kspd::batched::Impl {

enum class ScratchSlot { GemmPointers = 0, Repack = 1 };

template <class ExecSpace>
Kokkos::View<unsigned char*, typename ExecSpace::memory_space> stream_scratch(const ExecSpace& exec, size_t bytes,
                                                                               ScratchSlot slot, const char* label) {
  using Buf = Kokkos::View<unsigned char*, typename ExecSpace::memory_space>;
  if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
    using Key = std::pair<decltype(exec.cuda_stream()), int>;
    static std::mutex mu;
    static std::map<Key, Buf>* bufs = nullptr;
    std::lock_guard<std::mutex> lock(mu);
    if (bufs == nullptr) {
      bufs = new std::map<Key, Buf>();
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> l(mu);
        delete bufs;
        bufs = nullptr;
      });
    }
    Buf& b = (*bufs)[Key(exec.cuda_stream(), int(slot))];
    if (b.extent(0) < bytes) {
      b = Buf();
      b = Buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), bytes);
    }
    return b;
  } else {
    (void)exec, (void)slot;
    return Buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), bytes);
  }
}

}  // namespace kspd::batched::Impl
#endif
