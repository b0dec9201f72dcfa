#ifndef KSPD_SPARSE_DEVICE_FACTOR_HPP
#define KSPD_SPARSE_DEVICE_FACTOR_HPP
/// \file kspd_sparse_device_factor.hpp
/// The device-resident top of the supernodal elimination tree.
///
/// A supernode whose work reaches one of the offload thresholds lives on the device, and so
/// do all its ancestors (so a device supernode only ever updates device supernodes, and the
/// host never waits for device data until the end). The panel of a device supernode is kept
/// on the device as an accumulator of the updates of its device descendants (starting at
/// zero); its host panel keeps A's values and the updates of host descendants. When its
/// diagonal factor becomes ready the two are merged on the device (one upload), then its
/// potrf, TRSMs and all its updates run there: one syrk of the rows below the diagonal block
/// and one scatter kernel that subtracts the product into the ancestors' device panels by
/// relative indices. Device panels come back to the host once, at the end.
///
/// Only the potrf waits for the device (its info decides whether to go on); everything else
/// is queued on one execution-space instance, in the order the scheduler releases the tasks,
/// so device operations on the same panel are ordered by the stream. Device memory (panels,
/// the update product, index arrays, workspaces) is computed before the factorization; when
/// it exceeds Offload::device_memory_limit, the lowest device supernodes (in postorder) stay
/// on the host (fallback Cpu) or the factorization fails with OutOfDeviceMemory (Fail).
/// Generic over the execution space: on CPU builds the "device" is a host space, so the path
/// is compiled and tested everywhere.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <exception>
#include <mutex>
#include <string>
#include <type_traits>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_sparse_device_plan.hpp"
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

/// Free memory of the offload device in bytes (0 where the device is the host).
inline std::int64_t offload_device_free_bytes() {
#ifdef KOKKOS_ENABLE_CUDA
  size_t free = 0, total = 0;
  if (cudaMemGetInfo(&free, &total) == cudaSuccess) return std::int64_t(free);
#endif
  return 0;
}

/// What the drivers do with offload on: wider supernodes (unless the user chose a cap) and a
/// device budget of 85 % of the free device memory (unless the user gave one).
inline void gpu_run_defaults(Options& opt, bool max_supernode_given, bool memory_limit_given) {
  if (!opt.offload.any()) return;
  if (!max_supernode_given) opt.max_supernode = Offload::kGpuMaxSupernode;
  const std::int64_t free = offload_device_free_bytes();
  if (!memory_limit_given && free > 0) opt.offload.device_memory_limit = free / 100 * 85;
}

template <class Scalar, class Exec>
class DeviceFactor {
 public:
  using Mem = typename Exec::memory_space;
  /// Host memory the device copies from and to: pinned on CUDA (asynchronous transfers).
#ifdef KOKKOS_ENABLE_CUDA
  using StagingSpace = std::conditional_t<std::is_same<Mem, Kokkos::CudaSpace>::value, Kokkos::CudaHostPinnedSpace,
                                          Kokkos::HostSpace>;
#else
  using StagingSpace = Kokkos::HostSpace;
#endif

 private:
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using DUnmanaged = Kokkos::View<T*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  template <class T>
  using HUnmanaged = Kokkos::View<T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

 public:
  explicit DeviceFactor(const Offload& o) : o_(o) {}

