#ifndef KSPD_BATCHED_REPACK_INTERNAL_HPP
#define KSPD_BATCHED_REPACK_INTERNAL_HPP
/// \file kspd_batched_repack_internal.hpp
/// Batch-first (interleaved) operands through the column-major path, a chunk at a time. The
/// kernels read a LayoutLeft batch-first View coalesced one thread per matrix, but the
/// recursion's GEMMs on it run kspd's register-tiled kernel, while on column-major matrices
/// they run cuBLAS gemmStridedBatched (H100 fp64 TRSM n = 256: 0.69x cuBLAS trsmBatched
/// batch-first against 1.57x column-major). bf_chunked copies `chunk` matrices of every
/// operand into a workspace where they lie column-major one after another (a tiled transpose:
/// 32 matrices x 32 elements per team through shared memory, coalesced on both sides), runs
/// the operation there, and copies the outputs back; the next chunk reuses the workspace, so
/// a chunk that fits in the GPU's L2 cache stays there between the copies and the work. The
/// tuning table says per (operation, scalar, n) whether and with how large a workspace
/// (Tuning::bf_repack_kib_*); perf_batched --bf-repack measures the sizes.

#include <Kokkos_Core.hpp>

#include <array>
#include <limits>

#include "kspd_batched_launch.hpp"
#include "kspd_batched_mat.hpp"
#include "kspd_stream_scratch.hpp"
#include "kspd_batched_tuning.hpp"
#include "kspd_error.hpp"

namespace kspd::batched::Impl {

/// Copies matrices [0, nb) of a batch-first batch (element (i, j) of matrix b at
/// bf + b + i rs + j cs) to (to_ws) or from the workspace ws (matrix b column-major at
/// ws + b rows cols). One team per tile of 32 matrices x 32 consecutive rows of one column
/// (no index division per element: the first try, 32 consecutive elements of the column-major
/// order, divided each by the row count in 64 bits and copied at a third of the copy
/// bandwidth). tri = 1 / 2: only the lower / upper triangle (i >= j / i <= j) is read by the
/// operation and copied; tiles wholly outside it return at once.
template <class T>
struct RepackTiles {
  T* bf;
  offset_type rs, cs;
  T* ws;
  size_type nb;
  int rows, tiles_i, tiles_e;  // tiles_i = ceil(rows / 32) per column, tiles_e = tiles_i cols
  int tri;
  bool to_ws;
  static constexpr int kTile = 32;
  KOKKOS_INLINE_FUNCTION static constexpr size_t scratch_bytes() { return sizeof(T) * kTile * (kTile + 1); }
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& t) const {
    const size_type r = t.league_rank();
    const size_type b0 = (r / tiles_e) * kTile;
    const int te = int(r % tiles_e), j = te / tiles_i, i0 = (te % tiles_i) * kTile;
    if ((tri == 1 && i0 + kTile - 1 < j) || (tri == 2 && i0 > j)) return;  // the whole team
    const offset_type mn = offset_type(rows) * (tiles_e / tiles_i);
    T* const bfj = bf + offset_type(i0) * rs + offset_type(j) * cs;  // + b + il rs
    T* const wsj = ws + offset_type(j) * rows + i0;                  // + b mn + il
    T* tile = static_cast<T*>(t.team_scratch(0).get_shmem(scratch_bytes()));
    auto keep = [&](size_type b, int i) { return b < nb && i < rows && (tri == 0 || (tri == 1 ? i >= j : i <= j)); };
    // Reads run along the source's fast index (the matrix in bf, the row in ws), writes along
    // the destination's; the tile (padded to 33) turns one into the other.
    for (int x = t.team_rank(); x < kTile * kTile; x += t.team_size()) {
      const int bl = to_ws ? x % kTile : x / kTile, il = to_ws ? x / kTile : x % kTile;
      const size_type b = b0 + bl;
      if (keep(b, i0 + il))
        tile[il * (kTile + 1) + bl] = to_ws ? bfj[b + il * rs] : wsj[offset_type(b) * mn + il];
    }
    t.team_barrier();
    for (int x = t.team_rank(); x < kTile * kTile; x += t.team_size()) {
      const int bl = to_ws ? x / kTile : x % kTile, il = to_ws ? x % kTile : x / kTile;
      const size_type b = b0 + bl;
      if (keep(b, i0 + il)) {
        const T v = tile[il * (kTile + 1) + bl];
        if (to_ws) wsj[offset_type(b) * mn + il] = v;
        else bfj[b + il * rs] = v;
      }
    }
  }
};

template <class ExecSpace, class T>
void repack(const ExecSpace& exec, T* bf, offset_type rs, offset_type cs, T* ws, size_type nb, size_type rows,
            size_type cols, int tri, bool to_ws) {
  if (nb <= 0 || rows <= 0 || cols <= 0) return;
  constexpr int kT = RepackTiles<T>::kTile;
  const size_type tiles_i = (rows + kT - 1) / kT, tiles_e = tiles_i * cols, tiles_b = (nb + kT - 1) / kT;
  KSPD_REQUIRE(tiles_e * tiles_b <= size_type(2147483647) && rows <= size_type(2147483647), InvalidArgument,
               "kspd::batched: the batch-first repack chunk is too large (" << nb << " matrices of " << rows << " x "
                                                                            << cols << ")");
  Kokkos::TeamPolicy<ExecSpace> policy(exec, int(tiles_e * tiles_b), is_gpu_v<ExecSpace> ? 256 : 1);
  Kokkos::parallel_for(to_ws ? "kspd::batched::repack::to_cm" : "kspd::batched::repack::to_bf",
                       policy.set_scratch_size(0, Kokkos::PerTeam(RepackTiles<T>::scratch_bytes())),
                       RepackTiles<T>{bf, rs, cs, ws, nb, int(rows), int(tiles_i), int(tiles_e), tri, to_ws});
}

