#ifndef KSPD_SPARSE_UPDATE_IMPL_HPP
#define KSPD_SPARSE_UPDATE_IMPL_HPP
/// \file kspd_sparse_update_impl.hpp
/// Rank-k update / downdate of a supernodal factor in place: L' L'^T = L L^T + s W W^T,
/// s = +1 or -1, with L' on L's pattern (Davis & Hager, "Multiple-rank modifications of a
/// sparse Cholesky factorization", SIAM J. Matrix Anal. Appl. 22 (2001), adapted to
/// supernodes and blocked so that the work is GEMM).
///
/// Only the supernodes on the paths of W's columns in the elimination tree change: from the
/// supernode of each column's first row up to the root. They are modified level by level
/// (a child before its parent; the supernodes of one level, on different branches, touch
/// disjoint columns of W and run concurrently), each on a dense copy of W's rows in its
/// row structure:
/// for a panel P of bw columns of the supernode, with D = L(P, P) and the rows B below it,
///   Z = D^-1 W_P,  M M^T = I + s Z Z^T,  R R^T = I + s Z^T Z       (bw x bw, k x k)
///   L'(P, P) = D M,  [L'(B, P)  W'_B] = [L(B, P)  W_B] Q,
///   Q = [ M^-T          -Z R^-T ]
///       [ s Z^T M^-T     R^-T   ]
/// (D M M^T D^T = D D^T + s W_P W_P^T, and the second line keeps L(B,P) L(B,P)^T + s W_B W_B^T
/// unchanged: Q is the generator of the s-orthogonal transformation that zeroes W_P).
/// W'_B then goes on to the next panel and, below the supernode, to its ancestors. A
/// downdate loses positive definiteness exactly where potrf of I + s Z Z^T fails (its
/// leading minors are those of D^-1 (D D^T - W_P W_P^T) D^-T). A panel's small matrices
/// (Z, M, R, Q, D M) are one team body (panel_transform), run by a host worker or a device
/// block. This file: the plan, the panel body and the host rows; the two drivers are
/// kspd_sparse_update_host.hpp (host workers, gemm) and kspd_sparse_update_batched.hpp
/// (batched kernels on an execution space: the resident factor; its lone wide supernodes by
/// wide panels through core's dense API, kspd_sparse_update_wide.hpp).

#include <Kokkos_Core.hpp>
#include <impl/Kokkos_ClockTic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_sparse_resident.hpp"
#include "kspd_sparse_symbolic.hpp"
#include "kspd_sparse_update.hpp"

