#ifndef KSPD_BATCHED_REGISTER_INTERNAL_HPP
#define KSPD_BATCHED_REGISTER_INTERNAL_HPP
/// \file kspd_batched_register_internal.hpp
/// Register-resident kernels for tiny matrices. GPUs (n <= kMaxRegisterN = 8): one thread owns
/// one matrix, held in a compile-time N x N array (n padded up to N = 1, 2, 4 or 8 with an
/// identity block), so every loop unrolls and the factor never leaves registers; with a
/// LayoutLeft batch-first View consecutive threads load consecutive matrices: coalesced. Host
/// backends (n <= kLaneMaxN = 16): the lane kernels of kspd_batched_host_lanes.hpp, a thread
/// running 8 (fp64) / 16 (fp32) matrices in lockstep in vector lanes.
/// POTRF, POTRS (TRSM + TRSM^T fused: L is loaded once for all right-hand sides) and TRSM
/// (every variant, reduced to a lower solve: upper problems are solved in reversed order).

#include "kspd_batched_group_internal.hpp"
#include "kspd_batched_host_lanes.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_trsm_internal.hpp"

namespace kspd::batched::Impl {

constexpr size_type kMaxRegisterN = 8;
/// On GPUs the group / streaming kernels of kspd_batched_group_internal.hpp take n <= 32.
constexpr size_type kMaxGroupN = 32;

/// Whether operation op (scalar T) of order n runs the register kernels: Register forces them
/// (host backends: the lane kernels, n <= 16, float / double); Auto takes them on GPUs for
/// n <= 32 (with the group / streaming kernels above 8) and on host backends where the tuning
/// table measured them fastest. Complex scalars never take them (real_kernels_v; check_algo
/// rejects Register for them).
template <class ExecSpace, class T>
bool use_register(BatchAlgo algo, size_type n, HostOp op) {
  if (algo != BatchAlgo::Register && algo != BatchAlgo::Auto) return false;
  if constexpr (!real_kernels_v<T>) {
    (void)n, (void)op;
    return false;
  } else if constexpr (is_gpu_v<ExecSpace>) {
    (void)op;
    return n <= kMaxGroupN;
  } else {
    if (n > kLaneMaxN || !lanes_capable_v<T>) return false;
    return algo == BatchAlgo::Register || host_path<T>(op, n) == HostPath::Register;
  }
}

/// Fixed-size POTRF / POTRS / POSV / TRSM: BatchAlgo::Register with a complex scalar is an
/// error (the register kernels are real-only), not a silent change of kernel family.
template <class T>
void check_algo(BatchAlgo algo, const char* op) {
  if constexpr (!real_kernels_v<T>)
    KSPD_REQUIRE(algo != BatchAlgo::Register, InvalidArgument,
                 op << ": BatchAlgo::Register has no complex kernels (use Auto, Serial or Team)");
  (void)algo, (void)op;
}

/// Loads a (uplo) Cholesky factor as the lower triangle r (L = U^T for Upper), padded.
template <int N, class T>
KOKKOS_INLINE_FUNCTION void load_lower(const Mat<const T>& a, int n, T (&r)[N][N]) {
  for (int j = 0; j < N; ++j)
    for (int i = j; i < N; ++i) r[i][j] = (i < n && j < n) ? a(i, j) : (i == j ? T(1) : T(0));
}

template <int N, class T>
struct RegPotrf {
  Uplo uplo;
  BatchMat<T> A;
  int n;
  int* infos;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    Mat<T> a = A.get(b, n, n);
    if (uplo == Uplo::Upper) a = a.t();
    T r[N][N];
    load_lower<N, T>(a, n, r);
    int info = 0;
    for (int j = 0; j < N; ++j) {
      T d = r[j][j];
      for (int k = 0; k < j; ++k) d -= r[j][k] * r[j][k];
      if (!(d > T(0)) && info == 0) info = j + 1;
      d = compat::sqrt(d);
      r[j][j] = d;
      const T inv = T(1) / d;
      for (int i = j + 1; i < N; ++i) {
        T s = r[i][j];
        for (int k = 0; k < j; ++k) s -= r[i][k] * r[j][k];
        r[i][j] = s * inv;
      }
    }
    // On failure only the finished columns are stored (the rest keep their input).
    const int ncols = info == 0 ? n : info - 1;
    for (int j = 0; j < N; ++j)
      for (int i = j; i < N; ++i)
        if (j < ncols && i < n) a(i, j) = r[i][j];
    if (infos != nullptr) infos[b] = info;
  }
};

