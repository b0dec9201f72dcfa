#ifndef KSPD_RFP_PFTRF_BLOCKED_IMPL_HPP
#define KSPD_RFP_PFTRF_BLOCKED_IMPL_HPP
/// \file kspd_rfp_pftrf_blocked_impl.hpp
/// pftrf as one right-looking blocked Cholesky ACROSS the RFP blocks. The columns of each
/// half (n1, then n2) are cut into blocks of nb, so every block of the logical lower factor
/// lies in one stored block (A11, A21 or A22); a step factors its diagonal block (potrf),
/// solves the panel below it (trsm) and updates the trailing matrix with one herk/syrk per
/// diagonal stored block and one gemm for A21: large GEMM-rich calls of the core layer.
/// With look-ahead the next panel's update, potrf and trsm run on an urgent lane (a
/// highest-priority stream, Impl::Lanes) while the wide trailing update runs on the caller's,
/// so the small potrf's latency hides behind the GEMMs: the panel's kernels are scheduled
/// ahead of the GEMM's remaining blocks instead of after them. nb >= max(n1, n2) without
/// look-ahead is LAPACK's four-call algorithm
/// (potrf, trsm, syrk, potrf), which is how Blocking::Split runs.
///
/// Every block stays as LAPACK stores it (Stored: a column-major view plus h, "the logical
/// block is the stored one's conjugate transpose"), so the same code serves real and complex
/// Hermitian matrices and all 8 variants.

#include <algorithm>
#include <optional>
#include <utility>
#include <vector>

#include "kspd_dense_streams.hpp"
#include "kspd_dense_transposed.hpp"
#include "kspd_stream_scratch.hpp"
#include "kspd_rfp_herm_impl.hpp"
#include "kspd_rfp_panel_potrf_impl.hpp"

namespace kspd::rfp::Impl {

/// Logical rows [r0, r0+m) x columns [c0, c0+n) of the lower factor's part (pi, pj) (1: the
/// first n1 indices, 2: the last n2; pi >= pj), in local coordinates of the parts.
template <class T, class Mem>
Stored<T, Mem> part(const StoredBlocks<T, Mem>& b, int pi, int pj, size_type r0, size_type m, size_type c0,
                    size_type n) {
  const Stored<T, Mem>& s = pi == 1 ? b.t1 : (pj == 1 ? b.s : b.t2);
  const auto& v = s.v;
  if (s.h) {
    std::swap(r0, c0);
    std::swap(m, n);
  }
  T* p = v.data() + size_t(r0) * v.stride(0) + size_t(c0) * v.stride(1);
  return {BlockView<T, Mem>(p, Kokkos::LayoutStride(size_t(m), v.stride(0), size_t(n), v.stride(1))), s.uplo, s.h};
}

/// X's logical rows followed by Y's (the same logical columns) as ONE block, where the storage
/// runs on from X into Y (NL and TU: A11's stored columns / rows continue into A21's / A12's),
/// so a panel's TRSM and a step's GEMM take one vendor call instead of two; none elsewhere.
template <class T, class Mem>
std::optional<Stored<T, Mem>> join_rows(const Stored<T, Mem>& X, const Stored<T, Mem>& Y) {
  const auto &x = X.v, &y = Y.v;
  if (X.h != Y.h || x.size() == 0 || y.size() == 0 || x.stride(0) != y.stride(0) || x.stride(1) != y.stride(1))
    return std::nullopt;
  const int r = X.h ? 1 : 0;  // the stored dimension of the logical rows
  if (x.extent(1 - r) != y.extent(1 - r) || y.data() != x.data() + x.extent(r) * x.stride(r)) return std::nullopt;
  const size_t e0 = x.extent(0) + (r == 0 ? y.extent(0) : 0), e1 = x.extent(1) + (r == 1 ? y.extent(1) : 0);
  return Stored<T, Mem>{BlockView<T, Mem>(x.data(), Kokkos::LayoutStride(e0, x.stride(0), e1, x.stride(1))), X.uplo,
                        X.h};
}

/// C -= A B^H on logical blocks (a step's update of the columns right of its panel).
template <class ExecSpace, class T, class Mem>
void gemm_logical(const ExecSpace& x, const Stored<T, Mem>& C, Stored<T, Mem> A, Stored<T, Mem> B) {
  if (C.v.extent(0) == 0 || C.v.extent(1) == 0) return;
  if (C.h) std::swap(A, B);  // C^H -= B A^H
  const Trans H = kspd::Impl::herm_trans<T>();
  gemm(x, A.h ? H : Trans::NoTranspose, B.h ? Trans::NoTranspose : H, T(-1), A.v, B.v, T(1), C.v);
}

template <class ExecSpace, class T, class Mem>
class BlockedCholesky {
 public:
  BlockedCholesky(const ExecSpace& exec, const StoredBlocks<T, Mem>& b, size_type nb, bool lookahead,
                  const DenseOptions& opt)
      : lanes_(exec, lookahead, kspd::Impl::SidePriority::Urgent), b_(b), opt_(opt) {
    nb = std::max<size_type>(nb, 1);
    for (int p = 1; p <= 2; ++p)
      for (size_type o = 0; o < np(p); o += nb) cols_.push_back({p, o, std::min(nb, np(p) - o)});
    // the block kernels themselves run their default algorithms, not the blocking override
    opt_.blocking = Blocking::Auto;
    // nb-column steps: an upper-stored diagonal panel is factored in 'L' on a transposed copy
    // in ONE panel workspace on the panel lane for the whole run (core's scratch slot
    // RfpPanelCopy, kept across calls; core's own copy per potrf would take its slot once a
    // step); LAPACK's four calls (one step a half) keep core's own per-block choice
    // (panels factored in shared memory read an upper triangle in place: no copy)
    const size_type wmax = std::max(b.n1, b.n2);
    if (nb < wmax && std::min(nb, wmax) > panel_smem_max<ExecSpace, T>() &&
        (b.t1.uplo == Uplo::Upper || b.t2.uplo == Uplo::Upper) &&
        kspd::Impl::panel_upper_via_lower<ExecSpace, T>(opt)) {
      work_.emplace(lanes_.side(), std::min(nb, wmax), kspd::Impl::ScratchSlot::RfpPanelCopy);
    }
    if (nb < wmax) opt_.upper_via_lower = Toggle::Off;
  }
  size_type steps() const { return cols_.size(); }
  /// Global index (0-based) of block k's first column.
  size_type first_column(size_type k) const { return (cols_[k].p == 1 ? 0 : b_.n1) + cols_[k].o; }