namespace kspd::sparse::Impl {

/// W in the factor's numbering, checked against the factor's pattern, and the supernodes
/// its columns' paths visit (postorder). Host-side; the same for every placement.
struct UpdatePlan {
  size_type k = 0;
  std::vector<size_type> path;        ///< supernodes to modify, ascending (postorder)
  /// The compact numbering (host workers only, plan_update's compact_maps): row_begin, rmap,
  /// ncompact, w_row; empty otherwise (the batched path indexes W by the factor's rows).
  std::vector<size_type> row_begin;   ///< per path supernode: its rows in rmap
  std::vector<std::int64_t> rmap;     ///< compact W row of every row of every path supernode
  std::vector<size_type> act_begin;   ///< per path supernode: its active W columns in act
  std::vector<std::int64_t> act;      ///< the columns whose path visits the supernode (the
                                      ///< others are zero on its columns: they pass unchanged)
  size_type ncompact = 0;             ///< rows of the compact W (the path's columns)
  size_type max_rows = 0;
  std::vector<std::int64_t> w_row;    ///< per W entry: its compact row
  /// The path by height in the tree of path supernodes (leaves 0): the supernodes of one
  /// level are on different branches, so their active W columns are disjoint and they are
  /// modified concurrently; level l is level_order[level_begin[l] .. level_begin[l + 1]),
  /// path indices, ascending.
  std::vector<size_type> level_begin{0};
  std::vector<size_type> level_order;
  size_type levels() const { return size_type(level_begin.size()) - 1; }
};

/// Validates W (dimensions, k <= 64, sorted unique rows, finite values), checks that every
/// column's rows lie in the structure of L's column at its first row (then the whole path
/// stays in L's pattern) and builds the plan, with the compact numbering if `compact` (a map
/// of every row of every path supernode: most of the plan's host time). `who` prefixes the
/// messages.
template <class Scalar>
UpdatePlan plan_update(const Symbolic& S, const SparseColumns<Scalar>& W, const char* who, bool compact_maps = true) {
  const size_type n = S.n, k = W.ncols();
  KSPD_REQUIRE(W.nrows == n, DimensionMismatch, who << ": W has " << W.nrows << " rows, A has n = " << n);
  KSPD_REQUIRE(k >= 0 && k <= 64, InvalidArgument,
               who << ": W has " << k << " columns; a rank-k modification takes 0 <= k <= 64 (split W into blocks of 64)");
  KSPD_REQUIRE(W.colptr.size() == size_t(k + 1) && W.colptr[0] == 0 && size_type(W.rowind.size()) == W.nnz() &&
                   size_type(W.values.size()) == W.nnz(),
               InvalidArgument,
               who << ": W is inconsistent (colptr " << W.colptr.size() << ", rowind " << W.rowind.size() << ", values "
                   << W.values.size() << ")");
  UpdatePlan P;
  P.k = k;
  std::vector<char> on_path(S.snodes.size(), 0);
  std::vector<size_type> start(size_t(k), -1);  // the supernode of each column's first row
  for (size_type j = 0; j < k; ++j) {
    const size_type b = W.colptr[size_t(j)], e = W.colptr[size_t(j + 1)];
    KSPD_REQUIRE(b <= e && e <= W.nnz(), InvalidArgument, who << ": W.colptr is not nondecreasing at column " << j);
    size_type first = n;
    for (size_type p = b; p < e; ++p) {
      const size_type i = W.rowind[size_t(p)];
      KSPD_REQUIRE(i >= 0 && i < n, InvalidArgument, who << ": W(" << i << ", " << j << ") is outside the " << n << " rows");
      KSPD_REQUIRE(p == b || i > W.rowind[size_t(p - 1)], InvalidArgument,
                   who << ": the rows of W's column " << j << " are not strictly increasing at row " << i);
      KSPD_REQUIRE(std::isfinite(double(W.values[size_t(p)])), InvalidArgument,
                   who << ": W(" << i << ", " << j << ") = " << W.values[size_t(p)] << " is not finite");
      first = std::min(first, S.iperm[size_t(i)]);
    }
    if (first == n) continue;  // an empty column changes nothing
    // The structure of L's column `first`: the rest of its supernode's columns, then the
    // supernode's rows below the diagonal block (sorted).
    const size_type s = S.col_snode[size_t(first)];
    const Supernode& sn = S.snodes[size_t(s)];
    const size_type* below = S.rows.data() + sn.row_begin + sn.ncols;
    const size_type* below_end = S.rows.data() + sn.row_end;
    for (size_type p = b; p < e; ++p) {
      const size_type r = S.iperm[size_t(W.rowind[size_t(p)])];
      const bool in = r < sn.first_col + sn.ncols || std::binary_search(below, below_end, r);
      KSPD_REQUIRE(in, InvalidArgument,
                   who << ": W(" << W.rowind[size_t(p)] << ", " << j << ") (0-based, the input's numbering) lies outside the "
                       << "pattern of L: column " << j << " of W W^T couples rows " << S.perm[size_t(first)] << " and "
                       << W.rowind[size_t(p)] << ", which L does not, so the modified factor would need a larger pattern. "
                       << "update() keeps L's pattern; factorize A +/- W W^T instead, after analyze() of a pattern that "
                          "holds W W^T's entries (explicit zeros will do)");
    }
    start[size_t(j)] = s;
    for (size_type q = s; q >= 0 && !on_path[size_t(q)]; q = S.snodes[size_t(q)].parent) on_path[size_t(q)] = 1;
  }
  std::vector<std::int64_t> compact(compact_maps ? size_t(n) : 0, -1);
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
    if (!on_path[size_t(s)]) continue;
    const Supernode& sn = S.snodes[size_t(s)];
    KSPD_REQUIRE(sn.parent < 0 || sn.parent > s, Error, who << ": supernodes are not in postorder (internal)");
    P.path.push_back(s);
    if (compact_maps)
      for (size_type c = 0; c < sn.ncols; ++c) compact[size_t(sn.first_col + c)] = P.ncompact++;
  }
  std::vector<std::vector<std::int64_t>> active(S.snodes.size());
  for (size_type j = 0; j < k; ++j)
    for (size_type q = start[size_t(j)]; q >= 0; q = S.snodes[size_t(q)].parent) active[size_t(q)].push_back(j);
  for (size_type s : P.path) {
    const Supernode& sn = S.snodes[size_t(s)];
    P.act_begin.push_back(size_type(P.act.size()));
    P.act.insert(P.act.end(), active[size_t(s)].begin(), active[size_t(s)].end());
    P.max_rows = std::max(P.max_rows, sn.nrows());
    if (!compact_maps) continue;
    P.row_begin.push_back(size_type(P.rmap.size()));
    for (size_type q = sn.row_begin; q < sn.row_end; ++q) {
      const std::int64_t c = compact[size_t(S.rows[size_t(q)])];
      KSPD_REQUIRE(c >= 0, Error, who << ": a row of a path supernode is off the path (internal)");
      P.rmap.push_back(c);
    }
  }
  P.act_begin.push_back(size_type(P.act.size()));
  {  // heights: a child precedes its parent in postorder, so its height is final first
    std::vector<size_type> pos(S.snodes.size(), -1), height(P.path.size(), 0);
    for (size_t q = 0; q < P.path.size(); ++q) pos[size_t(P.path[q])] = size_type(q);
    size_type hmax = -1;
    for (size_t q = 0; q < P.path.size(); ++q) {
      const size_type par = S.snodes[size_t(P.path[q])].parent;
      if (par >= 0) height[size_t(pos[size_t(par)])] = std::max(height[size_t(pos[size_t(par)])], height[q] + 1);
      hmax = std::max(hmax, height[q]);
    }
    P.level_begin.assign(size_t(hmax + 2), 0);
    for (size_type h : height) ++P.level_begin[size_t(h + 1)];
    for (size_type l = 0; l <= hmax; ++l) P.level_begin[size_t(l + 1)] += P.level_begin[size_t(l)];
    P.level_order.resize(P.path.size());
    std::vector<size_type> fill(P.level_begin.begin(), P.level_begin.end() - 1);
    for (size_t q = 0; q < P.path.size(); ++q) P.level_order[size_t(fill[size_t(height[q])]++)] = size_type(q);
  }
  if (compact_maps) {
    P.w_row.resize(W.rowind.size());
    for (size_t p = 0; p < W.rowind.size(); ++p) P.w_row[p] = compact[size_t(S.iperm[size_t(W.rowind[p])])];
  }
  return P;
}