template <int N, class T>
struct RegPotrs {
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  int n, nrhs;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    Mat<const T> a = A.get(b, n, n);
    if (uplo == Uplo::Upper) a = a.t();
    const Mat<T> x = B.get(b, n, nrhs);
    T r[N][N], dinv[N];
    load_lower<N, T>(a, n, r);
    for (int i = 0; i < N; ++i) dinv[i] = T(1) / r[i][i];
    for (int c = 0; c < nrhs; ++c) {
      T v[N];
      for (int i = 0; i < N; ++i) v[i] = i < n ? x(i, c) : T(0);
      for (int i = 0; i < N; ++i) {  // L y = b
        T s = v[i];
        for (int k = 0; k < i; ++k) s -= r[i][k] * v[k];
        v[i] = s * dinv[i];
      }
      for (int i = N - 1; i >= 0; --i) {  // L^T x = y
        T s = v[i];
        for (int k = i + 1; k < N; ++k) s -= r[k][i] * v[k];
        v[i] = s * dinv[i];
      }
      for (int i = 0; i < N; ++i)
        if (i < n) x(i, c) = v[i];
    }
  }
};

/// TRSM reduced to a lower A X = alpha B (Left, NoTranspose) by lower_solve's stride swaps and
/// reversals, so one lower solve serves all.
template <int N, class T>
struct RegTrsm {
  TrsmOperands<T> op;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    const LowerSolve<T> p = lower_solve(op, b);
    const Mat<const T>& a = p.a;
    const Mat<T>& x = p.x;
    const int k = p.k;
    const bool unit = op.diag == Diag::Unit;
    T r[N][N], dinv[N];
    for (int j = 0; j < N; ++j)
      for (int i = j; i < N; ++i)
        r[i][j] = (i < k && j < k && (i != j || !unit)) ? a(i, j) : (i == j ? T(1) : T(0));
    for (int i = 0; i < N; ++i) dinv[i] = T(1) / r[i][i];
    for (int c = 0; c < p.ncols; ++c) {
      T v[N];
      for (int i = 0; i < N; ++i) v[i] = i < k ? op.alpha * x(i, c) : T(0);
      for (int i = 0; i < N; ++i) {
        T s = v[i];
        for (int l = 0; l < i; ++l) s -= r[i][l] * v[l];
        v[i] = unit ? s : s * dinv[i];
      }
      for (int i = 0; i < N; ++i)
        if (i < k) x(i, c) = v[i];
    }
  }
};

/// Calls f(std::integral_constant<int, N>) with the size class N >= n.
template <class F>
void with_size_class(size_type n, const F& f) {
  if (n <= 1) f(std::integral_constant<int, 1>());
  else if (n <= 2) f(std::integral_constant<int, 2>());
  else if (n <= 4) f(std::integral_constant<int, 4>());
  else if (n <= 8) f(std::integral_constant<int, 8>());
  else if (n <= 16) f(std::integral_constant<int, 16>());
  else f(std::integral_constant<int, 32>());
}
template <class F>
void with_small_size_class(size_type n, const F& f) {
  if (n <= 1) f(std::integral_constant<int, 1>());
  else if (n <= 2) f(std::integral_constant<int, 2>());
  else if (n <= 4) f(std::integral_constant<int, 4>());
  else f(std::integral_constant<int, 8>());
}