/// One operand of bf_chunked: a batch-first batch of rows x cols matrices; `out`: written by
/// the operation (copied back). Every operand is read; a triangular one (tri = 1 lower, 2
/// upper: a factor, or the triangle POTRF reads) only in that triangle, so only that triangle
/// is copied either way (the workspace's other one is left undefined: no kernel reads it).
template <class T>
struct RepackOperand {
  BatchMat<const T> bf;
  size_type rows, cols;
  bool out;
  int tri = 0;
};
inline int tri_of(Uplo uplo) { return uplo == Uplo::Lower ? 1 : 2; }

/// The workspace (KiB) of the batch-first repack for an operation of order n on these
/// operands, 0 for none: only Auto calls whose operands are all batch-first (consecutive
/// matrices adjacent) and have no empty dimension, real scalars, by the tuning table.
template <class ExecSpace, class T, size_t N>
size_type bf_repack_kib(HostOp op, size_type n, const BatchOptions& opts, const std::array<RepackOperand<T>, N>& ops) {
  if constexpr (!real_kernels_v<T>) return 0;
  if (opts.algo != BatchAlgo::Auto) return 0;
  bool all_single = true;  // 1 x 1 matrices: the column-major copy (batch stride 1) is the same layout
  for (const auto& o : ops) {
    if (!o.bf.batch_unit_stride() || o.rows <= 0 || o.cols <= 0) return 0;
    all_single = all_single && o.rows * o.cols == 1;
  }
  if (all_single) return 0;
  const Tuning t = tuning<ExecSpace, T>(n);
  return size_type(op == HostOp::Potrf ? t.bf_repack_kib_potrf : op == HostOp::Potrs ? t.bf_repack_kib_potrs
                                                                                     : t.bf_repack_kib_trsm);
}

/// Runs run(b0, nb, cm) on chunks [b0, b0 + nb) of the batch, cm[i] being operand i's chunk as
/// a batch of contiguous column-major matrices (batch stride rows cols) in the workspace of
/// about `kib` KiB (at least one matrix per chunk).
template <class ExecSpace, class T, size_t N, class Run>
void bf_chunked(const ExecSpace& exec, size_type nbatch, size_type kib, const std::array<RepackOperand<T>, N>& ops,
                const Run& run) {
  if (nbatch <= 0) return;
  size_type per = 0;  // elements per matrix, all operands
  for (const auto& o : ops) per += o.rows * o.cols;
  size_type chunk = kib * 1024 / (per * size_type(sizeof(T)));
  chunk = chunk < 1 ? 1 : chunk > nbatch ? nbatch : chunk;
  const kspd::Impl::Scratch<ExecSpace> buf(exec, size_t(chunk * per) * sizeof(T), kspd::Impl::ScratchSlot::BatchedRepack,
                                           "kspd::batched::repack", kspd::Impl::ScratchKeep::Always);
  T* ws = reinterpret_cast<T*>(buf.data());
  if constexpr (!is_gpu_v<ExecSpace>) {
    // Host backends (where the table never picks the repack: the tests force it) poison the
    // workspace, so that a kernel reading a triangle that was not copied would show.
    const Kokkos::View<T*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> w(
        ws, size_t(chunk * per));
    Kokkos::deep_copy(exec, w, std::numeric_limits<T>::quiet_NaN());
  }
  std::array<BatchMat<T>, N> cm;
  std::array<T*, N> wsp;
  for (size_t i = 0, off = 0; i < N; off += size_t(chunk * ops[i].rows * ops[i].cols), ++i) {
    wsp[i] = ws + off;
    cm[i].base = wsp[i];
    cm[i].bs = ops[i].rows * ops[i].cols;
    cm[i].rs = 1;
    cm[i].cs = ops[i].rows;
  }
  for (size_type b0 = 0; b0 < nbatch; b0 += chunk) {
    const size_type nb = nbatch - b0 < chunk ? nbatch - b0 : chunk;
    for (size_t i = 0; i < N; ++i)  // the bf pointers of read-only operands are only read (to_ws)
      repack(exec, const_cast<T*>(ops[i].bf.base) + b0, ops[i].bf.rs, ops[i].bf.cs, wsp[i], nb, ops[i].rows,
             ops[i].cols, ops[i].tri, true);
    run(b0, nb, cm);
    for (size_t i = 0; i < N; ++i)
      if (ops[i].out)
        repack(exec, const_cast<T*>(ops[i].bf.base) + b0, ops[i].bf.rs, ops[i].bf.cs, wsp[i], nb, ops[i].rows,
               ops[i].cols, ops[i].tri, false);
  }
}

}  // namespace kspd::batched::Impl
#endif
