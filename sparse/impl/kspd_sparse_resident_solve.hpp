#ifndef KSPD_SPARSE_RESIDENT_SOLVE_HPP
#define KSPD_SPARSE_RESIDENT_SOLVE_HPP
/// \file kspd_sparse_resident_solve.hpp
/// The solves with a device-resident factor: the plans (kspd_sparse_resident_solve_plan.hpp),
/// the diagonal blocks' inverses, the level loop over the kernels of
/// kspd_sparse_resident_solve_kernels.hpp, and the timeline of the last solve.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <array>
#include <chrono>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <memory>
#include <string>
#include <vector>

#include "kspd_sparse_options.hpp"
#include "kspd_sparse_resident_solve_kernels.hpp"
#include "kspd_sparse_resident_solve_plan.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The solves with a resident factor: the plans (built on first use, kept with the
/// factor's analysis) and, with the timeline on, where the last solve's time went.
template <class Scalar, class Exec>
class ResidentSolve {
 public:
  using Mem = typename Exec::memory_space;
  using LS = LevelSolve<Exec, Scalar>;
  /// Unit widths: wide units save levels (launches), but a unit's diagonal solve runs in one
  /// team, block after block; the tiled kernels for many right-hand sides need units of at
  /// most LS::kTileK columns. Measured on the H100, 64^3 elasticity, 1 rhs: 50 ms with one
  /// unit per supernode (up to 512 columns), 52 ms at 64, 42 ms at 128, 41 ms at 256.
  static constexpr int kFewRhsWidth = 256;
  static constexpr int kManyRhs = 8;      ///< from here on the tiled kernels

  explicit ResidentSolve(const Symbolic& S) : S_(S) {}

  /// The factor changed (a new factorization): the diagonal blocks' inverses are recomputed
  /// by the next solve.
  void invalidate() { inverses_current_ = false; }

  /// Solves in place on W (n x nrhs, column-major, leading dimension ldw, the permuted
  /// numbering), a pointer into the execution space's memory. Queued on exec.
  void solve(const Exec& exec, const Scalar* vals, const std::int64_t* rows, Scalar* W, size_type nrhs, size_type ldw,
             SolvePart part, bool timeline) const {
    if (S_.n == 0 || nrhs == 0) return;
    const bool tiled = nrhs >= kManyRhs;
    const SolvePlan<Mem>& P = plan(tiled);
    invert_diagonal_blocks(exec, vals);
    const LS ls{vals, dinv_.data(), P.units.data(), rows, P.chunks.data(), W, std::int64_t(ldw), int(nrhs)};
    const auto& lb = P.level_begin;
    const auto& cb = P.chunk_begin;
    const size_type nl = P.levels();
    tl_ = SolveTimeline{};
    tl_.levels = nl;
    tl_.units = lb.back();
    tl_.widest = P.widest;
    // per level: diagonal forward, below forward, below backward, diagonal backward
    std::vector<std::array<double, 4>> per_level(timeline ? size_t(nl) : 0, std::array<double, 4>{});
    auto t_last = std::chrono::steady_clock::now();
    auto mark = [&](double& bucket, size_type l, int phase) {
      if (!timeline) return;
      exec.fence();
      const auto t = std::chrono::steady_clock::now();
      const double d = std::chrono::duration<double>(t - t_last).count();
      bucket += d;
      per_level[size_t(l)][size_t(phase)] += d;
      t_last = t;
    };
    if (int(part) & int(SolvePart::Forward))
      for (size_type l = 0; l < nl; ++l) {
        ls.template diag_solve<false>(exec, lb[size_t(l)], lb[size_t(l + 1)], P.level_width[size_t(l)]);
        mark(tl_.diag_forward, l, 0);
        if (cb[size_t(l + 1)] > cb[size_t(l)]) {
          if (tiled) ls.below_forward_tiled(exec, cb[size_t(l)], cb[size_t(l + 1)]);
          else if (nrhs == 1) ls.below_forward_one(exec, cb[size_t(l)], cb[size_t(l + 1)]);
          else ls.below_forward(exec, cb[size_t(l)], cb[size_t(l + 1)]);
          mark(tl_.below_forward, l, 1);
        }
      }
    if (int(part) & int(SolvePart::Backward))
      for (size_type l = nl - 1; l >= 0; --l) {
        if (cb[size_t(l + 1)] > cb[size_t(l)]) {
          if (tiled) ls.below_backward_tiled(exec, cb[size_t(l)], cb[size_t(l + 1)]);
          else if (nrhs == 1) ls.below_backward(exec, cb[size_t(l)], cb[size_t(l + 1)]);
          else below_backward_columns(ls, exec, cb[size_t(l)], cb[size_t(l + 1)]);
          mark(tl_.below_backward, l, 2);
        }
        ls.template diag_solve<true>(exec, lb[size_t(l)], lb[size_t(l + 1)], P.level_width[size_t(l)]);
        mark(tl_.diag_backward, l, 3);
      }
    if (timeline) summarize(per_level, P);
  }

