#ifndef KSPD_SPARSE_UPDATE_BATCHED_HPP
#define KSPD_SPARSE_UPDATE_BATCHED_HPP
/// \file kspd_sparse_update_batched.hpp
/// The rank-k modification of a factor in an execution space's memory (the resident
/// placement; kspd_sparse_update_impl.hpp has the method), by batched kernels: a path
/// supernode with np panels takes np + 1 consecutive launches (update_step); in its launch t
/// its panel t's team first takes the panel's rows through panel t - 1's Q, then runs
/// panel_transform, while other teams take the rest of the rows below panel t - 1 through that
/// Q (a team per chunk of xr = max(kApplyRows, nb) rows:
/// [L(rows, P) W(rows)] <- [L(rows, P) W(rows)] Q, staged in team scratch). Its first launch
/// also gathers its W rows from the compact W, and the rows below its last panel go back
/// there. A supernode starts in the launch after its
/// children's last ones, and every supernode due in a launch shares it (those on different
/// branches touch disjoint W columns), so the launches follow the longest chain of panels up
/// the tree, and nothing waits until the end. (The panel's own rows are all its transform
/// needs from panel t - 1: a look-ahead of one panel, which halves the launches of a
/// transform launch followed by an apply launch.) The lone wide supernodes
/// (update_wide_choice) take no launch: their wide panels (kspd_sparse_update_wide.hpp) go on
/// exec and side lanes in their slot, before that slot's launch.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "kspd_sparse_update_impl.hpp"
#include "kspd_sparse_update_wide.hpp"

