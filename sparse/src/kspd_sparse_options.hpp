#ifndef KSPD_SPARSE_OPTIONS_HPP
#define KSPD_SPARSE_OPTIONS_HPP
/// \file kspd_sparse_options.hpp
/// Options of the supernodal sparse Cholesky: ordering, supernode amalgamation, scheduling
/// and the per-operation device-offload thresholds.

#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "kspd_tags.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

enum class Ordering { Metis, Natural, User };
inline const char* to_string(Ordering o) {
  return o == Ordering::Metis ? "metis" : o == Ordering::Natural ? "natural" : "user";
}

/// What to do when an offloaded operation does not fit in the device-memory budget.
enum class OffloadFallback { Cpu, Fail };

/// Which triangular solves solve() runs (A = P^T L L^T P): Forward: X = L^-1 P B (in the
/// factor's numbering), Backward: X = P^T L^-T B (B in the factor's numbering), Both: A^-1 B.
enum class SolvePart { Forward = 1, Backward = 2, Both = 3 };

/// Relaxed supernode amalgamation (CHOLMOD's rule): a child supernode merges into its parent
/// when the merged width is <= nrelax[0]; or <= nrelax[1] and the fraction of explicit
/// zeros stays below zrelax[0]; or <= nrelax[2] and below zrelax[1]; or below zrelax[2].
struct Relaxation {
  size_type nrelax[3] = {4, 16, 48};
  double zrelax[3] = {0.8, 0.1, 0.05};
  bool enabled = true;
};

/// Device offload. Offload is on when any threshold is >= 0 (gpu_defaults(), force_all()).
/// With placement Resident (the default) every supernode then lives in the offload
/// execution space's memory, when the whole factor fits device_memory_limit: the tree is
/// factored there level by level and the factor stays there for the solve. Otherwise (or
/// with placement TopOfTree) a supernode lives on the device, and all its operations run
/// there, when one of its size measures reaches its threshold (potrf: its width k; trsm:
/// m * k, with m its rows below the diagonal block; update: m * m * k); its ancestors then
/// live there too (the top of the elimination tree), and host workers factor the rest.
/// -1 disables a measure, 0 puts every supernode on the device.
struct Offload {
  enum class Placement { Resident, TopOfTree };
  Placement placement = Placement::Resident;
  bool timeline = false;  ///< fence per phase of the resident factorization (FactorStats::timeline)
  std::int64_t potrf_threshold = -1;
  std::int64_t trsm_threshold = -1;
  std::int64_t update_threshold = -1;
  std::int64_t device_memory_limit = std::int64_t(8) << 30;  ///< bytes of device workspace
  OffloadFallback fallback = OffloadFallback::Cpu;
  void force_all() { potrf_threshold = trsm_threshold = update_threshold = 0; }
  /// Thresholds for a GPU, measured on an H200 with 16 host cores (3-D elasticity, n =
  /// 192,000: 0.75 s with these and a 512-column supernode cap, 3.4 s on the 16 cores alone;
  /// perf_tests/results/): a supernode goes to the device, with its ancestors, at 256 columns,
  /// at 256K entries below its diagonal block, or at 2^24 update multiply-adds (m * m * k).
  /// Wider supernodes pay on the device: drivers raise Options::max_supernode to
  /// kGpuMaxSupernode unless the user set it. The --gpu-threshold-* flags override.
  void gpu_defaults() {
    potrf_threshold = 256;
    trsm_threshold = 256 * 1024;
    update_threshold = std::int64_t(1) << 24;
  }
  static constexpr size_type kGpuMaxSupernode = 512;
  bool any() const { return potrf_threshold >= 0 || trsm_threshold >= 0 || update_threshold >= 0; }
};

struct Options {
  Ordering ordering = Ordering::Metis;
  std::vector<size_type> user_permutation;  ///< new -> old, used with Ordering::User
  Relaxation relax;
  size_type max_supernode = 256;  ///< widest supernode (columns); wider ones are split
  size_type max_trsm_rows = 4096; ///< off-diagonal rows per TRSM task
  int threads = 0;                ///< task-parallel host workers over the ready queue (0: all cores)
  Offload offload;
  /// Called with (done supernodes, total supernodes, seconds) about every progress_interval s.
  std::function<void(size_type, size_type, double)> progress;
  double progress_interval = 2.0;
};

/// Maps a separator supernode to the rank that owns it: (supernode, number of ranks) ->
/// rank in [0, nranks). It must give the same rank on every rank.
using SupernodeMap = std::function<int(size_type snode, int nranks)>;