/// Columns per panel for k active W columns: 2 (nb + k)^2 / nb flops per entry of L, least
/// near nb = k: between 8 and 32 on host threads. `wide` (batched launches on exec, the
/// device): 32. There the update is the chain of panel transforms up the tree, which costs
/// per column rather than per launch: on the H100 (40^3, rank 16, session 5) panels of 16
/// columns took 24.6 ms, 32 24.9 ms, 48 34 ms, 64 47 ms.
/// update_panel_width_hook() > 0 replaces the `wide` width: a diagnostic for
/// perf_sparse_update --panel-width (an internal hook, not an option; 0 in the library's use).
inline int& update_panel_width_hook() {
  static int w = 0;
  return w;
}
inline size_type update_panel_width(size_type k, bool wide) {
  if (wide && update_panel_width_hook() > 0) return update_panel_width_hook();
  return wide ? 32 : std::min<size_type>(32, std::max<size_type>(8, k));
}

/// t = q n + r (0 <= r < n) for 0 <= t < 2^14 and 1 <= n <= 128, the index splits of the
/// panels' loops, by a float multiplication instead of an integer division (about 20
/// instructions on a GPU, and the panels' steps are instruction-bound on their one SM):
/// (t + 1/2) / n lies at least 1 / (2 n) >= 2^-8 from an integer, far beyond the float
/// rounding of (t + 1/2) (1 / n) (<= 2^14 * 2^-22).
KOKKOS_INLINE_FUNCTION void index_split(int t, int n, int& q, int& r) {
  q = int((float(t) + 0.5f) * (1.0f / float(n)));
  r = t - q * n;
}

