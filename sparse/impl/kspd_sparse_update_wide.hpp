#ifndef KSPD_SPARSE_UPDATE_WIDE_HPP
#define KSPD_SPARSE_UPDATE_WIDE_HPP
/// \file kspd_sparse_update_wide.hpp
/// The rank-k modification of a wide supernode by wide panels through core's dense API
/// (kspd::trsm / syrk / potrf / trmm / gemm on the factor's execution space: cuBLAS and
/// cuSOLVER on CUDA). The batched launches (kspd_sparse_update_batched.hpp) run the panels of
/// 32 columns as one team's chain each, ~50 us a launch on the H100; a supernode of 256
/// columns takes 9 of them. Where that supernode is alone on the critical path (the top
/// separators of a 3-D problem: nothing else of the path runs beside them), a panel of 256
/// columns as a dozen vendor calls costs less. The method is kspd_sparse_update_impl.hpp's,
/// for a panel P of bw columns, D = L(P, P), the rows B below it, W's rows W_P, W_B:
///   Z = D^-1 W_P (trsm);  R R^T = I + s Z^T Z (one team up to k = 32, else syrk, potrf)
///   W'_B = (W_B - L(B, P) Z) R^-T (gemm, trsm; the old L(B, P))
///   M M^T = I + s Z Z^T (syrk, potrf)
///   L'(B, P) = (L(B, P) + s W_B Z^T) M^-T (gemm, trsm; the old W_B)
///   L'(P, P) = D M (trmm on M, then M's lower triangle into D)
/// Only Z, R and W'_B are on the path to the next panel and the ancestors: the rest (M and
/// the panel's new columns, ~2/3 of the time in the H100's run 1) goes on a second lane
/// (kspd::Impl::Lanes: a second CUDA stream joined by events; one lane on host spaces), which
/// reads its inputs from buffers that the main lane does not overwrite (a W-rows buffer per
/// panel).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "kspd_batched_team.hpp"
#include "kspd_core.hpp"
#include "kspd_dense_streams.hpp"
#include "kspd_lapack.hpp"
#include "kspd_sparse_update_impl.hpp"