/// Options of the distributed solver (DistributedCholesky): the engine's options, composed,
/// plus what only the MPI path uses. The assembly tree is cut into whole subtrees per rank,
/// its "local subtrees", balanced by their flops (Geist and Ng's layer); the supernodes
/// above them, the "separators", get one owner each by list scheduling on a flop model
/// (the column chunks of a big separator, split by engine.max_supernode, on different
/// ranks; ranks with lighter subtrees take more of them). Every rank runs the one engine on the
/// supernodes it owns; updates into another rank's supernode are summed locally and travel
/// once (fan-in).
struct DistributedOptions {
  /// The single-process engine: ordering, relaxation, max_supernode, max_trsm_rows must be
  /// the same on every rank; threads are each rank's (threads = 0: the node's cores shared
  /// among the ranks on it; more than 1 needs MPI_THREAD_FUNNELED). offload: with one rank,
  /// the engine's placement as in one process; with more and placement Resident (the factor
  /// within the budget), the map is over devices: of the ranks that share a device only the
  /// lowest owns supernodes (all on one device: rank 0 runs the one-rank engine); each such
  /// rank's local subtrees resident on its device and every separator resident on rank 0's
  /// device, fed with the other ranks' contributions (the map below then gets, and
  /// returns, device groups in place of ranks, numbered by their lowest rank); with
  /// more and placement TopOfTree (or over the budget, fallback cpu), host workers on every
  /// rank (the fan-in transport needs host panels).
  Options engine;
  /// false: no local subtrees, every supernode is a separator placed by the map (tests of
  /// the transport: almost every update crosses ranks).
  bool local_subtrees = true;
  /// The owners of the separator supernodes; default: list-scheduled on a flop model.
  SupernodeMap map;
  /// Device-resident factors on several devices send their contributions to the
  /// separators' device: Auto (default) hands MPI the device buffers when the MPI library
  /// says at run time that it takes device pointers (CUDA-/ROCm-aware), else stages them
  /// through pinned host memory; On assumes a device-aware library (one that cannot be
  /// asked); Off always stages. Each rank decides for itself.
  Toggle device_aware_mpi = Toggle::Auto;
};

/// What the numeric factorization did.
struct FactorStats {
  double seconds = 0;
  /// The first factorization after an analysis only (0 on refactorizations): the one-time
  /// setup before it, not in `seconds`: building and uploading the plan, allocating the
  /// factor's storage, and on a device the streams and the vendor libraries' handles.
  double setup_seconds = 0;
  double flops = 0;  ///< exact flops (AnalysisStats::flops)
  int threads = 1;
  size_type host_ops[3] = {0, 0, 0};    ///< potrf, trsm, update tasks run on the host
  size_type device_ops[3] = {0, 0, 0};  ///< ... on the offload space
  size_type fallbacks = 0;              ///< supernodes kept on the host by the memory budget
  size_type device_supernodes = 0;      ///< supernodes whose panels lived on the device
  double bytes_to_device = 0, bytes_from_device = 0;
  size_type device_peak_bytes = 0;
  bool resident = false;                ///< the factor lived on the device (placement Resident)
  size_type levels = 0;                 ///< tree levels of the resident factorization
  size_type batched_supernodes = 0;     ///< supernodes factored by the per-level team kernels
  /// With Offload::timeline. Resident factorization: seconds in assembly, the small
  /// supernodes' kernels, the large supernodes' vendor calls and the final info read. Host
  /// workers: seconds summed over the workers in potrf, trsm, the update products, their
  /// scatter and the wait for the target's lock, and the busy fraction of workers x wall;
  /// the thread CPU seconds of the potrf, trsm and update (product + scatter) tasks and the
  /// process' over the whole factorization (a loaded machine inflates wall time, not these),
  /// and the wall seconds of the zeroing and assembly before the tasks.
  struct Timeline {
    double assemble = 0, small = 0, large = 0, info = 0;
    double potrf = 0, trsm = 0, product = 0, scatter = 0, lock_wait = 0, busy = 0;
    double potrf_cpu = 0, trsm_cpu = 0, update_cpu = 0;
    double process_cpu = 0;  ///< CPU seconds of the process over the whole factorization
    /// The tasks' CPU seconds replayed with the scheduler's rules on as many dedicated cores
    /// as the run had workers (kspd_sparse_schedule_sim.hpp): its length and the workers'
    /// idle fraction; and on unbounded cores: the critical path.
    double replay_seconds = 0, replay_idle = 0, critical_path = 0;
    /// The workers outside their tasks (wall seconds summed over them): from the start to
    /// their first task, between tasks (the scheduler, and the waits for work: the sleeps,
    /// their seconds, and the seconds from the push that woke a sleeper to its waking),
    /// after their last task.
    size_type sleeps = 0;
    double sleep_seconds = 0, wake_latency = 0;
    double worker_start = 0, between_tasks = 0, worker_end = 0;
    double outside_run = 0;  ///< wall seconds of the factorization before and after the workers' run
  } timeline;
  double gflops() const { return seconds > 0 ? flops / seconds * 1e-9 : 0.0; }
};

/// Where the last device-resident solve spent its time (with Offload::timeline, which
/// fences after every launch): seconds per kernel kind, the plan's size, and its slowest
/// levels.
struct SolveTimeline {
  double diag_forward = 0, below_forward = 0, below_backward = 0, diag_backward = 0;
  size_type levels = 0, units = 0;
  int widest = 0;          ///< widest unit (columns)
  std::string top_levels;  ///< the 8 slowest levels: time, units, chunks
};

}  // namespace kspd::sparse
#endif
