#ifndef KSPD_BATCHED_HOST_LANES_HPP
#define KSPD_BATCHED_HOST_LANES_HPP
/// \file kspd_batched_host_lanes.hpp
/// Host backends, n <= kLaneMaxN = 16, float / double: the register family of the CPU. One
/// thread runs W = 64 / sizeof(T) matrices (8 fp64, 16 fp32) in lockstep, the CPU's
/// counterpart of a warp's threads: each matrix is copied into lane w of an interleaved local
/// array a[i][j][w], so every arithmetic step is a loop over the W lanes with unit stride that
/// the compiler turns into vector instructions (four SSE registers: four independent
/// multiply-add chains) for any n, without intrinsics or architecture flags. The copies are
/// O(n^2) per matrix against O(n^3) arithmetic; a LayoutLeft batch-first View (the batch index
/// fastest) loads a whole lane row with one contiguous read. Every matrix of the batch gets
/// its own info; a lane that fails keeps computing (NaNs stay in its lane) and stores only its
/// finished columns. The last group's unused lanes run on an identity matrix.
///  - POTRF: left-looking Cholesky (dot form).
///  - POTRS: L y = b, L^T x = y per right-hand side, L loaded once.
///  - TRSM: every side / uplo / trans / diag reduced to a lower Left solve (lower_solve).

#include <cmath>
#include <type_traits>

#include "kspd_batched_trsm_operands.hpp"
#include "kspd_batched_host_threads.hpp"
#include "kspd_batched_mat.hpp"

namespace kspd::batched::Impl {

constexpr size_type kLaneMaxN = 16;
/// Matrices per thread step.
template <class T>
constexpr int lanes_v = int(64 / sizeof(T));
/// The scalars the lane kernels take (complex scalars keep the portable kernels).
template <class T>
constexpr bool lanes_capable_v = std::is_same<T, double>::value || std::is_same<T, float>::value;

/// The lower triangle of W matrices, interleaved: l[i][j][w] = matrix w's (i, j), i >= j.
template <class T>
struct alignas(64) LaneTri {
  static constexpr int W = lanes_v<T>;
  T v[kLaneMaxN][kLaneMaxN][W];
};

/// Loads lane w's lower triangle from g(w)(i, j) (identity for the unused lanes w >= cnt);
/// batch-first strided data (consecutive matrices adjacent) is read as one row per (i, j).
template <class T, class U, class Get>
inline void lanes_load_lower(LaneTri<T>& l, int n, int cnt, const BatchMat<U>& A, size_type b0, bool fast,
                             const Get& get) {
  constexpr int W = lanes_v<T>;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      T* d = l.v[i][j];
      if (fast) {
        const U* p = A.base + b0 * A.bs + offset_type(i) * A.rs + offset_type(j) * A.cs;
        for (int w = 0; w < W; ++w) d[w] = p[w];
      } else {
        for (int w = 0; w < W; ++w) d[w] = w < cnt ? T(get(w, i, j)) : (i == j ? T(1) : T(0));
      }
    }
}

