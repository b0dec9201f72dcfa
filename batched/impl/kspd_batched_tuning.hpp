#ifndef KSPD_BATCHED_TUNING_HPP
#define KSPD_BATCHED_TUNING_HPP
/// \file kspd_batched_tuning.hpp
/// The batched kernels' micro-variants (register tiles, thread orders, launch bounds, step
/// synchronization, team sizes): not public options but one internal table keyed by execution
/// space, scalar and n, holding the measured defaults (H100 sweeps of 2026-11-22:
/// perf_tests/results/h100-batched-small-variants-2026-11-22.md, h100-batched-gemm-tiles-2026-11-22.txt,
/// h100-batched-final-2026-11-22.md). perf_batched overrides entries through TuningScope to
/// measure the alternatives; only the defaults are compiled unless CMake's
/// KSPD_BATCHED_ALL_VARIANTS asks for every variant (TuningScope rejects the others).

#include <sstream>
#include <type_traits>

#include "KSPD_Config.hpp"
#include "kspd_compat.hpp"
#include "kspd_error.hpp"
#include "kspd_types.hpp"

namespace kspd::batched::Impl {

#ifdef KSPD_BATCHED_ALL_VARIANTS
constexpr bool kAllVariants = true;
#else
constexpr bool kAllVariants = false;
#endif

/// The register tile (rows x columns of C per thread) of the tiled batched GEMM. Auto: the
/// table's choice for the GEMM's shape (auto_gemm_tile).
enum class GemmTile { Auto, T4x4, T8x4, T8x8 };
/// How the group POTRF (GPUs, 8 < n <= 32: N = 16 | 32 threads per matrix, one column each)
/// orders its steps: a team barrier per step, a warp barrier (CUDA: a matrix's threads share a
/// warp), or no barrier (column k broadcast by warp shuffles). Off CUDA Warp / Shuffle run as Team.
enum class PotrfSync { Auto, TeamSync, WarpSync, Shuffle };

/// One entry of the table: every value resolved except gemm_tile (Auto: per GEMM shape).
struct Tuning {
  int team_size = 1;                 ///< threads per team of the generic Team kernels
  GemmTile gemm_tile = GemmTile::Auto;
  int gemm_chunk = 32;               ///< matrices per thread chunk of the tiled GEMM (batch-first data)
  int trsm_rhs_block = 1;            ///< right-hand sides per thread of the streaming TRSM (1, 2, 4)
  int stream_trsm_max = 32;          ///< GPUs: TRSM with k up to this streams (64: classes 48 / 64)
  bool stream_class24 = false;       ///< streaming TRSM / POTRS: size class 24 for 16 < k <= 24
  int stream_chunk = 32;             ///< streaming kernels' thread order (< 1: the whole batch)
  int stream_min_blocks = 0;         ///< GPUs: __launch_bounds__(128, this) of the streaming kernels (0: none)
  PotrfSync potrf_sync = PotrfSync::WarpSync;
  int potrf_group_team = 128;        ///< threads per team of the group POTRF (64, 128, 256)
  /// CUDA, fp32 / fp64: the orders (n, resp. k) whose POTRF / TRSM run on the shared-memory
  /// kernels (kspd_batched_smem_cuda.hpp; fp64 at most 128, fp32 256) and, through the
  /// recursion's leaves, every n above; 0 / 0 switches them off (the portable kernels and
  /// recursion as before). These for batch-first data (consecutive matrices adjacent), the
  /// *_cm ones for batches of column-major matrices (strided with a unit stride, pointer
  /// arrays): the kernels read the two at different costs.
  int smem_potrf_min = 0, smem_potrf_max = 0;
  int smem_trsm_min = 0, smem_trsm_max = 0;
  int smem_potrf_min_cm = 0, smem_potrf_max_cm = 0;
  int smem_trsm_min_cm = 0, smem_trsm_max_cm = 0;
  int smem_threads = 0;              ///< threads per block of the shared-memory kernels (0: by n)
  /// CUDA: shared-memory POTRF orders up to this (at most 32) run a warp per matrix, several
  /// matrices per block (smem::potrf_warp_kernel), on batch-first data (consecutive matrices
  /// adjacent); other layouts and larger n a block per matrix.
  int smem_potrf_warp_max = 0;
  /// CUDA: TRSM orders k in [smem_trsm_warp_min, smem_trsm_warp_max] (k <= 32) run the
  /// warp-per-matrix kernel (smem::trsm_warp_kernel), besides [smem_trsm_min, smem_trsm_max].
  int smem_trsm_warp_min = 0, smem_trsm_warp_max = 0;
  int smem_trsm_chunk = 128;         ///< right-hand sides per pass of the shared-memory TRSM (multiple of 8)
  /// CUDA, column-major matrices (strided with a unit stride, pointer arrays), k <= 32: c > 0
  /// sends TRSM and POTRS (as its two TRSMs) with c or more right-hand sides to the
  /// warp-per-matrix kernel; 0: TRSM needs 16 there as elsewhere, POTRS keeps its kernels.
  int smem_trsm_warp_cols_cm = 0;
  /// CUDA: a TRSM of order k (the caller's, not a sub-block's) whose recursion stops at
  /// shared-memory leaves of at most this order (batch-first / column-major data); k above it
  /// recurses to them even where the kernel takes k whole. 0: no limit.
  int smem_trsm_leaf_max = 0, smem_trsm_leaf_max_cm = 0;
  /// Batch-first operands (every one LayoutLeft with the batch index first) of POTRF / TRSM /
  /// POTRS of order n, Auto: > 0 runs the operation chunk by chunk on column-major copies in a
  /// workspace of about this many KiB (kspd_batched_repack_internal.hpp); 0: on the data.
  /// TRSM only with at least n right-hand sides.
  int bf_repack_kib_potrf = 0, bf_repack_kib_trsm = 0, bf_repack_kib_potrs = 0;
  /// CUDA sm_90+, batch-first data (consecutive matrices adjacent): the block-per-matrix
  /// shared-memory POTRF / TRSM run in thread-block clusters of these many blocks (1, 2, 4, 8),
  /// which load and store their matrices together: the cluster's threads read the same element
  /// of consecutive matrices (a whole 32-byte sector at 4 fp64 / 8 fp32) and write it into its
  /// owner's shared memory (distributed shared memory), where one block per matrix uses 8 of
  /// each sector's 32 bytes (kspd_batched_smem_cuda.hpp, ClusterMap).
  int smem_cluster_potrf = 1, smem_cluster_trsm = 1;
};

/// perf_batched's overrides; a negative value / Auto keeps the table's entry.
struct TuningOverride {
  int team_size = -1;
  GemmTile gemm_tile = GemmTile::Auto;
  int gemm_chunk = -1;
  int trsm_rhs_block = -1;
  int stream_trsm_max = -1;
  int stream_class24 = -1;
  int stream_chunk = -1;
  int stream_min_blocks = -1;
  PotrfSync potrf_sync = PotrfSync::Auto;
  int potrf_group_team = -1;
  int smem_potrf_min = -1, smem_potrf_max = -1;  ///< both layout classes (then the *_cm below)
  int smem_trsm_min = -1, smem_trsm_max = -1;
  int smem_potrf_min_cm = -1, smem_potrf_max_cm = -1;
  int smem_trsm_min_cm = -1, smem_trsm_max_cm = -1;
  int smem_threads = -1;
  int smem_potrf_warp_max = -1;
  int smem_trsm_warp_min = -1, smem_trsm_warp_max = -1;
  int smem_trsm_chunk = -1;
  int smem_trsm_warp_cols_cm = -1;
  int smem_trsm_leaf_max = -1, smem_trsm_leaf_max_cm = -1;
  int bf_repack_kib = -1;  ///< all three bf_repack_kib_* (0: off)
  int smem_cluster = -1;   ///< both smem_cluster_*; 0 / 1: no clusters
};
inline TuningOverride& tuning_override() {
  static TuningOverride o;
  return o;
}

/// Installs an override for its lifetime (benchmarks and tests only; not thread-safe).
/// Variants that this build does not compile are rejected.
class TuningScope {
 public:
  explicit TuningScope(const TuningOverride& o) : saved_(tuning_override()) {
    const int c = o.smem_cluster;
    KSPD_REQUIRE(c <= 1 || c == 2 || c == 4 || c == 8, InvalidArgument,
                 "kspd::batched: tuning smem_cluster = " << c << " (blocks per cluster: 1, 2, 4 or 8; 0 / -1: none / the table)");
    if constexpr (!kAllVariants) {
      std::ostringstream bad;
      if (o.trsm_rhs_block == 4) bad << " trsm_rhs_block 4";
      if (o.stream_class24 > 0) bad << " stream_class24";
      if (o.stream_min_blocks > 0) bad << " stream_min_blocks " << o.stream_min_blocks;
      if (o.potrf_sync == PotrfSync::TeamSync || o.potrf_sync == PotrfSync::Shuffle) bad << " potrf_sync";
      if (o.potrf_group_team > 0 && o.potrf_group_team != 128) bad << " potrf_group_team " << o.potrf_group_team;
      KSPD_REQUIRE(bad.str().empty(), InvalidArgument,
                   "kspd::batched: tuning variant(s)" << bad.str()
                                                      << " not compiled (configure with -DKSPD_BATCHED_ALL_VARIANTS=ON)");
    }
    tuning_override() = o;
  }
  ~TuningScope() { tuning_override() = saved_; }
  TuningScope(const TuningScope&) = delete;
  TuningScope& operator=(const TuningScope&) = delete;

