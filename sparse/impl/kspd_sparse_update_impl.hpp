#ifndef KSPD_SPARSE_UPDATE_IMPL_HPP
#define KSPD_SPARSE_UPDATE_IMPL_HPP
/// \file kspd_sparse_update_impl.hpp
/// Rank-k update / downdate of a supernodal factor in place: L' L'^T = L L^T + s W W^T,
/// s = +1 or -1, with L' on L's pattern (Davis & Hager, "Multiple-rank modifications of a
/// sparse Cholesky factorization", SIAM J. Matrix Anal. Appl. 22 (2001), adapted to
/// supernodes and blocked so that the work is GEMM).
///
/// Only the supernodes on the paths of W's columns in the elimination tree change: from the
/// supernode of each column's first row up to the root. They are modified in postorder (a
/// child before its parent), each on a dense copy of W's rows in its row structure:
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
/// (Z, M, R, Q, D M) are one team kernel; the rows below it go through core's gemm. All of
/// it is queued on one execution-space instance, so the same code modifies a host factor
/// and a device-resident one; the rows below a large supernode's diagonal block may also
/// be split among host threads (a host factor).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdint>
#include <exception>
#include <mutex>
#include <sstream>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_resident.hpp"
#include "kspd_sparse_symbolic.hpp"
#include "kspd_sparse_update.hpp"

namespace kspd::sparse::Impl {

/// W in the factor's numbering, checked against the factor's pattern, and the supernodes
/// its columns' paths visit (postorder). Host-side; the same for every placement.
struct UpdatePlan {
  size_type k = 0;
  std::vector<size_type> path;        ///< supernodes to modify, ascending (postorder)
  std::vector<size_type> row_begin;   ///< per path supernode: its rows in rmap
  std::vector<std::int64_t> rmap;     ///< compact W row of every row of every path supernode
  std::vector<size_type> act_begin;   ///< per path supernode: its active W columns in act
  std::vector<std::int64_t> act;      ///< the columns whose path visits the supernode (the
                                      ///< others are zero on its columns: they pass unchanged)
  size_type ncompact = 0;             ///< rows of the compact W (the path's columns)
  size_type max_rows = 0;
  std::vector<std::int64_t> w_row;    ///< per W entry: its compact row
};

/// Validates W (dimensions, k <= 64, sorted unique rows, finite values), checks that every
/// column's rows lie in the structure of L's column at its first row (then the whole path
/// stays in L's pattern) and builds the plan. `who` prefixes the messages.
template <class Scalar>
UpdatePlan plan_update(const Symbolic& S, const SparseColumns<Scalar>& W, const char* who) {
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
  std::vector<std::int64_t> compact(size_t(n), -1);
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
    if (!on_path[size_t(s)]) continue;
    const Supernode& sn = S.snodes[size_t(s)];
    KSPD_REQUIRE(sn.parent < 0 || sn.parent > s, Error, who << ": supernodes are not in postorder (internal)");
    P.path.push_back(s);
    for (size_type c = 0; c < sn.ncols; ++c) compact[size_t(sn.first_col + c)] = P.ncompact++;
  }
  std::vector<std::vector<std::int64_t>> active(S.snodes.size());
  for (size_type j = 0; j < k; ++j)
    for (size_type q = start[size_t(j)]; q >= 0; q = S.snodes[size_t(q)].parent) active[size_t(q)].push_back(j);
  for (size_type s : P.path) {
    const Supernode& sn = S.snodes[size_t(s)];
    P.act_begin.push_back(size_type(P.act.size()));
    P.act.insert(P.act.end(), active[size_t(s)].begin(), active[size_t(s)].end());
    P.row_begin.push_back(size_type(P.rmap.size()));
    P.max_rows = std::max(P.max_rows, sn.nrows());
    for (size_type q = sn.row_begin; q < sn.row_end; ++q) {
      const std::int64_t c = compact[size_t(S.rows[size_t(q)])];
      KSPD_REQUIRE(c >= 0, Error, who << ": a row of a path supernode is off the path (internal)");
      P.rmap.push_back(c);
    }
  }
  P.act_begin.push_back(size_type(P.act.size()));
  P.w_row.resize(W.rowind.size());
  for (size_t p = 0; p < W.rowind.size(); ++p) P.w_row[p] = compact[size_t(S.iperm[size_t(W.rowind[p])])];
  return P;
}