/// One thread per matrix of order n (host: spread over the cores, see batch_for).
template <class ExecSpace, class Functor>
void launch_range(const ExecSpace& exec, const char* label, size_type nbatch, const Functor& f, size_type n = 64) {
  batch_for(exec, label, nbatch, f, double(n) * double(n) * double(n));
}

/// Launches a streaming kernel over nthreads indices; on GPUs with __launch_bounds__(128,
/// minb) for minb = Tuning::stream_min_blocks 4 (<= 128 registers per thread on sm_90)
/// or 8 (<= 64): fewer registers, more resident warps, possibly spills; else no bounds.
template <class ExecSpace, class Functor>
void launch_stream(const ExecSpace& exec, const char* label, size_type nthreads, const Functor& f, int minb) {
  if (nthreads <= 0) return;
  auto go = [&](auto lb) {
    using LB = decltype(lb);
    Kokkos::parallel_for(label, Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>, LB>(exec, 0, nthreads),
                         f);
  };
  if constexpr (is_gpu_v<ExecSpace> && kAllVariants) {
    if (minb == 4) return go(Kokkos::LaunchBounds<128, 4>());
    if (minb == 8) return go(Kokkos::LaunchBounds<128, 8>());
  }
  (void)minb;
  if constexpr (is_gpu_v<ExecSpace>) go(Kokkos::LaunchBounds<>());
  else batch_for(exec, label, nthreads, f, 32.0 * 32.0 * 32.0);
}

/// Largest k of the streaming TRSM (size classes 48 and 64 above kMaxGroupN).
constexpr size_type kMaxStreamN = 64;
/// Team sizes (threads) GroupPotrf takes; 256 only where its shared tile stays under 40 KiB
/// (Kokkos' level-0 team scratch on CUDA is 48 KiB less its reserve), else 128.
template <int N, class T, int TS>
constexpr int group_team_size() {
  return GroupShape<N, TS>::template scratch_bytes<T>() <= 40 * 1024 ? TS : 128;
}

template <class ExecSpace, int N, class T, GroupSync kSync, int TS>
void launch_group_potrf(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A,
                        int* infos) {
  using S = GroupShape<N, TS>;
  const size_type league = (nbatch + S::M - 1) / S::M;
  KSPD_REQUIRE(league <= size_type(2147483647), InvalidArgument, "kspd::batched::potrf: batch too large");
  Kokkos::TeamPolicy<ExecSpace> policy(exec, int(league), S::team_size);
  policy.set_scratch_size(0, Kokkos::PerTeam(S::template scratch_bytes<T>()));
  Kokkos::parallel_for("kspd::batched::potrf[group]", policy,
                       GroupPotrf<N, T, kSync, TS>{uplo, A, int(n), nbatch, infos});
}

template <class ExecSpace, class T>
void register_potrf(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A,
                    int* infos, const BatchOptions& opts) {
  if constexpr (!is_gpu_v<ExecSpace>) {
    KSPD_REQUIRE(n <= kLaneMaxN && lanes_capable_v<T>, InvalidArgument,
                 "kspd::batched::potrf: the host register kernels take n <= " << kLaneMaxN << ", float / double");
    if constexpr (lanes_capable_v<T>) lanes_potrf(exec, uplo, nbatch, n, A, infos);
  } else {
    with_size_class(n, [&](auto nc) {
      constexpr int N = decltype(nc)::value;
      if constexpr (N <= kMaxRegisterN) {
        launch_range(exec, "kspd::batched::potrf[register]", nbatch, RegPotrf<N, T>{uplo, A, int(n), infos}, n);
      } else {
        // The table's default: the warp barrier, 128 threads per team (H100, 2026-11-22: 2-8 %
        // ahead of the team barrier at every n and precision, h100-batched-small-variants-2026-11-22.md).
        const Tuning tu = tuning<ExecSpace, T>(n);
        if constexpr (kAllVariants) {
          auto with_ts = [&](auto sc) {
            constexpr GroupSync kSync = decltype(sc)::value;
            const int ts = tu.potrf_group_team;
            if (ts == 64) launch_group_potrf<ExecSpace, N, T, kSync, 64>(exec, uplo, nbatch, n, A, infos);
            else if (ts == 256)
              launch_group_potrf<ExecSpace, N, T, kSync, group_team_size<N, T, 256>()>(exec, uplo, nbatch, n, A, infos);
            else launch_group_potrf<ExecSpace, N, T, kSync, 128>(exec, uplo, nbatch, n, A, infos);
          };
          using G = PotrfSync;
          const G v = tu.potrf_sync;
          if (v == G::TeamSync) with_ts(std::integral_constant<GroupSync, GroupSync::Team>());
          else if (v == G::Shuffle) with_ts(std::integral_constant<GroupSync, GroupSync::Shuffle>());
          else with_ts(std::integral_constant<GroupSync, GroupSync::Warp>());
        } else {
          (void)tu;
          launch_group_potrf<ExecSpace, N, T, GroupSync::Warp, 128>(exec, uplo, nbatch, n, A, infos);
        }
      }
    });
  }
}