/// A team of one host thread: the panel's small matrices computed in place on a host worker
/// (no Kokkos launch, so host workers may run panels concurrently). team_for and
/// team_barrier run the same body on a Kokkos team (a device block) or on it.
struct HostTeam {};
template <class F>
KOKKOS_INLINE_FUNCTION void team_for(const HostTeam&, int b, int e, const F& f) {
  for (int i = b; i < e; ++i) f(i);
}
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void team_for(const Member& mb, int b, int e, const F& f) {
  Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, b, e), f);
}
KOKKOS_INLINE_FUNCTION void team_barrier(const HostTeam&) {}
template <class Member>
KOKKOS_INLINE_FUNCTION void team_barrier(const Member& mb) {
  mb.team_barrier();
}
/// Diagnostics (perf_sparse_update --step-profile): the clock (cycles on a device) at a
/// panel's phase boundary i into tics[i], by the team's first thread, where tics is set.
KOKKOS_INLINE_FUNCTION void team_mark(const HostTeam&, std::uint64_t* tics, int i) {
  if (tics) tics[i] = Kokkos::Impl::clock_tic();
}
template <class Member>
KOKKOS_INLINE_FUNCTION void team_mark(const Member& mb, std::uint64_t* tics, int i) {
  if (tics && mb.team_rank() == 0) tics[i] = Kokkos::Impl::clock_tic();
}
/// The phases team_mark separates: 0 the panel team's start, 1 its rows through the previous
/// Q done, then panel_transform's copy, triangular solve, G and R, Cholesky steps, scaling,
/// Q and D M.
inline constexpr int kPanelPhases = 8;

/// Scalars of the small matrices of one panel of bw <= nb columns and k W columns
/// (panel_transform's Ds, Z, G, X: nb x nb, nb x k, nb x nb, nb x nb; R, Y: k x k).
KOKKOS_INLINE_FUNCTION constexpr std::int64_t panel_small_size(std::int64_t nb, std::int64_t k) {
  return 3 * nb * nb + nb * k + 2 * k * k;
}

