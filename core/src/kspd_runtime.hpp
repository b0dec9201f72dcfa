#ifndef KSPD_RUNTIME_HPP
#define KSPD_RUNTIME_HPP
/// \file kspd_runtime.hpp
/// Checks on the runtime around kspd: Kokkos is initialized, and worker threads start (or
/// their failure becomes a kspd::Error instead of std::terminate).

#include <Kokkos_Core.hpp>

#include <atomic>
#include <string>
#include <system_error>
#include <thread>
#include <utility>

#include "kspd_error.hpp"

namespace kspd::Impl {

/// Throws kspd::Error naming `where` unless Kokkos is initialized (and not yet finalized):
/// without it, kspd's Views would be deallocated after Kokkos::finalize and abort.
inline void require_kokkos_initialized(const char* where) {
  if (!Kokkos::is_initialized())
    throw Error(std::string(where) +
                ": Kokkos is not initialized (call Kokkos::initialize or hold a Kokkos::ScopeGuard "
                "around every use of kspd, and destroy kspd objects before Kokkos::finalize)");
}

/// Test hook: when >= 0, the number of further threads start_thread may create; once it is
/// spent start_thread fails as std::thread does when the system refuses a thread. -1 (the
/// default): no limit.
inline std::atomic<int>& thread_start_budget() {
  static std::atomic<int> budget{-1};
  return budget;
}

/// std::thread(f, args...), with thread_start_budget() applied; throws std::system_error
/// (resource_unavailable_try_again) when the thread cannot be created.
template <class F, class... Args>
std::thread start_thread(F&& f, Args&&... args) {
  auto& budget = thread_start_budget();
  for (int b = budget.load(); b >= 0;)
    if (b == 0)
      throw std::system_error(std::make_error_code(std::errc::resource_unavailable_try_again),
                              "kspd test hook: thread creation refused");
    else if (budget.compare_exchange_weak(b, b - 1))
      break;
  return std::thread(std::forward<F>(f), std::forward<Args>(args)...);
}

/// The message of a failed thread creation: `who` asked for `requested` threads and got
/// `created` before `e`.
inline std::string thread_start_failure(const char* who, int requested, int created, const std::exception& e) {
  return std::string(who) + ": could not create worker thread " + std::to_string(created + 1) + " of the " +
         std::to_string(requested) + " requested (Options::threads = " + std::to_string(requested) + "): " + e.what() +
         " (lower Options::threads / --threads, or raise the process and memory limits)";
}

}  // namespace kspd::Impl
#endif