/// The streaming kernels' size class for 8 < n <= 64: 16, 24 (Tuning::stream_class24, compiled
/// with KSPD_BATCHED_ALL_VARIANTS only), 32, 48, 64.
template <class F>
void with_stream_class(size_type n, bool class24, const F& f) {
  (void)class24;
  if (n <= 16) f(std::integral_constant<int, 16>());
#ifdef KSPD_BATCHED_ALL_VARIANTS
  else if (n <= 24 && class24) f(std::integral_constant<int, 24>());
#endif
  else if (n <= 32) f(std::integral_constant<int, 32>());
  else if (n <= 48) f(std::integral_constant<int, 48>());
  else f(std::integral_constant<int, 64>());
}
/// Matrices per thread chunk of the streaming kernels (see stream_decode).
inline size_type stream_chunk(const Tuning& tu, size_type nbatch) {
  return stream_chunk(size_type(tu.stream_chunk), nbatch);
}

/// POTRS for 8 < n <= 32 streams: on GPUs for Auto / Register, on host backends for Register
/// above the lane kernels' 16.
template <class ExecSpace, class T>
bool use_stream_potrs(BatchAlgo algo, size_type n) {
  if (!real_kernels_v<T> || n <= kMaxRegisterN || n > kMaxGroupN) return false;
  if constexpr (is_gpu_v<ExecSpace>) return algo == BatchAlgo::Auto || algo == BatchAlgo::Register;
  else return algo == BatchAlgo::Register && n > kLaneMaxN;
}

