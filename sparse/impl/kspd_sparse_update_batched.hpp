#ifndef KSPD_SPARSE_UPDATE_BATCHED_HPP
#define KSPD_SPARSE_UPDATE_BATCHED_HPP
/// \file kspd_sparse_update_batched.hpp
/// The rank-k modification of a factor in an execution space's memory (the resident
/// placement; kspd_sparse_update_impl.hpp has the method), by batched kernels: per level of
/// the path (supernodes on different branches, disjoint W columns) one gather of W's rows,
/// then per panel index t one launch of panel_transform for panel t of every supernode of
/// the level (a team each) and one launch applying those panels' Q to the rows below them
/// (a team per chunk of kApplyRows rows: [L(rows, P) W(rows)] <- [L(rows, P) W(rows)] Q,
/// staged in team scratch), then one scatter of W'_B. So a level costs 2 + 2 * (its widest
/// supernode's panels) launches, whatever its width, and nothing waits until the end.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "kspd_sparse_update_impl.hpp"

namespace kspd::sparse::Impl {

/// A path supernode of a level: its rows in rmap, active columns in act, and W's rows in
/// the level's workspace (m x k, ld m).
struct UpdSnode {
  std::int64_t r0, a0, m, c, k, ws;
};
/// One panel of one supernode: columns [p, p + bw) of the supernode at value offset voff;
/// Q and the small matrices in the slots of its supernode; info: its postorder number.
struct UpdPanel {
  std::int64_t voff, m, p, bw, k, ws, q, sm, info;
};
/// A chunk of rows below a panel: rows [row0, row0 + kApplyRows) of panel `panel`.
struct UpdRows {
  std::int64_t panel, row0;
};
inline constexpr int kApplyRows = 32;

template <class Exec>
int update_team_size() {
  return compat::is_host_exec_v<Exec> ? 1 : 128;
}

/// ws[s.ws + i + j m] = Wc(rmap(r0 + i), act(a0 + j)) (gather), or the reverse for rows
/// i >= c (scatter), for the supernodes [b, e) of sd.
template <class Exec, class Scalar, class WcView, class IdxView, class SnView>
void update_move_rows(const Exec& exec, bool gather, const WcView& wc, const IdxView& rmap, const IdxView& act,
                      const SnView& sd, size_type b, size_type e, Scalar* ws) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  Kokkos::parallel_for(
      gather ? "kspd::sparse::update::gather" : "kspd::sparse::update::scatter",
      Policy(exec, int(e - b), update_team_size<Exec>()), KOKKOS_LAMBDA(const typename Policy::member_type& mb) {
        const UpdSnode d = sd(b + mb.league_rank());
        const std::int64_t i0 = gather ? 0 : d.c, rows = d.m - i0;
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows * d.k), [&](const std::int64_t t) {
          const std::int64_t i = i0 + t % rows, j = t / rows;
          Scalar& w = ws[d.ws + i + j * d.m];
          Scalar& g = wc(rmap(d.r0 + i), act(d.a0 + j));
          if (gather) w = g;
          else g = w;
        });
      });
}

/// panel_transform for the panels [b, e) of pd, a team each.
template <class Exec, class Scalar, class PanelView>
void update_transform(const Exec& exec, const PanelView& pd, size_type b, size_type e, Scalar* vals, Scalar* ws, Scalar* qb,
                      Scalar* sm, int* infos, Scalar sg, std::int64_t nbmax, std::int64_t kmax) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::parallel_for(
      "kspd::sparse::update::panel_transform", Policy(exec, int(e - b), update_team_size<Exec>()),
      KOKKOS_LAMBDA(const typename Policy::member_type& mb) {
        const UpdPanel d = pd(b + mb.league_rank());
        auto mat = [](Scalar* p, std::int64_t r, std::int64_t c, std::int64_t ld) {
          return Mat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(ld)));
        };
        const std::int64_t bw = d.bw, k = d.k;
        Scalar* z = sm + d.sm;
        Scalar* g = z + nbmax * kmax;
        Scalar* r = g + nbmax * nbmax;
        Scalar* t = r + kmax * kmax;
        panel_transform(mb, mat(vals + d.voff + d.p + d.p * d.m, bw, bw, d.m), mat(ws + d.ws + d.p, bw, k, d.m), sg,
                        mat(z, bw, k, bw), mat(g, bw, bw, bw), mat(r, k, k, k), mat(t, bw, bw, bw),
                        mat(qb + d.q, bw + k, bw + k, bw + k), infos + 2 * d.info);
      });
}