namespace kspd::sparse::Impl {

/// A path supernode: its rows in the factor's row structure (Symbolic::rows), active
/// columns in act, and W's rows in the workspace (m x k, ld m).
struct UpdSnode {
  std::int64_t r0, a0, m, c, k, ws;
};
/// One panel of one supernode: columns [p, p + bw) of the supernode at value offset voff;
/// Q in the slot of its supernode and parity; info: its postorder number; prev: the
/// supernode's previous panel (index in the panels), or -1 (then the panel's team gathers
/// the panel's W rows); r0, a0: the supernode's rows in the row structure and active
/// columns in act; last: the supernode's last panel (the rows below it go back to W).
struct UpdPanel {
  std::int64_t voff, m, p, bw, k, ws, q, info, prev, r0, a0, last;
};
/// W (n x k, ld ldw) in the factor's numbering on the device, the factor's row structure
/// (Symbolic::rows, resident with the factor) and the path supernodes' active columns.
template <class Scalar>
struct UpdW {
  Scalar* wc;
  std::int64_t ldw;
  const std::int64_t* rows;
  const std::int64_t* act;
  /// W(row r0 + i, column a0 + j) of a supernode (r0, a0: its offsets in rows and act)
  KOKKOS_INLINE_FUNCTION Scalar& at(std::int64_t r0, std::int64_t a0, std::int64_t i, std::int64_t j) const {
    return wc[rows[r0 + i] + act[a0 + j] * ldw];
  }
};
/// The rows below a panel in one launch: from row0 on, of panel `panel`, in chunks of xr rows
/// (update_step's xr), a team each: the launch's row teams team0, team0 + 1, ...
struct UpdRows {
  std::int64_t panel, row0, team0;
};
inline constexpr int kApplyRows = 32;
/// Rows per chunk for panels of nb columns: a panel's rows fit one chunk.
inline int update_chunk_rows(std::int64_t nb) { return int(nb > kApplyRows ? nb : kApplyRows); }

/// Diagnostics of update_batched for perf_sparse_update --step-profile (an internal hook,
/// not an option: nullptr in the library's use). While update_profile() points at one,
/// update_batched fences exec after each phase (and after each step launch if fence_steps)
/// and records the times (seconds, steady clock) there. `part` other than All launches only
/// the panels' teams (the dependent chain) or only the teams of the rows below: for timing,
/// the factor is garbage after. team_size > 0 replaces update_team_size.
struct UpdateProfile {
  enum class Part { All, Panels, Rows };
  Part part = Part::All;
  int team_size = 0;
  bool fence_steps = true;
  /// phases: the panel teams mark the clock at their phase boundaries (team_mark; cycles on
  /// a device); phase_cycles[i]: the sum over the panels of phase i (kPanelPhases - 1 of
  /// them), phase_panels: the panels summed.
  bool phases = false;
  std::vector<double> phase_cycles;
  long phase_panels = 0;
  struct Step {
    int level;  ///< the highest tree level (height in the path) among the launch's supernodes
    int panels, rows, gathers;  ///< its teams of each kind
    int wides;       ///< wide supernodes run before the launch (kspd_sparse_update_wide.hpp)
    double wide;     ///< their host time to the fence after them (fence_steps only)
    double gap;      ///< host time from the previous step's end (its fence) to this launch call
    double enqueue;  ///< the launch call's host time
    double done;     ///< launch call + kernel, to the fence's return (fence_steps only)
  };
  std::vector<Step> steps;
  double t_w = 0, t_desc = 0, t_alloc = 0, t_steps = 0, t_tail = 0;  ///< phases, each fenced
};
inline UpdateProfile*& update_profile() {
  static UpdateProfile* p = nullptr;
  return p;
}

/// A team per panel or chunk of rows: 512 threads on a device. The panel's transform is a
/// chain of small steps, each spread over the team; on the H100 (40^3, rank 16) its launches
/// took 44 ms with 128 threads, 30 ms with 256 and 25 ms with 512 (75 ms with 64): the
/// steps' work per thread, not the barriers, sets the pace.
template <class Exec>
int update_team_size() {
  if (const UpdateProfile* prof = update_profile(); prof && prof->team_size > 0) return prof->team_size;
  return compat::is_host_exec_v<Exec> ? 1 : 512;
}

/// Rows [row0, row0 + rows) of panel d (rows <= xr) and of its W rows through its Q, by one
/// team: [L(rows, P) W(rows)] <- [L(rows, P) W(rows)] Q, staged in x (xr x (bw + k), ld xr).
/// Below the supernode's last panel the new W rows go to the compact W (for the ancestors),
/// not back to ws. 32-bit indices and pointers captured by value (see panel_transform).
template <class Member, class Scalar>
KOKKOS_INLINE_FUNCTION void update_apply_rows(const Member& mb, const UpdPanel& d, std::int64_t row0, int rows,
                                              Scalar* vals, Scalar* ws, const UpdW<Scalar>& W, const Scalar* qb, Scalar* x,
                                              int xr) {
  const int bw = int(d.bw), kb = int(d.bw + d.k);
  const std::int64_t m = d.m;
  Scalar* const l = vals + d.voff + row0 + d.p * m;  // L(row0 + i, p + j) = l[i + j m]
  Scalar* const w = ws + d.ws + row0;                // W(row0 + i, j) = w[i + j m]
  Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows * kb), [=](const int t) {
    int j, i;
    index_split(t, rows, j, i);
    x[i + j * xr] = j < bw ? l[i + j * m] : w[i + (j - bw) * m];
  });
  mb.team_barrier();
  const Scalar* const q = qb + d.q;  // kb x kb, ld kb
  const bool last = d.last != 0;
  const std::int64_t r0 = d.r0, a0 = d.a0;
  Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows * kb), [=](const int t) {
    int j, i;
    index_split(t, rows, j, i);
    const Scalar* const qj = q + j * kb;
    Scalar y = 0;
    for (int s = 0; s < kb; ++s) y += x[i + s * xr] * qj[s];
    if (j < bw) l[i + j * m] = y;
    else if (last) W.at(r0, a0, row0 + i, j - bw) = y;
    else w[i + (j - bw) * m] = y;
  });
}

