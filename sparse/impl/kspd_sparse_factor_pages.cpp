/// \file kspd_sparse_factor_pages.cpp
/// The system calls behind FactorPages (kspd_sparse_factor_pages.hpp).

#include "kspd_sparse_factor_pages.hpp"

#include <cerrno>
#include <cstdint>
#include <cstring>
#include <new>

#include "kspd_error.hpp"

#if defined(__linux__)
#include <sys/mman.h>
#include <unistd.h>
#endif

namespace kspd::sparse::Impl {

RawPages allocate_pages(std::size_t bytes) {
  RawPages r;
#if defined(__linux__)
  void* p = mmap(nullptr, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  KSPD_REQUIRE(p != MAP_FAILED, Error,
               "kspd::sparse: allocating the factor (" << bytes << " bytes) failed: " << std::strerror(errno));
  r.p = p;
  r.zeroed = true;
#else
  r.p = ::operator new(bytes, std::nothrow);
  KSPD_REQUIRE(r.p != nullptr, Error, "kspd::sparse: allocating the factor (" << bytes << " bytes) failed");
#endif
  return r;
}

void free_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  munmap(p, bytes);
#else
  (void)bytes;
  ::operator delete(p);
#endif
}

void commit_pages(void* p, std::size_t bytes) noexcept {
#if defined(__linux__)
  constexpr int populate_write = 23;  // MADV_POPULATE_WRITE (Linux 5.14); older kernels: EINVAL
  const std::uintptr_t page = std::uintptr_t(sysconf(_SC_PAGESIZE));
  const std::uintptr_t lo = reinterpret_cast<std::uintptr_t>(p) & ~(page - 1);
  const std::uintptr_t hi = (reinterpret_cast<std::uintptr_t>(p) + bytes + page - 1) & ~(page - 1);
  (void)madvise(reinterpret_cast<void*>(lo), hi - lo, populate_write);  // advice: a failure leaves lazy faults
#else
  (void)p;
  (void)bytes;
#endif
}

}  // namespace kspd::sparse::Impl