/// Columns per panel for k active W columns: 2 (nb + k)^2 / nb flops per entry of L, least
/// near nb = k: between 8 and 32 on host threads. `wide` (one pass per panel on exec, the
/// device): 64, as a panel costs a few launches whatever its width.
inline size_type update_panel_width(size_type k, bool wide) {
  return wide ? 64 : std::min<size_type>(32, std::max<size_type>(8, k));
}

/// The small matrices of one panel, in one team (one launch instead of a dozen vendor calls
/// and copies: on a GPU the panels are launch-bound): Z = D^-1 W_P, M = chol(I + s Z Z^T),
/// R = chol(I + s Z^T Z) (info[0], info[1]: LAPACK's info of each), the generator
/// Q = [M^-T, -Z R^-T; s Z^T M^-T, R^-T] ((bw + k)^2, ld bw + k), and D <- D M. Z, G, R, T:
/// workspaces of bw x k, bw x bw, k x k, bw x bw.
template <class Exec, class Mat>
void panel_transform(const Exec& exec, const Mat& D, const Mat& Wp, typename Mat::non_const_value_type s, const Mat& Z,
                     const Mat& G, const Mat& R, const Mat& T, const Mat& Q, int* info) {
  using Scalar = typename Mat::non_const_value_type;
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  const int bw = int(D.extent(0)), k = int(Wp.extent(1));
  const int team = compat::is_host_exec_v<Exec> ? 1 : 128;
  Kokkos::parallel_for(
      "kspd::sparse::update::panel_transform", Policy(exec, 1, team), KOKKOS_LAMBDA(const Member& mb) {
        // Cholesky of the lower n x n A in place; info[slot] = the failing column (1-based)
        auto chol = [&](const Mat& A, int n, int slot) {
          for (int j = 0; j < n; ++j) {
            Kokkos::single(Kokkos::PerTeam(mb), [&] {
              const Scalar d = A(j, j);
              if (!(d > 0)) info[slot] = j + 1;
              else A(j, j) = compat::sqrt(d);
            });
            mb.team_barrier();
            if (info[slot] != 0) return;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, j + 1, n), [&](int i) { A(i, j) /= A(j, j); });
            mb.team_barrier();
            const int r = n - j - 1;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, r * r), [&](int t) {
              const int i = j + 1 + t % r, l = j + 1 + t / r;
              if (i >= l) A(i, l) -= A(i, j) * A(l, j);
            });
            mb.team_barrier();
          }
        };
        // Z = D^-1 W_P, a column per thread; G = I, R = I
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, k), [&](int j) {
          for (int i = 0; i < bw; ++i) {
            Scalar z = Wp(i, j);
            for (int l = 0; l < i; ++l) z -= D(i, l) * Z(l, j);
            Z(i, j) = z / D(i, i);
          }
        });
        mb.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, bw * bw + k * k), [&](int t) {
          if (t < bw * bw) {
            const int i = t % bw, j = t / bw;
            Scalar g = i == j ? 1 : 0;
            for (int l = 0; l < k; ++l) g += s * Z(i, l) * Z(j, l);
            G(i, j) = g;
          } else {
            const int i = (t - bw * bw) % k, j = (t - bw * bw) / k;
            Scalar g = i == j ? 1 : 0;
            for (int l = 0; l < bw; ++l) g += s * Z(l, i) * Z(l, j);
            R(i, j) = g;
          }
        });
        mb.team_barrier();
        chol(G, bw, 0);
        chol(R, k, 1);
        if (info[0] != 0 || info[1] != 0) return;  // the factor is unusable: nothing more to do
        // Q11 = M^-T, Q22 = R^-T: column j of the inverse of the lower factor, a thread each,
        // stored transposed
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, bw + k), [&](int c) {
          const bool m = c < bw;
          const int n = m ? bw : k, j = m ? c : c - bw, o = m ? 0 : bw;
          const Mat& A = m ? G : R;
          for (int i = 0; i < n; ++i) {
            Scalar x = i == j ? 1 : 0;
            for (int l = j; l < i; ++l) x -= A(i, l) * Q(o + j, o + l);
            Q(o + j, o + i) = i < j ? Scalar(0) : x / A(i, i);
          }
        });
        mb.team_barrier();
        // Q21 = s Z^T M^-T, Q12 = -Z R^-T; T = D M (lower)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, 2 * bw * k + bw * bw), [&](int t) {
          if (t < bw * k) {
            const int i = t % k, j = t / k;  // Q21(i, j) = s sum_l Z(l, i) Q11(l, j)
            Scalar x = 0;
            for (int l = 0; l <= j; ++l) x += Z(l, i) * Q(l, j);
            Q(bw + i, j) = s * x;
          } else if (t < 2 * bw * k) {
            const int i = (t - bw * k) % bw, j = (t - bw * k) / bw;  // Q12(i, j) = -sum_l Z(i, l) Q22(l, j)
            Scalar x = 0;
            for (int l = 0; l <= j; ++l) x -= Z(i, l) * Q(bw + l, bw + j);
            Q(i, bw + j) = x;
          } else {
            const int i = (t - 2 * bw * k) % bw, j = (t - 2 * bw * k) / bw;
            Scalar x = 0;
            for (int l = j; l <= i; ++l) x += D(i, l) * G(l, j);
            T(i, j) = i >= j ? x : Scalar(0);
          }
        });
        mb.team_barrier();
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, bw * bw), [&](int t) {
          const int i = t % bw, j = t / bw;
          if (i >= j) D(i, j) = T(i, j);
        });
      });
}