/// One launch: the panels [pb, pe) of pd (a team each: first the rows of the panel through
/// the previous panel's Q, or for a supernode's first panel the panel's W rows gathered from
/// W, then panel_transform), the nrt chunks of the groups [rb, re) of rd (the other rows
/// below the previous panels, a team each) and the gather of the other W rows of the
/// supernodes [gb, ge) of sd that start (a team each). The teams touch disjoint rows, and a
/// panel's Q goes to the slot of its parity (the previous panel's Q is read in the same
/// launch). Team scratch: the staging of a chunk, and the
/// panel's small matrices in the same space (the staging is done when the transform starts)
/// in the block's shared memory where both fit, else the staging there and the small
/// matrices in level 1, else both in level 1 (wide panels at rank 64).
template <class Exec, class Scalar, class PanelView, class RowsView, class SnView>
void update_step(const Exec& exec, const PanelView& pd, const RowsView& rd, const SnView& sd, size_type pb, size_type pe,
                 size_type rb, size_type re, size_type nrt, size_type gb, size_type ge, Scalar* vals, Scalar* ws,
                 const UpdW<Scalar>& W,
                 Scalar* qb, int* infos, Scalar sg, std::int64_t nbmax, std::int64_t kmax, std::uint64_t* tics) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Scratch = Kokkos::View<Scalar*, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const int xr = update_chunk_rows(nbmax);
  const size_t nx = size_t(xr * (nbmax + kmax)), ns = size_t(panel_small_size(nbmax, kmax));
  const size_t max0 = size_t(Policy::scratch_size_max(0));
  const bool both0 = Scratch::shmem_size(std::max(nx, ns)) <= max0, x0 = Scratch::shmem_size(nx) <= max0;
  const size_t n0 = both0 ? std::max(nx, ns) : x0 ? nx : 0, n1 = both0 ? 0 : x0 ? ns : std::max(nx, ns);
  const auto policy_of = [&](int team) {
    Policy p(exec, int((pe - pb) + nrt + (ge - gb)), team);
    if (n0 > 0) p.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(n0)));
    if (n1 > 0) p.set_scratch_size(1, Kokkos::PerTeam(Scratch::shmem_size(n1)));
    return p;
  };
  const std::int64_t npan = std::int64_t(pe - pb), nrows = std::int64_t(nrt);
  const auto step = KOKKOS_LAMBDA(const typename Policy::member_type& mb) {
        const std::int64_t r = mb.league_rank();
        if (r >= npan + nrows) {  // gather W's rows below the supernode's first panel
          const UpdSnode d = sd(gb + (r - npan - nrows));
          const std::int64_t i0 = d.c < nbmax ? d.c : nbmax, rows = d.m - i0;
          Scalar* const w = ws + d.ws;
          const std::int64_t m = d.m, r0 = d.r0, a0 = d.a0;
          for (std::int64_t j = 0; j < d.k; ++j)  // a column at a time: no 64-bit division per entry
            Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, rows), [=](const std::int64_t i) {
              w[i0 + i + j * m] = W.at(r0, a0, i0 + i, j);
            });
          return;
        }
        Scratch x = x0 ? Scratch(mb.team_scratch(0), nx) : Scratch(mb.team_scratch(1), n1);
        if (r >= npan) {
          const std::int64_t u = r - npan;  // the last group with team0 <= u
          size_type lo = rb, hi = re - 1;
          while (lo < hi) {
            const size_type mid = (lo + hi + 1) / 2;
            if (rd(mid).team0 <= u) lo = mid;
            else hi = mid - 1;
          }
          const UpdRows c = rd(lo);
          const UpdPanel d = pd(c.panel);
          const std::int64_t row0 = c.row0 + (u - c.team0) * xr;
          const int rows = int(d.m - row0 < xr ? d.m - row0 : xr);
          update_apply_rows(mb, d, row0, rows, vals, ws, W, qb, x.data(), xr);
          return;
        }
        const UpdPanel d = pd(pb + r);
        std::uint64_t* const tp = tics ? tics + (std::int64_t(pb) + r) * kPanelPhases : nullptr;
        team_mark(mb, tp, 0);
        if (d.prev >= 0) {
          update_apply_rows(mb, pd(d.prev), d.p, int(d.bw), vals, ws, W, qb, x.data(), xr);
        } else {  // the first panel: its W rows
          const int bw = int(d.bw);
          Scalar* const w = ws + d.ws;
          const std::int64_t m = d.m, p = d.p, r0 = d.r0, a0 = d.a0;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, bw * int(d.k)), [=](const int t) {
            int j, i;
            index_split(t, bw, j, i);
            w[p + i + j * m] = W.at(r0, a0, p + i, j);
          });
        }
        mb.team_barrier();
        team_mark(mb, tp, 1);
        Scalar* small = both0 || !x0 ? x.data() : Scratch(mb.team_scratch(1), n1).data();
        panel_transform(mb, vals + d.voff + d.p + d.p * d.m, d.m, ws + d.ws + d.p, d.m, int(d.bw), int(d.k), sg, small,
                        qb + d.q, infos + 2 * d.info, tp);
      };
  // The measured team size, or fewer threads where this build's registers or scratch allow
  // fewer (the kernel is correct for any team size).
  const int team = std::min(update_team_size<Exec>(), policy_of(1).team_size_max(step, Kokkos::ParallelForTag()));
  Kokkos::parallel_for("kspd::sparse::update::step", policy_of(team), step);
}

