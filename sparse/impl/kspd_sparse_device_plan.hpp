#ifndef KSPD_SPARSE_DEVICE_PLAN_HPP
#define KSPD_SPARSE_DEVICE_PLAN_HPP
/// \file kspd_sparse_device_plan.hpp
/// What the device needs to know of the symbolic analysis, computed once per analysis:
/// the supernodes' shapes, the tree levels (a supernode's level is one more than its
/// highest child's, so the supernodes of one level are independent and every descendant of
/// a level lies below it), and the scatter map of every supernode's update.
///
/// The scatter map (one format for every device path): the update of supernode s is
/// C = L21 L21^T (m x m, m = rows below its diagonal block); column j of C belongs to the
/// block of row j, whose target supernode t receives it in its column rows[k + j]. Per
/// below-diagonal row j: ScatterCol{t, column offset in t's panel, rel base}; row i >= j of
/// C lands in t's panel row rel[base + i]. scatter_entry() is the one place this is applied.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// A device copy of the host array h[0, n) (at least one element, so an empty plan still
/// has a valid pointer): the one way the device plans reach Mem.
template <class Mem, class T>
Kokkos::View<T*, Mem> upload_to(const std::string& name, const T* h, size_t n) {
  Kokkos::View<T*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, name), std::max<size_t>(n, 1));
  if (n > 0)
    Kokkos::deep_copy(Kokkos::subview(d, Kokkos::make_pair(size_t(0), n)),
                      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h, n));
  return d;
}
template <class Mem, class T>
Kokkos::View<T*, Mem> upload_to(const std::string& name, const std::vector<T>& h) {
  return upload_to<Mem>(name, h.data(), h.size());
}

/// A supernode as the device kernels see it.
struct DevSnode {
  std::int64_t voff = 0;      ///< panel offset in the values
  std::int64_t row_begin = 0; ///< first row index in rows
  std::int64_t first_col = 0;
  std::int64_t map_begin = 0; ///< first ScatterCol of its below-diagonal rows
  int ncols = 0, nrows = 0;
};

/// A tile of the rows below a solve unit's diagonal block (kspd_sparse_resident_solve.hpp):
/// the solves' second launch per level.
struct SolveChunk {
  std::int64_t unit = 0;
  int i0 = 0, i1 = 0;  ///< rows below the unit's diagonal block
  int j0 = 0, j1 = 0;  ///< the unit's columns
};
constexpr int kSolveChunk = 128;      ///< rows per chunk
constexpr int kSolveChunkCols = 64;   ///< columns per chunk

/// Where column j of a supernode's update goes.
struct ScatterCol {
  std::int64_t target = 0;  ///< target supernode
  std::int64_t col = 0;     ///< column offset in the target's panel: (rows[k+j] - first_col) * ld
  std::int64_t rel = 0;     ///< rel[rel + i] is the target row of C's row i (i >= j)
};

/// Relative indices a supernode's scatter map needs: over its off-diagonal blocks, the rows
/// from the block down.
inline size_type scatter_rel_count(const Symbolic& S, size_type s) {
  const Supernode& sn = S.snodes[size_t(s)];
  size_type c = 0;
  for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) c += sn.nrows() - S.blocks[size_t(b)].row_offset;
  return c;
}

/// Writes supernode s's scatter map: cols[0, m) and rel[0, scatter_rel_count(s)), whose
/// entries are placed at rel_base in the caller's rel array. The one place it is computed.
inline void scatter_map(const Symbolic& S, size_type s, ScatterCol* cols, std::int32_t* rel, std::int64_t rel_base) {
  const Supernode& sn = S.snodes[size_t(s)];
  const size_type k = sn.ncols, m = sn.nrows() - k;
  const size_type* srows = S.rows.data() + sn.row_begin;
  size_type nrel = 0;
  for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) {
    const Block& blk = S.blocks[size_t(b)];
    const Supernode& tn = S.snodes[size_t(blk.target)];
    const size_type i0 = blk.row_offset - k;  // first column of C in this block
    const size_type* trows = S.rows.data() + tn.row_begin;
    size_type q = 0;
    for (size_type i = i0; i < m; ++i) {
      while (trows[q] != srows[k + i]) ++q;
      rel[nrel + i - i0] = std::int32_t(q);
    }
    for (size_type j = i0; j < i0 + blk.nrows; ++j)
      cols[j] = ScatterCol{blk.target, (srows[k + j] - tn.first_col) * tn.nrows(), rel_base + nrel - i0};
    nrel += m - i0;
  }
  (void)m;
}