 private:
  TuningOverride saved_;
};

/// The table. Host backends: one thread per matrix (team size 1); the GPU-only entries are
/// inert there. GPUs: Team kernels 32 / 64 / 128 threads by n; streaming TRSM 2 right-hand
/// sides per thread for fp32 n <= 16 (H100: 0.69x -> 0.82x cuBLAS; fp64 and n > 16 lose with
/// 2 or 4, registers), chunks of 32 matrices (fp64 TRSM 0.64x -> 0.98x cuBLAS at n = 16),
/// k <= 32 streams (the recursion above), no class 24, no launch bounds; group POTRF with a
/// warp barrier (2-8 % ahead of the team barrier at every n and precision), 128 threads per team.
template <class ExecSpace, class T>
Tuning tuning(size_type n) {
  Tuning t;
  if constexpr (!compat::is_host_exec_v<ExecSpace>) t.team_size = n <= 32 ? 32 : n <= 64 ? 64 : 128;
  t.trsm_rhs_block = sizeof(T) == 4 && n <= 16 ? 2 : 1;
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<ExecSpace, Kokkos::Cuda>::value) {
    // H100, batch 100K (perf_batched --smem 17:256,0:0, 2026-11-24): the shared-memory POTRF
    // beats the group kernel from n = 17 (fp64 n = 24: 1.38x -> 1.99x cuSOLVER) and the
    // recursion up to 128 (fp64 n = 128: 0.78x -> 1.41x); one fp32 kernel at 256 loses to the
    // recursion over 128-leaves. TRSM (LayoutLeft batch-first, nrhs = k): fp64 from 25 (n = 64:
    // 0.76x -> 1.18x cuBLAS, 128: 0.69x -> 0.83x; column-major 1.46x / 1.53x), fp32 65-96 only
    // (its FFMA tiles lose at 128: 0.61x against 0.71x).
    t.smem_potrf_min = 17;
    t.smem_potrf_max = 128;
    // fp32 from 65: at 49-64 the kernel wins alone (0.92x vs 0.81x at 64) but as the
    // recursion's 64-leaves it costs k = 128-256 (0.61x vs 0.71x at 128, 0.54x vs 0.66x at 192).
    t.smem_trsm_min = sizeof(T) == 8 ? 33 : 65;
    t.smem_trsm_max = sizeof(T) == 8 ? 128 : 96;
    t.smem_potrf_min_cm = t.smem_potrf_min;
    t.smem_potrf_max_cm = t.smem_potrf_max;
    t.smem_trsm_min_cm = t.smem_trsm_min;
    t.smem_trsm_max_cm = t.smem_trsm_max;
    // fp32, column-major matrices (H100, batch 100K, h100-batched-smem-2026-11-24.md, --smem
    // 17:256 against the table): TRSM on the shared-memory kernel at every k = 33-256 (pointer
    // arrays / column-major 64: 1.22x / 1.23x, 128: 0.71x, 256: 0.69x / 0.79x cuBLAS) against
    // the recursion over 32-leaves (0.31-0.38x).
    if (sizeof(T) == 4) {
      t.smem_trsm_min_cm = 33;
      t.smem_trsm_max_cm = 256;
    }
    // TRSM right-hand sides per pass (fp64, nrhs = k, perf_batched --smem-chunk 32,64 vs 128):
    // k = 64: 32 gives two blocks per SM, 1.18x -> 1.27x cuBLAS batch-first, 1.46x -> 1.84x
    // column-major; k = 128: 128 (column-major 1.53x; 32: 1.02x).
    t.smem_trsm_chunk = n <= 24 ? 32 : n <= 32 ? 16 : n <= 64 ? 32 : 128;
    // n <= 32: a warp per matrix, 4 fp64 / 8 fp32 matrices per block (H100, batch 100K,
    // perf_tests/results/h100-batched-warp-2026-11-24.md). POTRF 17-32 on batch-first data: fp64
    // n = 24 1.94x -> 2.90x cuSOLVER, n = 32 1.59x -> 1.90x; fp32 24 2.16x -> 2.70x (column-major
    // and pointer data keep a block per matrix: fp64 n = 32 1.72x against 1.46x, fp32 2.00x
    // against 1.33x). TRSM k = 16-32 every layout (the streaming kernel before): fp64 k = 16
    // 0.97x / 0.48x (batch-first / column-major) -> 1.08x / 1.10x, k = 24 0.71x / 0.36x ->
    // 0.98x / 1.02x, k = 32 (16 columns per pass; the block kernel's 0.94x / 1.33x) 1.26x / 1.29x;
    // fp32 k = 24 0.76x / 0.27x -> 0.95x / 0.93x, k = 32 0.77x / 0.24x -> 1.17x / 1.12x.
    // Right-hand sides per pass: 32 to k = 24, 16 at 25-32 (fp64 k = 32: 32 per pass 0.85x).
    t.smem_potrf_warp_max = 32;
    t.smem_trsm_warp_min = 16;
    t.smem_trsm_warp_max = 32;
    // Session 4 (H100, batch 100K or 1 GB, perf_tests/results/h100-batched-s4-2026-11-24-s4.md):
    // - POTRS of n = 17-32 on column-major / pointer data (nrhs = 1) as two warp-kernel TRSMs:
    //   fp64 n = 24 1.15x -> 1.33x cuSOLVER, n = 32 0.65x -> 1.26x; fp32 0.89x -> 1.10x, 0.52x ->
    //   1.05x (n = 16 loses: 1.75x -> 1.42x).
    if (n > 16 && n <= 32) t.smem_trsm_warp_cols_cm = 1;
    // - fp32 POTRF on batch-first data in one shared-memory kernel up to 192 (n = 192: 0.81x ->
    //   0.94x cuSOLVER; 256: 0.61x against the recursion's 0.76x).
    if (sizeof(T) == 4) t.smem_potrf_max = 192;
    // - TRSM recursing to the warp kernel's 32-leaves (cuBLAS / tiled GEMMs between them)
    //   rather than stopping at a shared-memory leaf of 64-128: fp64 batch-first k = 128 0.83x ->
    //   0.96x cuBLAS (POTRF 192 / 256, whose TRSM has k = 128: 0.92x -> 0.96x / 0.97x); fp32
    //   column-major / pointer data k = 128 1.00x -> 1.33-1.40x, 192 0.80x -> 1.12-1.21x, 256
    //   0.72x -> 1.01-1.09x. fp64 column-major data and fp64 batch-first k = 192-256 keep the
    //   larger leaves (1.45-1.57x; 0.79x / 0.69x against 0.76x / 0.68x).
    if (sizeof(T) == 8 && n > 96 && n <= 128) t.smem_trsm_leaf_max = 32;
    if (sizeof(T) == 4 && n > 96) t.smem_trsm_leaf_max_cm = 32;
    // Session 5 (H100, batch 1 GB, perf_tests/results/h100-batched-2026-11-24-s5.md): fp64
    // TRSM on batch-first data at k >= 192 through column-major copies of the batch (workspace
    // 1 GiB, kept per stream: chunks of 1024 matrices at k = 256, nrhs = k): k = 192 0.79x ->
    // 0.89x cuBLAS, 256 0.69x -> 0.91x (256 MiB: 0.76x / 0.87x). Chunks that fit in L2 (32 MiB)
    // lose everywhere (k = 256: 0.38x): each chunk's kernels fill few SMs. Everywhere else the
    // two copies cost more than the column-major path gains (fp64 POTRF 256: 0.97x -> 0.91x,
    // POTRS 256 0.93x -> 0.92x, TRSM 128 0.96x -> 0.88x; fp32 TRSM 256 0.67x -> 0.69x, noise).
    if (sizeof(T) == 8 && n >= 192) t.bf_repack_kib_trsm = 1 << 20;
    // Session 8 (H100, batch 100K or 1 GB, perf_tests/results/h100-batched-2026-11-25-s8.md):
    // batch-first data through thread-block clusters of 2 (clusters of 4 / 8 lose 2-8 % to 2
    // in most cells), where they beat one block per matrix (s6 table -> clusters of 2): fp64
    // POTRF n = 128 1.38x -> 1.46x cuSOLVER (33-96 lose: n = 64 2.08x -> 1.72x), TRSM k = 64
    // 1.14x -> 1.51x cuBLAS, k = 128 whole on the kernel 0.96x -> 1.13x (clusters of 4: 1.16x);
    // fp32 POTRF 48 / 64 1.55x -> 1.67x / 1.82x, 128 1.14x -> 1.20x, 192 0.94x -> 0.96x (96
    // loses: 1.29x -> 1.24x), TRSM 64 1.13x -> 1.27x, 96 0.89x -> 1.15x. And the TRSM recursion
    // to clustered 64-leaves: fp64 k = 96 0.98x -> 1.15x, 192 (without the repack) 0.86x ->
    // 0.94x; fp32 k = 128 / 192 / 256 0.91x / 0.78x / 0.67x -> 1.01x / 0.92x / 0.80x (clusters
    // of 4 / 8; the kernel from k = 64 on, its range's top 96 making 128-256 recurse to 64).
    // Run 2 (the table with clusters of 2): fp64 POTRF 192 fell to 0.86x (TRSM 96 on 64-leaves in
    // clusters of 2, POTRF 96 leaves on a block per matrix) where run 1 measured 1.02x / 1.03x with
    // clusters of 4 at both leaves (the same 64-leaves): those take clusters of 4 (standalone
    // they cost 3-5 %: POTRF 96 1.36x -> 1.32x, TRSM 64 1.51x -> 1.44x; not re-run).
    if (sizeof(T) == 8) {
      t.smem_cluster_potrf = n > 96 && n <= 128 ? 2 : n > 64 && n <= 96 ? 4 : 1;
      t.smem_cluster_trsm = n > 96 && n <= 128 ? 4 : n > 64 ? 2 : n > 48 ? 4 : 1;
      if (n > 64 && n <= 96) t.smem_trsm_leaf_max = 64;
      if (n > 96 && n <= 128) t.smem_trsm_leaf_max = 0;
      if (n > 128 && n <= 192) {
        t.smem_trsm_leaf_max = 64;
        t.bf_repack_kib_trsm = 0;
      }
    } else {
      t.smem_cluster_potrf = (n > 32 && n <= 64) || (n > 96 && n <= 192) ? 2 : 1;
      t.smem_cluster_trsm = n >= 64 && n <= 96 ? 2 : 1;
      t.smem_trsm_min = 64;
    }
  }
#endif
  const TuningOverride& o = tuning_override();
  if (o.team_size > 0) t.team_size = o.team_size;
  if (o.gemm_tile != GemmTile::Auto) t.gemm_tile = o.gemm_tile;
  if (o.gemm_chunk >= 0) t.gemm_chunk = o.gemm_chunk;
  if (o.trsm_rhs_block > 0) t.trsm_rhs_block = o.trsm_rhs_block;
  if (o.stream_trsm_max >= 0) t.stream_trsm_max = o.stream_trsm_max;
  if (o.stream_class24 >= 0) t.stream_class24 = kAllVariants && o.stream_class24 > 0;
  if (o.stream_chunk >= 0) t.stream_chunk = o.stream_chunk;
  if (o.stream_min_blocks >= 0) t.stream_min_blocks = o.stream_min_blocks;
  if (o.potrf_sync != PotrfSync::Auto) t.potrf_sync = o.potrf_sync;
  if (o.potrf_group_team > 0) t.potrf_group_team = o.potrf_group_team;
  if (o.smem_potrf_min >= 0) t.smem_potrf_min = t.smem_potrf_min_cm = o.smem_potrf_min;
  if (o.smem_potrf_max >= 0) t.smem_potrf_max = t.smem_potrf_max_cm = o.smem_potrf_max;
  if (o.smem_trsm_min >= 0) t.smem_trsm_min = t.smem_trsm_min_cm = o.smem_trsm_min;
  if (o.smem_trsm_max >= 0) t.smem_trsm_max = t.smem_trsm_max_cm = o.smem_trsm_max;
  if (o.smem_potrf_min_cm >= 0) t.smem_potrf_min_cm = o.smem_potrf_min_cm;
  if (o.smem_potrf_max_cm >= 0) t.smem_potrf_max_cm = o.smem_potrf_max_cm;
  if (o.smem_trsm_min_cm >= 0) t.smem_trsm_min_cm = o.smem_trsm_min_cm;
  if (o.smem_trsm_max_cm >= 0) t.smem_trsm_max_cm = o.smem_trsm_max_cm;
  if (o.smem_threads > 0) t.smem_threads = o.smem_threads;
  if (o.smem_potrf_warp_max >= 0) t.smem_potrf_warp_max = o.smem_potrf_warp_max;
  if (o.smem_trsm_warp_min >= 0) t.smem_trsm_warp_min = o.smem_trsm_warp_min;
  if (o.smem_trsm_warp_max >= 0) t.smem_trsm_warp_max = o.smem_trsm_warp_max;
  if (o.smem_trsm_chunk > 0) t.smem_trsm_chunk = (o.smem_trsm_chunk + 7) / 8 * 8;
  if (o.smem_trsm_warp_cols_cm >= 0) t.smem_trsm_warp_cols_cm = o.smem_trsm_warp_cols_cm;
  if (o.smem_trsm_leaf_max >= 0) t.smem_trsm_leaf_max = o.smem_trsm_leaf_max;
  if (o.smem_trsm_leaf_max_cm >= 0) t.smem_trsm_leaf_max_cm = o.smem_trsm_leaf_max_cm;
  if (o.bf_repack_kib >= 0) t.bf_repack_kib_potrf = t.bf_repack_kib_trsm = t.bf_repack_kib_potrs = o.bf_repack_kib;
  if (o.smem_cluster >= 0) t.smem_cluster_potrf = t.smem_cluster_trsm = o.smem_cluster > 0 ? o.smem_cluster : 1;
  return t;
}

