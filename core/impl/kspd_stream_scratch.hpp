#ifndef KSPD_STREAM_SCRATCH_HPP
#define KSPD_STREAM_SCRATCH_HPP
/// \file kspd_stream_scratch.hpp
/// Device scratch that outlives one call, for every module: on CUDA one buffer per (stream,
/// slot), kept across calls and freed by a Kokkos finalize hook. An allocation per call costs
/// a cudaMalloc and, on release, a cudaFree that waits for the whole device (or a fence of
/// the stream before the free): at pftrf's n = 4K-8K and batched n = 64 that is a visible
/// part of the call. Stream order makes the reuse by the next call on the same stream safe;
/// growing a buffer drops the map's reference to the old one, which lives on while a caller
/// still holds it (Scratch keeps its buffer). Other backends allocate per call (host threads
/// may run several calls at once on one instance).
///
/// Each user owns a slot, so nested users (the transposed copy around a potrf whose inner
/// call takes the BLAS-3 inverse path) never share a buffer. Buffers above kScratchKeepBytes
/// are not kept (RFP is chosen to save memory: a 16K pftrf's half-size copy is 512 MB):
/// they are allocated for the call, and Scratch::release_after fences the stream before the
/// free, as every user did before. (Batched's scratch, which this replaces, kept any size.)

#include <Kokkos_Core.hpp>

#include <map>
#include <mutex>
#include <string>
#include <utility>

#include "kspd_compat.hpp"
#include "kspd_types.hpp"

namespace kspd::Impl {

enum class ScratchSlot {
  BatchedGemmPointers,  // batched: the sub-block pointers of cuBLAS gemmBatched
  BatchedRepack,        // batched: the batch-first repack workspace
  TransposedCopy,       // core: the 'L' copy of an upper triangle (DenseOptions::upper_via_lower)
  Blas3Inverse,         // core: trtri / lauum as one trsm / trmm (DenseOptions::blas3_inverse)
  RfpPanelCopy,         // rfp: pftrf's copy of an upper-stored diagonal panel
  RfpInfo,              // rfp: pftrf's per-step infos
  RfpDense,             // rfp: pftrf's dense n x n workspace (Blocking::Dense)
};

/// Buffers kept per stream up to this size (bytes); larger ones live for one call, unless
/// the user asks to keep any size (ScratchKeep::Always: batched's buffers, bounded by their
/// tuning tables, whose raw pointers outlive the Scratch handle).
inline constexpr size_t kScratchKeepBytes = size_t(256) << 20;
enum class ScratchKeep { UpToCap, Always };

/// Bytes of an n x n column-major workspace, leading dimension rounded up to 64 elements
/// (SquareWorkspace, kspd_dense_transposed.hpp).
template <class T>
size_t square_workspace_bytes(size_type n) {
  return size_t(n) * size_t((n + 63) / 64 * 64) * sizeof(T);
}

/// A byte buffer on exec's memory space, usable on exec until the next request of the same
/// slot on the same stream. kept(): it stays for later calls (no fence needed before the
/// caller's return); else the caller fences exec before dropping it (release_after).
template <class ExecSpace>
class Scratch {
 public:
  using Buf = Kokkos::View<unsigned char*, typename ExecSpace::memory_space>;

  Scratch(const ExecSpace& exec, size_t bytes, ScratchSlot slot, const char* label,
          ScratchKeep keep = ScratchKeep::UpToCap)
      : exec_(exec) {
    if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
      if (keep == ScratchKeep::Always || bytes <= kScratchKeepBytes) {
        buf_ = cached(exec, bytes, slot, label);
        kept_ = true;
        return;
      }
    }
    (void)slot, (void)keep;
    buf_ = Buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), bytes);
  }
  unsigned char* data() const { return buf_.data(); }
  const Buf& view() const { return buf_; }
  bool kept() const { return kept_; }
  /// Device buffers not kept are freed when the last handle goes: let exec's work on them
  /// finish first (a kept buffer needs nothing: the stream orders its next use).
  void release_after() const {
    if constexpr (!compat::is_host_exec_v<ExecSpace>)
      if (!kept_) compat::fence(exec_, "kspd::scratch::release");
  }
  /// Bytes the slot holds on exec's stream now (0: none, or not a kept-buffer backend).
  static size_t held(const ExecSpace& exec, ScratchSlot slot) {
    if constexpr (compat::is_cuda_exec_v<ExecSpace>) {
#if defined(KOKKOS_ENABLE_CUDA)
      std::lock_guard<std::mutex> lock(mutex());
      if (!map()) return 0;
      auto it = map()->find(Key(exec.cuda_stream(), int(slot)));
      return it == map()->end() ? 0 : it->second.extent(0);
#endif
    } else {
      (void)exec, (void)slot;
      return 0;
    }
  }

 private:
  ExecSpace exec_;
  Buf buf_;
  bool kept_ = false;

#if defined(KOKKOS_ENABLE_CUDA)
  using Key = std::pair<cudaStream_t, int>;
#else
  using Key = std::pair<void*, int>;
#endif
  using Map = std::map<Key, Buf>;
  static std::mutex& mutex() {
    static std::mutex m;
    return m;
  }
  static Map*& map() {  // mutex() held; null before the first kept buffer and after finalize
    static Map* bufs = nullptr;
    return bufs;
  }
  static Buf cached(const ExecSpace& exec, size_t bytes, ScratchSlot slot, const char* label) {
    std::lock_guard<std::mutex> lock(mutex());
    if (!map()) {
      map() = new Map();
      Kokkos::push_finalize_hook([] {
        std::lock_guard<std::mutex> l(mutex());
        delete map();
        map() = nullptr;
      });
    }
#if defined(KOKKOS_ENABLE_CUDA)
    Buf& b = (*map())[Key(exec.cuda_stream(), int(slot))];
#else
    Buf& b = (*map())[Key(nullptr, int(slot))];
    (void)exec;
#endif
    if (b.extent(0) < bytes) {
      b = Buf();  // the old buffer first: its memory may serve the new one
      b = Buf(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(label)), bytes);
    }
    return b;
  }
};

}  // namespace kspd::Impl
#endif
