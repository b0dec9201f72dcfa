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

#include <cstddef>
#include <cstring>
#include <utility>

namespace kspd::sparse::Impl {

/// Memory from the system (kspd_sparse_factor_pages.cpp keeps <sys/mman.h> out of the headers).
struct RawPages {
  void* p = nullptr;
  bool zeroed = false;  ///< the pages are known to hold zeros (Linux: untouched anonymous memory)
};
/// `bytes` of memory: Linux anonymous mmap (zeroed), elsewhere operator new. Throws kspd::Error.
RawPages allocate_pages(std::size_t bytes);
/// Frees what allocate_pages(bytes) returned.
void free_pages(void* p, std::size_t bytes) noexcept;
/// Commits the pages that hold [p, p + bytes) of zeroed memory at once (Linux 5.14's
/// MADV_POPULATE_WRITE); a no-op where that is missing (they fault in on first touch instead).
void commit_pages(void* p, std::size_t bytes) noexcept;

template <class Scalar>
class FactorPages {
 public:
  FactorPages() = default;
  /// n entries; throws kspd::Error when the memory cannot be had.
  explicit FactorPages(std::size_t n) : n_(n) {
    const RawPages r = allocate_pages(n * sizeof(Scalar));
    p_ = static_cast<Scalar*>(r.p);
    fresh_ = r.zeroed;
  }
  FactorPages(const FactorPages&) = delete;
  FactorPages& operator=(const FactorPages&) = delete;
  FactorPages(FactorPages&& o) noexcept { swap(o); }
  FactorPages& operator=(FactorPages&& o) noexcept {
    FactorPages(std::move(o)).swap(*this);
    return *this;
  }
  ~FactorPages() {
    if (p_) free_pages(p_, n_ * sizeof(Scalar));
  }

  Scalar* data() const { return p_; }
  std::size_t size() const { return n_; }

  /// Entries [b, e) are zero afterwards. Fresh pages are zero already: their pages are
  /// committed (a failure leaves them to fault in later, still zero); others are written.
  /// Threads may call it on disjoint ranges.
  void zero(std::size_t b, std::size_t e) {
    if (e <= b) return;
    if (fresh_) commit_pages(p_ + b, (e - b) * sizeof(Scalar));
    else std::memset(static_cast<void*>(p_ + b), 0, (e - b) * sizeof(Scalar));
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
