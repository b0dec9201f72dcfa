#ifndef KSPD_SPARSE_NUMERIC_HPP
#define KSPD_SPARSE_NUMERIC_HPP
/// \file kspd_sparse_numeric.hpp
/// Numeric supernodal factorization, in one of three placements (Numeric::Placement):
///  - Host: the panels of all supernodes live in one host View (panel s: nrows x ncols,
///    column-major, ld = nrows); the tasks of the fan-out graph run POTRF/TRSM/SYRK/GEMM
///    from core/ on host workers (the scheduler); host updates are computed into a
///    workspace, in row chunks that stay in cache, and scatter-added into the target panel
///    by relative indices.
///  - Resident: every panel lives on the offload execution space and the tree is factored
///    there level by level (kspd_sparse_resident.hpp); L stays there for the solve and comes
///    to the host only on request (values()).
///  - TopOfTree: host workers plus the device-resident top of the tree
///    (kspd_sparse_device_factor.hpp), when the resident factor does not fit the device or
///    Offload::placement asks for it.
/// Generic over the offload execution space: on CPU builds the "device" is a host space, so
/// every placement is exercised there too.
/// A SnodeSubset restricts the factorization to its supernodes: the panels of the other
/// supernodes start at zero (plus A's entries given for them) and receive the subset's
/// updates. The distributed solver runs each rank's supernodes so: on host workers with a
/// Transport that sends those accumulated panels to their owners and credits the ones that
/// arrive (kspd_sparse_scheduler.hpp), or resident with a level hook through which rank 0
/// adds the other ranks' contributions (kspd_sparse_mpi_top.hpp); with one rank the subset
/// is the whole tree, there is no transport, and the distributed factorization is this
/// one, in any placement.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <utility>
#include <cmath>
#include <memory>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <type_traits>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_host_blas.hpp"
#include "kspd_sparse_device_factor.hpp"
#include "kspd_sparse_host_panels.hpp"
#include "kspd_sparse_host_scatter.hpp"
#include "kspd_sparse_resident.hpp"
#include "kspd_sparse_resident_solve.hpp"
#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_scheduler.hpp"
#include "kspd_sparse_schedule_sim.hpp"
#include "kspd_sparse_host_solve_plan.hpp"
#include "kspd_sparse_solve.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

namespace Impl {

template <class Scalar, class OffloadExec>
class Numeric {
 public:
  using HostExec = Kokkos::DefaultHostExecutionSpace;
  using HMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  using StagingSpace = typename DeviceFactor<Scalar, OffloadExec>::StagingSpace;  ///< pinned on CUDA

  enum class Placement { Host, Resident, TopOfTree };

  /// Chooses the placement: Resident when offload is on, the placement asks for it and the
  /// resident factor fits Offload::device_memory_limit (else TopOfTree; with fallback Fail
  /// and placement Resident, OutOfDeviceMemory); Host when offload is off.
  Numeric(const Symbolic& S, const Options& opt, SnodeSubset subset = {})
      : S_(S), opt_(opt), subset_(std::move(subset)), dev_(opt.offload) {
    const auto c0 = std::chrono::steady_clock::now();
    const auto setup_done = [&] { setup_seconds_ = std::chrono::duration<double>(std::chrono::steady_clock::now() - c0).count(); };
    lock_base_.assign(S.snodes.size() + 1, 0);
    for (size_t s = 0; s < S.snodes.size(); ++s)
      lock_base_[s + 1] = lock_base_[s] + (S.snodes[s].ncols + kLockCols - 1) / kLockCols;
    locks_ = std::vector<std::mutex>(size_t(lock_base_.back()));
    if (opt.offload.any() && opt.offload.placement == Offload::Placement::Resident) {
      const double need = ResidentFactor<Scalar, OffloadExec>::bytes_needed(S);
      if (need <= double(opt.offload.device_memory_limit)) {
        try {
          resident_ = std::make_unique<ResidentFactor<Scalar, OffloadExec>>(
              S, subset_, opt.threads > 0 ? opt.threads : int(std::max(1u, std::thread::hardware_concurrency())));
          rsolve_ = std::make_unique<ResidentSolve<Scalar, OffloadExec>>(S);
          placement_ = Placement::Resident;
          resident_bytes_ = need;
          setup_done();
          return;
        } catch (const std::exception& e) {  // the device is fuller than the budget says
          KSPD_REQUIRE(opt.offload.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                       "kspd::sparse: allocating the device-resident factor (" << std::int64_t(need)
                                                                               << " bytes) failed: " << e.what());
        }
      } else {
        KSPD_REQUIRE(opt.offload.fallback != OffloadFallback::Fail, OutOfDeviceMemory,
                     "kspd::sparse: the device-resident factor needs " << std::int64_t(need)
                         << " bytes of device memory, over the budget Offload::device_memory_limit = "
                         << opt.offload.device_memory_limit << "; raise it, use fallback cpu or placement top");
      }
      resident_fallback_ = true;
    }
    placement_ = opt.offload.any() ? Placement::TopOfTree : Placement::Host;
    panels_.allocate(placement_ == Placement::TopOfTree);
    setup_done();
  }

