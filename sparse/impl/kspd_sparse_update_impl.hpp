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
/// W'_B then goes on to the next panel and, below the supernode, to its ancestors. So
/// L'(P, P) = chol(D D^T + s W_P W_P^T), and with it M^-T = D^T L'(P, P)^-T and
/// s Z^T M^-T = s W_P^T L'(P, P)^-T: panel_transform computes L'(P, P) that way, which takes
/// the triangular solve for Z off L'(P, P)'s chain. A downdate loses positive definiteness
/// exactly where that Cholesky factorization fails (the leading minors of D D^T - W_P W_P^T
/// are those of the modified matrix's Schur complement). A panel's small matrices (Z, L',
/// R, Q) are one team body (panel_transform), run by a host worker or a device
/// block. This file: the plan, the panel body and the host rows; the two drivers are
/// kspd_sparse_update_host.hpp (host workers, gemm) and kspd_sparse_update_batched.hpp
/// (batched kernels on an execution space: the resident factor).

#include <Kokkos_Core.hpp>
#include <impl/Kokkos_ClockTic.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <sstream>
#include <type_traits>
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

/// The panel's small matrices are a few dependent chains (a triangular solve, two Cholesky
/// factorizations with their inverses: about bw + max(bw, k) steps) between steps that are
/// independent products. On the H100 (40^3 rank 16, session 5) the chains' steps spread
/// over 512-thread blocks cost ~1,000 cycles each, a __syncthreads and a shared-memory round
/// trip per column (64 % of a panel). So each chain runs on the lanes of one warp with no
/// block barrier per column (lane_for: Kokkos' ThreadVectorRange of a team whose vector
/// length is 32, which ends in a __syncwarp on CUDA, so the next loop sees every lane's
/// writes), and the products on the whole team (team_for: TeamVectorRange), with a team
/// barrier between phases (a handful per panel). A team's warps are its thread ranks
/// (team_warps, team_warp). HostTeam: one host worker (no Kokkos launch, so workers run
/// panels concurrently), where all of it is serial loops; a Kokkos team of host threads
/// (vector length 1) runs it the same way, its one "warp" taking every chain.
struct HostTeam {};
template <class F>
KOKKOS_INLINE_FUNCTION void lane_for(const HostTeam&, int b, int e, const F& f) {
  for (int i = b; i < e; ++i) f(i);
}
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void lane_for(const Member& mb, int b, int e, const F& f) {
  Kokkos::parallel_for(Kokkos::ThreadVectorRange(mb, b, e), f);
}
template <class F>
KOKKOS_INLINE_FUNCTION void team_for(const HostTeam&, int b, int e, const F& f) {
  for (int i = b; i < e; ++i) f(i);
}
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void team_for(const Member& mb, int b, int e, const F& f) {
  Kokkos::parallel_for(Kokkos::TeamVectorRange(mb, b, e), f);
}
KOKKOS_INLINE_FUNCTION void team_barrier(const HostTeam&) {}
template <class Member>
KOKKOS_INLINE_FUNCTION void team_barrier(const Member& mb) {
  mb.team_barrier();
}
KOKKOS_INLINE_FUNCTION int team_warps(const HostTeam&) { return 1; }
template <class Member>
KOKKOS_INLINE_FUNCTION int team_warps(const Member& mb) {
  return mb.team_size();
}
KOKKOS_INLINE_FUNCTION int team_warp(const HostTeam&) { return 0; }
template <class Member>
KOKKOS_INLINE_FUNCTION int team_warp(const Member& mb) {
  return mb.team_rank();
}
/// Diagnostics (perf_sparse_update --step-profile): the clock (cycles on a device) at a
/// panel's phase boundary i into tics[i], by the team's first thread, where tics is set.
KOKKOS_INLINE_FUNCTION void team_mark(const HostTeam&, std::uint64_t* tics, int i) {
  if (tics) tics[i] = Kokkos::Impl::clock_tic();
}
template <class Member>
KOKKOS_INLINE_FUNCTION void team_mark(const Member& mb, std::uint64_t* tics, int i) {
  if (tics && mb.team_rank() == 0) Kokkos::single(Kokkos::PerThread(mb), [=] { tics[i] = Kokkos::Impl::clock_tic(); });
}
/// The phases team_mark separates: 0 the panel team's start, 1 its rows through the previous
/// Q done (or its W rows read), then panel_transform's phases (kPanelPhaseNames).
inline constexpr int kPanelPhases = 7;
inline constexpr const char* kPanelPhaseNames[kPanelPhases - 1] = {
    "rows through the previous Q / W rows", "copy", "triangular solve | H", "Cholesky + inverse chains (+ R)",
    "scaling", "Q and L'"};