/// The small matrices of one panel, by one team (one launch, or a host worker, instead of a
/// dozen vendor calls and copies): Z = D^-1 W_P, M = chol(I + s Z Z^T),
/// R = chol(I + s Z^T Z) (info[0], info[1]: LAPACK's info of each), the generator
/// Q = [M^-T, -Z R^-T; s Z^T M^-T, R^-T] ((bw + k)^2, ld bw + k), and D <- D M.
/// D: bw x bw (ld ldd), W_P: bw x k (ld ldw). The triangular solve goes by blocks of
/// kTrsmRows rows (2 barriers each; a thread per column of Z within a block). Both Cholesky
/// factorizations and both inverses (the latter two in the same steps) are a sweep over
/// columns with one team barrier per column and the rows below (times the right-hand sides)
/// spread over the team: about max(bw, k) + bw / 4 + 6 barriers per panel. The workspaces
/// Ds (a copy of D), Z, G (-> M), X (M^-1), R, Y (R^-1) (bw x bw, bw x k, bw x bw, bw x bw,
/// k x k, k x k, each with ld its rows) are carved from `small` (panel_small_size(bw, k)
/// scalars): team scratch on a device. Raw pointers and 32-bit indices captured by value;
/// bw, k <= 64 (index_split's range).
inline constexpr int kTrsmRows = 8;
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void panel_transform(const Member& mb, Scalar* D, std::int64_t ldd, const Scalar* Wp,
                                            std::int64_t ldw, int bw, int k, Scalar s, Scalar* small, Scalar* Q,
                                            int* info, std::uint64_t* tics = nullptr) {
  Scalar* const Ds = small;
  Scalar* const Z = Ds + bw * bw;
  Scalar* const G = Z + bw * k;
  Scalar* const X = G + bw * bw;
  Scalar* const R = X + bw * bw;
  Scalar* const Y = R + k * k;
  const int n2 = bw > k ? bw : k, nbb = bw * bw, nkk = k * k;
  // Ds = lower(D), Z = W_P
  team_for(mb, 0, nbb + bw * k, [=](int t) {
    if (t < nbb) {
      int j, i;
      index_split(t, bw, j, i);
      Ds[t] = i >= j ? D[i + j * ldd] : Scalar(0);
    } else {
      const int u = t - nbb;
      int j, i;
      index_split(u, bw, j, i);
      Z[u] = Wp[i + j * ldw];
    }
  });
  team_barrier(mb);
  team_mark(mb, tics, 2);
  // Z = Ds^-1 Z by blocks of kTrsmRows rows: a block's triangle a column per thread, then
  // the rows below it through the block's columns spread over the team
  for (int b0 = 0; b0 < bw; b0 += kTrsmRows) {
    const int b1 = b0 + kTrsmRows < bw ? b0 + kTrsmRows : bw;
    team_for(mb, 0, k, [=](int j) {
      Scalar* const z = Z + j * bw;
      for (int i = b0; i < b1; ++i) {
        Scalar v = z[i];
        for (int l = b0; l < i; ++l) v -= Ds[i + l * bw] * z[l];
        z[i] = v / Ds[i + i * bw];
      }
    });
    team_barrier(mb);
    if (b1 == bw) break;
    const int r = bw - b1;
    team_for(mb, 0, r * k, [=](int t) {
      int j, i;
      index_split(t, r, j, i);
      i += b1;
      Scalar v = Z[i + j * bw];
      for (int l = b0; l < b1; ++l) v -= Ds[i + l * bw] * Z[l + j * bw];
      Z[i + j * bw] = v;
    });
    team_barrier(mb);
  }
  team_mark(mb, tics, 3);
  // G = I + s Z Z^T, R = I + s Z^T Z (lower parts); X = I, Y = I
  team_for(mb, 0, nbb + nkk, [=](int t) {
    if (t < nbb) {
      int j, i;
      index_split(t, bw, j, i);
      Scalar g = i == j ? 1 : 0;
      if (i >= j)
        for (int l = 0; l < k; ++l) g += s * Z[i + l * bw] * Z[j + l * bw];
      G[t] = g;
      X[t] = i == j ? 1 : 0;
    } else {
      const int u = t - nbb;
      int j, i;
      index_split(u, k, j, i);
      Scalar g = i == j ? 1 : 0;
      if (i >= j)
        for (int l = 0; l < bw; ++l) g += s * Z[l + i * bw] * Z[l + j * bw];
      R[u] = g;
      Y[u] = i == j ? 1 : 0;
    }
  });
  team_barrier(mb);
  team_mark(mb, tics, 4);
  // M = chol(G), R = chol(R) side by side, right-looking: step j takes the unscaled column j
  // out of the trailing lower part (A(i, l) -= A(i, j) A(l, j) / A(j, j)); every thread reads
  // the same pivots, so all stop at the same failing column. The columns are scaled after.
  // The same steps invert the factors: X = M^-1 (Y = R^-1) by a column sweep with
  // right-hand sides I, on the unscaled columns (M(i, j) = A(i, j) / sqrt(d_j), so
  // X(i, :) -= M(i, j) X(j, :) / M(j, j) is X(i, :) -= A(i, j) X(j, :) / d_j, and row i is
  // divided by sqrt(d_i) at the end); X(j, c) = 0 for c > j, so step j touches c <= j only.
  bool gok = true, rok = true;
  for (int j = 0; j < n2; ++j) {
    const bool g = gok && j < bw, r = rok && j < k;
    const Scalar dg = g ? G[j + j * bw] : Scalar(1), dr = r ? R[j + j * k] : Scalar(1);
    if (g && !(dg > 0)) gok = false, info[0] = j + 1;  // the same value from every thread
    if (r && !(dr > 0)) rok = false, info[1] = j + 1;
    const int ng = gok && g ? bw - j - 1 : 0, nr = rok && r ? k - j - 1 : 0;
    if (ng + nr == 0) continue;
    const Scalar ig = Scalar(1) / dg, ir = Scalar(1) / dr;
    const int sg = ng * (ng + j + 1), sr = nr * (nr + j + 1);  // trailing square + inverse rows, per factor
    team_for(mb, 0, sg + sr, [=](int t) {
      const bool onG = t < sg;
      const int u = onG ? t : t - sg, nn = onG ? ng : nr, ld = onG ? bw : k;
      Scalar* const A = onG ? G : R;
      Scalar* const V = onG ? X : Y;
      const Scalar id = onG ? ig : ir;
      int c, i;
      index_split(u, nn, c, i);
      i += j + 1;
      if (c < nn) {
        const int l = j + 1 + c;
        if (i >= l) A[i + l * ld] -= A[i + j * ld] * (A[l + j * ld] * id);
      } else {
        V[i + (c - nn) * ld] -= A[i + j * ld] * (V[j + (c - nn) * ld] * id);
      }
    });
    team_barrier(mb);
  }
  team_mark(mb, tics, 5);
  if (!gok || !rok) return;  // the factor is unusable: nothing more to do
  team_for(mb, 0, nbb + nkk, [=](int t) {
    if (t < nbb) {
      int j, i;
      index_split(t, bw, j, i);
      const Scalar is = Scalar(1) / compat::sqrt(G[i + i * bw]);
      if (i > j) G[t] /= compat::sqrt(G[j + j * bw]);
      X[t] *= is;
    } else {
      const int u = t - nbb;
      int j, i;
      index_split(u, k, j, i);
      const Scalar is = Scalar(1) / compat::sqrt(R[i + i * k]);
      if (i > j) R[u] /= compat::sqrt(R[j + j * k]);
      Y[u] *= is;
    }
  });
  team_barrier(mb);
  team_for(mb, 0, bw + k, [=](int t) {
    if (t < bw) G[t + t * bw] = compat::sqrt(G[t + t * bw]);
    else R[(t - bw) * (k + 1)] = compat::sqrt(R[(t - bw) * (k + 1)]);
  });
  team_barrier(mb);
  team_mark(mb, tics, 6);
  // Q11 = M^-T = X^T, Q22 = R^-T = Y^T, Q21 = s Z^T M^-T = s (X Z)^T, Q12 = -Z R^-T = -(Y Z^T)^T;
  // D <- D M (lower)
  const int kb = bw + k;
  team_for(mb, 0, kb * kb + nbb, [=](int t) {
    if (t < kb * kb) {
      int j, i;
      index_split(t, kb, j, i);
      Scalar x = 0;
      if (i < bw && j < bw) x = X[j + i * bw];
      else if (i >= bw && j >= bw) x = Y[(j - bw) + (i - bw) * k];
      else if (i >= bw) {  // Q21(i - bw, j) = s sum_{l <= j} X(j, l) Z(l, i - bw)
        for (int l = 0; l <= j; ++l) x += X[j + l * bw] * Z[l + (i - bw) * bw];
        x *= s;
      } else {  // Q12(i, j - bw) = -sum_{l <= j - bw} Z(i, l) Y(j - bw, l)
        for (int l = 0; l <= j - bw; ++l) x -= Z[i + l * bw] * Y[(j - bw) + l * k];
      }
      Q[t] = x;
    } else {
      const int u = t - kb * kb;
      int j, i;
      index_split(u, bw, j, i);
      if (i >= j) {
        Scalar x = 0;
        for (int l = j; l <= i; ++l) x += Ds[i + l * bw] * G[l + j * bw];
        D[i + j * ldd] = x;
      }
    }
  });
  if (tics) {  // (only the diagnostics wait for the whole team here)
    team_barrier(mb);
    team_mark(mb, tics, 7);
  }
}