  Placement placement() const { return placement_; }
  bool resident() const { return placement_ == Placement::Resident; }
  /// The resident factor (placement Resident).
  const ResidentFactor<Scalar, OffloadExec>& resident_factor() const { return *resident_; }
  /// Placement Resident: called before each level of the factorization (ResidentFactor::
  /// LevelHook: the distributed solver adds other ranks' contributions there).
  void set_level_hook(typename ResidentFactor<Scalar, OffloadExec>::LevelHook hook) {
    KSPD_REQUIRE(resident(), Error, "kspd::sparse: internal error: a level hook needs the resident placement");
    resident_->set_level_hook(std::move(hook));
  }

  /// The panels of all supernodes in host memory (Supernode::value_offset, ld = nrows);
  /// with the resident placement they are copied from the device on the first call after a
  /// factorization (a subset factorization: only the subset's panels and its ancestors').
  const Scalar* values() const {
    if (resident() && !host_current_) {
      if (!panels_.allocated()) const_cast<Numeric*>(this)->panels_.allocate(false);
      resident_->copy_values_to(panels_.data(), used_panels(S_, subset_));  // a subset: its panels and its ancestors
      host_current_ = true;
    }
    return panels_.data();
  }
  const FactorStats& stats() const { return stats_; }

  /// The distributed run's transport (host placement; nullptr: one process).
  void set_transport(Transport* t) {
    KSPD_REQUIRE(t == nullptr || placement_ == Placement::Host, Error,
                 "kspd::sparse: internal error: a transport needs the host placement");
    transport_ = t;
  }
  /// The transport's access to the host panels: f(panel of s) with s's scatter locks held
  /// (an arriving contribution is added while local updates into s may still run).
  template <class F>
  void with_panel_locked(size_type s, F&& f) {
    std::vector<std::unique_lock<std::mutex>> held;
    for (size_type l = lock_base_[size_t(s)]; l < lock_base_[size_t(s + 1)]; ++l) held.emplace_back(locks_[size_t(l)]);
    f(panels_.data() + S_.snodes[size_t(s)].value_offset);
  }
  /// The host panels (a worker reading a finished supernode's panel).
  Scalar* host_panels() {
    panels_.mark_written();
    return panels_.data();
  }
  /// The last run stopped because another rank stopped (its failure is agreed after).
  bool stopped_by_remote() const { return stopped_by_remote_; }
  /// The last resident solve's timeline (empty unless Offload::timeline).
  SolveTimeline solve_timeline() const { return rsolve_ ? rsolve_->timeline() : SolveTimeline{}; }
  /// The factor's values where they live, for a modification in place (update/downdate):
  /// the offload space's memory for Resident (the host copy is then stale), else the host.
  Scalar* values_in_place() {
    host_current_ = false;
    if (rsolve_) rsolve_->invalidate();  // the diagonal blocks' inverses are recomputed
    panels_.mark_written();
    return resident() ? resident_->values().data() : panels_.data();
  }

