#ifndef KSPD_SPARSE_FACTOR_PAGES_HPP
#define KSPD_SPARSE_FACTOR_PAGES_HPP
/// \file kspd_sparse_factor_pages.hpp
/// FactorPages: the storage of the host factor's values. On Linux it is anonymous memory
/// from mmap, which the kernel hands out zeroed: the first factorization does not write
/// zeros over it, it commits the pages in bulk (MADV_POPULATE_WRITE, one call per thread's
/// slice) instead of taking a page fault per 4 KiB on the first touch. A fresh 148 MB factor
/// (3-D elasticity 22^3) took 0.19-0.22 s to fault in by memset on the 2-core VM, 0.12 s to
/// populate (perf_tests/results/cpu-sparse-factor-efficiency-2026-11-24.md). Elsewhere it is
/// an ordinary allocation that zero() writes.

#include <cerrno>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <new>
#include <string>
#include <utility>

#include "kspd_error.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace kspd::sparse::Impl {

template <class Scalar>
class FactorPages {
 public:
  FactorPages() = default;
  /// n entries; throws kspd::Error when the memory cannot be had.
  explicit FactorPages(std::size_t n) : n_(n) {
    const std::size_t bytes = n * sizeof(Scalar);
#if defined(__linux__)
    void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    KSPD_REQUIRE(p != MAP_FAILED, Error,
                 "kspd::sparse: allocating the factor (" << bytes << " bytes) failed: " << std::strerror(errno));
    p_ = static_cast<Scalar*>(p);
    fresh_ = true;
#else
    try {
      p_ = static_cast<Scalar*>(::operator new(bytes));
    } catch (const std::bad_alloc&) {
      KSPD_REQUIRE(false, Error, "kspd::sparse: allocating the factor (" << bytes << " bytes) failed");
    }
#endif
  }
  FactorPages(const FactorPages&) = delete;
  FactorPages& operator=(const FactorPages&) = delete;
  FactorPages(FactorPages&& o) noexcept { swap(o); }
  FactorPages& operator=(FactorPages&& o) noexcept {
    FactorPages(std::move(o)).swap(*this);
    return *this;
  }
  ~FactorPages() {
    if (!p_) return;
#if defined(__linux__)
    munmap(p_, n_ * sizeof(Scalar));
#else
    ::operator delete(p_);
#endif
  }

  Scalar* data() const { return p_; }
  std::size_t size() const { return n_; }

  /// Entries [b, e) are zero afterwards. Fresh pages are zero already: their pages are
  /// committed (a failure leaves them to fault in later, still zero); others are written.
  /// Threads may call it on disjoint ranges.
  void zero(std::size_t b, std::size_t e) {
    if (e <= b) return;
    if (!fresh_) {
      std::memset(static_cast<void*>(p_ + b), 0, (e - b) * sizeof(Scalar));
      return;
    }
#if defined(__linux__)
    constexpr int populate_write = 23;  // MADV_POPULATE_WRITE (Linux 5.14); older kernels: EINVAL
    const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
    const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(p_ + b) & ~(page - 1);
    const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p_ + e) + page - 1) & ~(page - 1);
    (void)madvise(reinterpret_cast<void*>(lo), hi - lo, populate_write);
#endif
  }
  /// The values were written: later zero() calls write zeros.
  void mark_written() { fresh_ = false; }

 private:
  void swap(FactorPages& o) noexcept {
    std::swap(p_, o.p_);
    std::swap(n_, o.n_);
    std::swap(fresh_, o.fresh_);
  }
  Scalar* p_ = nullptr;
  std::size_t n_ = 0;
  bool fresh_ = false;  ///< known to hold zeros only (untouched anonymous pages)
};

}  // namespace kspd::sparse::Impl
#endif
