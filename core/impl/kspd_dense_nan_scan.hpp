#ifndef KSPD_DENSE_NAN_SCAN_HPP
#define KSPD_DENSE_NAN_SCAN_HPP
/// \file kspd_dense_nan_scan.hpp
/// potrf's NaN-pivot guard (native::nan_diagonal: the first column whose factor diagonal is
/// NaN becomes info when the backend left info 0), deferred: a caller that factors many
/// matrices with a device info each and reads the infos once (the sparse engine's resident
/// factorization: one potrf per large supernode) opens a DeferredNanScan on its thread;
/// every potrf writing a caller's info then records its diagonal instead of launching a
/// one-team kernel, and flush() scans all recorded diagonals in one launch. The infos come
/// out the same, provided nothing writes a recorded diagonal between its potrf and the
/// flush (a factor's diagonal block is final after its potrf) and flush() runs after the
/// work of every stream that factored (the caller's order: its fences or stream order).

#include <Kokkos_Core.hpp>

#include <vector>

#include "kspd_dense_mat.hpp"

namespace kspd::Impl {

/// A recorded diagonal: n entries p[0], p[step], ... and the info it may set.
template <class T>
struct NanScanEntry {
  const T* p;
  size_type n;
  offset_type step;
  int* info;
};

template <class ExecSpace, class T>
class DeferredNanScan {
 public:
  explicit DeferredNanScan(const ExecSpace& exec) : exec_(exec), outer_(active()) { active() = this; }
  ~DeferredNanScan() { active() = outer_; }
  DeferredNanScan(const DeferredNanScan&) = delete;
  DeferredNanScan& operator=(const DeferredNanScan&) = delete;

  /// The scan open on this thread for (ExecSpace, T), or nullptr.
  static DeferredNanScan*& active() {
    static thread_local DeferredNanScan* scan = nullptr;
    return scan;
  }
  /// No scan open while it lives (a potrf on a workspace that is gone before any flush).
  struct Suspend {
    DeferredNanScan* saved = active();
    Suspend() { active() = nullptr; }
    ~Suspend() { active() = saved; }
    Suspend(const Suspend&) = delete;
    Suspend& operator=(const Suspend&) = delete;
  };

  /// Instead of native::nan_diagonal(exec, A, info): A's diagonal and info, scanned at flush.
  void record(Mat<const T> A, int* info) {
    if (A.n > 0) entries_.push_back(Entry{A.p, A.n, A.rs + A.cs, info});
  }
  std::size_t pending() const { return entries_.size(); }

  /// Scans every recorded diagonal on exec, one team each (queued; no fence).
  void flush() {
    const std::size_t ne = entries_.size();
    if (ne == 0) return;
    using Mem = typename ExecSpace::memory_space;
    dev_ = Kokkos::View<Entry*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::nan_scan::entries"), ne);
    Kokkos::deep_copy(exec_, dev_, Kokkos::View<const Entry*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(entries_.data(), ne));
    const auto e = dev_;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = typename Policy::member_type;
    Kokkos::parallel_for(
        "kspd::native::nan_diagonals", Policy(exec_, int(ne), Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
          const Entry d = e(team.league_rank());
          int first = 0x7fffffff;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(team, size_type(0), d.n),
              [&](const size_type i, int& f) {
                const T v = d.p[i * d.step];
                if (v != v && int(i + 1) < f) f = int(i + 1);
              },
              Kokkos::Min<int>(first));
          Kokkos::single(Kokkos::PerTeam(team), [&]() {
            if (*d.info == 0 && first != 0x7fffffff) *d.info = first;
          });
        });
    exec_.fence();  // (once per flush: then the host entries may go on every backend)
    entries_.clear();
  }

 private:
  using Entry = NanScanEntry<T>;
  ExecSpace exec_;
  DeferredNanScan* outer_;
  std::vector<Entry> entries_;
  Kokkos::View<Entry*, typename ExecSpace::memory_space> dev_;
};

}  // namespace kspd::Impl
#endif