  /// Picks the device supernodes and allocates their storage (zeroed panels). Throws
  /// OutOfDeviceMemory when supernodes had to stay on the host and the fallback is Fail.
  void setup(const Symbolic& S, int nworkers) {
    S_ = &S;
    const size_type ns = size_type(S.snodes.size());
    on_.assign(size_t(ns), 0);
    stats_ = Counters{};
    if (!o_.any()) return release();
    auto reaches = [](std::int64_t threshold, double size) { return threshold >= 0 && size >= double(threshold); };
    for (size_type s = 0; s < ns; ++s) {
      const Supernode& sn = S.snodes[size_t(s)];
      const double k = double(sn.ncols), m = double(sn.nrows() - sn.ncols);
      if (reaches(o_.potrf_threshold, k) || reaches(o_.trsm_threshold, m * k) || reaches(o_.update_threshold, m * m * k))
        on_[size_t(s)] = 1;
    }
    for (size_type s = 0; s < ns; ++s) {  // supernodes are in postorder: parents come later
      KSPD_REQUIRE(S.snodes[size_t(s)].nrows() < (size_type(1) << 31), Error,
                   "kspd::sparse: supernode " << s << " has 2^31 rows or more (relative indices are 32-bit)");
      const size_type p = S.snodes[size_t(s)].parent;
      KSPD_REQUIRE(p < 0 || p > s, Error, "kspd::sparse: internal error: supernode " << s << " has parent " << p);
      if (on_[size_t(s)] && p >= 0) on_[size_t(p)] = 1;
    }
    // Device memory of the device supernodes from position q of the postorder list on.
    std::vector<size_type> list;
    for (size_type s = 0; s < ns; ++s)
      if (on_[size_t(s)]) list.push_back(s);
    const size_t nd = list.size();
    std::vector<double> bytes(nd + 1, 0.0);
    size_type cmax = 0, pmax = 0, kmax = 0;
    std::vector<size_type> cmax_from(nd + 1, 0), pmax_from(nd + 1, 0), kmax_from(nd + 1, 0);
    for (size_t q = nd; q-- > 0;) {
      const Supernode& sn = S.snodes[size_t(list[q])];
      const size_type k = sn.ncols, m = sn.nrows() - k;
      bytes[q] = bytes[q + 1] + double(sn.nrows() * k) * sizeof(Scalar) + double(m) * sizeof(ScatterCol) +
                 double(scatter_rel_count(S, list[q])) * sizeof(std::int32_t) + sizeof(std::int64_t);
      cmax = std::max(cmax, m * m);
      pmax = std::max(pmax, sn.nrows() * k);
      kmax = std::max(kmax, k * k);
      cmax_from[q] = cmax;
      pmax_from[q] = pmax;
      kmax_from[q] = kmax;
    }
    auto need = [&](size_t q) {
      return bytes[q] + double(cmax_from[q] + pmax_from[q] + size_type(nworkers) * kmax_from[q]) * sizeof(Scalar);
    };
    size_t first = 0;
    while (first < nd && need(first) > double(o_.device_memory_limit)) ++first;
    if (first > 0) {
      KSPD_REQUIRE(o_.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                   "kspd::sparse: the device supernodes need " << std::int64_t(need(0))
                                                               << " bytes of device memory, over the budget "
                                                                  "Offload::device_memory_limit = "
                                                               << o_.device_memory_limit
                                                               << "; raise it or use fallback cpu");
      for (size_t q = 0; q < first; ++q) on_[size_t(list[q])] = 0;
      stats_.fallbacks = size_type(first);
    }
    list.erase(list.begin(), list.begin() + std::ptrdiff_t(first));
    if (list.empty()) return release();
    try {
      allocate(list, cmax_from[first], pmax_from[first], kmax_from[first], nworkers);
    } catch (const std::exception& e) {  // the device is fuller than the budget says
      release();
      KSPD_REQUIRE(o_.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                   "kspd::sparse: allocating " << std::int64_t(need(first))
                                               << " bytes of device memory for the device supernodes failed: " << e.what());
      stats_.fallbacks = size_type(nd);
      std::fill(on_.begin(), on_.end(), char(0));
      return;
    }
    stats_.peak = size_type(need(first));
  }

  bool on_device(size_type s) const { return !on_.empty() && on_[size_t(s)] != 0; }
  /// Per supernode: 1 when it lives on the device (after setup).
  const std::vector<char>& placement() const { return on_; }