/// The position of C's entry (i, j), i >= j, in the values: panel(t) + col + rel[base + i]
/// (the selected inversion reads A^-1's entries (i, j) of the same rows there), and
/// vals[that] -= c. `off` gives each
/// supernode's panel offset in `vals` (the resident values: value_offset; the top-of-tree
/// panels: their packed offset).
KOKKOS_INLINE_FUNCTION std::int64_t scatter_index(const std::int64_t* off, const ScatterCol& cj, const std::int32_t* rel,
                                                  size_type i) {
  return off[cj.target] + cj.col + rel[cj.rel + i];
}
template <class Scalar>
KOKKOS_INLINE_FUNCTION void scatter_entry(Scalar* vals, const std::int64_t* off, const ScatterCol& cj,
                                          const std::int32_t* rel, size_type i, Scalar c) {
  Kokkos::atomic_add(&vals[scatter_index(off, cj, rel, i)], -c);
}

/// Subtracts C (m x m lower, ld ldc) from the target panels with the scatter map (cols,
/// rel): one team per column. Atomic, so supernodes of one level may scatter concurrently.
template <class Exec, class Scalar>
void scatter_update(const Exec& exec, Scalar* vals, const std::int64_t* off, const Scalar* c, size_type m,
                    size_type ldc, const ScatterCol* cols, const std::int32_t* rel) {
  if (m == 0) return;
  using Team = Kokkos::TeamPolicy<Exec>;
  Kokkos::parallel_for(
      "kspd::sparse::scatter_update", Team(exec, int(m), Kokkos::AUTO),
      KOKKOS_LAMBDA(const typename Team::member_type& t) {
        const size_type j = t.league_rank();
        const ScatterCol cj = cols[j];
        const Scalar* cc = c + j * ldc;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(t, j, m),
                             [&](const size_type i) { scatter_entry(vals, off, cj, rel, i, cc[i]); });
      });
}

/// The host side of the device plan: supernodes by level, each level's small supernodes
/// (one team each, fused kernels) before its large ones (vendor calls).
struct LevelSchedule {
  std::vector<std::int64_t> order;      ///< supernodes sorted by level, small before large
  std::vector<size_type> level_begin;   ///< level l: order[level_begin[l], level_begin[l + 1])
  std::vector<size_type> small_end;     ///< level l's large supernodes start at small_end[l]
  size_type max_small_rows = 0;         ///< tallest small supernode
  size_type max_large_below = 0;        ///< most rows below the diagonal of a large supernode

  /// A supernode is small (team kernel) when its width and its update are small enough
  /// that one team factors it faster than the vendor calls' launches would.
  static bool small(const Supernode& sn) {
    const double k = double(sn.ncols), m = double(sn.nrows() - sn.ncols);
    return sn.ncols <= kSmallWidth && sn.nrows() <= kSmallRows && m * m * k <= kSmallUpdate;
  }
  static constexpr size_type kSmallWidth = 64;
  static constexpr size_type kSmallRows = 2048;
  static constexpr double kSmallUpdate = double(1 << 22);

  /// The supernodes of `subset` (all when empty) by level.
  explicit LevelSchedule(const Symbolic& S, const SnodeSubset& subset = {}) {
    const size_type ns = size_type(S.snodes.size());
    std::vector<size_type> level(size_t(ns), 0);
    size_type nlev = ns > 0 ? 1 : 0;
    for (size_type s = 0; s < ns; ++s) {  // postorder: children first
      const size_type p = S.snodes[size_t(s)].parent;
      if (p >= 0) level[size_t(p)] = std::max(level[size_t(p)], level[size_t(s)] + 1);
      nlev = std::max(nlev, level[size_t(s)] + 1);
    }
    std::vector<size_type> count(size_t(2 * nlev + 1), 0);  // (level, large) buckets
    auto key = [&](size_type s) { return 2 * level[size_t(s)] + (small(S.snodes[size_t(s)]) ? 0 : 1); };
    for (size_type s = 0; s < ns; ++s)
      if (in_subset(subset, s)) ++count[size_t(key(s) + 1)];
    for (size_t b = 1; b < count.size(); ++b) count[b] += count[b - 1];
    level_begin.resize(size_t(nlev + 1));
    small_end.resize(size_t(nlev));
    for (size_type l = 0; l <= nlev; ++l) level_begin[size_t(l)] = count[size_t(2 * l)];
    for (size_type l = 0; l < nlev; ++l) small_end[size_t(l)] = count[size_t(2 * l + 1)];
    order.resize(size_t(count.back()));
    for (size_type s = 0; s < ns; ++s) {
      if (!in_subset(subset, s)) continue;
      order[size_t(count[size_t(key(s))]++)] = s;
      const Supernode& sn = S.snodes[size_t(s)];
      if (small(sn)) max_small_rows = std::max(max_small_rows, sn.nrows());
      else max_large_below = std::max(max_large_below, sn.nrows() - sn.ncols);
    }
  }
  size_type levels() const { return size_type(small_end.size()); }
};

}  // namespace kspd::sparse::Impl
#endif
