#ifndef KSPD_SPARSE_OFFLOAD_HPP
#define KSPD_SPARSE_OFFLOAD_HPP
/// \file kspd_sparse_offload.hpp
/// Offload of single factorization operations to an execution space `Exec` (CUDA on GPU
/// builds; a host space on CPU builds, where the same code path is exercised). The panel of
/// the supernode being worked on is copied to the device once and stays resident until a
/// host write invalidates it; updates come back as a dense block that the host scatters.
/// Device work is serialized (one operation at a time) and bounded by a memory budget: an
/// operation that does not fit falls back to the host or throws OutOfDeviceMemory.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <exception>
#include <mutex>

#include "kspd_core.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

template <class Scalar, class Exec>
class Offloader {
  using Mem = typename Exec::memory_space;
  using DView = Kokkos::View<Scalar*, Mem>;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using HView = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

 public:
  explicit Offloader(const Offload& o) : o_(o) {}

  bool wants(std::int64_t threshold, std::int64_t size) const { return threshold >= 0 && size >= threshold; }

  /// potrf of the diagonal block of supernode s on the device; info as LAPACK's.
  bool potrf(Scalar* values, const Supernode& sn, size_type s, int& info) {
    std::lock_guard<std::mutex> lk(m_);
    if (!resident(values, sn, s, 0, "potrf")) return false;
    const size_type k = sn.ncols, ld = sn.nrows();
    info = kspd::potrf(exec_, Uplo::Lower, DMat(panel_.data(), Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(k), size_t(ld))));
    if (info == 0) download(values + sn.value_offset, panel_.data(), ld * k);
    else resident_ = -1;
    return true;
  }

  /// TRSM of rows [r0, r0 + m) of supernode s's panel against its factored diagonal block.
  bool trsm(Scalar* values, const Supernode& sn, size_type s, size_type r0, size_type m) {
    std::lock_guard<std::mutex> lk(m_);
    if (!resident(values, sn, s, 0, "trsm")) return false;
    const size_type k = sn.ncols, ld = sn.nrows();
    kspd::trsm(exec_, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1),
               DMat(panel_.data(), Kokkos::LayoutStride(static_cast<size_t>(k), 1, size_t(k), size_t(ld))),
               DMat(panel_.data() + r0, Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(k), size_t(ld))));
    download(values + sn.value_offset, panel_.data(), ld * k);
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
               DMat(panel_.data() + k, Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(k), size_t(ld))), Scalar(0), C);
    download(c, cbuf_.data(), m * m);
    return true;
  }

  /// The host copy of supernode s changed: the device copy is stale.
  void invalidate(size_type s) {
    std::lock_guard<std::mutex> lk(m_);
    if (resident_ == s) resident_ = -1;
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
  /// Makes the panel of s resident and the update buffer at least `cwords` long, within
  /// the memory budget. False: fall back to the host (or throw, per Options).
  bool resident(Scalar* values, const Supernode& sn, size_type s, size_type cwords, const char* op) {
    const size_type pwords = sn.nrows() * sn.ncols;
    const size_type need = (std::max<size_type>(pwords, panel_.extent(0)) + std::max<size_type>(cwords, cbuf_.extent(0))) *
                           size_type(sizeof(Scalar));
    bool ok = need <= o_.device_memory_limit;
    if (ok) ok = grow(panel_, pwords) && grow(cbuf_, cwords);
    if (!ok) {
      resident_ = -1;
      KSPD_REQUIRE(o_.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                   "kspd::sparse: offloaded " << op << " of supernode " << s << " needs " << need
                                              << " bytes of device memory, over the budget Offload::device_memory_limit = "
                                              << o_.device_memory_limit << " (or the device is full); raise it or use fallback cpu");
      ++fallbacks_;
      return false;
    }
    peak_ = std::max<size_type>(peak_, size_type(panel_.extent(0) + cbuf_.extent(0)) * size_type(sizeof(Scalar)));
    if (resident_ != s) {
      Kokkos::deep_copy(exec_, Kokkos::subview(panel_, Kokkos::make_pair(static_cast<size_t>(0), size_t(pwords))),
                        HView(values + sn.value_offset, size_t(pwords)));
      to_dev_ += double(pwords) * sizeof(Scalar);
      resident_ = s;
    }
    return true;
  }

  bool grow(DView& v, size_type words) {
    if (size_type(v.extent(0)) >= words) return true;
    resident_ = -1;  // the panel buffer may be the one reallocated
    try {
      v = DView();
      v = DView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::offload"), size_t(words));
      return true;
    } catch (const std::exception&) {  // device allocation failed: treat as over budget
      v = DView();
      resident_ = -1;
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
  DView panel_, cbuf_;
  size_type resident_ = -1;
  size_type fallbacks_ = 0, peak_ = 0;
  double to_dev_ = 0, from_dev_ = 0;
  std::mutex m_;
};

}  // namespace kspd::sparse::Impl
#endif