/// The leading dimension of panel_transform's matrices of n rows whose columns go to
/// different lanes (Z in the triangular solve, H, X, R, Y in the chains): odd, so that the
/// lanes read different shared-memory banks.
KOKKOS_INLINE_FUNCTION constexpr std::int64_t panel_ld(std::int64_t n) { return n | 1; }
/// Scalars of the small matrices of one panel of bw <= nb columns and k W columns
/// (panel_transform's Ds: nb x nb; Wq, Z: nb x k; H, X: nb x nb; R, Y: k x k; all but Ds
/// with ld panel_ld of their rows).
KOKKOS_INLINE_FUNCTION constexpr std::int64_t panel_small_size(std::int64_t nb, std::int64_t k) {
  return nb * nb + 2 * panel_ld(nb) * (k + nb) + 2 * panel_ld(k) * k + 2 * nb + k;
}

/// Whether panel_transform runs its chains in registers (chol_inverse_regs): on a CUDA
/// team (a warp per thread rank), not on a host worker.
#if defined(__CUDA_ARCH__)
template <class Member>
inline constexpr bool warp_regs_v = !std::is_same_v<Member, HostTeam>;
#else
template <class Member>
inline constexpr bool warp_regs_v = false;
#endif

#if defined(__CUDA_ARCH__)
// The chains of panel_transform on a CUDA warp with the data in registers (bw, k <= 32):
// in shared memory a warp's chain steps are a load, an FMA and a store after one another
// (the compiler cannot reorder them: the addresses may alias), ~100 cycles per step; on the
// H100 (session 6, run 1) a warp's Cholesky + inverse steps took 114,000 cycles per panel,
// against 34,000 spread over a 512-thread block. In registers every update of a step is
// independent of the others.

/// x = L^-1 x, L lower triangular (n x n, ld ldl, n <= 32; rd: its diagonal's
/// reciprocals), x in registers: right-looking, a column's updates independent.
template <class Scalar>
__device__ inline void lower_solve_regs(const Scalar* __restrict__ L, int ldl, const Scalar* __restrict__ rd, int n,
                                        Scalar (&x)[32]) {
#pragma unroll
  for (int l = 0; l < 32; ++l) {
    if (l < n) {
      const Scalar xl = x[l] * rd[l];
      x[l] = xl;
#pragma unroll
      for (int i = l + 1; i < 32; ++i)
        if (i < n) x[i] -= L[i + l * ldl] * xl;
    }
  }
}

/// A = chol(A) in place (n x n, ld lda, lower part, n <= 32), rd[i] = 1 / L(i, i), by the
/// 32 lanes of a warp (all of them: shuffles), lane `lane` holding row `lane` in registers
/// and the pivot column broadcast by shuffles. Returns the failing column (1-based) or 0,
/// the same on every lane; A is left as it was when a column fails.
template <class Scalar>
__device__ inline int chol_regs(Scalar* A, int lda, Scalar* rd, int n, int lane) {
  Scalar a[32];
#pragma unroll
  for (int c = 0; c < 32; ++c) a[c] = c <= lane && lane < n ? A[lane + c * lda] : Scalar(0);
  int fail = 0;
#pragma unroll
  for (int j = 0; j < 32; ++j) {
    if (j < n && fail == 0) {
      const Scalar d = Kokkos::shfl(a[j], j, 32);
      if (!(d > 0)) {
        fail = j + 1;
      } else {
        a[j] *= Scalar(1) / compat::sqrt(d);  // L(lane, j) (upper rows: zero or unused)
#pragma unroll
        for (int c = j + 1; c < 32; ++c)
          if (c < n) a[c] -= a[j] * Kokkos::shfl(a[j], c, 32);
      }
    }
  }
  if (fail == 0 && lane < n) {
    Scalar dg = 1;
#pragma unroll
    for (int c = 0; c < 32; ++c)
      if (c <= lane) {
        A[lane + c * lda] = a[c];
        if (c == lane) dg = a[c];
      }
    rd[lane] = Scalar(1) / dg;
  }
  return fail;
}