/// The rows below the panels through their Q: the chunks [b, e) of rows, a team each,
/// [L W] staged in team scratch (kApplyRows x (bw + k)), then multiplied by Q in place.
template <class Exec, class Scalar, class PanelView, class RowsView>
void update_apply(const Exec& exec, const PanelView& pd, const RowsView& rd, size_type b, size_type e, Scalar* vals,
                  Scalar* ws, const Scalar* qb, std::int64_t kbmax) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Scratch = Kokkos::View<Scalar*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const size_t bytes = Scratch::shmem_size(size_t(kApplyRows * kbmax));
  Kokkos::parallel_for(
      "kspd::sparse::update::apply",
      Policy(exec, int(e - b), update_team_size<Exec>()).set_scratch_size(0, Kokkos::PerTeam(bytes)),
      KOKKOS_LAMBDA(const typename Policy::member_type& mb) {
        const UpdRows c = rd(b + mb.league_rank());
        const UpdPanel d = pd(c.panel);
        const std::int64_t bw = d.bw, kb = d.bw + d.k, m = d.m;
        const std::int64_t rows = (m - c.row0 < kApplyRows) ? m - c.row0 : kApplyRows;
        Scratch x(mb.team_scratch(0), size_t(kApplyRows * kbmax));
        Scalar* l = vals + d.voff + c.row0 + d.p * m;  // L(row0 + i, p + j) = l[i + j m]
        Scalar* w = ws + d.ws + c.row0;                // W(row0 + i, j) = w[i + j m]
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows * kb), [&](const std::int64_t t) {
          const std::int64_t i = t % rows, j = t / rows;
          x(i + j * kApplyRows) = j < bw ? l[i + j * m] : w[i + (j - bw) * m];
        });
        mb.team_barrier();
        const Scalar* q = qb + d.q;  // kb x kb, ld kb
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows * kb), [&](const std::int64_t t) {
          const std::int64_t i = t % rows, j = t / rows;
          Scalar y = 0;
          for (std::int64_t s = 0; s < kb; ++s) y += x(i + s * kApplyRows) * q[s + j * kb];
          if (j < bw) l[i + j * m] = y;
          else w[i + (j - bw) * m] = y;
        });
      });
}

