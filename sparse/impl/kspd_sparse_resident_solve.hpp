#ifndef KSPD_SPARSE_RESIDENT_SOLVE_HPP
#define KSPD_SPARSE_RESIDENT_SOLVE_HPP
/// \file kspd_sparse_resident_solve.hpp
/// Triangular solves with the device-resident factor, by tree level, where the factor
/// lives. The solves read L once and are memory-bound, so each level is two launches over
/// all its supernodes, small or large (not a vendor call per supernode, whose launches
/// would dominate):
///  - forward L Y = B, levels from the leaves up: (1) one team per supernode solves its
///    diagonal block (blocks of 32 columns staged in team scratch and swept column by
///    column, then the team updates the rows below the block); (2) one team per chunk of kSolveChunk rows below
///    a diagonal block: a thread per row, its dot product with the solved part, subtracted
///    from the ancestors' rows (atomically: chunks of one level may share rows);
///  - backward L^T X = Y, levels from the root down: (1) per chunk, the rows' contribution
///    to every column (vector lanes over the rows, a reduction per column, atomically added);
///    (2) per supernode, the transposed diagonal solve by blocks of 32 from the bottom.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>

#include "kspd_sparse_options.hpp"
#include "kspd_sparse_resident.hpp"

namespace kspd::sparse::Impl {

template <class Exec, class Scalar>
struct LevelSolve {
  using Team = Kokkos::TeamPolicy<Exec>;
  using Member = typename Team::member_type;
  static constexpr int kBlock = 32;  ///< diagonal-block columns per step
  static constexpr int kRhs = 8;     ///< right-hand sides per pass over a row of L
  static constexpr int kRhsStage = 16;  ///< backward, several rhs: W's rows of a chunk staged per 16 rhs

  const Scalar* vals;
  const DevSnode* sns;
  const std::int64_t* rows;
  const std::int64_t* order;
  const SolveChunk* chunks;
  Scalar* W;
  std::int64_t ldw;
  int nr;

  using Scratch = Kokkos::View<Scalar*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static size_t scratch_bytes() { return Scratch::shmem_size(2 * kBlock * kBlock); }