  /// The last solve's timeline (Offload::timeline).
  const SolveTimeline& timeline() const { return tl_; }

 private:
  /// 2..7 right-hand sides, backward: one right-hand side at a time.
  static void below_backward_columns(const LS& ls, const Exec& exec, size_type b, size_type e) {
    for (int c = 0; c < ls.nr; ++c) {
      LS one = ls;
      one.W = ls.W + c * ls.ldw;
      one.nr = 1;
      one.below_backward(exec, b, e);
    }
  }

  void invert_diagonal_blocks(const Exec& exec, const Scalar* vals) const {
    if (inverses_current_) return;
    if (blocks_.extent(0) == 0) {  // first use: the blocks of every supernode
      const std::vector<std::int64_t> doff = diag_block_offsets(S_);
      std::vector<DiagBlock> hb;
      for (size_t s = 0; s < S_.snodes.size(); ++s) {
        const Supernode& sn = S_.snodes[s];
        for (size_type jb = 0; jb < sn.ncols; jb += kDiagBlock)
          hb.push_back(DiagBlock{sn.value_offset + jb + jb * sn.nrows(), doff[s] + jb * kDiagBlock, int(sn.nrows()),
                                 int(std::min<size_type>(kDiagBlock, sn.ncols - jb))});
      }
      nblocks_ = size_type(hb.size());
      blocks_ = upload_to<Mem>("kspd::sparse::solve_diag_blocks", hb);
      dinv_ = Kokkos::View<Scalar*, Mem>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::solve_diag_inverses"),
                                         size_t(std::max<std::int64_t>(doff.back(), 1)));
    }
    LS::invert_blocks(exec, blocks_.data(), nblocks_, vals, dinv_.data());
    inverses_current_ = true;
  }

  const SolvePlan<Mem>& plan(bool tiled) const {
    auto& p = plans_[tiled ? 1 : 0];
    if (!p) p = std::make_unique<SolvePlan<Mem>>(S_, tiled ? LS::kTileK : width_override(kFewRhsWidth));
    return *p;
  }

  /// KSPD_SOLVE_WIDTH (internal, for perf measurements): the unit width of the few-rhs plan.
  static int width_override(int w) {
    const char* e = std::getenv("KSPD_SOLVE_WIDTH");
    return e ? std::atoi(e) : w;
  }

  void summarize(const std::vector<std::array<double, 4>>& per_level, const SolvePlan<Mem>& P) const {
    auto total = [&](size_type l) {
      const auto& p = per_level[size_t(l)];
      return p[0] + p[1] + p[2] + p[3];
    };
    std::vector<size_type> idx(per_level.size());
    for (size_t i = 0; i < idx.size(); ++i) idx[i] = size_type(i);
    std::sort(idx.begin(), idx.end(), [&](size_type a, size_type b) { return total(a) > total(b); });
    std::string s;
    char buf[240];
    for (size_t q = 0; q < std::min<size_t>(8, idx.size()); ++q) {
      const size_type l = idx[q];
      const auto& p = per_level[size_t(l)];
      std::snprintf(buf, sizeof buf, "%slevel %ld: %.2f ms (diag %.2f+%.2f, below %.2f+%.2f), %ld units, widest %d, %ld chunks",
                    q ? "; " : "", long(l), total(l) * 1e3, p[0] * 1e3, p[3] * 1e3, p[1] * 1e3, p[2] * 1e3,
                    long(P.level_begin[size_t(l + 1)] - P.level_begin[size_t(l)]), P.level_width[size_t(l)],
                    long(P.chunk_begin[size_t(l + 1)] - P.chunk_begin[size_t(l)]));
      s += buf;
    }
    tl_.top_levels = s;
  }

  const Symbolic& S_;
  mutable std::unique_ptr<SolvePlan<Mem>> plans_[2];
  mutable Kokkos::View<DiagBlock*, Mem> blocks_;
  mutable Kokkos::View<Scalar*, Mem> dinv_;
  mutable size_type nblocks_ = 0;
  mutable bool inverses_current_ = false;
  mutable SolveTimeline tl_;
};

}  // namespace kspd::sparse::Impl
#endif
