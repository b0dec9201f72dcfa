#ifndef KSPD_SPARSE_MPI_DEVICE_HPP
#define KSPD_SPARSE_MPI_DEVICE_HPP
/// \file kspd_sparse_mpi_device.hpp
/// The device side of the distributed factorization (MpiFactor): one rank per GPU, the
/// rank's blocks of "device" supernodes resident in one device allocation, and the dense
/// kernels run through the core backend on one execution-space instance (one stream, so
/// device work is ordered). Generic over the execution space: on host builds the "device"
/// memory is host memory and the same path runs.
///
/// Host staging: every block that crosses MPI is read from or written to host memory (the
/// MPI window / two-sided serve and the solve read the host copy); a finished device block
/// is downloaded before it is announced. Blocks from elsewhere (remote blocks, local host
/// blocks) are uploaded into a device cache that frees an entry after its last device use
/// and evicts entries when the memory budget is reached (the host copy stays available
/// until every local consumer ran, so an evicted entry is uploaded again when needed).

#include <Kokkos_Core.hpp>
#include <mpi.h>
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif

#include <algorithm>
#include <cstdint>
#include <exception>
#include <string>
#include <unordered_map>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_error.hpp"

namespace kspd::sparse::Impl {

/// Whether the MPI library can read and write device memory (Open MPI's CUDA-aware query;
/// false where the library cannot tell). Reported only: the distributed factorization
/// stages blocks through host memory in every case.
inline bool cuda_aware_mpi() {
#if defined(MPIX_CUDA_AWARE_SUPPORT) && MPIX_CUDA_AWARE_SUPPORT
  return MPIX_Query_cuda_support() == 1;
#else
  return false;
#endif
}

/// dst[i] += src[i], i < n, on `exec`.
template <class Exec, class Scalar>
void mpi_add_into(const Exec& exec, Scalar* dst, const Scalar* src, size_type n) {
  Kokkos::parallel_for(
      "kspd::sparse::mpi::merge", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, n),
      KOKKOS_LAMBDA(const std::int64_t i) { dst[i] += src[i]; });
}

/// The update scatter on `exec`: T(rows r2, columns r1 - first_col) -= C (m2 x m1,
/// column-major; lower: only i >= j, C from a syrk). T has nt rows rt (sorted, a superset
/// of r2), found by binary search; distinct (i, j) hit distinct entries: no atomics.
template <class Exec, class Scalar>
void mpi_scatter_sub(const Exec& exec, const Scalar* c, size_type m2, size_type m1, bool lower, const size_type* r1,
                     const size_type* r2, const size_type* rt, size_type nt, size_type first_col, Scalar* t) {
  Kokkos::parallel_for(
      "kspd::sparse::mpi::scatter", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, m1 * m2),
      KOKKOS_LAMBDA(const std::int64_t idx) {
        const size_type i = idx % m2, j = idx / m2;
        if (lower && i < j) return;
        const size_type row = r2[i];
        size_type lo = 0, hi = nt;
        while (lo < hi) {
          const size_type mid = (lo + hi) / 2;
          if (rt[mid] < row) lo = mid + 1;
          else hi = mid;
        }
        t[(r1[j] - first_col) * nt + lo] -= c[idx];
      });
}