  /// Stages the diagonal block [jb, je) of L and of X's right-hand sides [c0, c0 + nc) in
  /// team scratch (the serial sweep over its columns then reads no global memory).
  template <class M>
  KOKKOS_INLINE_FUNCTION static void stage(const M& t, const Scalar* p, int ld, const Scalar* X, std::int64_t ldw,
                                           int jb, int bs, int c0, int nc, Scalar* Lb, Scalar* Xb) {
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * bs), [&](const int q) {
      const int i = q % bs, j = q / bs;
      Lb[i + kBlock * j] = p[jb + i + std::int64_t(jb + j) * ld];
    });
    Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * nc), [&](const int q) {
      const int i = q % bs, c = q / bs;
      Xb[i + kBlock * c] = X[jb + i + (c0 + c) * ldw];
    });
    t.team_barrier();
  }

  /// L11 x = b for the supernodes order[b, e): per block of 32 columns, a column sweep over
  /// the staged block (one barrier per column), then the team updates the rows below it.
  void diag_forward(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::forward_diag",
        Team(exec, int(e - b), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch_bytes())),
        KOKKOS_LAMBDA(const Member& t) {
          const DevSnode sn = me.sns[me.order[b + t.league_rank()]];
          const Scalar* p = me.vals + sn.voff;
          const int k = sn.ncols, ld = sn.nrows;
          Scalar* X = me.W + sn.first_col;
          Scratch scratch(t.team_scratch(0), 2 * kBlock * kBlock);
          Scalar* Lb = scratch.data();
          Scalar* Xb = Lb + kBlock * kBlock;
          for (int jb = 0; jb < k; jb += kBlock) {
            const int je = jb + kBlock < k ? jb + kBlock : k, bs = je - jb;
            for (int c0 = 0; c0 < me.nr; c0 += kBlock) {
              const int nc = me.nr - c0 < kBlock ? me.nr - c0 : kBlock;
              stage(t, p, ld, X, me.ldw, jb, bs, c0, nc, Lb, Xb);
              for (int j = 0; j + 1 < bs; ++j) {
                const int rows = bs - j - 1;
                Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rows * nc), [&](const int q) {
                  const int i = j + 1 + q % rows, c = q / rows;
                  Xb[i + kBlock * c] -= Lb[i + kBlock * j] * (Xb[j + kBlock * c] / Lb[j + kBlock * j]);
                });
                t.team_barrier();
              }
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * nc), [&](const int q) {
                const int i = q % bs, c = q / bs;
                X[jb + i + (c0 + c) * me.ldw] = Xb[i + kBlock * c] / Lb[i + kBlock * i];
              });
              t.team_barrier();
            }
            const int rest = k - je;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rest * me.nr), [&](const int q) {
              const int i = je + q % rest, c = q / rest;
              const Scalar* x = X + c * me.ldw;
              Scalar acc = 0;
              for (int j = jb; j < je; ++j) acc += p[i + std::int64_t(j) * ld] * x[j];
              X[i + c * me.ldw] -= acc;
            });
            t.team_barrier();
          }
        });
  }

  /// W(rows below) -= L21 x for the chunks [b, e).
  void below_forward(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::forward_below", Team(exec, int(e - b), Kokkos::AUTO), KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank()];
          const DevSnode sn = me.sns[ch.snode];
          const Scalar* p = me.vals + sn.voff + sn.ncols;
          const std::int64_t* r = me.rows + sn.row_begin + sn.ncols;
          const int k = sn.ncols, ld = sn.nrows;
          const Scalar* X = me.W + sn.first_col;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, ch.i0, ch.i1), [&](const int i) {
            for (int c0 = 0; c0 < me.nr; c0 += kRhs) {
              const int nc = me.nr - c0 < kRhs ? me.nr - c0 : kRhs;
              Scalar acc[kRhs] = {};
              for (int j = 0; j < k; ++j) {
                const Scalar l = p[i + std::int64_t(j) * ld];
                for (int c = 0; c < kRhs; ++c)
                  if (c < nc) acc[c] += l * X[j + (c0 + c) * me.ldw];
              }
              for (int c = 0; c < nc; ++c) Kokkos::atomic_add(&me.W[r[i] + (c0 + c) * me.ldw], -acc[c]);
            }
          });
        });
  }

  /// x -= L21^T W(rows below) for the chunks [b, e). One right-hand side: vector lanes over
  /// the chunk's rows (coalesced reads of a column of L), a reduction per column. Several:
  /// the chunk's rows of W staged in team scratch, a thread per (column, rhs) pair, the
  /// lanes of a warp sharing the column (L read once per 16 right-hand sides).
  void below_backward(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    if (nr == 1) {
      const int vec = int(Team::vector_length_max());
      Kokkos::parallel_for(
          "kspd::sparse::resident::backward_below", Team(exec, int(e - b), Kokkos::AUTO, vec),
          KOKKOS_LAMBDA(const Member& t) {
            const SolveChunk ch = me.chunks[b + t.league_rank()];
            const DevSnode sn = me.sns[ch.snode];
            const Scalar* p = me.vals + sn.voff + sn.ncols;
            const std::int64_t* r = me.rows + sn.row_begin + sn.ncols;
            const int k = sn.ncols, ld = sn.nrows;
            Scalar* X = me.W + sn.first_col;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k), [&](const int j) {
              const Scalar* lj = p + std::int64_t(j) * ld;
              Scalar acc = 0;
              Kokkos::parallel_reduce(
                  Kokkos::ThreadVectorRange(t, ch.i0, ch.i1), [&](const int i, Scalar& a) { a += lj[i] * me.W[r[i]]; }, acc);
              Kokkos::single(Kokkos::PerThread(t), [&]() { Kokkos::atomic_add(&X[j], -acc); });
            });
          });
      return;
    }
    const size_t bytes = Scratch::shmem_size(size_t(kSolveChunk) * kRhsStage);
    Kokkos::parallel_for(
        "kspd::sparse::resident::backward_below_rhs",
        Team(exec, int(e - b), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(bytes)),
        KOKKOS_LAMBDA(const Member& t) {
          const SolveChunk ch = me.chunks[b + t.league_rank()];
          const DevSnode sn = me.sns[ch.snode];
          const Scalar* p = me.vals + sn.voff + sn.ncols + ch.i0;
          const std::int64_t* r = me.rows + sn.row_begin + sn.ncols + ch.i0;
          const int k = sn.ncols, ld = sn.nrows, rows = ch.i1 - ch.i0;
          Scalar* X = me.W + sn.first_col;
          Scratch Ws(t.team_scratch(0), size_t(kSolveChunk) * kRhsStage);
          for (int c0 = 0; c0 < me.nr; c0 += kRhsStage) {
            const int nc = me.nr - c0 < kRhsStage ? me.nr - c0 : kRhsStage;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, rows * nc), [&](const int q) {
              const int i = q % rows, c = q / rows;
              Ws(i + kSolveChunk * c) = me.W[r[i] + (c0 + c) * me.ldw];
            });
            t.team_barrier();
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k * nc), [&](const int q) {
              const int c = q % nc, j = q / nc;
              const Scalar* lj = p + std::int64_t(j) * ld;
              Scalar acc = 0;
              for (int i = 0; i < rows; ++i) acc += lj[i] * Ws(i + kSolveChunk * c);
              Kokkos::atomic_add(&X[j + (c0 + c) * me.ldw], -acc);
            });
            t.team_barrier();
          }
        });
  }

  /// L11^T x = y for the supernodes order[b, e), blocks of 32 from the bottom, each swept
  /// in team scratch.
  void diag_backward(const Exec& exec, size_type b, size_type e) const {
    const LevelSolve me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::resident::backward_diag",
        Team(exec, int(e - b), Kokkos::AUTO).set_scratch_size(0, Kokkos::PerTeam(scratch_bytes())),
        KOKKOS_LAMBDA(const Member& t) {
          const DevSnode sn = me.sns[me.order[b + t.league_rank()]];
          const Scalar* p = me.vals + sn.voff;
          const int k = sn.ncols, ld = sn.nrows;
          Scalar* X = me.W + sn.first_col;
          Scratch scratch(t.team_scratch(0), 2 * kBlock * kBlock);
          Scalar* Lb = scratch.data();
          Scalar* Xb = Lb + kBlock * kBlock;
          for (int jb = ((k - 1) / kBlock) * kBlock; jb >= 0; jb -= kBlock) {
            const int je = jb + kBlock < k ? jb + kBlock : k, bs = je - jb;
            for (int c0 = 0; c0 < me.nr; c0 += kBlock) {
              const int nc = me.nr - c0 < kBlock ? me.nr - c0 : kBlock;
              stage(t, p, ld, X, me.ldw, jb, bs, c0, nc, Lb, Xb);
              for (int j = bs - 1; j > 0; --j) {
                Kokkos::parallel_for(Kokkos::TeamThreadRange(t, j * nc), [&](const int q) {
                  const int i = q % j, c = q / j;
                  Xb[i + kBlock * c] -= Lb[j + kBlock * i] * (Xb[j + kBlock * c] / Lb[j + kBlock * j]);
                });
                t.team_barrier();
              }
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, bs * nc), [&](const int q) {
                const int i = q % bs, c = q / bs;
                X[jb + i + (c0 + c) * me.ldw] = Xb[i + kBlock * c] / Lb[i + kBlock * i];
              });
              t.team_barrier();
            }
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, jb * me.nr), [&](const int q) {
              const int i = q % jb, c = q / jb;
              const Scalar* x = X + c * me.ldw;
              const Scalar* li = p + std::int64_t(i) * ld;
              Scalar acc = 0;
              for (int j = jb; j < je; ++j) acc += li[j] * x[j];
              X[i + c * me.ldw] -= acc;
            });
            t.team_barrier();
          }
        });
  }
};