/// The modification of the factor `vals` in Exec's memory, queued on exec; one wait, at the
/// end. Returns the first failure of a downdate (supernode, column within it; pivot NaN),
/// after which the factor is modified past it and unusable.
template <class Scalar, class Exec>
PivotFailure update_batched(const Exec& exec, const Symbolic& S, Scalar* vals, const UpdatePlan& P,
                            const SparseColumns<Scalar>& W, Sign sign) {
  using Mem = typename Exec::memory_space;
  if (P.path.empty() || P.k == 0) return {};
  const Scalar sg = sign == Sign::Plus ? Scalar(1) : Scalar(-1);
  const std::int64_t kmax = P.k, nbmax = update_panel_width(kmax, true), kbmax = nbmax + kmax;
  const std::int64_t smallsz = nbmax * kmax + 2 * nbmax * nbmax + kmax * kmax;
  const auto noinit = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
  auto upload = [&](const char* name, const auto& h) {
    using T = typename std::decay_t<decltype(h)>::value_type;
    Kokkos::View<T*, Mem> d(noinit(name), std::max<size_t>(h.size(), 1));
    Kokkos::deep_copy(exec, Kokkos::subview(d, std::make_pair(size_t(0), h.size())),
                      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    return d;
  };
  // W in the compact row numbering of the path's columns (ncompact x k), built on the host.
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem> wc(noinit("kspd::sparse::update::W"), size_t(P.ncompact), size_t(kmax));
  {
    auto h = Kokkos::create_mirror_view(wc);
    Kokkos::deep_copy(h, Scalar(0));
    for (size_type j = 0; j < kmax; ++j)
      for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p)
        h(size_t(P.w_row[size_t(p)]), size_t(j)) = W.values[size_t(p)];
    Kokkos::deep_copy(exec, wc, h);
  }
  // The launches' descriptors, for all levels, uploaded once.
  const std::vector<size_type> pnum = panel_numbering(S, P, true);
  std::vector<UpdSnode> sh;
  std::vector<UpdPanel> ph;
  std::vector<UpdRows> rh;
  struct Step {
    size_type pb, pe, rb, re;
  };
  std::vector<Step> steps;
  std::vector<size_type> level_steps{0};
  std::int64_t ws_max = 0, width = 0;
  for (size_type l = 0; l < P.levels(); ++l) {
    const size_type b = P.level_begin[size_t(l)], e = P.level_begin[size_t(l + 1)];
    std::int64_t ws = 0, npan = 0;
    for (size_type i = b; i < e; ++i) {
      const size_t q = size_t(P.level_order[size_t(i)]);
      const Supernode& sn = S.snodes[size_t(P.path[q])];
      const std::int64_t k = P.act_begin[q + 1] - P.act_begin[q];
      sh.push_back(UpdSnode{P.row_begin[q], P.act_begin[q], sn.nrows(), sn.ncols, k, ws});
      ws += sn.nrows() * k;
      npan = std::max<std::int64_t>(npan, (sn.ncols + nbmax - 1) / nbmax);
    }
    ws_max = std::max(ws_max, ws);
    width = std::max<std::int64_t>(width, e - b);
    for (std::int64_t t = 0; t < npan; ++t) {
      Step st{size_type(ph.size()), 0, size_type(rh.size()), 0};
      for (size_type i = b; i < e; ++i) {
        const size_t q = size_t(P.level_order[size_t(i)]);
        const UpdSnode& d = sh[size_t(sh.size() - size_t(e - i))];
        const std::int64_t p = t * nbmax;
        if (p >= d.c) continue;
        const std::int64_t bw = std::min(nbmax, d.c - p), slot = std::int64_t(i - b);
        const std::int64_t pi = std::int64_t(ph.size());
        ph.push_back(UpdPanel{S.snodes[size_t(P.path[q])].value_offset, d.m, p, bw, d.k, d.ws, slot * kbmax * kbmax,
                              slot * smallsz, pnum[q] + t});
        for (std::int64_t r = p + bw; r < d.m; r += kApplyRows) rh.push_back(UpdRows{pi, r});
      }
      st.pe = size_type(ph.size());
      st.re = size_type(rh.size());
      steps.push_back(st);
    }
    level_steps.push_back(size_type(steps.size()));
  }
  const auto sd = upload("kspd::sparse::update::snodes", sh);
  const auto pd = upload("kspd::sparse::update::panels", ph);
  const auto rd = upload("kspd::sparse::update::rows", rh);
  const auto rmap = upload("kspd::sparse::update::rmap", P.rmap), act = upload("kspd::sparse::update::active", P.act);
  Kokkos::View<int*, Mem> infos("kspd::sparse::update::info", size_t(std::max<size_type>(2 * pnum.back(), 1)));
  Kokkos::View<Scalar*, Mem> ws(noinit("kspd::sparse::update::Ws"), size_t(std::max<std::int64_t>(ws_max, 1)));
  Kokkos::View<Scalar*, Mem> qb(noinit("kspd::sparse::update::Q"), size_t(width * kbmax * kbmax));
  Kokkos::View<Scalar*, Mem> sm(noinit("kspd::sparse::update::small"), size_t(width * smallsz));
  size_type s0 = 0;
  for (size_type l = 0; l < P.levels(); ++l) {
    const size_type s1 = s0 + P.level_begin[size_t(l + 1)] - P.level_begin[size_t(l)];
    update_move_rows(exec, true, wc, rmap, act, sd, s0, s1, ws.data());
    for (size_type t = level_steps[size_t(l)]; t < level_steps[size_t(l + 1)]; ++t) {
      const Step& st = steps[size_t(t)];
      update_transform(exec, pd, st.pb, st.pe, vals, ws.data(), qb.data(), sm.data(), infos.data(), sg, nbmax, kmax);
      if (st.re > st.rb) update_apply(exec, pd, rd, st.rb, st.re, vals, ws.data(), qb.data(), kbmax);
    }
    update_move_rows(exec, false, wc, rmap, act, sd, s0, s1, ws.data());
    s0 = s1;
  }
  exec.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), infos);
  return first_failure(S, P, true, [&](size_t i) { return h(i); });
}

}  // namespace kspd::sparse::Impl
#endif
