#ifndef KSPD_SPARSE_HOST_PANELS_HPP
#define KSPD_SPARSE_HOST_PANELS_HPP
/// \file kspd_sparse_host_panels.hpp
/// The host copy of the factor's panels (Impl::Numeric's host and top-of-tree placements,
/// and the resident placement's host copy on request): its memory (fresh zero pages, or
/// pinned staging memory where the top of the tree moves panels to and from the device)
/// and how A's values get into it before or during a factorization:
///  - lazily, one process on the host: each panel is zeroed and assembled by the worker that
///    first needs it (ready(s): its first incoming update, or its potrf), so that this
///    memory-bound pass runs beside the other workers' products instead of before all tasks,
///    and leaves the panel in cache for the update that comes next; finish() assembles the
///    panels no task reached;
///  - eagerly, by the workers' count of threads (on a first factorization this first-touches
///    the factor's pages);
///  - for a subset factorization (a rank's share), only the panels the subset reads or
///    writes: its own and its ancestors' (used_panels).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <memory>
#include <thread>
#include <vector>

#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_factor_pages.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The panels a subset factorization uses: the subset's and its ancestors' (empty: all).
inline std::vector<char> used_panels(const Symbolic& S, const SnodeSubset& subset) {
  if (subset.empty()) return {};
  std::vector<char> used(S.snodes.size(), 0);
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {  // postorder: children first
    used[size_t(s)] = used[size_t(s)] || in_subset(subset, s);
    const size_type p = S.snodes[size_t(s)].parent;
    if (used[size_t(s)] && p >= 0) used[size_t(p)] = 1;
  }
  return used;
}

template <class Scalar, class StagingSpace>
class HostPanels {
 public:
  explicit HostPanels(const Symbolic& S) : S_(S) {}

  void allocate(bool pinned) {
    const size_t n = static_cast<size_t>(std::max<size_type>(S_.nvalues, 1));
    if (pinned) {
      pinned_ = Kokkos::View<Scalar*, StagingSpace>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::factor"), n);
      vals_ = pinned_.data();
    } else {
      pages_ = FactorPages<Scalar>(n);
      vals_ = pages_.data();
    }
  }
  bool allocated() const { return vals_ != nullptr; }
  Scalar* data() const { return vals_; }
  /// The pages were written outside this class (FactorPages' bookkeeping).
  void mark_written() { pages_.mark_written(); }

  /// A's values (in the analysed pattern's order) into the panels before a factorization;
  /// lazy: deferred to ready() (the caller's workers) and finish().
  void assemble(const Scalar* avalues, const SnodeSubset& subset, int nthreads, bool lazy) {
    lazy_ = lazy;
    if (lazy_) {
      avalues_ = avalues;
      if (!state_) state_.reset(new std::atomic<int>[S_.snodes.size()]);
      for (size_t s = 0; s < S_.snodes.size(); ++s) state_[s].store(0, std::memory_order_relaxed);
      return;
    }
    if (subset.empty()) {
      const int T = int(std::min<size_type>(nthreads, 1 + S_.nvalues / (size_type(1) << 20)));
      const size_type nv = S_.nvalues, nm = size_type(S_.value_map.size());
      run_threads(T, [&](int t) { zero(nv * t / T, nv * (t + 1) / T); });
      run_threads(T, [&](int t) {
        for (size_type p = nm * t / T; p < nm * (t + 1) / T; ++p) vals_[S_.value_map[size_t(p)]] = avalues[p];
      });
    } else {
      // The other panels' pages stay untouched (a rank's share of the memory).
      const std::vector<char> used = used_panels(S_, subset);
      for (size_type s = 0; s < size_type(S_.snodes.size()); ++s) {
        const Supernode& sn = S_.snodes[size_t(s)];
        if (used[size_t(s)]) zero(sn.value_offset, sn.value_offset + sn.nrows() * sn.ncols);
      }
      // The caller gives zeros outside the subset's panels (or where they are zero anyway).
      for (size_t p = 0; p < S_.value_map.size(); ++p)
        if (avalues[p] != Scalar(0)) vals_[S_.value_map[p]] = avalues[p];
    }
    pages_.mark_written();
  }

  /// Panel s zeroed and assembled from A (the lazy path), once per factorization: the first
  /// worker to need it does it, another one that needs it meanwhile waits.
  void ready(size_type s) {
    if (!lazy_) return;
    std::atomic<int>& st = state_[size_t(s)];
    if (st.load(std::memory_order_acquire) == 2) return;
    int idle = 0;
    if (st.compare_exchange_strong(idle, 1, std::memory_order_acq_rel)) {
      const Supernode& sn = S_.snodes[size_t(s)];
      zero(sn.value_offset, sn.value_offset + sn.nrows() * sn.ncols);
      for (size_type q = S_.a_snode_ptr[size_t(s)]; q < S_.a_snode_ptr[size_t(s + 1)]; ++q) {
        const size_type p = S_.a_by_snode[size_t(q)];
        vals_[S_.value_map[size_t(p)]] = avalues_[p];
      }
      st.store(2, std::memory_order_release);
      return;
    }
    while (st.load(std::memory_order_acquire) != 2) std::this_thread::yield();
  }
  /// After the run (finished or stopped by a failing pivot): the panels no task reached are
  /// assembled too, so the factor holds A plus the updates made, as with the eager path.
  void finish() {
    if (!lazy_) return;
    for (size_type s = 0; s < size_type(S_.snodes.size()); ++s) ready(s);
    pages_.mark_written();
    lazy_ = false;
  }

 private:
  /// Values [b, e) set to zero (a thread's share of them).
  void zero(size_type b, size_type e) {
    if (pinned_.data() != nullptr) std::fill(vals_ + b, vals_ + e, Scalar(0));
    else pages_.zero(size_t(b), size_t(e));
  }

  const Symbolic& S_;
  FactorPages<Scalar> pages_;  ///< the host placement's values (Linux: fresh zero pages)
  Kokkos::View<Scalar*, StagingSpace> pinned_;
  Scalar* vals_ = nullptr;
  bool lazy_ = false;                          ///< panels zeroed and assembled by the workers
  const Scalar* avalues_ = nullptr;            ///< A's values during a lazy factorization
  std::unique_ptr<std::atomic<int>[]> state_;  ///< per panel: 0 raw, 1 being assembled, 2 ready
};

}  // namespace kspd::sparse::Impl
#endif