/// Solves in place on W (n x nrhs, column-major, leading dimension ldw, the permuted
/// numbering), a pointer into the execution space's memory. Queued on exec.
template <class Scalar, class Exec>
void resident_solve(const Exec& exec, const Symbolic& S, const ResidentFactor<Scalar, Exec>& F, Scalar* W,
                    size_type nrhs, size_type ldw, SolvePart part = SolvePart::Both) {
  if (S.n == 0 || nrhs == 0) return;
  const LevelSchedule& L = F.schedule();
  const auto& cb = F.chunk_begin();
  const LevelSolve<Exec, Scalar> ls{F.values().data(), F.snodes().data(), F.rows().data(), F.order().data(),
                                    F.chunks().data(), W, ldw, int(nrhs)};
  if (int(part) & int(SolvePart::Forward))
    for (size_type l = 0; l < L.levels(); ++l) {
      ls.diag_forward(exec, L.level_begin[size_t(l)], L.level_begin[size_t(l + 1)]);
      if (cb[size_t(l + 1)] > cb[size_t(l)]) ls.below_forward(exec, cb[size_t(l)], cb[size_t(l + 1)]);
    }
  if (int(part) & int(SolvePart::Backward))
    for (size_type l = L.levels() - 1; l >= 0; --l) {
      if (cb[size_t(l + 1)] > cb[size_t(l)]) ls.below_backward(exec, cb[size_t(l)], cb[size_t(l + 1)]);
      ls.diag_backward(exec, L.level_begin[size_t(l)], L.level_begin[size_t(l + 1)]);
    }
}

}  // namespace kspd::sparse::Impl
#endif