  /// Assembles A's values (in the analysed pattern's order) and factors; the first failing
  /// pivot (in postorder) is returned, not thrown.
  PivotFailure factorize(const OffloadExec& exec, const Scalar* avalues) {
    double setup = std::exchange(setup_seconds_, 0.0);  // reported by the first factorization only
    if (resident()) {
      if (!prepared_) {  // streams and vendor handles: setup, not factorization
        const auto p0 = std::chrono::steady_clock::now();
        resident_->prepare(exec);
        setup += std::chrono::duration<double>(std::chrono::steady_clock::now() - p0).count();
        prepared_ = true;
      }
      const auto t0 = std::chrono::steady_clock::now();
      stats_ = FactorStats{};
      stats_.setup_seconds = setup;
      host_current_ = false;
      rsolve_->invalidate();
      const PivotFailure f = resident_->factorize(exec, avalues, opt_.offload.timeline);
      stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      stats_.flops = S_.stats.flops;
      stats_.threads = 1;
      stats_.resident = true;
      const auto& L = resident_->schedule();
      const size_type ns = size_type(L.order.size());  // (a subset: its supernodes)
      size_type nsmall = 0;
      for (size_type l = 0; l < L.levels(); ++l) nsmall += L.small_end[size_t(l)] - L.level_begin[size_t(l)];
      stats_.device_ops[0] = stats_.device_ops[1] = ns;
      stats_.device_ops[2] = ns;
      stats_.device_supernodes = ns;
      stats_.levels = L.levels();
      stats_.batched_supernodes = nsmall;
      stats_.bytes_to_device = double(S_.value_map.size()) * sizeof(Scalar);
      stats_.device_peak_bytes = size_type(resident_bytes_);
      const auto& tl = resident_->timeline();
      stats_.timeline.assemble = tl.assemble;
      stats_.timeline.small = tl.small;
      stats_.timeline.large = tl.large;
      stats_.timeline.info = tl.info;
      return f;
    }
    try {
      factorize_host(avalues);
    } catch (const PivotAbort&) {
      stats_.setup_seconds = setup;
      return failure_;
    }
    stats_.setup_seconds = setup;
    return PivotFailure{};
  }

  /// Solves in place on W (n x nrhs, column-major, ld ldw, the permuted numbering), in the
  /// memory where the factor lives (the offload space's for Resident, else the host's).
  void solve(const OffloadExec& exec, Scalar* W, size_type nrhs, size_type ldw, SolvePart part) const {
    if (resident())
      rsolve_->solve(exec, resident_->values().data(), resident_->rows().data(), W, nrhs, ldw, part,
                     opt_.offload.timeline);
    else {
      std::call_once(plan_once_, [&] { hplan_ = make_host_solve_plan(S_); });
      supernodal_solve(S_, hplan_, panels_.data(), W, nrhs, ldw, part,
                       opt_.threads > 0 ? opt_.threads : int(std::thread::hardware_concurrency()));
    }
  }

 private:
  /// Thrown by a worker whose potrf failed (failure_ holds it): stops the scheduler.
  struct PivotAbort {};