/// Complex scalars (Hermitian: conjugated reads, real pivots) run only on the kernels that
/// know it: the portable Serial / Team kernels and the host LAPACK loop. The register, group,
/// streaming and shared-memory kernels and the recursion (whose GEMM / SYRK steps are
/// transposes, not conjugate transposes) are real-only; every dispatch asks this one trait.
template <class T>
constexpr bool real_kernels_v = !is_complex_v<T>;
/// Only POTRF, POTRS, POSV and TRSM take complex scalars; the other operations' functors
/// static_assert this, rather than compute a symmetric (not Hermitian) result.
#define KSPD_BATCHED_REAL_ONLY(T)                                                                           \
  static_assert(::kspd::batched::Impl::real_kernels_v<T>, "kspd::batched: complex scalars are supported by potrf, potrs, posv and " \
                                   "trsm only (not gemm, syrk, trmm, trtri, lauum, potri, poti)")

/// The host operations that have a per-matrix host BLAS/LAPACK path (Op::host).
enum class HostOp { Potrf, Potrs, Trsm, Gemm };
/// Host backends, Auto: which kernel runs a batch of order n. Register: the lane kernels (a
/// thread runs 8 fp64 / 16 fp32 matrices in lockstep, n <= 16); Serial: kspd's generic
/// one-thread-per-matrix loops; Vendor: one host BLAS/LAPACK call per matrix. Every path is
/// spread over the cores (kspd_batched_host_threads.hpp). Measured on the 2-core development
/// machine (perf_tests/results/cpu-batched-2026-11-24.md, single thread, best of the reps).
enum class HostPath { Register, Serial, Vendor };
/// GPUs, complex scalars, Auto: POTRF runs one thread per matrix (Serial) up to this n instead
/// of a team per matrix (TRSM keeps the generic choice, Team above 8). H100, batch 10,000,
/// LayoutLeft, vs cuSOLVER z/cpotrfBatched (perf_tests/results/h100-batched-complex-2026-11-24.md):
/// Serial / Team z n = 8: 1.96x / 1.10x, 16: 0.74x / 0.34x, 32: 0.45x / 0.32x, 64: 0.16x / 0.16x;
/// c: 2.21x / 0.93x, 0.88x / 0.25x, 0.49x / 0.17x, 0.13x / 0.11x. TRSM z Team / Serial n = 8:
/// 0.37x / 0.28x, 16: 0.16x / 0.14x, 32: 0.07x / 0.06x.
constexpr size_type kGpuComplexPotrfSerialMax = 64;