/// One panel's transformation, kept for the rows below the supernode's diagonal block.
struct PanelQ {
  size_type col = 0, bw = 0;
  size_type q_offset = 0;  ///< Q ((bw + k) x (bw + k), ld bw + k) in the supernode's Q buffer
};

/// Rows [i0, i1) of a supernode's panel (m rows, ld m) and of its W rows (ld m) through
/// every panel's Q in turn, on the host: [L(rows, P) W(rows)] <- [L(rows, P) W(rows)] Q_P.
/// Rows are independent, so row ranges may run on several host threads; xp: rows x
/// (nbmax + k) workspace.
template <class Scalar>
void below_rows(Scalar* panel, Scalar* wsp, size_type m, size_type k, const std::vector<PanelQ>& pq, const Scalar* qbuf,
                size_type i0, size_type i1, Scalar* xp) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const size_type rows = i1 - i0;
  if (rows <= 0) return;
  for (const PanelQ& p : pq) {
    const size_type bw = p.bw, kb = bw + k;
    Mat X(xp, Kokkos::LayoutStride(size_t(rows), 1, size_t(kb), size_t(rows)));
    Mat Lr(panel + i0 + p.col * m, Kokkos::LayoutStride(size_t(rows), 1, size_t(bw), size_t(m)));
    Mat Wr(wsp + i0, Kokkos::LayoutStride(size_t(rows), 1, size_t(k), size_t(m)));
    CMat Q(qbuf + p.q_offset, Kokkos::LayoutStride(size_t(kb), 1, size_t(kb), size_t(kb)));
    for (size_type j = 0; j < kb; ++j)  // contiguous columns
      std::copy_n(j < bw ? panel + i0 + (p.col + j) * m : wsp + i0 + (j - bw) * m, rows, xp + j * rows);
    const auto top = std::make_pair(size_t(0), size_t(bw)), bot = std::make_pair(size_t(bw), size_t(kb));
    kspd::gemm(Host(), Trans::NoTranspose, Trans::NoTranspose, Scalar(1), X, Kokkos::subview(Q, Kokkos::ALL, top), Scalar(0), Lr);
    kspd::gemm(Host(), Trans::NoTranspose, Trans::NoTranspose, Scalar(1), X, Kokkos::subview(Q, Kokkos::ALL, bot), Scalar(0), Wr);
  }
}