 public:
  /// The host and top-of-tree placements: the scheduler's workers.
  void factorize_host(const Scalar* avalues) {
    const auto t0 = std::chrono::steady_clock::now();
    const double cpu0 = opt_.offload.timeline ? process_cpu_seconds() : 0;
    stats_ = FactorStats{};
    stopped_by_remote_ = false;
    int nthreads = opt_.threads > 0 ? opt_.threads : int(std::thread::hardware_concurrency());
    if (nthreads < 1) nthreads = 1;
    // A's values into the panels: by the workers as they need them with one process on
    // the host, else before the run (kspd_sparse_host_panels.hpp).
    panels_.assemble(avalues, subset_, nthreads, subset_.empty() && !transport_ && placement_ == Placement::Host);
    const double assembled = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats_.threads = nthreads;
    // The workers' buffers stay allocated (and their pages committed) from the last run.
    work_.resize(static_cast<size_t>(nthreads));
    for (Work& w : work_) w.clear_times();
    if (opt_.offload.timeline) task_cpu_.assign(S_.tasks.size(), 0.0);
    size_type ndiag = 0;
    double last = 0;
    Scheduler sched(S_, subset_);
    const size_type ns = size_type(S_.snodes.size());
    dev_.setup(S_, nthreads);
    // A device supernode computes all its updates at once (one syrk): its Update tasks all
    // wait for all its TRSM tasks.
    gathered_ = dev_.placement();
    gathered_.resize(static_cast<size_t>(ns), 0);
    shared_.clear();
    shared_.resize(static_cast<size_t>(ns));
    for (size_type s = 0; s < ns; ++s)
      if (gathered_[size_t(s)]) shared_[size_t(s)] = std::make_unique<Gathered>();
    sched.gather_updates(gathered_);
    sched.set_transport(transport_);
    const auto r0 = std::chrono::steady_clock::now();
    try {
      stats_.threads = sched.run(  // fewer when the system refused a thread
          nthreads, [&](size_type t, int w) { run_task(t, work_[size_t(w)], w); },
          [&](size_type) {
            ++ndiag;
            if (!opt_.progress) return;
            const double el = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
            if (el - last >= opt_.progress_interval || ndiag == size_type(S_.snodes.size())) {
              last = el;
              opt_.progress(ndiag, size_type(S_.snodes.size()), el);
            }
          });
    } catch (...) {
      panels_.finish();
      throw;
    }
    const double run_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - r0).count();
    panels_.finish();
    stopped_by_remote_ = sched.stopped_by_remote();
    dev_.finish(panels_.data(), subset_);
    stats_.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    stats_.flops = S_.stats.flops;
    dev_.collect(stats_);
    stats_.fallbacks += resident_fallback_ ? 1 : 0;
    if (opt_.offload.timeline) {
      auto& tl = stats_.timeline;
      for (const Work& w : work_) {
        tl.potrf += w.seconds[0];
        tl.trsm += w.seconds[1];
        tl.product += w.seconds[2];
        tl.scatter += w.seconds[3];
        tl.lock_wait += w.seconds[4];
        tl.potrf_cpu += w.cpu[0];
        tl.trsm_cpu += w.cpu[1];
        tl.update_cpu += w.cpu[2];
      }
      tl.assemble = assembled;
      tl.process_cpu = process_cpu_seconds() - cpu0;
      const auto& idle = sched.idle_stats();
      tl.sleeps = idle.sleeps;
      tl.sleep_seconds = idle.sleep_seconds;
      tl.wake_latency = idle.wake_latency;
      tl.worker_start = idle.start_seconds;
      tl.between_tasks = idle.between_seconds;
      tl.worker_end = idle.end_seconds;
      tl.outside_run = stats_.seconds - run_seconds;
      if (subset_.empty()) {  // the tasks' CPU seconds replayed on dedicated cores
        const ScheduleSim sim = simulate_schedule(S_, task_cpu_, stats_.threads);
        tl.replay_seconds = sim.makespan;
        tl.replay_idle = sim.idle();
        tl.critical_path = simulate_schedule(S_, task_cpu_, int(S_.tasks.size())).makespan;
      }
      tl.busy = (tl.potrf + tl.trsm + tl.product + tl.scatter + tl.lock_wait) / (stats_.seconds * stats_.threads);
    }
  }

 private:
  struct Work {
    // resize() leaves new entries unset: the products overwrite C (beta = 0), and zeroing
    // it on every growth cost 2% of the factorization (perf, elasticity 22^3)
    WorkVector<Scalar> c;
    std::vector<Scalar> dsave;
    WorkVector<size_type> rel, pf;  ///< scatter: target row of each source row; rows to prefetch
    std::vector<size_type> cursor;  ///< update: each block's position in its target's rows
    std::vector<std::pair<size_type, size_type>> busy;  ///< scatter: column ranges whose lock was taken
    double seconds[5] = {0, 0, 0, 0, 0};  ///< timeline: potrf, trsm, update product, scatter, scatter lock wait
    double cpu[3] = {0, 0, 0};            ///< timeline: thread CPU seconds of the potrf, trsm, update tasks
    void clear_times() {
      for (double& x : seconds) x = 0;
      for (double& x : cpu) x = 0;
    }
  };
  using Clock = std::chrono::steady_clock;
  /// Adds the seconds since `t` to w.seconds[i] and restarts t (timeline on).
  void lap(Work& w, int i, Clock::time_point& t) const {
    if (!opt_.offload.timeline) return;
    const auto now = Clock::now();
    w.seconds[i] += std::chrono::duration<double>(now - t).count();
    t = now;
  }