/// POTRF of matrices [W g, W g + W) of the batch (the uplo triangle of each).
template <class T>
struct LanePotrf {
  static constexpr int W = lanes_v<T>;
  Uplo uplo;
  BatchMat<T> A;
  int n;
  size_type nbatch;
  int* infos;
  void operator()(const size_type g) const {
    const size_type b0 = g * W;
    const int cnt = nbatch - b0 < W ? int(nbatch - b0) : W;
    Mat<T> m[W];
    for (int w = 0; w < cnt; ++w) m[w] = uplo == Uplo::Upper ? A.get(b0 + w, n, n).t() : A.get(b0 + w, n, n);
    const BatchMat<T> Al = uplo == Uplo::Upper ? A.t() : A;
    const bool fast = cnt == W && Al.batch_unit_stride();
    LaneTri<T> a;
    lanes_load_lower(a, n, cnt, Al, b0, fast, [&](int w, int i, int j) { return m[w](i, j); });
    int info[W] = {};
    for (int j = 0; j < n; ++j) {
      T d[W], inv[W];
      for (int w = 0; w < W; ++w) d[w] = a.v[j][j][w];
      for (int k = 0; k < j; ++k)
        for (int w = 0; w < W; ++w) d[w] -= a.v[j][k][w] * a.v[j][k][w];
      for (int w = 0; w < W; ++w) {
        if (!(d[w] > T(0)) && info[w] == 0) info[w] = j + 1;
        const T s = std::sqrt(d[w]);
        a.v[j][j][w] = s;
        inv[w] = T(1) / s;
      }
      for (int i = j + 1; i < n; ++i) {
        T s[W];
        for (int w = 0; w < W; ++w) s[w] = a.v[i][j][w];
        for (int k = 0; k < j; ++k)
          for (int w = 0; w < W; ++w) s[w] -= a.v[i][k][w] * a.v[j][k][w];
        for (int w = 0; w < W; ++w) a.v[i][j][w] = s[w] * inv[w];
      }
    }
    // On failure only the finished columns are stored (the rest keep their input).
    for (int w = 0; w < cnt; ++w) {
      const int ncols = info[w] == 0 ? n : info[w] - 1;
      for (int j = 0; j < ncols; ++j)
        for (int i = j; i < n; ++i) m[w](i, j) = a.v[i][j][w];
      if (infos != nullptr) infos[b0 + w] = info[w];
    }
  }
};

/// The factor of each lane with its reciprocal diagonal (1 for a unit diagonal).
template <class T>
struct LaneFactor {
  LaneTri<T> l;
  alignas(64) T dinv[kLaneMaxN][lanes_v<T>];
  void invert_diagonal(int n, bool unit) {
    for (int i = 0; i < n; ++i)
      for (int w = 0; w < lanes_v<T>; ++w) dinv[i][w] = unit ? T(1) : T(1) / l.v[i][i][w];
  }
};

/// v = L^-1 v on every lane (v[i][w], i < n).
template <class T>
inline void lanes_lower_solve(const LaneFactor<T>& f, int n, T (*v)[lanes_v<T>]) {
  constexpr int W = lanes_v<T>;
  for (int i = 0; i < n; ++i) {
    T s[W];
    for (int w = 0; w < W; ++w) s[w] = v[i][w];
    for (int k = 0; k < i; ++k)
      for (int w = 0; w < W; ++w) s[w] -= f.l.v[i][k][w] * v[k][w];
    for (int w = 0; w < W; ++w) v[i][w] = s[w] * f.dinv[i][w];
  }
}
/// v = L^-T v on every lane.
template <class T>
inline void lanes_lower_t_solve(const LaneFactor<T>& f, int n, T (*v)[lanes_v<T>]) {
  constexpr int W = lanes_v<T>;
  for (int i = n - 1; i >= 0; --i) {
    T s[W];
    for (int w = 0; w < W; ++w) s[w] = v[i][w];
    for (int k = i + 1; k < n; ++k)
      for (int w = 0; w < W; ++w) s[w] -= f.l.v[k][i][w] * v[k][w];
    for (int w = 0; w < W; ++w) v[i][w] = s[w] * f.dinv[i][w];
  }
}

/// POTRS (A = L L^T or U^T U from potrf) of matrices [W g, W g + W).
template <class T>
struct LanePotrs {
  static constexpr int W = lanes_v<T>;
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  int n, nrhs;
  size_type nbatch;
  void operator()(const size_type g) const {
    const size_type b0 = g * W;
    const int cnt = nbatch - b0 < W ? int(nbatch - b0) : W;
    Mat<const T> a[W];
    Mat<T> x[W];
    for (int w = 0; w < cnt; ++w) {
      a[w] = uplo == Uplo::Upper ? A.get(b0 + w, n, n).t() : A.get(b0 + w, n, n);
      x[w] = B.get(b0 + w, n, nrhs);
    }
    const BatchMat<const T> Al = uplo == Uplo::Upper ? A.t() : A;
    LaneFactor<T> f;
    lanes_load_lower(f.l, n, cnt, Al, b0, cnt == W && Al.batch_unit_stride(),
                     [&](int w, int i, int j) { return a[w](i, j); });
    f.invert_diagonal(n, false);
    const bool fast = cnt == W && B.batch_unit_stride();
    alignas(64) T v[kLaneMaxN][W];
    for (int c = 0; c < nrhs; ++c) {
      for (int i = 0; i < n; ++i) {
        if (fast) {
          const T* p = B.base + b0 + offset_type(i) * B.rs + offset_type(c) * B.cs;
          for (int w = 0; w < W; ++w) v[i][w] = p[w];
        } else {
          for (int w = 0; w < W; ++w) v[i][w] = w < cnt ? x[w](i, c) : T(0);
        }
      }
      lanes_lower_solve(f, n, v);
      lanes_lower_t_solve(f, n, v);
      for (int i = 0; i < n; ++i)
        for (int w = 0; w < cnt; ++w) x[w](i, c) = v[i][w];
    }
  }
};