  /// Factors in place; info(k) receives block k's potrf info (on the stream). The panels
  /// (P: the urgent lane) and the trailing updates (U: the caller's) with look-ahead 1: panel
  /// k+1 is updated and factored while U applies panel k to the blocks after it. Without a
  /// second lane both are the caller's and this is the plain right-looking order.
  template <class InfoView>
  void run(const InfoView& info) {
    const size_type K = steps();
    if (K == 0) return;
    const ExecSpace& P = lanes_.side();
    const ExecSpace& U = lanes_.main();
    lanes_.side_waits_main();  // the caller's work on A so far
    factor_panel(P, 0, info);
    for (size_type k = 0; k + 1 < K; ++k) {
      if (lanes_.concurrent()) {
        // recorded before U takes on more: U's update of block k+1 by panel k-1
        lanes_.side_waits_main();
        lanes_.main_waits_side();  // panel k
        update_from(U, k, k + 2);
        update_from(P, k, k + 1, k + 2);
      } else {
        update_from(U, k, k + 1);
      }
      factor_panel(P, k + 1, info);
    }
    lanes_.main_waits_side();  // the last panel, and info
    if (work_) work_->release_after();
  }

 private:
  struct Col {
    int p;        // part
    size_type o;  // first column in the part
    size_type w;  // width
  };
  kspd::Impl::Lanes<ExecSpace> lanes_;
  StoredBlocks<T, Mem> b_;
  DenseOptions opt_;
  std::vector<Col> cols_;
  std::optional<kspd::Impl::SquareWorkspace<ExecSpace, T>> work_;  // the panel copy (none: empty)

  size_type np(int p) const { return p == 1 ? b_.n1 : b_.n2; }

  template <class InfoView>
  void factor_panel(const ExecSpace& x, size_type k, const InfoView& info) {
    const Col c = cols_[k];
    const auto d = part(b_, c.p, c.p, c.o, c.w, c.o, c.w);
    if (d.uplo == Uplo::Upper && work_ && work_->full().extent(1) >= size_t(c.w)) {
      // W = D^H in the workspace, POTRF 'L' on it, back into D's upper triangle
      const auto s = kspd::Impl::make_mat(d.v).t();
      const auto w = Kokkos::subview(work_->full(), Kokkos::make_pair(size_t(0), size_t(c.w)),
                                     Kokkos::make_pair(size_t(0), size_t(c.w)));
      kspd::Impl::copy_lower<ExecSpace, T>(x, s, kspd::Impl::make_mat(w), true);
      potrf(x, Uplo::Lower, w, Kokkos::subview(info, k), opt_);
      kspd::Impl::copy_lower<ExecSpace, T>(x, kspd::Impl::make_mat(w), s, true);
    } else {
      panel_potrf(x, d, Kokkos::subview(info, k).data(), opt_);  // shared memory where it fits
    }
    // L(below, k) = A(below, k) L(k,k)^{-H}
    const size_type r = c.o + c.w;
    auto solve = [&](const Stored<T, Mem>& B) { tri_s(x, true, Side::Right, true, Diag::NonUnit, T(1), d, B, opt_); };
    const auto below = part(b_, c.p, c.p, r, np(c.p) - r, c.o, c.w);
    const auto s21 = part(b_, 2, 1, 0, c.p == 1 ? b_.n2 : 0, c.o, c.w);
    if (const auto j = join_rows(below, s21)) return solve(*j);
    if (r < np(c.p)) solve(below);
    if (c.p == 1 && b_.n2 > 0) solve(s21);
  }