/// One panel's transformation, kept for the rows below the supernode's diagonal block.
struct PanelQ {
  size_type col = 0, bw = 0;
  size_type q_offset = 0;  ///< Q ((bw + k) x (bw + k), ld bw + k) in the supernode's Q buffer
};

/// Rows [i0, i1) of a supernode's panel (m rows, ld m) and of its W rows (ld m) through
/// every panel's Q in turn: [L(rows, P) W(rows)] <- [L(rows, P) W(rows)] Q_P. Rows are
/// independent, so row ranges may run concurrently (`plain`: host loops, no kernel launch,
/// callable from several host threads); xp: rows x (nbmax + k) workspace.
template <class Exec, class Scalar>
void below_rows(const Exec& exec, bool plain, Scalar* panel, Scalar* wsp, size_type m, size_type k,
                const std::vector<PanelQ>& pq, const Scalar* qbuf, size_type i0, size_type i1, Scalar* xp) {
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const size_type rows = i1 - i0;
  if (rows <= 0) return;
  for (const PanelQ& p : pq) {
    const size_type bw = p.bw, kb = bw + k;
    Mat X(xp, Kokkos::LayoutStride(size_t(rows), 1, size_t(kb), size_t(rows)));
    Mat Lr(panel + i0 + p.col * m, Kokkos::LayoutStride(size_t(rows), 1, size_t(bw), size_t(m)));
    Mat Wr(wsp + i0, Kokkos::LayoutStride(size_t(rows), 1, size_t(k), size_t(m)));
    CMat Q(qbuf + p.q_offset, Kokkos::LayoutStride(size_t(kb), 1, size_t(kb), size_t(kb)));
    if (plain) {
      for (size_type j = 0; j < kb; ++j)
        for (size_type i = 0; i < rows; ++i) X(i, j) = j < bw ? Lr(i, j) : Wr(i, j - bw);
    } else {
      Kokkos::parallel_for(
          "kspd::sparse::update::copy_below", Kokkos::RangePolicy<Exec>(exec, 0, size_t(rows * kb)),
          KOKKOS_LAMBDA(const size_t t) {
            const size_t i = t % size_t(rows), j = t / size_t(rows);
            X(i, j) = j < size_t(bw) ? Lr(i, j) : Wr(i, j - size_t(bw));
          });
    }
    const auto top = std::make_pair(size_t(0), size_t(bw)), bot = std::make_pair(size_t(bw), size_t(kb));
    kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(1), X, Kokkos::subview(Q, Kokkos::ALL, top), Scalar(0), Lr);
    kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(1), X, Kokkos::subview(Q, Kokkos::ALL, bot), Scalar(0), Wr);
  }
}