  /// Merges the host panel of s (A's values and host updates) into its device panel, then
  /// factors the diagonal block; `worker` selects the worker's workspace. Returns info; on
  /// failure `saved` holds the merged diagonal block (ld = k) for the pivot report.
  int potrf(const Scalar* hvals, size_type s, int worker, std::vector<Scalar>& saved) {
    const Supernode& sn = S_->snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), words = ld * k;
    Ws& ws = ws_[size_t(worker)];
    {
      std::lock_guard<std::mutex> lk(m_);
      Scalar* panel = dvals_.data() + doff_[size_t(s)];
      Kokkos::deep_copy(exec_, DUnmanaged<Scalar>(merge_.data(), size_t(words)),
                        Kokkos::View<const Scalar*, StagingSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            hvals + sn.value_offset, size_t(words)));
      const Scalar* tmp = merge_.data();
      Kokkos::parallel_for(
          "kspd::sparse::merge_panel", Kokkos::RangePolicy<Exec>(exec_, 0, words),
          KOKKOS_LAMBDA(const size_type i) { panel[i] += tmp[i]; });
      const DMat diag(panel, Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(ld)));
      Kokkos::deep_copy(exec_, DMat(ws.save.data(), Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(k))), diag);
      kspd::potrf(exec_, Uplo::Lower, diag, ws.dinfo);
      Kokkos::deep_copy(exec_, ws.hinfo, ws.dinfo);
      stats_.to_dev += double(words) * sizeof(Scalar);
    }
    exec_.fence();  // outside the lock: other workers keep queueing
    const int info = ws.hinfo();
    if (info != 0) {
      saved.resize(size_t(k * k));
      std::lock_guard<std::mutex> lk(m_);
      Kokkos::deep_copy(exec_, HUnmanaged<Scalar>(saved.data(), size_t(k * k)),
                        DUnmanaged<Scalar>(ws.save.data(), size_t(k * k)));
      exec_.fence();
    }
    return info;
  }

  /// TRSM of rows [r0, r0 + m) of s's device panel with its factored diagonal block.
  void trsm(size_type s, size_type r0, size_type m) {
    const Supernode& sn = S_->snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows();
    std::lock_guard<std::mutex> lk(m_);
    Scalar* panel = dvals_.data() + doff_[size_t(s)];
    kspd::trsm(exec_, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1),
               DMat(panel, Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(ld))),
               DMat(panel + r0, Kokkos::LayoutStride(size_t(m), 1, size_t(k), size_t(ld))));
  }

  /// Every update of s at once: C = L21 L21^T (one syrk), subtracted from the ancestors'
  /// device panels by the one scatter kernel. The scatter map is computed here, on the
  /// calling worker, before the device lock is taken.
  void update(size_type s) {
    const Supernode& sn = S_->snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    if (m == 0) return;
    ScatterCol* cols = hcols_.data() + desc_off_[size_t(s)];
    std::int32_t* rel = hrel_.data() + rel_off_[size_t(s)];
    scatter_map(*S_, s, cols, rel, rel_off_[size_t(s)]);
    const size_type nrel = scatter_rel_count(*S_, s);
    std::lock_guard<std::mutex> lk(m_);
    Kokkos::deep_copy(exec_, Kokkos::subview(dcols_, Kokkos::make_pair(size_t(desc_off_[size_t(s)]), size_t(desc_off_[size_t(s)] + m))),
                      HUnmanaged<ScatterCol>(cols, size_t(m)));
    Kokkos::deep_copy(exec_, Kokkos::subview(drel_, Kokkos::make_pair(size_t(rel_off_[size_t(s)]), size_t(rel_off_[size_t(s)] + nrel))),
                      HUnmanaged<std::int32_t>(rel, size_t(nrel)));
    stats_.to_dev += double(m) * sizeof(ScatterCol) + double(nrel) * sizeof(std::int32_t);
    Scalar* panel = dvals_.data() + doff_[size_t(s)];
    kspd::syrk(exec_, Uplo::Lower, Trans::NoTranspose, Scalar(1),
               DMat(panel + k, Kokkos::LayoutStride(size_t(m), 1, size_t(k), size_t(ld))), Scalar(0),
               DMat(cbuf_.data(), Kokkos::LayoutStride(size_t(m), 1, size_t(m), size_t(m))));
    scatter_update(exec_, dvals_.data(), ddoff_.data(), cbuf_.data(), m, m, dcols_.data() + desc_off_[size_t(s)],
                   drel_.data());
  }

  /// Brings the device panels back into the host values (after the last task). A panel
  /// outside `subset` was not factored: its device accumulator (the subset's device updates)
  /// is added to the host panel (A's values and the host updates) instead.
  void finish(Scalar* hvals, const SnodeSubset& subset = {}) {
    if (dvals_.extent(0) == 0) return;
    std::lock_guard<std::mutex> lk(m_);
    std::vector<Scalar> acc;
    for (size_type s = 0; s < size_type(on_.size()); ++s) {
      if (!on_[size_t(s)]) continue;
      const Supernode& sn = S_->snodes[size_t(s)];
      const size_type words = sn.nrows() * sn.ncols;
      Scalar* h = hvals + sn.value_offset;
      const bool add = !in_subset(subset, s);
      if (add) acc.resize(size_t(words));
      Kokkos::deep_copy(exec_,
                        Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                            add ? acc.data() : h, size_t(words)),
                        DUnmanaged<Scalar>(dvals_.data() + doff_[size_t(s)], size_t(words)));
      if (add) {
        exec_.fence();
        for (size_type i = 0; i < words; ++i) h[i] += acc[size_t(i)];
      }
      stats_.from_dev += double(words) * sizeof(Scalar);
    }
    exec_.fence();
  }

  /// Transfers, memory and placement of the last factorization.
  void collect(FactorStats& st) const {
    st.fallbacks = stats_.fallbacks;
    st.bytes_to_device = stats_.to_dev;
    st.bytes_from_device = stats_.from_dev;
    st.device_peak_bytes = stats_.peak;
    st.device_supernodes = size_type(std::count(on_.begin(), on_.end(), char(1)));
  }

 private:
  void allocate(const std::vector<size_type>& list, size_type cwords, size_type pwords, size_type kwords, int nworkers) {
    const size_type ns = size_type(S_->snodes.size());
    doff_.assign(size_t(ns), -1);
    desc_off_.assign(size_t(ns), 0);
    rel_off_.assign(size_t(ns), 0);
    size_type pv = 0, pd = 0, pr = 0;
    for (size_type s : list) {
      const Supernode& sn = S_->snodes[size_t(s)];
      doff_[size_t(s)] = pv;
      desc_off_[size_t(s)] = pd;
      rel_off_[size_t(s)] = pr;
      pv += sn.nrows() * sn.ncols;
      pd += sn.nrows() - sn.ncols;
      pr += scatter_rel_count(*S_, s);
    }
    dvals_ = Kokkos::View<Scalar*, Mem>("kspd::sparse::device_panels", size_t(std::max<size_type>(pv, 1)));  // zeroed
    const auto noinit = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
    cbuf_ = Kokkos::View<Scalar*, Mem>(noinit("kspd::sparse::update_product"), size_t(std::max<size_type>(cwords, 1)));
    merge_ = Kokkos::View<Scalar*, Mem>(noinit("kspd::sparse::merge"), size_t(std::max<size_type>(pwords, 1)));
    dcols_ = Kokkos::View<ScatterCol*, Mem>(noinit("kspd::sparse::scatter_columns"), size_t(std::max<size_type>(pd, 1)));
    {
      ddoff_ = Kokkos::View<std::int64_t*, Mem>(noinit("kspd::sparse::panel_offsets"), size_t(std::max<size_type>(ns, 1)));
      Kokkos::deep_copy(Kokkos::subview(ddoff_, Kokkos::make_pair(size_t(0), size_t(ns))),
                        HUnmanaged<std::int64_t>(const_cast<std::int64_t*>(doff_.data()), size_t(ns)));
    }
    drel_ = Kokkos::View<std::int32_t*, Mem>(noinit("kspd::sparse::scatter_rows"), size_t(std::max<size_type>(pr, 1)));
    hcols_ = Kokkos::View<ScatterCol*, StagingSpace>(noinit("kspd::sparse::scatter_columns_h"), size_t(std::max<size_type>(pd, 1)));
    hrel_ = Kokkos::View<std::int32_t*, StagingSpace>(noinit("kspd::sparse::scatter_rows_h"), size_t(std::max<size_type>(pr, 1)));
    ws_.clear();
    for (int w = 0; w < nworkers; ++w) {
      Ws ws;
      ws.save = Kokkos::View<Scalar*, Mem>(noinit("kspd::sparse::saved_diagonal"), size_t(std::max<size_type>(kwords, 1)));
      ws.dinfo = Kokkos::View<int, Mem>("kspd::sparse::info");
      ws.hinfo = Kokkos::View<int, StagingSpace>("kspd::sparse::info_h");
      ws_.push_back(ws);
    }
    exec_.fence();
  }

  void release() {
    dvals_ = {};
    cbuf_ = {};
    merge_ = {};
    dcols_ = {};
    ddoff_ = {};
    drel_ = {};
    hcols_ = {};
    hrel_ = {};
    ws_.clear();
  }

  struct Ws {  ///< a worker's potrf workspace
    Kokkos::View<Scalar*, Mem> save;
    Kokkos::View<int, Mem> dinfo;
    Kokkos::View<int, StagingSpace> hinfo;
  };
  struct Counters {
    size_type fallbacks = 0, peak = 0;
    double to_dev = 0, from_dev = 0;
  };

  Offload o_;
  const Symbolic* S_ = nullptr;
  Exec exec_;
  std::vector<char> on_;
  std::vector<size_type> doff_, desc_off_, rel_off_;
  Kokkos::View<Scalar*, Mem> dvals_, cbuf_, merge_;
  Kokkos::View<ScatterCol*, Mem> dcols_;
  Kokkos::View<std::int64_t*, Mem> ddoff_;
  Kokkos::View<std::int32_t*, Mem> drel_;
  Kokkos::View<ScatterCol*, StagingSpace> hcols_;
  Kokkos::View<std::int32_t*, StagingSpace> hrel_;
  std::vector<Ws> ws_;
  Counters stats_;
  std::mutex m_;
};

}  // namespace kspd::sparse::Impl
#endif
