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
///   Z = D^-1 W_P (trsm);  M M^T = I + s Z Z^T (syrk, potrf);  R R^T = I + s Z^T Z (syrk, potrf)
///   W'_B = (W_B - L(B, P) Z) R^-T (gemm, trsm; the old L(B, P))
///   L'(B, P) = (L(B, P) + s W_B Z^T) M^-T (gemm, trsm; the old W_B, copied first)
///   L'(P, P) = D M (trmm on M, then M's lower triangle into D)

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <vector>

#include "kspd_core.hpp"
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
};
inline constexpr int kWideThreshold = 128, kWideAlone = 2, kWideWidth = 256;
inline UpdateWide& update_wide_hook() {
  static UpdateWide w;
  return w;
}
inline int update_wide_threshold() { return update_wide_hook().threshold > 0 ? update_wide_hook().threshold : kWideThreshold; }
inline int update_wide_alone() { return update_wide_hook().alone > 0 ? update_wide_hook().alone : kWideAlone; }
inline int update_wide_width() { return update_wide_hook().width > 0 ? update_wide_hook().width : kWideWidth; }

/// Diagnostics (perf_sparse_update --step-profile): while update_wide_profile() points at one,
/// update_wide_panel fences exec after each of its calls and adds the time (seconds, steady
/// clock) since the previous mark to seconds[call]; nullptr in the library's use.
struct UpdateWideProfile {
  static constexpr int kCalls = 12;
  static constexpr const char* names[kCalls] = {"trsm Z",     "I, I",       "syrk G",   "syrk R",
                                                "potrf G",    "potrf R",    "copy W_B", "gemm W_B",
                                                "trsm W_B",   "gemm L_B",   "trsm L_B", "trmm + copy D M"};
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
  const bool hooked = h.threshold > 0 || h.alone > 0 || h.width > 0;
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

/// One wide panel on exec: Lp = the panel's columns from its diagonal block down (mr x bw:
/// D on top, L(B, P) below), Wp = W's rows of the same rows (mr x k; W_P becomes Z, W_B
/// becomes W'_B). Workspaces: G (bw x bw), R (k x k), T ((mr - bw) x k). info_g / info_r
/// (device ints): potrf's info of I + s Z Z^T and of I + s Z^T Z. Non-blocking on a device.
template <class Exec, class Mat, class Scalar>
void update_wide_panel(const Exec& exec, const Mat& Lp, const Mat& Wp, Scalar s, const Mat& G, const Mat& R, const Mat& T,
                       int* info_g, int* info_r) {
  using Info = Kokkos::View<int, typename Exec::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  UpdateWideProfile* const prof = update_wide_profile();
  const auto clock = [] { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); };
  double t_mark = prof ? (exec.fence(), clock()) : 0;
  const auto mark = [&](int call) {
    if (!prof) return;
    exec.fence();
    const double t = clock();
    prof->seconds[call] += t - t_mark;
    t_mark = t;
  };
  if (prof) ++prof->panels;
  const size_t mr = Lp.extent(0), bw = Lp.extent(1), k = Wp.extent(1);
  const auto top = std::make_pair(size_t(0), bw), below = std::make_pair(bw, mr);
  const auto D = Kokkos::subview(Lp, top, Kokkos::ALL), LB = Kokkos::subview(Lp, below, Kokkos::ALL);
  const auto Z = Kokkos::subview(Wp, top, Kokkos::ALL), WB = Kokkos::subview(Wp, below, Kokkos::ALL);
  kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, Z);
  mark(0);
  {  // G = I, R = I (their upper triangles stay zero: syrk and potrf touch the lower ones)
    Scalar* const g = G.data();
    Scalar* const r = R.data();
    const std::int64_t ldg = std::int64_t(G.stride(1)), ldr = std::int64_t(R.stride(1)), nb = std::int64_t(bw),
                       nk = std::int64_t(k);
    Kokkos::parallel_for("kspd::sparse::update::wide::identity", Kokkos::RangePolicy<Exec>(exec, 0, nb * nb + nk * nk),
                         KOKKOS_LAMBDA(const std::int64_t t) {
                           if (t < nb * nb) g[t % nb + (t / nb) * ldg] = t % nb == t / nb ? Scalar(1) : Scalar(0);
                           else {
                             const std::int64_t u = t - nb * nb;
                             r[u % nk + (u / nk) * ldr] = u % nk == u / nk ? Scalar(1) : Scalar(0);
                           }
                         });
  }
  mark(1);
  kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, s, Z, Scalar(1), G);
  mark(2);
  kspd::syrk(exec, Uplo::Lower, Trans::Transpose, s, Z, Scalar(1), R);
  mark(3);
  kspd::potrf(exec, Uplo::Lower, G, Info(info_g));
  mark(4);
  kspd::potrf(exec, Uplo::Lower, R, Info(info_r));
  mark(5);
  if (mr > bw) {
    Kokkos::deep_copy(exec, T, WB);  // the old W_B, for L'(B, P)
    mark(6);
    kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(-1), LB, Z, Scalar(1), WB);
    mark(7);
    kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), R, WB);
    mark(8);
    kspd::gemm(exec, Trans::NoTranspose, Trans::Transpose, s, T, Z, Scalar(1), LB);
    mark(9);
    kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), G, LB);
    mark(10);
  }
  kspd::trmm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, G);  // G = D M (lower)
  {
    Scalar* const g = G.data();
    Scalar* const d = D.data();
    const std::int64_t ldg = std::int64_t(G.stride(1)), ldd = std::int64_t(D.stride(1)), nb = std::int64_t(bw);
    Kokkos::parallel_for("kspd::sparse::update::wide::D", Kokkos::RangePolicy<Exec>(exec, 0, nb * nb),
                         KOKKOS_LAMBDA(const std::int64_t t) {
                           const std::int64_t i = t % nb, j = t / nb;
                           if (i >= j) d[i + j * ldd] = g[i + j * ldg];
                         });
  }
  mark(11);
}

}  // namespace kspd::sparse::Impl
#endif