/// One chain on warp `mb` in registers: A = L = chol(A) (scaled), V = L^-1 (n x n, ld lda);
/// *info = the failing column or unchanged.
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void chol_inverse_regs(const Member& mb, Scalar* A, Scalar* V, Scalar* rd, int n, int lda, int* info) {
  int fail = 0;
  Kokkos::parallel_reduce(
      Kokkos::ThreadVectorRange(mb, 32),
      [=](int lane, int& f) {
        const int r = chol_regs(A, lda, rd, n, lane);
        if (r > f) f = r;
      },
      Kokkos::Max<int>(fail));
  if (fail != 0) {
    *info = fail;
    return;
  }
  lane_for(mb, 0, n, [=](int c) {  // V = L^-1, a column per lane
    Scalar x[32];
#pragma unroll
    for (int i = 0; i < 32; ++i) x[i] = i == c ? Scalar(1) : Scalar(0);
    lower_solve_regs(A, lda, rd, n, x);
#pragma unroll
    for (int i = 0; i < 32; ++i)
      if (i < n) V[i + c * lda] = x[i];
  });
}
#endif

/// f(i) for i in [b, e) on the threads of the team's warps other than warp 0 (which runs a
/// chain meanwhile), or on the whole team if it is one warp (after warp 0's work: the
/// caller runs that first).
template <class Member, class F>
KOKKOS_INLINE_FUNCTION void others_for(const Member& mb, int b, int e, const F& f) {
  const int nw = team_warps(mb), w = team_warp(mb);
  if (nw == 1) {
    team_for(mb, b, e, f);
  } else if (w >= 1) {
    lane_for(mb, 0, 32, [=](int lane) {
      for (int i = b + (w - 1) * 32 + lane; i < e; i += (nw - 1) * 32) f(i);
    });
  }
}

/// One chain of panel_transform on the lanes of one warp: A = chol(A) in place, unscaled
/// (n x n, ld lda (odd: panel_ld), lower part), and V = A^-1 from V = I (ld lda), rows
/// unscaled; returns false with info = the failing column (1-based) if A is not positive
/// definite. Right-looking: step j takes the unscaled column j out of the trailing lower
/// part (A(i, c) -= A(i, j) A(c, j) / A(j, j)); every lane reads the same pivots, so all stop
/// at the same failing column. The same steps invert the factor, by a column sweep with
/// right-hand sides I on the unscaled columns (M(i, j) = A(i, j) / sqrt(d_j), so
/// V(i, :) -= M(i, j) V(j, :) / M(j, j) is V(i, :) -= A(i, j) V(j, :) / d_j, and row i is
/// divided by sqrt(d_i) after); V(j, c) = 0 for c > j, so step j touches c <= j only. One
/// lane loop per column j, a lane per column c of A (c > j) or V (c <= j) going down rows
/// j + 1 .. n - 1 (rows i >= c of A): its multiplier once, then one load, one FMA and one
/// store per entry, A(i, j) the same address on every lane.
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION bool chol_inverse_chain(const Member& mb, Scalar* A, Scalar* V, int n, int lda, int* info) {
  for (int j = 0; j < n; ++j) {
    const Scalar d = A[j + j * lda];
    if (!(d > 0)) {
      *info = j + 1;  // the same value from every lane
      return false;
    }
    if (j + 1 == n) break;
    const Scalar id = Scalar(1) / d;
    const Scalar* const aj = A + j * lda;
    lane_for(mb, 0, n, [=](int c) {
      const bool onA = c > j;
      Scalar* const v = onA ? A + c * lda : V + c * lda;
      const Scalar f = (onA ? aj[c] : V[j + c * lda]) * id;
      for (int i = onA ? c : j + 1; i < n; ++i) v[i] -= aj[i] * f;
    });
  }
  return true;
}

