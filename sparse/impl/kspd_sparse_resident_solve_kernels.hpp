#ifndef KSPD_SPARSE_RESIDENT_SOLVE_KERNELS_HPP
#define KSPD_SPARSE_RESIDENT_SOLVE_KERNELS_HPP
/// \file kspd_sparse_resident_solve_kernels.hpp
/// Triangular solves with the device-resident factor, by tree level, where the factor
/// lives. The solves read L once (per tile of right-hand sides) and are memory-bound, so
/// each level is two launches over all its units (not a vendor call per supernode, whose
/// launches would dominate).
///
/// Units: the solve's own plan (SolvePlan) can cut a supernode into units of at most
/// `width` columns (a multiple of 32). A unit is the trailing part of its supernode's panel
/// from its first column: its diagonal block, then every row below it (the rest of the
/// supernode's diagonal block, then the supernode's rows below). The units of a supernode are
/// a chain of levels; the first unit of a supernode comes after the last units of its
/// children. The rows below a unit's diagonal block are cut into chunks of kSolveChunk rows x
/// kSolveChunkCols columns, so a wide unit's work spreads over the whole device.
///
/// Diagonal blocks: the inverses of the 32 x 32 diagonal blocks of every supernode are
/// computed once per factorization (on the first solve after it; one launch, a thread per
/// column), so a unit's diagonal solve is a product per block of 32 columns (two barriers)
/// instead of a column sweep (a barrier per column).
///
///  - forward L Y = B, levels from the leaves up: (1) one team per unit: per block of 32
///    columns, x_b = inv(L_bb) x_b, then the unit's diagonal rows below the block updated;
///    (2) per chunk, Y(rows) -= L21 Y(unit), atomically (chunks of one level may share rows):
///    a thread per row with up to 8 right-hand sides, or, for 8 or more right-hand sides and
///    units of at most kTileK columns, a register-tiled product (4 rows x 8 right-hand sides
///    per thread, Y(unit) staged);
///  - backward L^T X = Y, levels from the root down: (1) per chunk, X(unit) -= L21^T X(rows)
///    (one right-hand side: the chunk's rows of X staged, vector lanes over the rows, a
///    reduction per column; several: 4 columns x 4 right-hand sides per thread), atomically;
///    (2) per unit, x_b = inv(L_bb)^T x_b by blocks from the bottom, each followed by the
///    update of the unit's rows above it.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "kspd_sparse_resident_solve_plan.hpp"

#if defined(__CUDA_ARCH__) || defined(__HIP_DEVICE_COMPILE__)
#define KSPD_SOLVE_UNROLL _Pragma("unroll")
#else
#define KSPD_SOLVE_UNROLL
#endif

namespace kspd::sparse::Impl {

template <class Exec, class Scalar>
struct LevelSolve {
  using Team = Kokkos::TeamPolicy<Exec>;
  using Member = typename Team::member_type;
  static constexpr int kBlock = kDiagBlock;  ///< diagonal-block columns per step
  static constexpr int kRhs = 8;        ///< right-hand sides per pass over a row of L (thread per row)
  static constexpr int kTileRhs = 32;   ///< tiled kernels: right-hand sides per team
  static constexpr int kTileK = kSolveChunkCols;  ///< tiled kernels: widest unit
  static constexpr int kSlots = 128;    ///< tiled kernels: threads' work items per team
  static constexpr bool kGpu = !Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible;

  const Scalar* vals;
  const Scalar* dinv;  ///< inverses of the diagonal blocks
  const SolveUnit* units;
  const std::int64_t* rows;
  const SolveChunk* chunks;
  Scalar* W;
  std::int64_t ldw;
  int nr;

  using Scratch = Kokkos::View<Scalar*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  /// A team of `slots` threads on the GPU, whose work items are the threads (AUTO on the host).
  static Team slots_team(const Exec& exec, int league, int slots) {
    if constexpr (kGpu) {
      return Team(exec, league, slots);
    } else {
      (void)slots;
      return Team(exec, league, Kokkos::AUTO);
    }
  }
  static Team tiled_team(const Exec& exec, int league) { return slots_team(exec, league, kSlots); }