  /// Columns [q0, q1) of part pj minus L(., k) L(cols, k)^H.
  void update_cols(const ExecSpace& x, size_type k, int pj, size_type q0, size_type q1) {
    if (q1 <= q0) return;
    const Col c = cols_[k];
    const size_type w = q1 - q0, n = np(pj);
    const auto C = part(b_, pj, pj, q0, w, q0, w);
    const auto A = part(b_, pj, c.p, q0, w, c.o, c.w);
    herk(x, C.uplo, A.h ? kspd::Impl::herm_trans<T>() : Trans::NoTranspose, real_t<T>(-1), A.v, real_t<T>(1), C.v,
         opt_);
    // the rows below in part pj, then (part 1) A21's: one GEMM where their storage joins
    const auto Cb = part(b_, pj, pj, q1, n - q1, q0, w), Ab = part(b_, pj, c.p, q1, n - q1, c.o, c.w);
    const size_type m2 = pj == 1 ? b_.n2 : 0;
    const auto Cs = part(b_, 2, 1, 0, m2, q0, w), As = part(b_, 2, 1, 0, m2, c.o, c.w);
    const auto jc = join_rows(Cb, Cs), ja = join_rows(Ab, As);
    if (jc && ja) return gemm_logical(x, *jc, *ja, A);
    if (q1 < n) gemm_logical(x, Cb, Ab, A);
    if (m2 > 0) gemm_logical(x, Cs, As, A);
  }

  /// The update by panel k of the columns of blocks [j0, j1) (j1 < 0: to the end).
  void update_from(const ExecSpace& x, size_type k, size_type j0, size_type j1 = -1) {
    if (j1 < 0 || j1 > steps()) j1 = steps();
    if (j0 >= j1) return;
    // the blocks of each part are consecutive: at most one range per part
    for (int p = 1; p <= 2; ++p) {
      size_type q0 = np(p), q1 = 0;
      for (size_type j = j0; j < j1; ++j)
        if (cols_[j].p == p) {
          q0 = std::min(q0, cols_[j].o);
          q1 = std::max(q1, cols_[j].o + cols_[j].w);
        }
      if (q0 < q1) update_cols(x, k, p, q0, q1);
    }
  }
};

/// pftrf on the stored blocks, blocked as `choice` says. Returns info (fences exec once, at
/// the end: the steps' infos stay on the device, in core's scratch, until then; every step
/// writes its own, so the slot needs no reset).
template <class ExecSpace, class T, class Mem>
int pftrf_blocked(const ExecSpace& exec, const StoredBlocks<T, Mem>& b, kspd::Impl::BlockingChoice choice,
                  const DenseOptions& opt) {
  const size_type n = b.n1 + b.n2;
  size_type nb = choice.nb;
  if (choice.kind == Blocking::Split) nb = n;  // one block a half: potrf, trsm, herk, potrf
  BlockedCholesky<ExecSpace, T, Mem> chol(exec, b, nb, choice.kind == Blocking::LookAhead, opt);
  const size_t K = size_t(chol.steps());
  const kspd::Impl::Scratch<ExecSpace> slot(exec, K * sizeof(int), kspd::Impl::ScratchSlot::RfpInfo,
                                            "kspd::rfp::pftrf::info");
  const Kokkos::View<int*, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> info(
      reinterpret_cast<int*>(slot.data()), K);
  chol.run(info);
  std::vector<int> h(K);
  Kokkos::deep_copy(exec, Kokkos::View<int*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), K),
                    info);
  compat::fence(exec, "kspd::rfp::pftrf");
  for (size_t k = 0; k < K; ++k)
    if (h[k] != 0) return h[k] > 0 ? int(chol.first_column(size_type(k))) + h[k] : h[k];
  return 0;
}

}  // namespace kspd::rfp::Impl
#endif