namespace kspd::sparse::Impl {

/// Which path supernodes take wide panels, and their width. A supernode of at least
/// `threshold` columns whose launches, in the all-batched schedule, hold at most `alone`
/// path supernodes (itself included) goes wide: the wide calls of all such supernodes run one
/// after the other on the stream, so only the ones with little beside them gain. Diagnostics
/// and tests (perf_sparse_update --wide, the unit tests) replace the defaults through
/// update_wide_hook(); a value <= 0 keeps the default.
struct UpdateWide {
  int threshold = 0;  ///< columns; default kWideThreshold
  int alone = 0;      ///< default kWideAlone
  int width = 0;      ///< columns per wide panel; default kWideWidth
  int lanes = 0;      ///< side lanes for the panels' off-path work, round robin; default kWideLanes
};
inline constexpr int kWideThreshold = 128, kWideAlone = 2, kWideWidth = 256, kWideLanes = 4;
inline UpdateWide& update_wide_hook() {
  static UpdateWide w;
  return w;
}
inline int update_wide_threshold() { return update_wide_hook().threshold > 0 ? update_wide_hook().threshold : kWideThreshold; }
inline int update_wide_alone() { return update_wide_hook().alone > 0 ? update_wide_hook().alone : kWideAlone; }
inline int update_wide_width() { return update_wide_hook().width > 0 ? update_wide_hook().width : kWideWidth; }
inline int update_wide_lanes() {
  const int n = update_wide_hook().lanes > 0 ? update_wide_hook().lanes : kWideLanes;
  return std::min(n, kspd::Impl::Lanes<Kokkos::DefaultExecutionSpace>::kSideLanes);
}

/// Diagnostics (perf_sparse_update --step-profile): while update_wide_profile() points at one,
/// update_wide_panel fences exec after each of its calls and adds the time (seconds, steady
/// clock) since the previous mark to seconds[call]; nullptr in the library's use.
struct UpdateWideProfile {
  static constexpr int kCalls = 10;
  static constexpr const char* names[kCalls] = {"trsm Z",   "R = chol(I + s Z^T Z), copy W_B", "gemm W_B", "trsm W_B",
                                                "G = I",    "syrk G",  "potrf G",  "gemm L_B",  "trsm L_B",
                                                "trmm + copy D M"};
  double seconds[kCalls] = {};
  long panels = 0;
};
inline UpdateWideProfile*& update_wide_profile() {
  static UpdateWideProfile* p = nullptr;
  return p;
}

/// The launches of the path supernodes with panels of nbmax columns: a batched q has np[q]
/// panels and takes the launches start[q] .. start[q] + np[q], the first after its children's
/// last ones; a wide q (wide[q], may be empty: none) runs in slot start[q] before that slot's
/// launch, after its children's last launches (np[q] = 0). Returns the number of slots.
inline std::int64_t update_schedule(const Symbolic& S, const UpdatePlan& P, std::int64_t nbmax, std::vector<std::int64_t>& np,
                                    std::vector<std::int64_t>& start, const std::vector<char>& wide = {}) {
  const size_t npath = P.path.size();
  np.assign(npath, 0);
  start.assign(npath, 0);
  std::vector<std::int64_t> pos(S.snodes.size(), -1);
  for (size_t q = 0; q < npath; ++q) pos[size_t(P.path[q])] = std::int64_t(q);
  std::int64_t nslot = 0;
  for (size_t q = 0; q < npath; ++q) {  // postorder: the children first
    const Supernode& sn = S.snodes[size_t(P.path[q])];
    np[q] = !wide.empty() && wide[q] ? 0 : (sn.ncols + nbmax - 1) / nbmax;
    const std::int64_t end = start[q] + np[q];  // its last slot: the rows below its last panel
    nslot = std::max(nslot, end + 1);
    if (sn.parent >= 0) {
      const std::int64_t pq = pos[size_t(sn.parent)];
      KSPD_REQUIRE(pq > std::int64_t(q), Error, "kspd::sparse::update: a path supernode's parent is off the path (internal)");
      start[size_t(pq)] = std::max(start[size_t(pq)], end + 1);
    }
  }
  return nslot;
}

/// The path supernodes that take wide panels (see UpdateWide), for batched panels of nbmax
/// columns. Device execution spaces only by default: the host workers' panels are not
/// launch-bound (update_wide_hook() set: every space, for the tests).
template <class Exec>
std::vector<char> update_wide_choice(const Symbolic& S, const UpdatePlan& P, std::int64_t nbmax) {
  const size_t npath = P.path.size();
  std::vector<char> wide(npath, 0);
  const UpdateWide& h = update_wide_hook();
  const bool hooked = h.threshold > 0 || h.alone > 0 || h.width > 0 || h.lanes > 0;
  if (compat::is_host_exec_v<Exec> && !hooked) return wide;
  std::vector<std::int64_t> np, start;
  const std::int64_t nslot = update_schedule(S, P, nbmax, np, start);
  std::vector<int> busy(size_t(nslot) + 1, 0);  // path supernodes per launch, by differences
  for (size_t q = 0; q < npath; ++q) ++busy[size_t(start[q])], --busy[size_t(start[q] + np[q] + 1)];
  for (std::int64_t l = 1; l < nslot; ++l) busy[size_t(l)] += busy[size_t(l - 1)];
  const int threshold = update_wide_threshold(), alone = update_wide_alone();
  for (size_t q = 0; q < npath; ++q) {
    if (S.snodes[size_t(P.path[q])].ncols < threshold) continue;
    int most = 0;
    for (std::int64_t l = start[q]; l <= start[q] + np[q]; ++l) most = std::max(most, busy[size_t(l)]);
    wide[q] = most <= alone;
  }
  return wide;
}

/// R = chol(I + s Z^T Z) (k x k), info into *info_r, and Out = WB (the old W_B, the start of
/// W'_B) in one launch: for k <= kWideTeamR by one team in its scratch (batched::TeamPotrf)
/// beside the teams that copy; above, R by core's syrk and potrf (cuSOLVER) first. H100, session
/// 7: cuSOLVER's potrf of a 16 x 16 matrix 134 us, the team's R 39 us; at 64 x 64 149 us
/// against the team's 275 us.
inline constexpr int kWideTeamR = 32;
template <class Exec, class ZV, class RV, class WV, class OV, class Scalar>
void update_wide_r(const Exec& exec, const ZV& Z, const RV& R, const WV& WB, const OV& Out, Scalar s, int* info_r) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<Scalar**, Kokkos::LayoutLeft, typename Exec::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const int bw = int(Z.extent(0)), k = int(Z.extent(1));
  const bool team_r = k <= kWideTeamR;
  if (!team_r) {
    Scalar* const r = R.data();
    const std::int64_t ldr = std::int64_t(R.stride(1)), nk = k;
    Kokkos::parallel_for("kspd::sparse::update::wide::identity", Kokkos::RangePolicy<Exec>(exec, 0, nk * nk),
                         KOKKOS_LAMBDA(const std::int64_t t) { r[t % nk + (t / nk) * ldr] = t % nk == t / nk ? Scalar(1) : Scalar(0); });
    kspd::syrk(exec, Uplo::Lower, Trans::Transpose, s, Z, Scalar(1), R);
    kspd::potrf(exec, Uplo::Lower, R, Kokkos::View<int, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(info_r));
  }
  const std::int64_t rows = std::int64_t(WB.extent(0)), chunk = 256, ncopy = (rows + chunk - 1) / chunk, first = team_r ? 1 : 0;
  if (first + ncopy == 0) return;
  const int team = compat::is_host_exec_v<Exec> ? 1 : 256;
  Policy policy(exec, int(first + ncopy), team);
  if (team_r) policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(size_t(k), size_t(k))));
  Kokkos::parallel_for("kspd::sparse::update::wide::R", policy, KOKKOS_LAMBDA(const Member& mb) {
    if (mb.league_rank() >= first) {  // rows [i0, i1) of W_B into Out
      const std::int64_t i0 = (mb.league_rank() - first) * chunk, i1 = i0 + chunk < rows ? i0 + chunk : rows;
      for (int j = 0; j < k; ++j)
        Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, i0, i1), [&](const std::int64_t i) { Out(i, j) = WB(i, j); });
      return;
    }
    Scratch A(mb.team_scratch(0), size_t(k), size_t(k));
    Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, k * k), [&](const int t) {
      const int i = t % k, j = t / k;
      Scalar g = i == j ? Scalar(1) : Scalar(0);
      if (i >= j)
        for (int l = 0; l < bw; ++l) g += s * Z(l, i) * Z(l, j);
      A(i, j) = g;
    });
    mb.team_barrier();
    const int info = kspd::batched::TeamPotrf<Uplo::Lower>::invoke(mb, A);
    mb.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(mb, k * k), [&](const int t) { R(t % k, t / k) = A(t % k, t / k); });
    if (mb.team_rank() == 0) *info_r = info;
  });
}