/// TRSM of matrices [W g, W g + W), every variant as a lower Left solve (lower_solve).
template <class T>
struct LaneTrsm {
  static constexpr int W = lanes_v<T>;
  TrsmOperands<T> op;
  size_type nbatch;
  void operator()(const size_type g) const {
    const size_type b0 = g * W;
    const int cnt = nbatch - b0 < W ? int(nbatch - b0) : W;
    const bool unit = op.diag == Diag::Unit;
    Mat<const T> a[W];
    Mat<T> x[W];
    int k = 0, ncols = 0;
    for (int w = 0; w < cnt; ++w) {
      const LowerSolve<T> p = lower_solve(op, b0 + w);
      a[w] = p.a;
      x[w] = p.x;
      k = p.k;
      ncols = p.ncols;
    }
    LaneFactor<T> f;
    lanes_load_lower(f.l, k, cnt, op.A, b0, false,
                     [&](int w, int i, int j) { return (unit && i == j) ? T(1) : a[w](i, j); });
    f.invert_diagonal(k, unit);
    alignas(64) T v[kLaneMaxN][W];
    for (int c = 0; c < ncols; ++c) {
      for (int i = 0; i < k; ++i)
        for (int w = 0; w < W; ++w) v[i][w] = w < cnt ? op.alpha * x[w](i, c) : T(0);
      lanes_lower_solve(f, k, v);
      for (int i = 0; i < k; ++i)
        for (int w = 0; w < cnt; ++w) x[w](i, c) = v[i][w];
    }
  }
};

/// Runs the lane functor f over the batch's groups of W matrices (host threads, batch_for).
template <class ExecSpace, class T, class F>
void launch_lanes(const ExecSpace& exec, const char* label, size_type nbatch, const F& f, double flops_per_matrix) {
  constexpr int W = lanes_v<T>;
  batch_for(exec, label, (nbatch + W - 1) / W, f, flops_per_matrix * W);
}

template <class ExecSpace, class T>
void lanes_potrf(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A, int* infos) {
  launch_lanes<ExecSpace, T>(exec, "kspd::batched::potrf[lanes]", nbatch, LanePotrf<T>{uplo, A, int(n), nbatch, infos},
                             double(n) * n * n / 3);
}
template <class ExecSpace, class T>
void lanes_potrs(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                 const BatchMat<const T>& A, const BatchMat<T>& B) {
  launch_lanes<ExecSpace, T>(exec, "kspd::batched::potrs[lanes]", nbatch,
                             LanePotrs<T>{uplo, A, B, int(n), int(nrhs), nbatch}, 2.0 * n * n * (nrhs + 1));
}
template <class ExecSpace, class T>
void lanes_trsm(const ExecSpace& exec, const TrsmOperands<T>& op, size_type nbatch) {
  const size_type m = op.d.m, n = op.d.n, k = op.side == Side::Left ? m : n;
  launch_lanes<ExecSpace, T>(exec, "kspd::batched::trsm[lanes]", nbatch, LaneTrsm<T>{op, nbatch},
                             double(k) * k * (m * n / k + 1));
}

}  // namespace kspd::batched::Impl
#endif
