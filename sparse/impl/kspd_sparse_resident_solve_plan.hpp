#ifndef KSPD_SPARSE_RESIDENT_SOLVE_PLAN_HPP
#define KSPD_SPARSE_RESIDENT_SOLVE_PLAN_HPP
/// \file kspd_sparse_resident_solve_plan.hpp
/// The device-resident solve's schedule over a symbolic analysis (host side, built once per
/// analysis and unit width): supernodes cut into units of at most `width` columns, the units
/// by tree level, the tiles of their rows below, and the offsets of the diagonal blocks'
/// inverses. The kernels that run it: kspd_sparse_resident_solve.hpp.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kspd_sparse_device_plan.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// A unit of the solve: columns [first_col, first_col + ncols) of a supernode, with the
/// nrows rows of its panel from its first column down (ld: the panel's leading dimension).
struct SolveUnit {
  std::int64_t voff = 0;       ///< offset of the unit's diagonal entry (first column) in the values
  std::int64_t row_begin = 0;  ///< index of its first row in rows
  std::int64_t first_col = 0;
  std::int64_t doff = 0;       ///< offset of its first diagonal block's inverse (32 x 32 each)
  int ld = 0, ncols = 0, nrows = 0;
};

/// A 32 x 32 (or smaller, last) diagonal block of a supernode, whose inverse the solves use.
struct DiagBlock {
  std::int64_t voff = 0;  ///< its diagonal entry's offset in the values
  std::int64_t doff = 0;  ///< its inverse's offset (column-major, leading dimension 32)
  int ld = 0, bs = 0;
};
constexpr int kDiagBlock = 32;

/// Offset of supernode s's first diagonal block's inverse, for every s (and the total).
inline std::vector<std::int64_t> diag_block_offsets(const Symbolic& S) {
  std::vector<std::int64_t> off(S.snodes.size() + 1, 0);
  for (size_t s = 0; s < S.snodes.size(); ++s)
    off[s + 1] = off[s] + (S.snodes[s].ncols + kDiagBlock - 1) / kDiagBlock * kDiagBlock * kDiagBlock;
  return off;
}

/// The solve's schedule over a symbolic analysis: units by level, their row chunks.
template <class Mem>
struct SolvePlan {
  template <class T>
  using DView = Kokkos::View<T*, Mem>;
  DView<SolveUnit> units;              ///< by level
  std::vector<size_type> level_begin;  ///< level l: units [level_begin[l], level_begin[l + 1])
  DView<SolveChunk> chunks;            ///< by level
  std::vector<size_type> chunk_begin;  ///< level l: chunks [chunk_begin[l], chunk_begin[l + 1])
  std::vector<int> level_width;        ///< level l: its widest unit's columns
  int widest = 0;                      ///< widest unit

  /// width <= 0: one unit per supernode; else units of at most width columns (rounded up
  /// to a multiple of 32, so units start on a diagonal block).
  SolvePlan(const Symbolic& S, int width) {
    const size_type ns = size_type(S.snodes.size());
    const std::vector<std::int64_t> doff = diag_block_offsets(S);
    std::vector<size_type> first(size_t(ns), 0), pieces(size_t(ns), 1), pw(size_t(ns), 0);
    size_type nlev = 0, nunits = 0;
    for (size_type s = 0; s < ns; ++s) {  // postorder: children first
      const Supernode& sn = S.snodes[size_t(s)];
      size_type w = sn.ncols;
      if (width > 0 && sn.ncols > width) {
        const size_type P = (sn.ncols + width - 1) / width;
        w = ((sn.ncols + P - 1) / P + kDiagBlock - 1) / kDiagBlock * kDiagBlock;
      }
      pw[size_t(s)] = std::max<size_type>(w, 1);
      pieces[size_t(s)] = std::max<size_type>(1, (sn.ncols + pw[size_t(s)] - 1) / pw[size_t(s)]);
      const size_type last = first[size_t(s)] + pieces[size_t(s)] - 1;
      if (sn.parent >= 0) first[size_t(sn.parent)] = std::max(first[size_t(sn.parent)], last + 1);
      nlev = std::max(nlev, last + 1);
      nunits += pieces[size_t(s)];
    }
    std::vector<size_type> count(size_t(nlev + 1), 0);
    for (size_type s = 0; s < ns; ++s)
      for (size_type q = 0; q < pieces[size_t(s)]; ++q) ++count[size_t(first[size_t(s)] + q + 1)];
    for (size_t l = 1; l < count.size(); ++l) count[l] += count[l - 1];
    level_begin = count;
    std::vector<SolveUnit> hu(static_cast<size_t>(nunits));
    for (size_type s = 0; s < ns; ++s) {
      const Supernode& sn = S.snodes[size_t(s)];
      const size_type w = pw[size_t(s)], ld = sn.nrows();
      for (size_type q = 0; q < pieces[size_t(s)]; ++q) {
        const size_type a = q * w, b = std::min(sn.ncols, a + w);
        hu[size_t(count[size_t(first[size_t(s)] + q)]++)] =
            SolveUnit{sn.value_offset + a + a * ld, sn.row_begin + a, sn.first_col + a, doff[size_t(s)] + a * kDiagBlock,
                      int(ld), int(b - a), int(ld - a)};
        widest = std::max(widest, int(b - a));
      }
    }
    std::vector<SolveChunk> hc;
    chunk_begin.assign(1, 0);
    level_width.assign(size_t(nlev), 0);
    for (size_type l = 0; l < nlev; ++l) {
      for (size_type u = level_begin[size_t(l)]; u < level_begin[size_t(l + 1)]; ++u) {
        const int m = hu[size_t(u)].nrows - hu[size_t(u)].ncols, k = hu[size_t(u)].ncols;
        level_width[size_t(l)] = std::max(level_width[size_t(l)], k);
        for (int i0 = 0; i0 < m; i0 += kSolveChunk)
          for (int j0 = 0; j0 < k; j0 += kSolveChunkCols)
            hc.push_back(SolveChunk{u, i0, std::min(m, i0 + kSolveChunk), j0, std::min(k, j0 + kSolveChunkCols)});
      }
      chunk_begin.push_back(size_type(hc.size()));
    }
    units = upload_to<Mem>("kspd::sparse::solve_units", hu);
    chunks = upload_to<Mem>("kspd::sparse::solve_chunks", hc);
  }
  size_type levels() const { return size_type(level_begin.size()) - 1; }
};

}  // namespace kspd::sparse::Impl
#endif