/// below_rows over rows [i0, i1) split among up to `threads` host threads (the caller one of
/// them); a thread the system refuses leaves its rows to the others.
template <class Scalar>
void below_rows_threaded(int threads, Scalar* panel, Scalar* wsp, size_type m, size_type k, const std::vector<PanelQ>& pq,
                         const Scalar* qbuf, size_type i0, size_type i1, size_type kb) {
  using Host = Kokkos::DefaultHostExecutionSpace;
  constexpr size_type kChunk = 256;  // rows per piece of work
  const size_type nchunks = (i1 - i0 + kChunk - 1) / kChunk;
  std::atomic<size_type> next{0};
  std::exception_ptr error;
  std::mutex em;
  auto work = [&] {
    try {
      std::vector<Scalar> x(size_t(kChunk * kb));
      for (size_type c; (c = next.fetch_add(1)) < nchunks;)
        below_rows(Host(), true, panel, wsp, m, k, pq, qbuf, i0 + c * kChunk, std::min(i1, i0 + (c + 1) * kChunk), x.data());
    } catch (...) {
      std::lock_guard<std::mutex> lk(em);
      if (!error) error = std::current_exception();
      next = nchunks;
    }
  };
  std::vector<std::thread> pool;
  const int extra = int(std::min<size_type>(size_type(threads), nchunks)) - 1;
  try {
    for (int t = 0; t < extra; ++t) pool.push_back(kspd::Impl::start_thread(work));
  } catch (const std::system_error&) {  // fewer threads: the started ones and this one finish
  }
  work();
  for (auto& th : pool) th.join();
  if (error) std::rethrow_exception(error);
}

