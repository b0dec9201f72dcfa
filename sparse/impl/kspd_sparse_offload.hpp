#ifndef KSPD_SPARSE_OFFLOAD_HPP
#define KSPD_SPARSE_OFFLOAD_HPP
/// \file kspd_sparse_offload.hpp
/// Offload of single factorization operations to an execution space `Exec` (CUDA on GPU
/// builds; a host space on CPU builds, where the same code path is exercised). The panel of
/// a supernode is copied to the device once and stays resident (a few panels, the least
/// recently used evicted) until a host write invalidates it; the updates of a supernode come
/// back as one dense lower triangle (a single syrk) that the host scatters by blocks.
/// Device work is serialized (one operation at a time) and bounded by a memory budget: an
/// operation that does not fit falls back to the host or throws OutOfDeviceMemory.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The offload device's name, for reports (the GPU and its memory on CUDA builds).
inline std::string offload_device_name() {
#ifdef KOKKOS_ENABLE_CUDA
  cudaDeviceProp prop;
  int dev = 0;
  if (cudaGetDevice(&dev) == cudaSuccess && cudaGetDeviceProperties(&prop, dev) == cudaSuccess)
    return std::string(prop.name) + ", " + std::to_string(prop.totalGlobalMem >> 20) + " MiB";
#endif
  return Kokkos::DefaultExecutionSpace::name();
}


template <class Scalar, class Exec>
class Offloader {
 public:
  using Mem = typename Exec::memory_space;
  /// Host memory the device copies from and to: pinned on CUDA (faster transfers).
#ifdef KOKKOS_ENABLE_CUDA
  using StagingSpace = std::conditional_t<std::is_same<Mem, Kokkos::CudaSpace>::value, Kokkos::CudaHostPinnedSpace,
                                          Kokkos::HostSpace>;
#else
  using StagingSpace = Kokkos::HostSpace;
#endif

 private:
  using DView = Kokkos::View<Scalar*, Mem>;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using HView = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

 public:
  explicit Offloader(const Offload& o) : o_(o) { slots_.reserve(kMaxSlots); }

  bool wants(std::int64_t threshold, std::int64_t size) const { return threshold >= 0 && size >= threshold; }