/// Wide supernode d (its rows r0.. of the row structure, active columns a0.., m x k) by
/// panels of nb columns through core's dense API (kspd_sparse_update_wide.hpp) on lanes: its
/// W rows gathered from W into buf, each panel's W'_B into the next part of buf (panel i at
/// p_i reads (m - p_i) x k, ld m - p_i, and writes the (m - p_i - bw_i) x k after it; the
/// side lane reads a panel's part after main has moved on), the rows below its columns back
/// to W (main). The panels take the lanes in turn (lane: the next one's index, mod nlanes;
/// all share main). buf: update_wide_buffer(m, c, k, nb) scalars; g: each lane's nb x nb in
/// turn; r: main's k x k; infos: two per panel from its first panel's number on.
template <class Exec, class Scalar>
void update_wide_snode(const std::vector<kspd::Impl::Lanes<Exec>>& lanes, int& lane, const UpdSnode& d, Scalar* vals,
                       std::int64_t voff, const UpdW<Scalar>& W, Scalar s, std::int64_t nb, Scalar* buf, Scalar* g, Scalar* r,
                       int* infos) {
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const Exec& exec = lanes[0].main();
  const std::int64_t m = d.m, k = d.k, c = d.c, r0 = d.r0, a0 = d.a0;
  const auto mat = [](Scalar* p, std::int64_t rows, std::int64_t cols, std::int64_t ld) {
    return Mat(p, Kokkos::LayoutStride(size_t(rows), 1, size_t(cols), size_t(ld > 0 ? ld : 1)));
  };
  Kokkos::parallel_for("kspd::sparse::update::wide::gather", Kokkos::RangePolicy<Exec>(exec, 0, m * k),
                       KOKKOS_LAMBDA(const std::int64_t u) { buf[u] = W.at(r0, a0, u % m, u / m); });
  Scalar* in = buf;
  for (std::int64_t p = 0, i = 0; p < c; p += nb, ++i) {
    const std::int64_t bw = std::min(nb, c - p), mr = m - p;
    Scalar* const out = in + mr * k;
    const int l = lane;
    lane = (lane + 1) % int(lanes.size());
    update_wide_panel(lanes[size_t(l)], mat(vals + voff + p + p * m, mr, bw, m), mat(in, mr, k, mr),
                      mat(out, mr - bw, k, mr - bw), s, mat(g + l * nb * nb, bw, bw, bw), mat(r, k, k, k), infos + 2 * i,
                      infos + 2 * i + 1);
    in = out;
  }
  const std::int64_t below = m - c;  // W'_B below the supernode (ld below), for the ancestors
  Scalar* const wb = in;
  if (below > 0)
    Kokkos::parallel_for("kspd::sparse::update::wide::scatter", Kokkos::RangePolicy<Exec>(exec, 0, below * k),
                         KOKKOS_LAMBDA(const std::int64_t u) { W.at(r0, a0, c + u % below, u / below) = wb[u]; });
}
/// The scalars of update_wide_snode's buf: the W rows of each panel and those below the last.
inline std::int64_t update_wide_buffer(std::int64_t m, std::int64_t c, std::int64_t k, std::int64_t nb) {
  std::int64_t n = 0;
  for (std::int64_t p = 0; p < c; p += nb) n += (m - p) * k;
  return n + (m - c) * k;
}