/// The modification on `exec`, the factor's values `vals` in Exec's memory; one wait, at the
/// end. `threads` >= 1 (a host factor): the rows below each supernode's diagonal block go
/// through all its panels in pieces shared by that many host threads; 0: one pass per panel
/// over all the rows below it, on exec (the device; the resident placement on CPU builds). Returns the first failure of a downdate
/// (supernode, column within it; the pivot is not known: NaN), after which the factor is
/// modified past it and unusable.
template <class Scalar, class Exec>
PivotFailure modify_factor(const Exec& exec, const Symbolic& S, Scalar* vals, const UpdatePlan& P,
                           const SparseColumns<Scalar>& W, Sign sign, int threads = 0) {
  using Mem = typename Exec::memory_space;
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using Buf = Kokkos::View<Scalar*, Mem>;
  if (P.path.empty() || P.k == 0) return {};
  const Scalar sg = sign == Sign::Plus ? Scalar(1) : Scalar(-1);
  const bool wide = !(compat::is_host_exec_v<Exec> && threads > 0);  // one pass per panel on exec
  const size_type kmax = P.k, nbmax = update_panel_width(64, wide), maxm = P.max_rows, kb = nbmax + kmax;
  auto mat = [](Scalar* p, size_type m, size_type n, size_type ld) {
    return Mat(p, Kokkos::LayoutStride(size_t(m), 1, size_t(n), size_t(std::max<size_type>(ld, 1))));
  };
  const auto noinit = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };

  // W in the compact row numbering of the path's columns (ncompact x k), built on the host.
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem> Wc(noinit("kspd::sparse::update::W"), size_t(P.ncompact), size_t(kmax));
  {
    auto h = Kokkos::create_mirror_view(Wc);
    Kokkos::deep_copy(h, Scalar(0));
    for (size_type j = 0; j < kmax; ++j)
      for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p)
        h(size_t(P.w_row[size_t(p)]), size_t(j)) = W.values[size_t(p)];
    Kokkos::deep_copy(exec, Wc, h);
  }
  auto upload = [&](const char* name, const std::vector<std::int64_t>& h) {
    Kokkos::View<std::int64_t*, Mem> d(noinit(name), std::max<size_t>(h.size(), 1));
    Kokkos::deep_copy(exec, Kokkos::subview(d, std::make_pair(size_t(0), h.size())),
                      Kokkos::View<const std::int64_t*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    return d;
  };
  const auto rmap = upload("kspd::sparse::update::rows", P.rmap), act = upload("kspd::sparse::update::active", P.act);
  // The panels in order: the potrf infos are written on the stream (no wait per panel) and
  // read once at the end; the first nonzero is the failure.
  struct PanelAt {
    size_type s, col, bw;
  };
  std::vector<PanelAt> panels;
  size_type max_panels = 0;
  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type c = S.snodes[size_t(P.path[q])].ncols, nb = update_panel_width(P.act_begin[q + 1] - P.act_begin[q], wide);
    for (size_type p = 0; p < c; p += nb) panels.push_back(PanelAt{P.path[q], p, std::min(nb, c - p)});
    max_panels = std::max(max_panels, (c + nb - 1) / nb);
  }
  Kokkos::View<int*, Mem> infos("kspd::sparse::update::info", 2 * panels.size());
  size_t ip = 0;
  Buf ws(noinit("kspd::sparse::update::Ws"), size_t(maxm * kmax)), xb(noinit("kspd::sparse::update::X"), size_t(maxm * kb));
  Buf qs(noinit("kspd::sparse::update::Q"), size_t(max_panels * kb * kb));
  Buf small(noinit("kspd::sparse::update::small"), size_t(nbmax * kmax + 2 * nbmax * nbmax + kmax * kmax));
  Scalar* zp = small.data();
  Scalar* gp = zp + nbmax * kmax;
  Scalar* rp = gp + nbmax * nbmax;
  Scalar* tp = rp + kmax * kmax;
  const auto wcv = Wc;
  const auto rm = rmap;
  std::vector<PanelQ> pq;

  for (size_t q = 0; q < P.path.size(); ++q) {
    const size_type s = P.path[q];
    const Supernode& sn = S.snodes[size_t(s)];
    const size_type m = sn.nrows(), c = sn.ncols, r0 = P.row_begin[q], a0 = P.act_begin[q];
    const size_type k = P.act_begin[q + 1] - a0;  // active columns
    const size_type nb = update_panel_width(k, wide);
    Scalar* panel = vals + sn.value_offset;
    Scalar* wsp = ws.data();
    const bool host_rows = !wide;
    // Ws = W's rows of this supernode, active columns (m x k, ld m)
    Kokkos::parallel_for(
        "kspd::sparse::update::gather", Kokkos::RangePolicy<Exec>(exec, 0, size_t(m * k)), KOKKOS_LAMBDA(const size_t t) {
          const size_t i = t % size_t(m), j = t / size_t(m);
          wsp[t] = wcv(size_t(rm(size_t(r0) + i)), size_t(act(size_t(a0) + j)));
        });
    // The diagonal block, panel by panel; each panel's Q is kept for the rows below.
    pq.clear();
    for (size_type p = 0; p < c; p += nb) {
      const size_type bw = std::min(nb, c - p), qo = size_type(pq.size()) * (nb + k) * (nb + k);
      pq.push_back(PanelQ{p, bw, qo});
      Mat D = mat(panel + p + p * m, bw, bw, m), Wp = mat(wsp + p, bw, k, m);
      Mat Z = mat(zp, bw, k, bw), G = mat(gp, bw, bw, bw), R = mat(rp, k, k, k), T = mat(tp, bw, bw, bw);
      Mat Q = mat(qs.data() + qo, bw + k, bw + k, bw + k);
      panel_transform(exec, D, Wp, sg, Z, G, R, T, Q, infos.data() + ip);
      ip += 2;
      // The rows below this panel: on exec all of them now; with host threads only the
      // diagonal block's (later panels need them), the others after the last panel.
      const size_type rows_end = host_rows ? c : m;
      if (rows_end > p + bw) {
        const std::vector<PanelQ> one{PanelQ{p, bw, 0}};
        below_rows(exec, false, panel, wsp, m, k, one, Q.data(), p + bw, rows_end, xb.data());
      }
    }
    // The rows below the diagonal block through every panel's Q, in pieces on host threads
    // (rows are independent; a piece stays in cache through all the panels).
    if (m > c) {
      if constexpr (compat::is_host_exec_v<Exec>) {
        if (host_rows) {
          exec.fence();
          below_rows_threaded(threads, panel, wsp, m, k, pq, qs.data(), c, m, nbmax + k);
        }
      }
      // W'_B goes back to the compact W for the ancestors
      Kokkos::parallel_for(
          "kspd::sparse::update::scatter", Kokkos::RangePolicy<Exec>(exec, 0, size_t((m - c) * k)),
          KOKKOS_LAMBDA(const size_t t) {
            const size_t i = size_t(c) + t % size_t(m - c), j = t / size_t(m - c);
            wcv(size_t(rm(size_t(r0) + i)), size_t(act(size_t(a0) + j))) = wsp[i + j * size_t(m)];
          });
    }
  }
  exec.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), infos);
  for (size_t i = 0; i < panels.size(); ++i) {
    if (h(2 * i) > 0) return PivotFailure{panels[i].s, panels[i].col + h(2 * i) - 1, std::nan("")};
    if (h(2 * i + 1) > 0) return PivotFailure{panels[i].s, panels[i].col + panels[i].bw - 1, std::nan("")};  // rounding
  }
  return {};
}

}  // namespace kspd::sparse::Impl
#endif