/// Columns per panel of each path supernode for `wide` (update_panel_width): the batched
/// driver then widens its wide supernodes' (kspd_sparse_update_wide.hpp).
inline std::vector<size_type> panel_widths(const UpdatePlan& P, bool wide) {
  std::vector<size_type> nb(P.path.size());
  for (size_t q = 0; q < P.path.size(); ++q) nb[q] = update_panel_width(P.act_begin[q + 1] - P.act_begin[q], wide);
  return nb;
}

/// The first failure of a downdate among the panels' infos (two per panel, panels of nb[q]
/// columns numbered in postorder: path index, then column), or none.
template <class InfoAt>
PivotFailure first_failure(const Symbolic& S, const UpdatePlan& P, const std::vector<size_type>& nbs, const InfoAt& info) {
  size_t i = 0;
  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type s = P.path[q], c = S.snodes[size_t(s)].ncols, nb = nbs[q];
    for (size_type p = 0; p < c; p += nb, ++i) {
      if (info(2 * i) > 0) return PivotFailure{s, p + info(2 * i) - 1, std::nan("")};
      if (info(2 * i + 1) > 0) return PivotFailure{s, p + std::min(nb, c - p) - 1, std::nan("")};  // rounding
    }
  }
  return {};
}

/// The panels of each path supernode (nb[q] columns each): panel_begin[q] .. panel_begin[q + 1]
/// in the postorder numbering of first_failure.
inline std::vector<size_type> panel_numbering(const Symbolic& S, const UpdatePlan& P, const std::vector<size_type>& nbs) {
  std::vector<size_type> b{0};
  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type c = S.snodes[size_t(P.path[q])].ncols, nb = nbs[q];
    b.push_back(b.back() + (c + nb - 1) / nb);
  }
  return b;
}

}  // namespace kspd::sparse::Impl
#endif