  HMat panel_view(size_type s, size_type r0, size_type m, size_type c0 = 0, size_type nc = -1) const {
    const Supernode& sn = S_.snodes[size_t(s)];
    if (nc < 0) nc = sn.ncols;
    return HMat(panels_.data() + sn.value_offset + r0 + c0 * sn.nrows(),
                Kokkos::LayoutStride(static_cast<size_t>(m), 1, size_t(nc), size_t(sn.nrows())));
  }

  void run_task(size_type id, Work& w, int worker) {
    const Task& task = S_.tasks[size_t(id)];
    auto t = Clock::now();
    const double c0 = opt_.offload.timeline ? thread_cpu_seconds() : 0;
    switch (task.kind) {
      case TaskKind::DiagFactor: diag_factor(task.snode, w, worker); lap(w, 0, t); break;
      case TaskKind::Trsm: trsm(task, w); lap(w, 1, t); break;
      case TaskKind::Update: update(task, w, t); break;
    }
    if (opt_.offload.timeline) {
      const double c = thread_cpu_seconds() - c0;
      w.cpu[int(task.kind)] += c;
      task_cpu_[size_t(id)] = c;
    }
  }

  void diag_factor(size_type s, Work& w, int worker) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows();
    Scalar* p = panels_.data() + sn.value_offset;
    const bool on_device = dev_.on_device(s);
    panels_.ready(s);  // no update reached it (a leaf)
    int info = 0;
    if (on_device) {
      info = dev_.potrf(panels_.data(), s, worker, w.dsave);  // merges the host panel first
    } else {
      w.dsave.resize(static_cast<size_t>(k * k));
      for (size_type j = 0; j < k; ++j)
        for (size_type i = j; i < k; ++i) w.dsave[size_t(i + j * k)] = p[i + j * ld];
      // core's potrf on a host space launches no kernel (thread-safe for concurrent workers)
      // and reports NaN pivots, which OpenBLAS' own potrf lets through
      using Panel = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
      info = kspd::potrf(Kokkos::DefaultHostExecutionSpace(), Uplo::Lower,
                         Panel(p, Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(ld))));
    }
    count(0, on_device);
    if (info != 0) report_not_spd(s, info, w);
  }

  void trsm(const Task& task, Work&) {
    const Supernode& sn = S_.snodes[size_t(task.snode)];
    const Block& b0 = S_.blocks[size_t(sn.block_begin + task.block_begin)];
    const Block& b1 = S_.blocks[size_t(sn.block_begin + task.block_end - 1)];
    const size_type r0 = b0.row_offset, m = b1.row_offset + b1.nrows - r0;
    const bool on_device = dev_.on_device(task.snode);
    if (on_device) {
      dev_.trsm(task.snode, r0, m);
    } else {
      // A tall panel over a narrow triangle: OpenBLAS' own trsm runs 22-30 GFLOP/s there (k =
      // 64-256, AVX-512 core), the recursion with 16-column vendor leaves 29-58 (its GEMMs carry
      // all but 16/k of the flops; perf_tests/results/cpu-sparse-factor-efficiency-2026-11-24.md)
      HostExec exec;
      DenseOptions rec;
      rec.algo = Algo::Recursive;
      rec.leaf_size = kTrsmLeaf;
      kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1),
                 panel_view(task.snode, 0, sn.ncols), panel_view(task.snode, r0, m), rec);
    }
    count(1, on_device);
  }

  /// A device supernode's updates are queued by its first Update task; the others wait
  /// until that is done (their targets' tasks must queue after them).
  struct Gathered {
    std::mutex m;
    bool queued = false;
  };

  void update(const Task& task, Work& w, Clock::time_point& t0) {
    const size_type s = task.snode;
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type b0 = sn.block_begin + task.block_begin, b1 = sn.block_begin + task.block_end;
    const Block& blk = S_.blocks[size_t(b0)];
    const Block& last = S_.blocks[size_t(b1 - 1)];
    // the task's blocks are consecutive rows [r0, r0 + nb) of the panel
    const size_type r0 = blk.row_offset, nb = last.row_offset + last.nrows - r0, mb = sn.nrows() - r0;
    if (gathered_[size_t(s)]) {
      Gathered& g = *shared_[size_t(s)];
      {
        std::lock_guard<std::mutex> lk(g.m);
        if (!g.queued) dev_.update(s);
        g.queued = true;
      }
      count(2, true);
      return;
    }
    // Small supernodes: these blocks' update C = L(r0:, :) Lb^T on the host, in row chunks
    // that stay in cache between the product and the scatter: a product of the whole
    // height wrote C to memory and the scatter read it back, a DRAM round trip of 16 bytes
    // per entry against k flops (most supernodes have k <= 64 columns)
    w.cursor.assign(size_t(b1 - b0), 0);
    HostExec exec;
    auto Lb = panel_view(s, r0, nb);
    const UpdateChunking& ch = update_chunking();
    const size_type R = std::max(ch.min_rows, size_type(ch.bytes / (size_type(sizeof(Scalar)) * nb)));
    for (size_type i0 = 0; i0 < mb;) {
      size_type i1 = i0 == 0 ? std::max(nb, std::min(mb, R)) : std::min(mb, i0 + R);
      if (mb - i1 < R / 2) i1 = mb;  // no sliver of a last chunk
      const size_type h = i1 - i0;
      w.c.resize(static_cast<size_t>(h * nb));
      HMat C(w.c.data(), Kokkos::LayoutStride(static_cast<size_t>(h), 1, size_t(nb), size_t(h)));
      const size_type g0 = i0 == 0 ? nb : i0;  // the chunk's rows below the task's diagonal block
      if (i0 == 0)
        kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, Scalar(1), Lb, Scalar(0),
                   Kokkos::subview(C, Kokkos::make_pair(static_cast<size_t>(0), size_t(nb)), Kokkos::ALL));
      if (i1 > g0)
        kspd::gemm(exec, Trans::NoTranspose, Trans::Transpose, Scalar(1), panel_view(s, r0 + g0, i1 - g0), Lb, Scalar(0),
                   Kokkos::subview(C, Kokkos::make_pair(size_t(g0 - i0), size_t(h)), Kokkos::ALL));
      lap(w, 2, t0);
      for (size_type b = b0; b < b1; ++b)
        scatter(sn, r0, S_.blocks[size_t(b)], i0, i1, w.c.data(), h, w, w.cursor[size_t(b - b0)], t0);
      i0 = i1;
    }
    count(2, false);
  }

  /// Block q's target panel -= its part of the chunk of C (rows [i0, i1) of C, ld ldc; C's
  /// row i is the panel's row r0 + i, its column j the row r0 + j): target rows matched by
  /// relative indices (the source rows are a subset of the target's rows, found from
  /// `cursor`, where the last chunk left off), columns = the block's rows minus the
  /// target's first column, only rows i >= j (the lower triangle).
  void scatter(const Supernode& sn, size_type r0, const Block& q, size_type i0, size_type i1, const Scalar* c,
               size_type ldc, Work& w, size_type& cursor, Clock::time_point& t0) {
    const size_type cb = q.row_offset - r0;          // the block's first column (and row) in C
    const size_type jend = std::min(cb + q.nrows, i1);  // its columns with rows in this chunk
    if (jend <= cb) return;
    const size_type ib = std::max(i0, cb);  // the first row of the chunk that the block's scatter reads
    const size_type t = q.target;
    const Supernode& tn = S_.snodes[size_t(t)];
    panels_.ready(t);
    const size_type* srows = S_.rows.data() + sn.row_begin + r0;  // C's rows in the panel's numbering
    const size_type* trows = S_.rows.data() + tn.row_begin;
    const size_type m = i1 - ib;
    match_rows<Scalar>(srows + ib, trows, m, cursor, w.rel, w.pf);
    const size_type ldt = tn.nrows();
    Scalar* pt = panels_.data() + tn.value_offset;
    lap(w, 3, t0);
    // One lock per 32 columns of the target: updates into other columns of it go on. A
    // chunk whose lock another worker holds is left for a second pass, which waits: the
    // free chunks are added meanwhile (two workers updating one ancestor waited 4-7% of
    // their time on the 2-core VM, elasticity 22^3).
    auto add = [&](size_type j, size_type je) {
      for (; j < je; ++j) {
        if (j + 1 < jend) prefetch_column(pt + (srows[j + 1] - tn.first_col) * ldt, std::max(j + 1, ib) - ib, w.rel, w.pf);
        Scalar* col = pt + (srows[j] - tn.first_col) * ldt;
        const Scalar* cj = c + j * ldc - i0;  // cj[i]: C's row i
        const size_type* rel = w.rel.data() - ib;  // rel[i]: the target row of C's row i
        for (size_type i = std::max(j, ib); i < i1; ++i) col[rel[i]] -= cj[i];
      }
    };
    w.busy.clear();
    for (size_type j = cb; j < jend;) {
      const size_type chunk = (srows[j] - tn.first_col) / kLockCols;
      size_type je = j + 1;
      while (je < jend && (srows[je] - tn.first_col) / kLockCols == chunk) ++je;
      std::unique_lock<std::mutex> lk(locks_[size_t(lock_base_[size_t(t)] + chunk)], std::try_to_lock);
      if (lk.owns_lock()) add(j, je);
      else w.busy.push_back({j, je});
      j = je;
    }
    lap(w, 3, t0);
    for (const auto& [j, je] : w.busy) {
      std::lock_guard<std::mutex> lk(locks_[size_t(lock_base_[size_t(t)] + (srows[j] - tn.first_col) / kLockCols)]);
      lap(w, 4, t0);
      add(j, je);
      lap(w, 3, t0);
    }
  }

  void count(int op, bool on_device) {
    std::lock_guard<std::mutex> lk(stats_mutex_);
    ++(on_device ? stats_.device_ops : stats_.host_ops)[op];
  }

  /// Finds the failing pivot again from the saved block (unblocked, long double), records
  /// it and stops the workers.
  [[noreturn]] void report_not_spd(size_type s, int info, Work& w) {
    const auto [bad, pivot] = failing_pivot(w.dsave, S_.snodes[size_t(s)].ncols, info);
    {
      std::lock_guard<std::mutex> lk(stats_mutex_);
      failure_ = PivotFailure{s, bad, double(pivot)};
    }
    throw PivotAbort{};
  }

  const Symbolic& S_;
  const Options& opt_;
  SnodeSubset subset_;
  Placement placement_ = Placement::Host;
  std::unique_ptr<ResidentFactor<Scalar, OffloadExec>> resident_;
  std::unique_ptr<ResidentSolve<Scalar, OffloadExec>> rsolve_;
  double resident_bytes_ = 0;
  bool resident_fallback_ = false;
  mutable bool host_current_ = false;
  PivotFailure failure_;
  Transport* transport_ = nullptr;
  bool stopped_by_remote_ = false;
  HostPanels<Scalar, StagingSpace> panels_{S_};  ///< the host panels (and how A gets into them)
  static constexpr size_type kTrsmLeaf = 16;  ///< columns of the panel trsm's vendor leaves
  static constexpr size_type kLockCols = 32;  ///< target columns per scatter lock
  std::vector<size_type> lock_base_;          ///< supernode s's locks start at lock_base_[s]
  std::vector<std::mutex> locks_;
  std::vector<Work> work_;
  bool prepared_ = false;     ///< the resident factor's streams and handles exist
  double setup_seconds_ = 0;  ///< construction (plan, allocations) + prepare, until the first factorization reports it
  std::vector<double> task_cpu_;  ///< timeline: each task's thread CPU seconds
  std::vector<char> gathered_;
  std::vector<std::unique_ptr<Gathered>> shared_;
  DeviceFactor<Scalar, OffloadExec> dev_;
  mutable std::once_flag plan_once_;  ///< the host solve's schedule, built by the first solve
  mutable HostSolvePlan hplan_;
  FactorStats stats_;
  std::mutex stats_mutex_;
};

}  // namespace Impl
}  // namespace kspd::sparse
#endif