/// Z = L^-1 Z (L: n x n lower, ld ldl, rd its diagonal's reciprocals; Z: n x k, ld ldz), a
/// column of Z per lane of one warp (no synchronization inside: a lane's column is its own),
/// in registers where `regs` (warp_regs_v), else in place (two partial sums per row for the
/// FMA latency).
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void lower_solve_lanes(const Member& mb, bool regs, const Scalar* L, int ldl, const Scalar* rd, int n,
                                              Scalar* Z, int ldz, int k) {
#if defined(__CUDA_ARCH__)
  if constexpr (warp_regs_v<Member>) {
    if (regs) {
      lane_for(mb, 0, k, [=](int j) {
        Scalar z[32];
#pragma unroll
        for (int i = 0; i < 32; ++i) z[i] = i < n ? Z[i + j * ldz] : Scalar(0);
        lower_solve_regs(L, ldl, rd, n, z);
#pragma unroll
        for (int i = 0; i < 32; ++i)
          if (i < n) Z[i + j * ldz] = z[i];
      });
      return;
    }
  }
#endif
  (void)regs;
  lane_for(mb, 0, k, [=](int j) {
    Scalar* const z = Z + j * ldz;
    for (int i = 0; i < n; ++i) {
      Scalar v0 = z[i], v1 = 0;
      int l = 0;
      for (; l + 1 < i; l += 2) {
        v0 -= L[i + l * ldl] * z[l];
        v1 -= L[i + (l + 1) * ldl] * z[l + 1];
      }
      if (l < i) v0 -= L[i + l * ldl] * z[l];
      z[i] = (v0 + v1) * rd[i];
    }
  });
}

/// A chain of panel_transform on one warp: chol_inverse_regs where `regs` (then A = L and
/// V = L^-1 come out scaled), else chol_inverse_chain (unscaled: the caller scales).
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void chol_inverse(const Member& mb, bool regs, Scalar* A, Scalar* V, Scalar* rd, int n, int lda,
                                         int* info) {
#if defined(__CUDA_ARCH__)
  if constexpr (warp_regs_v<Member>) {
    if (regs) {
      chol_inverse_regs(mb, A, V, rd, n, lda, info);
      return;
    }
  }
#endif
  (void)regs, (void)rd;
  chol_inverse_chain(mb, A, V, n, lda, info);
}