  /// potrf of the diagonal block of supernode s on the device; info as LAPACK's.
  bool potrf(Scalar* values, const Supernode& sn, size_type s, int& info) {
    std::lock_guard<std::mutex> lk(m_);
    if (!resident(values, sn, s, 0, "potrf")) return false;
    const size_type k = sn.ncols, ld = sn.nrows();
    info = kspd::potrf(exec_, Uplo::Lower, DMat(panel_, Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(k), size_t(ld))));
    if (info == 0) download(values + sn.value_offset, panel_, ld * k);
    else drop(s);
    return true;
  }

  /// TRSM of rows [r0, r0 + m) of supernode s's panel against its factored diagonal block.
  /// Only these rows come back (compacted on the device): other TRSM tasks of the same
  /// panel may run on the host at the same time (after a budget fallback).
  bool trsm(Scalar* values, const Supernode& sn, size_type s, size_type r0, size_type m) {
    std::lock_guard<std::mutex> lk(m_);
    const size_type k = sn.ncols, ld = sn.nrows();
    if (!resident(values, sn, s, m * k, "trsm")) return false;
    const DMat rows(panel_ + r0, Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(k), size_t(ld)));
    kspd::trsm(exec_, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1),
               DMat(panel_, Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(k), size_t(ld))), rows);
    Kokkos::deep_copy(exec_,
                      Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                          cbuf_.data(), static_cast<size_t>(m), size_t(k)),
                      rows);
    if (size_type(stage_.extent(0)) < m * k)
      stage_ = Kokkos::View<Scalar*, StagingSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::stage"),
                                                   static_cast<size_t>(m * k));
    download(stage_.data(), cbuf_.data(), m * k);
    Scalar* p = values + sn.value_offset + r0;
    for (size_type j = 0; j < k; ++j)
      for (size_type i = 0; i < m; ++i) p[i + j * ld] = stage_(static_cast<size_t>(i + j * m));
    return true;
  }

  /// c (m x m, column-major, m = rows below the diagonal block) = L_below L_below^T, lower
  /// triangle: every update of supernode s in one syrk.
  bool update_all(Scalar* values, const Supernode& sn, size_type s, Scalar* c) {
    std::lock_guard<std::mutex> lk(m_);
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    if (!resident(values, sn, s, m * m, "update")) return false;
    DMat C(cbuf_.data(), Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(m), size_t(m)));
    kspd::syrk(exec_, Uplo::Lower, Trans::NoTranspose, Scalar(1),
               DMat(panel_ + k, Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(k), size_t(ld))), Scalar(0), C);
    download(c, cbuf_.data(), m * m);
    return true;
  }

  /// The host copy of supernode s changed: the device copy is stale.
  void invalidate(size_type s) {
    std::lock_guard<std::mutex> lk(m_);
    drop(s);
  }

  void collect(FactorStats& st) {
    std::lock_guard<std::mutex> lk(m_);
    st.fallbacks = fallbacks_;
    st.bytes_to_device = to_dev_;
    st.bytes_from_device = from_dev_;
    st.device_peak_bytes = peak_;
    fallbacks_ = 0;
    to_dev_ = from_dev_ = 0;
  }

 private:
  /// A device copy of one supernode's panel. A few stay resident (least recently used
  /// evicted) so that the potrf, TRSM and update of a supernode share one upload even when
  /// other workers offload in between.
  struct Slot {
    size_type snode = -1;
    DView buf;
    std::uint64_t used = 0;
  };
  static constexpr size_t kMaxSlots = 4;

  /// Makes the panel of s resident and the update buffer at least `cwords` long, within
  /// the memory budget. False: fall back to the host (or throw, per Options).
  bool resident(Scalar* values, const Supernode& sn, size_type s, size_type cwords, const char* op) {
    const size_type pwords = sn.nrows() * sn.ncols;
    Slot* slot = find(s);
    bool ok = true;
    if (size_type(cbuf_.extent(0)) < cwords) {
      cbuf_ = DView();
      ok = make_room(cwords, slot) && alloc(cbuf_, cwords);
    }
    if (ok && !slot) slot = pick(pwords);
    if (!ok || !slot) {
      KSPD_REQUIRE(o_.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                   "kspd::sparse: offloaded " << op << " of supernode " << s << " needs "
                                              << (pwords + cwords) * size_type(sizeof(Scalar))
                                              << " bytes of device memory, over the budget Offload::device_memory_limit = "
                                              << o_.device_memory_limit << " (or the device is full); raise it or use fallback cpu");
      ++fallbacks_;
      return false;
    }
    peak_ = std::max<size_type>(peak_, held_words() * size_type(sizeof(Scalar)));
    if (slot->snode != s) {
      Kokkos::deep_copy(exec_, Kokkos::subview(slot->buf, Kokkos::make_pair(static_cast<size_t>(0), size_t(pwords))),
                        HView(values + sn.value_offset, size_t(pwords)));
      to_dev_ += double(pwords) * sizeof(Scalar);
      slot->snode = s;
    }
    slot->used = ++clock_;
    panel_ = slot->buf.data();
    return true;
  }

  Slot* find(size_type s) {
    for (auto& sl : slots_)
      if (sl.snode == s) return &sl;
    return nullptr;
  }
  void drop(size_type s) {
    if (Slot* sl = find(s)) sl->snode = -1;
  }
  size_type held_words() const {
    size_type w = size_type(cbuf_.extent(0));
    for (const auto& sl : slots_) w += size_type(sl.buf.extent(0));
    return w;
  }
  /// Frees least recently used panels (never `keep`) until `words` more fit in the budget.
  bool make_room(size_type words, const Slot* keep) {
    const size_type limit = o_.device_memory_limit / size_type(sizeof(Scalar));
    while (held_words() + words > limit) {
      Slot* lru = nullptr;
      for (auto& sl : slots_)
        if (&sl != keep && sl.buf.extent(0) > 0 && (!lru || sl.used < lru->used)) lru = &sl;
      if (!lru) return false;
      lru->buf = DView();
      lru->snode = -1;
    }
    return true;
  }
  /// A slot for a panel of `words`: a free one that is large enough, a new one, or the
  /// least recently used one (its buffer reused or reallocated).
  Slot* pick(size_type words) {
    for (auto& sl : slots_)
      if (sl.snode == -1 && size_type(sl.buf.extent(0)) >= words) return &sl;
    if (slots_.size() < kMaxSlots && make_room(words, nullptr)) {
      slots_.emplace_back();  // capacity reserved: pointers stay valid
      if (alloc(slots_.back().buf, words)) return &slots_.back();
      slots_.pop_back();
    }
    Slot* lru = nullptr;
    for (auto& sl : slots_)
      if (!lru || sl.used < lru->used) lru = &sl;
    if (!lru) return nullptr;
    lru->snode = -1;
    if (size_type(lru->buf.extent(0)) >= words) return lru;
    lru->buf = DView();
    if (make_room(words, lru) && alloc(lru->buf, words)) return lru;
    return nullptr;
  }
  bool alloc(DView& v, size_type words) {
    try {
      v = DView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::offload"), static_cast<size_t>(words));
      return true;
    } catch (const std::exception&) {  // the device is full: treat as over budget
      v = DView();
      return false;
    }
  }

  void download(Scalar* dst, const Scalar* src, size_type words) {
    Kokkos::deep_copy(exec_, HView(dst, size_t(words)),
                      Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(src, size_t(words)));
    exec_.fence();
    from_dev_ += double(words) * sizeof(Scalar);
  }

  Offload o_;
  Exec exec_;
  std::vector<Slot> slots_;
  DView cbuf_;
  Kokkos::View<Scalar*, StagingSpace> stage_;
  Scalar* panel_ = nullptr;  ///< the panel of the operation in progress
  std::uint64_t clock_ = 0;
  size_type fallbacks_ = 0, peak_ = 0;
  double to_dev_ = 0, from_dev_ = 0;
  std::mutex m_;
};

}  // namespace kspd::sparse::Impl
#endif