/// Complex scalars: no register kernels; the generic kernel against the LAPACK loop, single
/// thread, column-major data, batch 10,000, best of 5-7 reps on the loaded 2-core VM
/// (perf_tests/results/cpu-batched-complex-2026-11-24.md; the noise is +-50 % there, so the
/// crossovers are where both precisions agree): POTRF z/c 1.9-7.5x at n <= 10, 1.2-1.3x at 16,
/// 0.7-1.0x at 24; POTRS (nrhs = 1) 1.0-3.8x up to 12, 0.9x at 16; TRSM (nrhs = n) z 1.1x at 6,
/// 0.6-0.8x at 8-12, c 1.3x at 6, 2.3-3.7x at 8, 0.8x at 10.
inline HostPath host_path_complex(HostOp op, size_type n, size_t bytes) {
  switch (op) {
    case HostOp::Potrf: return n <= 16 ? HostPath::Serial : HostPath::Vendor;
    case HostOp::Potrs: return n <= 12 ? HostPath::Serial : HostPath::Vendor;
    case HostOp::Trsm: return n <= (bytes == 8 ? 8 : 6) ? HostPath::Serial : HostPath::Vendor;
    default: return HostPath::Vendor;
  }
}
/// Register on host backends is the lane kernels (kspd_batched_host_lanes.hpp, n <= 16), since
/// 2026-11-24 (perf_tests/results/cpu-batched-lanes-2026-11-24.md: one thread, the 2-core VM,
/// best of 15, column-major data, batch 4,000, ms generic / lanes / LAPACK loop, fp64): POTRF
/// n = 2: 0.023 / 0.044 / 0.20, n = 5: 0.102 / 0.110 / 0.37, n = 6: 0.153 / 0.141 / 0.44, n = 8:
/// 0.25 / 0.23 / 0.60; TRSM n = 5: 0.18 / 0.19 / 0.50, n = 6: 0.30 / 0.25 / 0.52, n = 8: 0.69 /
/// 0.40 / 0.76; POTRS n = 1: 0.072 / 0.028 / 0.45, n = 8: 0.53 / 0.14 / 0.66 (fp32 alike); at
/// n = 16 (batch 2,000) lanes 0.43 (POTRF), 0.22 (POTRS), 0.89 (TRSM) against the LAPACK loop's
/// about 0.9 / 0.7 / 3.2. Before (the padded N = 1/2/4/8 register kernels, now GPU-only):
/// fp64 and fp32 cross over at the same n within the noise. Single thread, column-major data,
/// ms for a batch of 10,000 (register / serial / LAPACK loop, fp64): POTRF n = 4: 0.17 / 0.18 /
/// 0.76, n = 8: 1.23 / 0.70 / 1.60, n = 12: - / 2.0 / 11.3, n = 16: - / 12.9 / 13.6, n = 20:
/// - / 28 / 16; POTRS n = 8: 0.86 / 1.5 / 1.7, n = 12: - / 2.4 / 3.1, n = 16: - / 13.2 / 10.5;
/// TRSM (nrhs = n) n = 4: 0.54 / 0.27 / 0.81, n = 8: 3.0 / 2.1 / 2.0, n = 12: - / 19 / 13;
/// GEMM n = 2: - / 0.18 / 0.24, n = 4: - / 0.84 / 0.33 (the register kernels pad n up to
/// 1, 2, 4, 8 and lose at odd n; the generic kernel loses to BLAS's GEMM from n = 3 on).
template <class T>
HostPath host_path(HostOp op, size_type n) {
  if constexpr (is_complex_v<T>) return host_path_complex(op, n, sizeof(T));
  switch (op) {
    case HostOp::Potrf: return n <= 5 ? HostPath::Serial : n <= 16 ? HostPath::Register : HostPath::Vendor;
    case HostOp::Potrs: return n <= 16 ? HostPath::Register : HostPath::Vendor;
    case HostOp::Trsm: return n <= 5 ? HostPath::Serial : n <= 16 ? HostPath::Register : HostPath::Vendor;
    default: return n <= 2 ? HostPath::Serial : HostPath::Vendor;  // Gemm
  }
}