/// The small matrices of one panel, by one team (see lane_for; or a host worker), with
/// D: bw x bw (ld ldd) and W_P: bw x k (ld ldw):
///   H = D D^T + s W_P W_P^T = L' L'^T (L' -> D: the modified diagonal block; info[0]:
///   LAPACK's info, 0 on entry), X = L'^-1;  Z = D^-1 W_P, R R^T = I + s Z^T Z (info[1]),
///   Y = R^-1;  the generator Q = [D^T X^T, -Z Y^T; s W_P^T X^T, Y^T] ((bw + k)^2, ld bw + k).
/// (This is the method's Q with M = D^-1 L': M^-T = D^T L'^-T, s Z^T M^-T = s W_P^T L'^-T.
/// L' directly, not as D M, takes the triangular solve off L''s chain: Z is solved on warp 0
/// while the other warps form H.) Phases, a team barrier after each: the copies (team); the
/// triangular solve on warp 0 (lower_solve_lanes), beside H on the other warps
/// (others_for); the chains (chol_inverse) of L' on warp 0 and of R (formed first) on warp 1,
/// side by side, in registers on a CUDA warp where bw, k <= 32 (chol_inverse_regs), else in
/// place, unscaled, followed by the scaling (team); Q and L' (team). The workspaces Ds (a
/// copy of D), Wq (of W_P), Z, H (-> L'), X, R, Y (bw x bw, bw x k twice, bw x bw twice,
/// k x k twice; all but Ds with ld panel_ld of their rows) and the reciprocals of the
/// diagonals of D, L', R (bw, bw, k) are carved from `small` (panel_small_size(bw, k)
/// scalars): team scratch on a device. Raw pointers and 32-bit indices captured by value;
/// bw, k <= 64 (index_split's range).
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void panel_transform(const Member& mb, Scalar* D, std::int64_t ldd, const Scalar* Wp,
                                            std::int64_t ldw, int bw, int k, Scalar s, Scalar* small, Scalar* Q,
                                            int* info, std::uint64_t* tics = nullptr) {
  const int lz = int(panel_ld(bw)), lr = int(panel_ld(k));  // H, X: ld lz too
  Scalar* const Ds = small;
  Scalar* const Wq = Ds + bw * bw;
  Scalar* const Z = Wq + lz * k;
  Scalar* const H = Z + lz * k;
  Scalar* const X = H + lz * bw;
  Scalar* const R = X + lz * bw;
  Scalar* const Y = R + lr * k;
  Scalar* const Rd = Y + lr * k;  // reciprocals of the diagonals of D, L', R
  Scalar* const Rh = Rd + bw;
  Scalar* const Rr = Rh + bw;
  const int nbb = bw * bw, nkk = k * k, warp = team_warp(mb), warp_r = team_warps(mb) > 1 ? 1 : 0;
  const bool regs = warp_regs_v<Member> && bw <= 32 && k <= 32;  // the chains in registers
  // Ds = lower(D), Wq = Z = W_P
  team_for(mb, 0, nbb + bw * k, [=](int t) {
    if (t < nbb) {
      int j, i;
      index_split(t, bw, j, i);
      Ds[t] = i >= j ? D[i + j * ldd] : Scalar(0);
      if (i == j) Rd[i] = Scalar(1) / D[i + j * ldd];
    } else {
      int j, i;
      index_split(t - nbb, bw, j, i);
      Wq[i + j * lz] = Z[i + j * lz] = Wp[i + j * ldw];
    }
  });
  team_barrier(mb);
  team_mark(mb, tics, 2);
  // Z = Ds^-1 Z, a column per lane of warp 0 (rows of Ds: the same address on every lane),
  // two partial sums per row for the FMA latency
  if (warp == 0) lower_solve_lanes(mb, regs, Ds, bw, Rd, bw, Z, lz, k);
  // meanwhile H = Ds Ds^T + s Wq Wq^T (lower part), X = I
  others_for(mb, 0, nbb, [=](int t) {
    int j, i;
    index_split(t, bw, j, i);
    Scalar h = 0;
    if (i >= j) {
      for (int l = 0; l <= j; ++l) h += Ds[i + l * bw] * Ds[j + l * bw];
      for (int l = 0; l < k; ++l) h += s * Wq[i + l * lz] * Wq[j + l * lz];
    }
    H[i + j * lz] = h;
    X[i + j * lz] = i == j ? 1 : 0;
  });
  team_barrier(mb);
  team_mark(mb, tics, 3);
  // L' = chol(H) and X = L'^-1 on warp 0; R = I + s Z^T Z (lower), Y = I, then R = chol(R)
  // and Y = R^-1 on warp 1 (or after, on a team of one warp)
  if (warp == 0) chol_inverse(mb, regs, H, X, Rh, bw, lz, info);
  if (warp == warp_r) {
    lane_for(mb, 0, nkk, [=](int u) {
      int j, i;
      index_split(u, k, j, i);
      Scalar g = i == j ? 1 : 0;
      if (i >= j)
        for (int l = 0; l < bw; ++l) g += s * Z[l + i * lz] * Z[l + j * lz];
      R[i + j * lr] = g;
      Y[i + j * lr] = i == j ? 1 : 0;
    });
    chol_inverse(mb, regs, R, Y, Rr, k, lr, info + 1);
  }
  team_barrier(mb);  // (orders the chains' info for every thread)
  team_mark(mb, tics, 4);
  if (info[0] != 0 || info[1] != 0) return;  // the factor is unusable: nothing more to do
  if (!regs) {  // the chains' factors and inverses are unscaled
    team_for(mb, 0, nbb + nkk, [=](int t) {
      if (t < nbb) {
        int j, i;
        index_split(t, bw, j, i);
        const Scalar is = Scalar(1) / compat::sqrt(H[i + i * lz]);
        if (i > j) H[i + j * lz] /= compat::sqrt(H[j + j * lz]);
        X[i + j * lz] *= is;
      } else {
        const int u = t - nbb;
        int j, i;
        index_split(u, k, j, i);
        const Scalar is = Scalar(1) / compat::sqrt(R[i + i * lr]);
        if (i > j) R[i + j * lr] /= compat::sqrt(R[j + j * lr]);
        Y[i + j * lr] *= is;
      }
    });
    team_barrier(mb);
    team_for(mb, 0, bw + k, [=](int t) {
      if (t < bw) H[t + t * lz] = compat::sqrt(H[t + t * lz]);
      else R[(t - bw) * (lr + 1)] = compat::sqrt(R[(t - bw) * (lr + 1)]);
    });
    team_barrier(mb);
  }
  team_mark(mb, tics, 5);
  // Q11 = D^T X^T (upper), Q21 = s W_P^T X^T, Q12 = -Z Y^T, Q22 = Y^T; D <- L' (lower)
  const int kb = bw + k;
  team_for(mb, 0, kb * kb + nbb, [=](int t) {
    if (t < kb * kb) {
      int j, i;
      index_split(t, kb, j, i);
      Scalar x = 0;
      if (i < bw && j < bw) {  // Q11(i, j) = sum_{i <= l <= j} D(l, i) X(j, l)
        for (int l = i; l <= j; ++l) x += Ds[l + i * bw] * X[j + l * lz];
      } else if (i >= bw && j >= bw) {
        x = Y[(j - bw) + (i - bw) * lr];
      } else if (i >= bw) {  // Q21(i - bw, j) = s sum_{l <= j} W_P(l, i - bw) X(j, l)
        for (int l = 0; l <= j; ++l) x += Wq[l + (i - bw) * lz] * X[j + l * lz];
        x *= s;
      } else {  // Q12(i, j - bw) = -sum_{l <= j - bw} Z(i, l) Y(j - bw, l)
        for (int l = 0; l <= j - bw; ++l) x -= Z[i + l * lz] * Y[(j - bw) + l * lr];
      }
      Q[t] = x;
    } else {
      int j, i;
      index_split(t - kb * kb, bw, j, i);
      if (i >= j) D[i + j * ldd] = H[i + j * lz];
    }
  });
  if (tics) {  // (only the diagnostics wait for the whole team here)
    team_barrier(mb);
    team_mark(mb, tics, 6);
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

/// The first failure of a downdate among the panels' infos (two per panel, panels numbered
/// in postorder: path index, then column), or none.
template <class InfoAt>
PivotFailure first_failure(const Symbolic& S, const UpdatePlan& P, bool wide, const InfoAt& info) {
  size_t i = 0;
  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type s = P.path[q], c = S.snodes[size_t(s)].ncols;
    const size_type nb = update_panel_width(P.act_begin[q + 1] - P.act_begin[q], wide);
    for (size_type p = 0; p < c; p += nb, ++i) {
      if (info(2 * i) > 0) return PivotFailure{s, p + info(2 * i) - 1, std::nan("")};
      if (info(2 * i + 1) > 0) return PivotFailure{s, p + std::min(nb, c - p) - 1, std::nan("")};  // rounding
    }
  }
  return {};
}

/// The panels of each path supernode for width `wide`: panel_begin[q] .. panel_begin[q + 1]
/// in the postorder numbering of first_failure.
inline std::vector<size_type> panel_numbering(const Symbolic& S, const UpdatePlan& P, bool wide) {
  std::vector<size_type> b{0};
  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type c = S.snodes[size_t(P.path[q])].ncols, nb = update_panel_width(P.act_begin[q + 1] - P.act_begin[q], wide);
    b.push_back(b.back() + (c + nb - 1) / nb);
  }
  return b;
}

}  // namespace kspd::sparse::Impl
#endif