/// The modification of the factor `vals` in Exec's memory (`rows`: Symbolic::rows there),
/// queued on exec; one wait, at the end. Returns the first failure of a downdate
/// (supernode, column within it; pivot NaN), after which the factor is modified past it and
/// unusable.
template <class Scalar, class Exec>
PivotFailure update_batched(const Exec& exec, const Symbolic& S, Scalar* vals, const std::int64_t* rows,
                            const UpdatePlan& P, const SparseColumns<Scalar>& W, Sign sign) {
  using Mem = typename Exec::memory_space;
  if (P.path.empty() || P.k == 0) return {};
  UpdateProfile* const prof = update_profile();
  const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  double t_last = prof ? (exec.fence(), clock()) : 0;
  const auto phase = [&](double& acc) {  // the time since the last mark, fenced
    if (!prof) return;
    exec.fence();
    const double t = clock();
    acc += t - t_last;
    t_last = t;
  };
  const Scalar sg = sign == Sign::Plus ? Scalar(1) : Scalar(-1);
  const std::int64_t kmax = P.k, nbmax = update_panel_width(kmax, true), kbmax = nbmax + kmax;
  const int xr = update_chunk_rows(nbmax);
  KSPD_REQUIRE(nbmax >= 1 && nbmax <= 64, Error, "kspd::sparse::update: panels of " << nbmax << " columns; 1 to 64 (internal)");
  const auto noinit = [](const char* name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(name)); };
  auto upload = [&](const char* name, const auto& h) {
    using T = typename std::decay_t<decltype(h)>::value_type;
    Kokkos::View<T*, Mem> d(noinit(name), std::max<size_t>(h.size(), 1));
    Kokkos::deep_copy(exec, Kokkos::subview(d, std::make_pair(size_t(0), h.size())),
                      Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    return d;
  };
  // W in the factor's numbering (n x k), zeroed and filled on exec: only its nonzeros travel
  // (a dense copy of the path's rows took 1.6 ms per update at 40^3 rank 16 on the H100's
  // host, 13-20 ms at rank 64).
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem> wc(noinit("kspd::sparse::update::W"), size_t(S.n), size_t(kmax));
  Kokkos::deep_copy(exec, wc, Scalar(0));
  {
    std::vector<std::int64_t> wi;
    std::vector<Scalar> wv;
    const std::int64_t ld = std::int64_t(wc.stride_1());
    for (size_type j = 0; j < kmax; ++j)
      for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p) {
        wi.push_back(S.iperm[size_t(W.rowind[size_t(p)])] + j * ld);
        wv.push_back(W.values[size_t(p)]);
      }
    const auto di = upload("kspd::sparse::update::W_index", wi);
    const auto dv = upload("kspd::sparse::update::W_values", wv);
    Scalar* const w = wc.data();
    Kokkos::parallel_for("kspd::sparse::update::W", Kokkos::RangePolicy<Exec>(exec, size_t(0), wi.size()),
                         KOKKOS_LAMBDA(const size_t p) { w[di(p)] = dv(p); });
  }
  if (prof) phase(prof->t_w);
  // The launches' descriptors, uploaded once. Path supernode q (np[q] panels) takes the
  // launches start[q] .. start[q] + np[q]: launch start[q] + t runs its panel t (t < np[q])
  // and the rows below its panel t - 1 (t > 0); the first also gathers its W rows. q starts
  // right after the last launch of each child (the one that writes the W rows q gathers), not
  // after the whole tree level below it: the launches follow the longest chain of panels up
  // the tree, not the sum over levels of each level's widest supernode. Supernodes on
  // different branches touch disjoint W columns, so any of them may share a launch; a
  // supernode's W rows and its two Q slots (by panel parity) are taken at its first launch
  // and given back after its last. A wide supernode (update_wide_choice) takes no launch:
  // its calls go on exec in its slot, before that slot's launch, with workspaces of its own
  // (the wide supernodes run one after the other on exec).
  const size_t npath = P.path.size();
  const std::vector<char> wide = update_wide_choice<Exec>(S, P, nbmax);
  const std::int64_t nbw = update_wide_width();
  std::vector<size_type> nbs = panel_widths(P, true);
  std::vector<std::int64_t> wide_off(npath + 1, 0);  // each wide supernode's part of the W-rows buffer
  for (size_t q = 0; q < npath; ++q) {
    const Supernode& sn = S.snodes[size_t(P.path[q])];
    if (wide[q]) nbs[q] = nbw;
    wide_off[q + 1] =
        wide_off[q] + (wide[q] ? update_wide_buffer(sn.nrows(), sn.ncols, P.act_begin[q + 1] - P.act_begin[q], nbw) : 0);
  }
  const std::vector<size_type> pnum = panel_numbering(S, P, nbs);
  std::vector<std::int64_t> np, start, height(npath, 0);
  const std::int64_t nlaunch = update_schedule(S, P, nbmax, np, start, wide);
  for (size_type l = 0; l < P.levels(); ++l)
    for (size_type i = P.level_begin[size_t(l)]; i < P.level_begin[size_t(l + 1)]; ++i) height[size_t(P.level_order[size_t(i)])] = l;
  std::vector<std::vector<size_t>> at(static_cast<size_t>(nlaunch)), wide_at(static_cast<size_t>(nlaunch));
  for (size_t q = 0; q < npath; ++q)  // the supernodes of each launch, the wide ones of each slot
    if (wide[q]) wide_at[size_t(start[q])].push_back(q);
    else
      for (std::int64_t t = 0; t <= np[q]; ++t) at[size_t(start[q] + t)].push_back(q);
  std::vector<size_t> wl;  // the wide supernodes, slot by slot
  std::vector<UpdSnode> sh;
  std::vector<UpdPanel> ph;
  std::vector<UpdRows> rh;
  struct Step {
    size_type pb, pe, rb, re, nrt, gb, ge, level, wb, we;
  };
  std::vector<Step> steps;
  std::vector<std::pair<std::int64_t, std::int64_t>> ws_free;  // first fit: (offset, size), sorted
  std::int64_t ws_max = 0;
  std::vector<std::int64_t> q_free;  // Q slot pairs
  std::int64_t nslots = 0;
  std::vector<std::int64_t> sidx(npath, -1), slot(npath, -1), lastp(npath, -1);
  for (std::int64_t L = 0; L < nlaunch; ++L) {
    if (L > 0)
      for (size_t q : at[size_t(L - 1)])
        if (start[q] + np[q] == L - 1) {  // q's last launch was L - 1: its W rows and Q slots are free
          const UpdSnode& d = sh[size_t(sidx[q])];
          ws_free.emplace_back(d.ws, d.m * d.k);
          std::sort(ws_free.begin(), ws_free.end());
          size_t o = 0;
          for (size_t i = 1; i < ws_free.size(); ++i)
            if (ws_free[o].first + ws_free[o].second == ws_free[i].first) ws_free[o].second += ws_free[i].second;
            else ws_free[++o] = ws_free[i];
          ws_free.resize(o + 1);
          q_free.push_back(slot[q]);
        }
    Step st{size_type(ph.size()), 0, size_type(rh.size()), 0, 0, size_type(sh.size()), 0, 0, size_type(wl.size()), 0};
    for (size_t q : wide_at[size_t(L)]) wl.push_back(q), st.level = std::max<size_type>(st.level, size_type(height[q]));
    st.we = size_type(wl.size());
    for (size_t q : at[size_t(L)]) {
      st.level = std::max<size_type>(st.level, size_type(height[q]));
      if (start[q] != L) continue;
      const Supernode& sn = S.snodes[size_t(P.path[q])];
      const std::int64_t k = P.act_begin[q + 1] - P.act_begin[q], need = sn.nrows() * k;
      std::int64_t off = -1;
      for (size_t i = 0; i < ws_free.size() && off < 0; ++i)
        if (ws_free[i].second >= need) {
          off = ws_free[i].first;
          ws_free[i].first += need, ws_free[i].second -= need;
          if (ws_free[i].second == 0) ws_free.erase(ws_free.begin() + std::ptrdiff_t(i));
        }
      if (off < 0) off = ws_max, ws_max += need;
      if (q_free.empty()) q_free.push_back(nslots++);
      slot[q] = q_free.back();
      q_free.pop_back();
      sidx[q] = std::int64_t(sh.size());
      sh.push_back(UpdSnode{sn.row_begin, P.act_begin[q], sn.nrows(), sn.ncols, k, off});
    }
    st.ge = size_type(sh.size());
    // panel t of each supernode that has one, and the rows below its panel t - 1 (those of
    // panel t go with its transform)
    for (size_t q : at[size_t(L)]) {
      const UpdSnode& d = sh[size_t(sidx[q])];
      const std::int64_t t = L - start[q], p = t * nbmax, prev = lastp[q];
      std::int64_t r0 = prev >= 0 ? ph[size_t(prev)].p + ph[size_t(prev)].bw : d.m;  // prev's rows from r0 on
      lastp[q] = -1;
      if (t < np[q]) {
        const std::int64_t bw = std::min(nbmax, d.c - p);
        lastp[q] = std::int64_t(ph.size());
        ph.push_back(UpdPanel{S.snodes[size_t(P.path[q])].value_offset, d.m, p, bw, d.k, d.ws,
                              (2 * slot[q] + t % 2) * kbmax * kbmax, pnum[q] + t, prev, d.r0, d.a0, p + bw == d.c});
        r0 = p + bw;
      }
      if (prev >= 0 && r0 < d.m) {
        rh.push_back(UpdRows{prev, r0, std::int64_t(st.nrt)});
        st.nrt += size_type((d.m - r0 + xr - 1) / xr);
      }
    }
    st.pe = size_type(ph.size());
    st.re = size_type(rh.size());
    if (st.pe > st.pb || st.nrt > 0 || st.ge > st.gb || st.we > st.wb) steps.push_back(st);
  }
  if (prof) phase(prof->t_desc);
  const auto sd = upload("kspd::sparse::update::snodes", sh);
  const auto pd = upload("kspd::sparse::update::panels", ph);
  const auto rd = upload("kspd::sparse::update::rows", rh);
  const auto act = upload("kspd::sparse::update::active", P.act);
  Kokkos::View<int*, Mem> infos("kspd::sparse::update::info", size_t(std::max<size_type>(2 * pnum.back(), 1)));
  Kokkos::View<Scalar*, Mem> ws(noinit("kspd::sparse::update::Ws"), size_t(std::max<std::int64_t>(ws_max, 1)));
  Kokkos::View<Scalar*, Mem> qb(noinit("kspd::sparse::update::Q"), size_t(std::max<std::int64_t>(2 * nslots * kbmax * kbmax, 1)));
  const UpdW<Scalar> Wd{wc.data(), std::int64_t(wc.stride_1()), rows, act.data()};
  Kokkos::View<std::uint64_t*, Mem> tics;
  // the wide supernodes' W rows (every panel's own, read later by a side lane), G (each side
  // lane's), R (main's); the lanes (one, program order, while the profile times each call)
  const bool concurrent = !wl.empty() && !update_wide_profile();
  const int nlanes = concurrent ? update_wide_lanes() : 1;
  std::vector<kspd::Impl::Lanes<Exec>> lanes;
  for (int l = 0; l < nlanes; ++l) lanes.emplace_back(exec, concurrent, kspd::Impl::SidePriority::Same, l);
  int lane = 0;
  Kokkos::View<Scalar*, Mem> wbuf(noinit("kspd::sparse::update::wide"),
                                  wl.empty() ? 1 : size_t(wide_off[npath] + nlanes * nbw * nbw + kmax * kmax));
  Scalar* const w_g = wbuf.data() + wide_off[npath];
  Scalar* const w_r = w_g + nlanes * nbw * nbw;
  if (prof && prof->phases) tics = Kokkos::View<std::uint64_t*, Mem>("kspd::sparse::update::tics", std::max<size_t>(ph.size(), 1) * kPanelPhases);
  if (prof) phase(prof->t_alloc);
  const double t_loop = t_last;
  for (Step st : steps) {
    if (prof && prof->part == UpdateProfile::Part::Panels) st.re = st.rb, st.nrt = 0, st.ge = st.gb;
    if (prof && prof->part == UpdateProfile::Part::Rows) st.pe = st.pb, st.we = st.wb;
    if (st.pe == st.pb && st.nrt == 0 && st.ge == st.gb && st.we == st.wb) continue;
    const double tw = prof ? clock() : 0;
    for (size_type i = st.wb; i < st.we; ++i) {
      const size_t q = wl[size_t(i)];
      const Supernode& sn = S.snodes[size_t(P.path[q])];
      const UpdSnode d{sn.row_begin, P.act_begin[q], sn.nrows(), sn.ncols, P.act_begin[q + 1] - P.act_begin[q], 0};
      update_wide_snode(lanes, lane, d, vals, sn.value_offset, Wd, sg, nbw, wbuf.data() + wide_off[q], w_g, w_r, infos.data() + 2 * pnum[q]);
    }
    if (prof && prof->fence_steps && st.we > st.wb)
      for (const auto& l : lanes) l.main().fence(), l.side().fence();
    const double t0 = prof ? clock() : 0;
    if (st.pe > st.pb || st.nrt > 0 || st.ge > st.gb)
      update_step(exec, pd, rd, sd, st.pb, st.pe, st.rb, st.re, st.nrt, st.gb, st.ge, vals, ws.data(), Wd, qb.data(), infos.data(),
                  sg, nbmax, kmax, tics.data());
    if (!prof) continue;
    const double t1 = clock();
    if (prof->fence_steps) exec.fence();
    const double t2 = prof->fence_steps ? clock() : t1;
    prof->steps.push_back(UpdateProfile::Step{int(st.level), int(st.pe - st.pb), int(st.nrt), int(st.ge - st.gb),
                                              int(st.we - st.wb), t0 - tw, tw - t_last, t1 - t0, t2 - t0});
    t_last = t2;
  }
  for (const auto& l : lanes) l.main_waits_side();  // the side lanes' panels, before the infos are read, the buffers freed
  if (prof) {
    exec.fence();
    t_last = clock();
    prof->t_steps += t_last - t_loop;
  }
  if (prof && prof->phases) {
    auto ht = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), tics);
    prof->phase_cycles.assign(kPanelPhases - 1, 0.0);
    for (size_t p = 0; p < ph.size(); ++p) {
      const std::uint64_t* t = ht.data() + p * kPanelPhases;
      if (t[kPanelPhases - 1] == 0) continue;  // not run (a failed pivot, or a part left out)
      ++prof->phase_panels;
      for (int i = 0; i + 1 < kPanelPhases; ++i) prof->phase_cycles[size_t(i)] += double(t[i + 1] - t[i]);
    }
    t_last = clock();
  }
  exec.fence();
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), infos);
  const PivotFailure f = first_failure(S, P, nbs, [&](size_t i) { return h(i); });
  if (prof) phase(prof->t_tail);
  return f;
}

}  // namespace kspd::sparse::Impl
#endif