  /// Xb(i + 32 c) = X[i + c ldw] for i < bs, c < nc (team scratch), then a barrier.
  template <class M, class S>
  KOKKOS_INLINE_FUNCTION static void stage(const M& t, const Scalar* X, std::int64_t ldw, int bs, int nc, const S& Xb) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * nc), [&](const int q) {
      const int i = q % bs, c = q / bs;
      Xb(i + kBlock * c) = X[i + c * ldw];
    });
    t.team_barrier();
  }

  /// sum_{j < n} a[j sa] x(j) for n <= 32: the 32 loads of a are issued together (fully
  /// unrolled into registers; j >= n reloads a[0]) before the first product waits on one.
  /// A unit's 32-column steps run in one team, one after another, so they are bound by the
  /// latency of a load, not by bandwidth.
  template <class XF>
  KOKKOS_INLINE_FUNCTION static Scalar dot32(const int n, const Scalar* a, const std::int64_t sa, const XF& x) {
    Scalar v[kBlock];
    KSPD_SOLVE_UNROLL
    for (int j = 0; j < kBlock; ++j) v[j] = a[std::int64_t(j < n ? j : 0) * sa];
    Scalar s0 = 0, s1 = 0;
    KSPD_SOLVE_UNROLL
    for (int j = 0; j < kBlock; j += 2) {
      if (j < n) s0 += v[j] * x(j);
      if (j + 1 < n) s1 += v[j + 1] * x(j + 1);
    }
    return s0 + s1;
  }

  /// sum_{j < n} f(j) in four independent partial sums (the loads of a long dot product in
  /// flight together instead of one after another, at few registers: the rows below run
  /// many threads per multiprocessor, so a register array would cost occupancy).
  template <class F>
  KOKKOS_INLINE_FUNCTION static Scalar dot4(const int n, const F& f) {
    Scalar a0 = 0, a1 = 0, a2 = 0, a3 = 0;
    int j = 0;
    for (; j + 4 <= n; j += 4) {
      a0 += f(j);
      a1 += f(j + 1);
      a2 += f(j + 2);
      a3 += f(j + 3);
    }
    for (; j < n; ++j) a0 += f(j);
    return (a0 + a1) + (a2 + a3);
  }

  /// Team size of the diagonal solves of a level whose widest unit has `width` columns: a
  /// thread per row of the widest unit's diagonal block and right-hand side (up to 256), so
  /// each 32-column step's update of the rows below it is one pass (AUTO on the host).
  Team diag_team(const Exec& exec, int league, int width) const {
    if constexpr (kGpu) {
      const int ts = std::min(256, (std::max(width, 32 * std::min(nr, 8)) + 31) / 32 * 32);
      return Team(exec, league, ts);
    } else {
      (void)width;
      return Team(exec, league, Kokkos::AUTO);
    }
  }

  /// The inverses of the diagonal blocks [0, nb): a team per block, a thread per column
  /// (forward substitution of the unit vector; the block read from global memory, whose
  /// reuse stays in cache). Written column-major with leading dimension 32, zero above.
  static void invert_blocks(const Exec& exec, const DiagBlock* blocks, size_type nb, const Scalar* vals, Scalar* dinv) {
    if (nb == 0) return;
    Kokkos::parallel_for(
        "kspd::sparse::resident::invert_diagonal_blocks", Team(exec, int(nb), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Member& t) {
          const DiagBlock d = blocks[t.league_rank()];
          const Scalar* L = vals + d.voff;
          Scalar* D = dinv + d.doff;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, kBlock), [&](const int j) {
            Scalar* v = D + j * kBlock;
            for (int i = 0; i < kBlock; ++i) v[i] = Scalar(0);
            if (j >= d.bs) return;
            v[j] = Scalar(1) / L[j + std::int64_t(j) * d.ld];
            for (int i = j + 1; i < d.bs; ++i) {
              Scalar acc = 0;
              for (int m = j; m < i; ++m) acc += L[i + std::int64_t(m) * d.ld] * v[m];
              v[i] = -acc / L[i + std::int64_t(i) * d.ld];
            }
          });
        });
  }

  /// L11 x = b (Backward false) or L11^T x = y (true) for the units [b, e), by blocks of 32
  /// columns (forward from the top, backward from the bottom): y_b = inv(L_bb) x_b or
  /// inv(L_bb)^T x_b (x_b staged; y_b written and kept in scratch), then the team updates the
  /// unit's other diagonal rows with it (below the block forward, above it backward).
  template <bool Backward>
  void diag_solve(const Exec& exec, size_type b, size_type e, int width) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        Backward ? "kspd::sparse::resident::backward_diag" : "kspd::sparse::resident::forward_diag",
        diag_team(exec, int(e - b), width).set_scratch_size(0, Kokkos::PerTeam(2 * Scratch::shmem_size(kBlock * kBlock))),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveUnit u = me.units[b + t.league_rank()];
          const Scalar* p = me.vals + u.voff;
          const int k = u.ncols, ld = u.ld;
          Scalar* X = me.W + u.first_col;
          Scratch Xb(t.team_scratch(0), kBlock * kBlock), Yb(t.team_scratch(0), kBlock * kBlock);
          const int nblocks = (k + kBlock - 1) / kBlock;
          for (int step = 0; step < nblocks; ++step) {
            const int jb = (Backward ? nblocks - 1 - step : step) * kBlock;
            const int je = jb + kBlock < k ? jb + kBlock : k, bs = je - jb;
            const int others = Backward ? jb : k - je;  // rows updated with y_b
            const Scalar* D = me.dinv + u.doff + std::int64_t(jb) * kBlock;
            for (int c0 = 0; c0 < me.nr; c0 += kBlock) {
              const int nc = me.nr - c0 < kBlock ? me.nr - c0 : kBlock;
              stage(t, X + jb + c0 * me.ldw, me.ldw, bs, nc, Xb);
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * nc), [&](const int q) {
                const int i = q % bs, c = q / bs;
                // forward: row i of inv(L_bb); backward: column i of it (row i of its transpose)
                const Scalar y = Backward ? dot32(bs - i, D + kBlock * i + i, 1, [&](int j) { return Xb(i + j + kBlock * c); })
                                          : dot32(i + 1, D + i, kBlock, [&](int j) { return Xb(j + kBlock * c); });
                X[jb + i + (c0 + c) * me.ldw] = y;
                Yb(i + kBlock * c) = y;
              });
              t.team_barrier();
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, others * nc), [&](const int q) {
                const int c = q / others;
                const int i = (Backward ? 0 : je) + q % others;
                const Scalar* Lrow = Backward ? p + std::int64_t(i) * ld + jb : p + i + std::int64_t(jb) * ld;
                X[i + (c0 + c) * me.ldw] -= dot32(bs, Lrow, Backward ? 1 : ld, [&](int j) { return Yb(j + kBlock * c); });
              });
              t.team_barrier();
            }
          }
        });
  }

  /// W(rows below) -= L21 x for the chunks [b, e), one right-hand side: the chunk's part of
  /// x staged, a thread per row.
  void below_forward_one(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::forward_below_one",
        Team(exec, int(e - b), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(kSolveChunkCols))),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank()];
          const SolveUnit u = me.units[ch.unit];
          const Scalar* p = me.vals + u.voff + u.ncols + std::int64_t(ch.j0) * u.ld;
          const std::int64_t* r = me.rows + u.row_begin + u.ncols;
          const int ld = u.ld, k = ch.j1 - ch.j0;
          Scratch Xs(t.team_scratch(0), kSolveChunkCols);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k), [&](const int j) { Xs(j) = me.W[u.first_col + ch.j0 + j]; });
          t.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, ch.i0, ch.i1), [&](const int i) {
            const Scalar* pi = p + i;
            Kokkos::atomic_add(&me.W[r[i]], -dot4(k, [&](int j) { return pi[std::int64_t(j) * ld] * Xs(j); }));
          });
        });
  }

  /// W(rows below) -= L21 x for the chunks [b, e): a thread per row, its columns of the chunk.
  void below_forward(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::forward_below", Team(exec, int(e - b), Kokkos::AUTO), KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank()];
          const SolveUnit u = me.units[ch.unit];
          const Scalar* p = me.vals + u.voff + u.ncols;
          const std::int64_t* r = me.rows + u.row_begin + u.ncols;
          const int ld = u.ld;
          const Scalar* X = me.W + u.first_col;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, ch.i0, ch.i1), [&](const int i) {
            for (int c0 = 0; c0 < me.nr; c0 += kRhs) {
              const int nc = me.nr - c0 < kRhs ? me.nr - c0 : kRhs;
              Scalar acc[kRhs] = {};
              for (int j = ch.j0; j < ch.j1; ++j) {
                const Scalar l = p[i + std::int64_t(j) * ld];
                for (int c = 0; c < kRhs; ++c)
                  if (c < nc) acc[c] += l * X[j + (c0 + c) * me.ldw];
              }
              for (int c = 0; c < nc; ++c) Kokkos::atomic_add(&me.W[r[i] + (c0 + c) * me.ldw], -acc[c]);
            }
          });
        });
  }

  /// W(rows below) -= L21 x for the chunks [b, e), units of at most kTileK columns: a team
  /// per (chunk, 32 right-hand sides), x's block staged, 4 rows x 8 right-hand sides per
  /// work item (consecutive items take consecutive rows: coalesced reads of L).
  void below_forward_tiled(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    const int nrt = (nr + kTileRhs - 1) / kTileRhs;
    Kokkos::parallel_for(
        "kspd::sparse::resident::forward_below_tiled",
        tiled_team(exec, int(e - b) * nrt).set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(kTileK * kTileRhs))),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank() / nrt];
          const int c0 = (t.league_rank() % nrt) * kTileRhs, nc = me.nr - c0 < kTileRhs ? me.nr - c0 : kTileRhs;
          const SolveUnit u = me.units[ch.unit];
          const Scalar* p = me.vals + u.voff + u.ncols + std::int64_t(ch.j0) * u.ld;
          const std::int64_t* r = me.rows + u.row_begin + u.ncols;
          const int k = ch.j1 - ch.j0, ld = u.ld;
          Scratch Xs(t.team_scratch(0), kTileK * kTileRhs);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k * kTileRhs), [&](const int q) {
            const int j = q % k, c = q / k;
            Xs(j * kTileRhs + c) = c < nc ? me.W[u.first_col + ch.j0 + j + (c0 + c) * me.ldw] : Scalar(0);
          });
          t.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, kSlots), [&](const int slot) {
            const int rg = slot % 32, cg = (slot / 32) * 8;
            Scalar acc[4][8] = {};
            int ii[4];
            for (int m = 0; m < 4; ++m) {
              ii[m] = ch.i0 + rg + 32 * m;
              if (ii[m] >= ch.i1) ii[m] = ch.i0;  // duplicate row, result dropped below
            }
            for (int j = 0; j < k; ++j) {
              const Scalar* lj = p + std::int64_t(j) * ld;
              const Scalar l0 = lj[ii[0]], l1 = lj[ii[1]], l2 = lj[ii[2]], l3 = lj[ii[3]];
              for (int q = 0; q < 8; ++q) {
                const Scalar x = Xs(j * kTileRhs + cg + q);
                acc[0][q] += l0 * x;
                acc[1][q] += l1 * x;
                acc[2][q] += l2 * x;
                acc[3][q] += l3 * x;
              }
            }
            for (int m = 0; m < 4; ++m) {
              if (ch.i0 + rg + 32 * m >= ch.i1) break;
              const std::int64_t row = r[ii[m]];
              for (int q = 0; q < 8; ++q)
                if (cg + q < nc) Kokkos::atomic_add(&me.W[row + (c0 + cg + q) * me.ldw], -acc[m][q]);
            }
          });
        });
  }

  /// x -= L21^T W(rows below) for the chunks [b, e), one right-hand side: the chunk's rows
  /// of W staged; work item (lane, g) sums rows lane + 32 m (m < 4) of the columns 8 g ..
  /// 8 g + 7 (consecutive lanes read consecutive rows of a column: coalesced; 32 loads in
  /// flight per item), the partial sums go through scratch, and a thread per column adds
  /// the 32 lanes' sums.
  void below_backward(const Exec& exec, size_type b, size_type e) const {
    static_assert(kSolveChunk == 4 * 32 && kSolveChunkCols == 8 * 8, "below_backward: 128 x 64 chunks");
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::backward_below",
        slots_team(exec, int(e - b), 256)
            .set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(kSolveChunk) + Scratch::shmem_size(32 * kSolveChunkCols))),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank()];
          const SolveUnit u = me.units[ch.unit];
          const Scalar* p = me.vals + u.voff + u.ncols + ch.i0 + std::int64_t(ch.j0) * u.ld;
          const std::int64_t* r = me.rows + u.row_begin + u.ncols + ch.i0;
          const int ld = u.ld, rows = ch.i1 - ch.i0, k = ch.j1 - ch.j0;
          Scratch Ws(t.team_scratch(0), kSolveChunk), Ps(t.team_scratch(0), 32 * kSolveChunkCols);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, kSolveChunk),
                               [&](const int i) { Ws(i) = i < rows ? me.W[r[i]] : Scalar(0); });
          t.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, 256), [&](const int slot) {
            const int lane = slot % 32, g = slot / 32;
            Scalar acc[8] = {};
            KSPD_SOLVE_UNROLL
            for (int m = 0; m < 4; ++m) {
              const int i = lane + 32 * m;
              const Scalar w = Ws(i);  // zero past the chunk's rows
              const int ii = i < rows ? i : 0;
              KSPD_SOLVE_UNROLL
              for (int c = 0; c < 8; ++c) {
                const int j = 8 * g + c < k ? 8 * g + c : 0;  // past the chunk: summed, never written
                acc[c] += p[ii + std::int64_t(j) * ld] * w;
              }
            }
            KSPD_SOLVE_UNROLL
            for (int c = 0; c < 8; ++c) Ps(lane + 32 * (8 * g + c)) = acc[c];
          });
          t.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k), [&](const int j) {
            Scalar s0 = 0, s1 = 0;
            for (int l = 0; l < 32; l += 2) {
              s0 += Ps(l + 32 * j);
              s1 += Ps(l + 1 + 32 * j);
            }
            Kokkos::atomic_add(&me.W[u.first_col + ch.j0 + j], -(s0 + s1));
          });
        });
  }

  /// x -= L21^T W(rows below) for the chunks [b, e), several right-hand sides, units of at
  /// most kTileK columns: a team per (chunk, 32 right-hand sides), the chunk's rows of W
  /// staged, 4 columns x 4 right-hand sides per work item.
  void below_backward_tiled(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    const int nrt = (nr + kTileRhs - 1) / kTileRhs;
    Kokkos::parallel_for(
        "kspd::sparse::resident::backward_below_tiled",
        tiled_team(exec, int(e - b) * nrt)
            .set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(kSolveChunk * kTileRhs))),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank() / nrt];
          const int c0 = (t.league_rank() % nrt) * kTileRhs, nc = me.nr - c0 < kTileRhs ? me.nr - c0 : kTileRhs;
          const SolveUnit u = me.units[ch.unit];
          const Scalar* p = me.vals + u.voff + u.ncols + ch.i0 + std::int64_t(ch.j0) * u.ld;
          const std::int64_t* r = me.rows + u.row_begin + u.ncols + ch.i0;
          const int k = ch.j1 - ch.j0, ld = u.ld, rows = ch.i1 - ch.i0;
          Scalar* X = me.W + u.first_col + ch.j0;
          Scratch Ws(t.team_scratch(0), kSolveChunk * kTileRhs);
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rows * kTileRhs), [&](const int q) {
            const int c = q % kTileRhs, i = q / kTileRhs;
            Ws(i * kTileRhs + c) = c < nc ? me.W[r[i] + (c0 + c) * me.ldw] : Scalar(0);
          });
          t.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, kSlots), [&](const int slot) {
            const int jg = slot % 16, cg = (slot / 16) * 4;
            Scalar acc[4][4] = {};
            int jj[4];
            for (int m = 0; m < 4; ++m) jj[m] = jg + 16 * m < k ? jg + 16 * m : 0;
            const Scalar* l0 = p + std::int64_t(jj[0]) * ld;
            const Scalar* l1 = p + std::int64_t(jj[1]) * ld;
            const Scalar* l2 = p + std::int64_t(jj[2]) * ld;
            const Scalar* l3 = p + std::int64_t(jj[3]) * ld;
            for (int i = 0; i < rows; ++i) {
              const Scalar a0 = l0[i], a1 = l1[i], a2 = l2[i], a3 = l3[i];
              for (int q = 0; q < 4; ++q) {
                const Scalar w = Ws(i * kTileRhs + cg + q);
                acc[0][q] += a0 * w;
                acc[1][q] += a1 * w;
                acc[2][q] += a2 * w;
                acc[3][q] += a3 * w;
              }
            }
            for (int m = 0; m < 4; ++m) {
              if (jg + 16 * m >= k) break;
              for (int q = 0; q < 4; ++q)
                if (cg + q < nc) Kokkos::atomic_add(&X[jj[m] + (c0 + cg + q) * me.ldw], -acc[m][q]);
            }
          });
        });
  }
};

}  // namespace kspd::sparse::Impl
#endif