template <class ExecSpace, class T>
void register_potrs(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                    const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts = {}) {
  if constexpr (!is_gpu_v<ExecSpace>) {
    if constexpr (lanes_capable_v<T>)
      if (n <= kLaneMaxN) return lanes_potrs(exec, uplo, nbatch, n, nrhs, A, B);
  } else {
    if (n <= kMaxRegisterN) {
      with_small_size_class(n, [&](auto nc) {
        constexpr int N = decltype(nc)::value;
        launch_range(exec, "kspd::batched::potrs[register]", nbatch, RegPotrs<N, T>{uplo, A, B, int(n), int(nrhs)},
                     n + nrhs);
      });
      return;
    }
  }
  KSPD_REQUIRE(n <= kMaxGroupN, InvalidArgument, "kspd::batched::potrs: the streaming kernel takes n <= 32");
  KSPD_REQUIRE(nrhs <= size_type(1) << 30, InvalidArgument, "kspd::batched::potrs: too many right-hand sides");
  const Tuning tu = tuning<ExecSpace, T>(n);
  with_stream_class(n, tu.stream_class24, [&](auto nc) {
    constexpr int N = decltype(nc)::value;
    if constexpr (N <= 32) {
      const size_type chunk = stream_chunk(tu, nbatch);
      launch_stream(exec, "kspd::batched::potrs[stream]", stream_threads(nbatch, chunk, nrhs),
                    StreamPotrs<N, T>{uplo, A, B, int(n), int(nrhs), nbatch, chunk}, tu.stream_min_blocks);
    }
  });
}
/// Right-hand sides per thread of the streaming TRSM: Tuning::trsm_rhs_block (1, 2, 4 with
/// KSPD_BATCHED_ALL_VARIANTS; at most 2 for k > 32, where 64 x 4 values would spill);
/// never more than the right-hand sides need.
inline int trsm_rhs_block(const Tuning& tu, int N, size_type ncols) {
  int r = tu.trsm_rhs_block;
  if (r != 1 && r != 2 && r != 4) r = 1;
  if ((N > 32 || !kAllVariants) && r > 2) r = 2;
  while (r > 1 && size_type(r / 2) >= ncols) r /= 2;
  return r;
}
/// TRSM with 8 < k <= 64 on the streaming kernel: on GPUs for Auto / Register when k <= 32 or
/// k <= Tuning::stream_trsm_max (instead of the recursion); on host backends for
/// Register above the lane kernels' 16 (so the CPU tests check the kernel; Auto keeps the host
/// paths there).
template <class ExecSpace, class T>
bool use_stream_trsm(const BatchOptions& opts, size_type k) {
  if (!real_kernels_v<T> || k <= kMaxRegisterN || k > kMaxStreamN) return false;
  if constexpr (is_gpu_v<ExecSpace>)
    return (k <= kMaxGroupN || k <= size_type(tuning<ExecSpace, T>(k).stream_trsm_max)) &&
           (opts.algo == BatchAlgo::Auto || opts.algo == BatchAlgo::Register);
  else
    return opts.algo == BatchAlgo::Register && k > kLaneMaxN;
}

template <class ExecSpace, class T>
void register_trsm(const ExecSpace& exec, const TrsmOperands<T>& op, size_type nbatch, const BatchOptions& opts) {
  const size_type m = op.d.m, n = op.d.n;
  const size_type k = op.side == Side::Left ? m : n, ncols = op.side == Side::Left ? n : m;
  if constexpr (!is_gpu_v<ExecSpace>) {
    if constexpr (lanes_capable_v<T>)
      if (k <= kLaneMaxN) return lanes_trsm(exec, op, nbatch);
  } else {
    if (k <= kMaxRegisterN) {
      with_small_size_class(k, [&](auto nc) {
        constexpr int N = decltype(nc)::value;
        launch_range(exec, "kspd::batched::trsm[register]", nbatch, RegTrsm<N, T>{op}, k + ncols);
      });
      return;
    }
  }
  KSPD_REQUIRE(k <= kMaxStreamN, InvalidArgument, "kspd::batched::trsm: the streaming kernel takes k <= 64");
  const Tuning tu = tuning<ExecSpace, T>(k);
  with_stream_class(k, tu.stream_class24, [&](auto nc) {
    constexpr int N = decltype(nc)::value;
    auto go = [&](auto rc) {
      constexpr int R = decltype(rc)::value;
      const size_type groups = (ncols + R - 1) / R;
      KSPD_REQUIRE(groups <= size_type(1) << 30, InvalidArgument, "kspd::batched::trsm: too many right-hand sides");
      const size_type chunk = stream_chunk(tu, nbatch);
      launch_stream(exec, "kspd::batched::trsm[stream]", stream_threads(nbatch, chunk, groups),
                    StreamTrsm<N, R, T>{op, nbatch, int(groups), chunk},
                    tu.stream_min_blocks);
    };
    const int r = trsm_rhs_block(tu, N, ncols);
    if constexpr (N <= 32 && kAllVariants) {
      if (r == 4) go(std::integral_constant<int, 4>());
      else if (r == 2) go(std::integral_constant<int, 2>());
      else go(std::integral_constant<int, 1>());
    } else {
      if (r == 2) go(std::integral_constant<int, 2>());
      else go(std::integral_constant<int, 1>());
    }
  });
}

}  // namespace kspd::batched::Impl
#endif