/// Device memory and operations of one rank's part of the distributed factorization.
template <class Scalar, class Exec>
class MpiDevice {
 public:
  using Mem = typename Exec::memory_space;
  using DView = Kokkos::View<Scalar*, Mem>;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using DVec = Kokkos::View<Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using HVec = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Allocates the resident blocks (zeroed), the workspace and the row structure; false
  /// when it does not fit in limit_bytes or the device refuses (then nothing is held).
  /// cache_reserve: words the largest single task needs in the cache.
  bool allocate(size_type resident_words, size_type work_words, size_type cache_reserve, const std::vector<size_type>& rows,
                std::int64_t limit_bytes) {
    limit_words_ = limit_bytes / std::int64_t(sizeof(Scalar));
    fixed_words_ = resident_words + work_words + size_type(rows.size() * sizeof(size_type) + sizeof(Scalar) - 1) / size_type(sizeof(Scalar));
    if (fixed_words_ + cache_reserve > limit_words_) return false;
    try {
      res_ = DView("kspd::sparse::mpi::device_blocks", size_t(resident_words));
      work_ = DView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::mpi::device_work"), size_t(work_words));
      rows_ = Kokkos::View<size_type*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::mpi::rows"),
                                            rows.size());
      Kokkos::deep_copy(exec_, rows_, Kokkos::View<const size_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                          rows.data(), rows.size()));
      exec_.fence();
    } catch (const std::exception&) {  // the device is full: as over the budget
      res_ = DView();
      work_ = DView();
      rows_ = {};
      return false;
    }
    to_dev_ += double(rows.size() * sizeof(size_type));
    note_peak();
    return true;
  }

  Scalar* resident(size_type offset) const { return res_.data() + offset; }
  const size_type* rows() const { return rows_.data(); }
  size_type fixed_bytes() const { return fixed_words_ * size_type(sizeof(Scalar)); }

  /// d (resident, words) += h (host); `dirty` false: d is still zero, a plain upload.
  void merge(Scalar* d, const Scalar* h, size_type words, bool dirty) {
    if (!dirty) return upload(d, h, words);
    upload(work_.data(), h, words);
    mpi_add_into(exec_, d, static_cast<const Scalar*>(work_.data()), words);
  }

  /// potrf of the k x k block d; the merged block is kept in the workspace first and
  /// downloaded into `save` only when the factorization fails (the pivot report).
  int potrf(Scalar* d, size_type k, std::vector<Scalar>& save) {
    Kokkos::deep_copy(exec_, DVec(work_.data(), size_t(k * k)), DVec(d, size_t(k * k)));
    const int info = kspd::potrf(exec_, Uplo::Lower, DMat(d, size_t(k), size_t(k)));  // fences
    if (info != 0) {
      save.resize(size_t(k * k));
      download(save.data(), work_.data(), k * k);
    }
    return info;
  }

  /// b (m x k) = b L^-T with L the k x k lower factor `diag`.
  void trsm(const Scalar* diag, size_type k, Scalar* b, size_type m) {
    kspd::trsm(exec_, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1),
               DMat(const_cast<Scalar*>(diag), size_t(k), size_t(k)), DMat(b, size_t(m), size_t(k)));
  }

  /// T -= L(b2) L(b1)^T scattered (a1: m1 x k, a2: m2 x k; syrk when sym).
  void update(const Scalar* a1, size_type m1, const Scalar* a2, size_type m2, size_type k, bool sym, const size_type* r1,
              const size_type* r2, const size_type* rt, size_type nt, size_type first_col, Scalar* t) {
    Scalar* c = work_.data();
    if (sym)
      kspd::syrk(exec_, Uplo::Lower, Trans::NoTranspose, Scalar(1), DMat(const_cast<Scalar*>(a1), size_t(m1), size_t(k)),
                 Scalar(0), DMat(c, size_t(m1), size_t(m1)));
    else
      kspd::gemm(exec_, Trans::NoTranspose, Trans::Transpose, Scalar(1), DMat(const_cast<Scalar*>(a2), size_t(m2), size_t(k)),
                 DMat(const_cast<Scalar*>(a1), size_t(m1), size_t(k)), Scalar(0), DMat(c, size_t(m2), size_t(m1)));
    mpi_scatter_sub(exec_, static_cast<const Scalar*>(c), m2, m1, sym, r1, r2, rt, nt, first_col, t);
  }

  /// Device reads of block b still to come (cached blocks: freed after the last one).
  void add_uses(size_type b, int uses) { cache_[b].uses += uses; }
  /// The device copy of a non-resident block b (host copy h), uploaded when absent;
  /// keep: blocks the current task holds (never evicted for this one).
  const Scalar* cached(size_type b, const Scalar* h, size_type words, size_type keep) {
    Entry& e = cache_[b];
    if (e.buf.extent(0) == 0) {
      room(words, b, keep);
      try {
        e.buf = DView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::mpi::device_cache"), size_t(words));
      } catch (const std::exception&) {  // the device is full below the budget: free all, retry
        room(limit_words_, b, keep);
        try {
          e.buf = DView(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::mpi::device_cache"), size_t(words));
        } catch (const std::exception&) {
          KSPD_REQUIRE(false, OutOfDeviceMemory,
                       "kspd::sparse::DistributedCholesky: the device refused " << words * size_type(sizeof(Scalar))
                           << " bytes below Offload::device_memory_limit = " << limit_words_ * size_type(sizeof(Scalar))
                           << " (set the limit below the free device memory)");
        }
      }
      cache_words_ += words;
      upload(e.buf.data(), h, words);
      note_peak();
    }
    return e.buf.data();
  }
  /// One device read of cached block b done.
  void release(size_type b) {
    auto it = cache_.find(b);
    if (it == cache_.end() || --it->second.uses > 0) return;
    if (it->second.buf.extent(0) > 0) {  // freed at the next fence: queued work may still read it
      cache_words_ -= size_type(it->second.buf.extent(0));
      grave_words_ += size_type(it->second.buf.extent(0));
      graveyard_.push_back(std::move(it->second.buf));
    }
    cache_.erase(it);
  }

  /// d (device, words) -> h (host); fences (the host reads h next).
  void download(Scalar* h, const Scalar* d, size_type words) {
    Kokkos::deep_copy(exec_, HVec(h, size_t(words)),
                      Kokkos::View<const Scalar*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(d, size_t(words)));
    fence();
    from_dev_ += double(words) * sizeof(Scalar);
  }
  void fence() {
    exec_.fence();
    graveyard_.clear();
    grave_words_ = 0;
  }

  double bytes_to_device() const { return to_dev_; }
  double bytes_from_device() const { return from_dev_; }
  size_type peak_bytes() const { return peak_words_ * size_type(sizeof(Scalar)); }
  size_type evictions() const { return evictions_; }

 private:
  struct Entry {
    DView buf;
    int uses = 0;
  };

  void upload(Scalar* d, const Scalar* h, size_type words) {
    Kokkos::deep_copy(exec_, DVec(d, size_t(words)),
                      Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h, size_t(words)));
    to_dev_ += double(words) * sizeof(Scalar);
  }
  void note_peak() { peak_words_ = std::max(peak_words_, fixed_words_ + cache_words_ + grave_words_); }

  /// Frees memory until `words` more fit in the budget: the freed entries first (after a
  /// fence), then cached blocks other than a and b (uploaded again when needed).
  void room(size_type words, size_type a, size_type b) {
    if (fixed_words_ + cache_words_ + grave_words_ + words <= limit_words_) return;
    fence();
    for (auto& [id, e] : cache_) {
      if (fixed_words_ + cache_words_ + words <= limit_words_) break;
      if (id == a || id == b || e.buf.extent(0) == 0) continue;
      cache_words_ -= size_type(e.buf.extent(0));
      e.buf = DView();
      ++evictions_;
    }
  }

  Exec exec_;
  DView res_, work_;
  Kokkos::View<size_type*, Mem> rows_;
  std::unordered_map<size_type, Entry> cache_;
  std::vector<DView> graveyard_;
  size_type limit_words_ = 0, fixed_words_ = 0, cache_words_ = 0, grave_words_ = 0, peak_words_ = 0, evictions_ = 0;
  double to_dev_ = 0, from_dev_ = 0;
};

}  // namespace kspd::sparse::Impl
#endif