/// One wide panel: Lp = the panel's columns from its diagonal block down (mr x bw: D on top,
/// L(B, P) below); In = W's rows of the same rows (mr x k; W_P becomes Z; W_B is read, not
/// written); Out ((mr - bw) x k) gets W'_B. On lanes.main() the chain the next panel and the
/// ancestors wait for: Z, R, W'_B. On lanes.side(), after a join, what nothing later in the
/// update reads: M = chol(I + s Z Z^T), L'(B, P), L'(P, P) (it reads Z and the old W_B from
/// In, the old L(B, P) after main's gemm; In must stay untouched until the lanes join at the
/// end). Workspaces: G (bw x bw, the side lane's own), R (k x k, main's). info_g / info_r
/// (device ints): potrf's info of I + s Z Z^T and of I + s Z^T Z. Non-blocking on a device.
template <class Exec, class Mat, class Scalar>
void update_wide_panel(const kspd::Impl::Lanes<Exec>& lanes, const Mat& Lp, const Mat& In, const Mat& Out, Scalar s, const Mat& G,
                       const Mat& R, int* info_g, int* info_r) {
  using Info = Kokkos::View<int, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  UpdateWideProfile* const prof = update_wide_profile();
  const Exec& main = lanes.main();
  const Exec& side = lanes.side();
  const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  double t_mark = prof ? (main.fence(), side.fence(), clock()) : 0;
  const auto mark = [&](int call) {  // (the profile runs on one lane)
    if (!prof) return;
    main.fence();
    const double t = clock();
    prof->seconds[call] += t - t_mark;
    t_mark = t;
  };
  if (prof) ++prof->panels;
  const size_t mr = Lp.extent(0), bw = Lp.extent(1), k = In.extent(1);
  const auto top = std::make_pair(size_t(0), bw), below = std::make_pair(bw, mr);
  const auto D = Kokkos::subview(Lp, top, Kokkos::ALL), LB = Kokkos::subview(Lp, below, Kokkos::ALL);
  const auto Z = Kokkos::subview(In, top, Kokkos::ALL), WB = Kokkos::subview(In, below, Kokkos::ALL);
  kspd::trsm(main, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, Z);
  mark(0);
  update_wide_r(main, Z, R, WB, Out, s, info_r);
  mark(1);
  if (mr > bw) {
    kspd::gemm(main, Trans::NoTranspose, Trans::NoTranspose, Scalar(-1), LB, Z, Scalar(1), Out);
    mark(2);
    kspd::trsm(main, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), R, Out);
    mark(3);
  }
  lanes.side_waits_main();
  {  // G = I (its upper triangle stays zero: syrk and potrf touch the lower one)
    Scalar* const g = G.data();
    const std::int64_t ldg = std::int64_t(G.stride(1)), nb = std::int64_t(bw);
    Kokkos::parallel_for("kspd::sparse::update::wide::identity", Kokkos::RangePolicy<Exec>(side, 0, nb * nb),
                         KOKKOS_LAMBDA(const std::int64_t t) { g[t % nb + (t / nb) * ldg] = t % nb == t / nb ? Scalar(1) : Scalar(0); });
  }
  mark(4);
  kspd::syrk(side, Uplo::Lower, Trans::NoTranspose, s, Z, Scalar(1), G);
  mark(5);
  kspd::potrf(side, Uplo::Lower, G, Info(info_g));
  mark(6);
  if (mr > bw) {
    kspd::gemm(side, Trans::NoTranspose, Trans::Transpose, s, WB, Z, Scalar(1), LB);
    mark(7);
    kspd::trsm(side, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), G, LB);
    mark(8);
  }
  kspd::trmm(side, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, G);  // G = D M (lower)
  {
    Scalar* const g = G.data();
    Scalar* const d = D.data();
    const std::int64_t ldg = std::int64_t(G.stride(1)), ldd = std::int64_t(D.stride(1)), nb = std::int64_t(bw);
    Kokkos::parallel_for("kspd::sparse::update::wide::D", Kokkos::RangePolicy<Exec>(side, 0, nb * nb),
                         KOKKOS_LAMBDA(const std::int64_t t) {
                           const std::int64_t i = t % nb, j = t / nb;
                           if (i >= j) d[i + j * ldd] = g[i + j * ldg];
                         });
  }
  mark(9);
}

}  // namespace kspd::sparse::Impl
#endif