/// The per-matrix LAPACK loop stops scaling with host threads: concurrent calls serialize
/// inside OpenBLAS (0.3.21, Debian's, pthread build, one BLAS thread per caller). 16-core
/// H100 host, fp64, column-major data, batch 100,000 (54,253 at n = 48), ms with 1 / 16
/// threads (perf_tests/results/h100host-batched-cpu-threads-2026-11-24.md): LAPACK loop POTRF
/// n = 24: 129 / 131, n = 32: 235 / 116; POTRS n = 24: 110 / 230, n = 32: 192 / 262, n = 48:
/// 194 / 159; TRSM n = 24: 237 / 147, n = 32: 475 / 135; kspd's generic kernel (Serial) POTRF
/// n = 24: 161 / 15.6, n = 32: 431 / 35.1, n = 48: 631 / 60.9; POTRS n = 24: 142 / 10.2, 32: 212
/// / 15.7, 48: 258 / 16.4; TRSM n = 24: 786 / 56.8, 32: 1540 / 110 (at 48 Auto's recursion, 74,
/// beats it, 175). So from kHostVendorMaxThreads + 1 threads on, Auto takes the generic kernel
/// where it would call the vendor, up to these orders.
constexpr int kHostVendorMaxThreads = 2;
inline size_type host_serial_max_threaded(HostOp op) {
  switch (op) {
    case HostOp::Potrf: return 48;
    case HostOp::Potrs: return 64;
    case HostOp::Trsm: return 32;
    default: return 0;  // Gemm: the vendor's
  }
}
/// host_path for a batch that `threads` host threads run (kHostVendorMaxThreads above).
template <class T>
HostPath host_path(HostOp op, size_type n, int threads) {
  const HostPath p = host_path<T>(op, n);
  if (p == HostPath::Vendor && threads > kHostVendorMaxThreads && n <= host_serial_max_threaded(op)) return HostPath::Serial;
  return p;
}

/// The register tile of the tiled GEMM for C m x n of `bytes`-sized scalars. H100
/// (h100-batched-gemm-tiles-2026-11-22.txt, batch 10,000): fp64 8 x 4 is fastest at n = 33-256
/// (8 x 8 needs 219 registers and runs fewer warps: 0.84x of 8 x 4 at n = 33, 0.92x at 256);
/// fp32 8 x 8 is fastest from n = 33 on (1.12-1.27x of 8 x 4).
inline GemmTile auto_gemm_tile(size_type m, size_type n, size_t bytes) {
  const size_type lo = m < n ? m : n, hi = m < n ? n : m;
  if (lo >= 16 && bytes < 8) return GemmTile::T8x8;
  if (hi >= 8) return GemmTile::T8x4;
  return GemmTile::T4x4;
}

}  // namespace kspd::batched::Impl
#endif
