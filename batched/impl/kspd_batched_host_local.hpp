#ifndef KSPD_BATCHED_HOST_LOCAL_HPP
#define KSPD_BATCHED_HOST_LOCAL_HPP
/// \file kspd_batched_host_local.hpp
/// Host backends, small n (<= kLocalMaxN = 16): one matrix copied into a local array of fixed
/// leading dimension 16 (any strides in: column-major, LayoutLeft batch-first, transposed),
/// factored / solved there with loops that run down contiguous columns (axpy and dot forms, which
/// the compiler vectorizes and unrolls against the fixed leading dimension), and copied back.
/// Against the generic strided loops (serial_*) this removes the runtime-stride address
/// arithmetic and the row-wise reads from the inner loops; against a LAPACK call per matrix the
/// call and blocking overhead. Host_path's HostPath::Local selects it per n (tuning table).

#include <cmath>

#include "kspd_batched_mat.hpp"
#include "kspd_batched_trsm_internal.hpp"

namespace kspd::batched::Impl {

constexpr int kLocalMaxN = 16;
constexpr int kLocalLd = 16;

/// A = L L^T (Lower) / U^T U (Upper) of n <= 16 in place; returns LAPACK's info. On failure at
/// column j the finished columns and the failed pivot are written (as serial_potrf does), the
/// rest keep their input.
template <class T>
int local_potrf(Uplo uplo, Mat<T> A) {
  if (uplo == Uplo::Upper) A = A.t();
  const int n = int(A.n);
  alignas(64) T a[kLocalLd * kLocalMaxN];
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) a[i + j * kLocalLd] = A(i, j);
  int info = 0, done = n;
  for (int k = 0; k < n; ++k) {  // right-looking: column axpys on the trailing lower triangle
    T* ck = a + k * kLocalLd;
    const T d = ck[k];
    if (!(d > T(0))) {
      info = k + 1;
      done = k;
      A(k, k) = d;
      break;
    }
    const T s = std::sqrt(d), r = T(1) / s;
    ck[k] = s;
    for (int i = k + 1; i < n; ++i) ck[i] *= r;
    for (int j = k + 1; j < n; ++j) {
      T* cj = a + j * kLocalLd;
      const T t = ck[j];
      for (int i = j; i < n; ++i) cj[i] -= ck[i] * t;
    }
  }
  for (int j = 0; j < done; ++j)
    for (int i = j; i < n; ++i) A(i, j) = a[i + j * kLocalLd];
  return info;
}

/// The lower triangle of a (n x n, lower; upper problems reversed) into l, its reciprocal
/// diagonal into dinv (1 for unit diagonals).
template <class T>
void local_load_lower(const Mat<const T>& a, int n, bool lower, bool unit, T* l, T* dinv) {
  for (int j = 0; j < n; ++j) {
    const int sj = lower ? j : n - 1 - j;
    for (int i = j; i < n; ++i) l[i + j * kLocalLd] = a(lower ? i : n - 1 - i, sj);
    dinv[j] = unit ? T(1) : T(1) / l[j + j * kLocalLd];
  }
}
/// X = L^-1 X (forward, column axpys) for nc columns of x (leading dimension 16).
template <class T>
void local_lower_solve(int n, int nc, const T* l, const T* dinv, T* x) {
  for (int c = 0; c < nc; ++c) {
    T* xc = x + c * kLocalLd;
    for (int k = 0; k < n; ++k) {
      const T xk = xc[k] * dinv[k];
      xc[k] = xk;
      const T* lk = l + k * kLocalLd;
      for (int i = k + 1; i < n; ++i) xc[i] -= lk[i] * xk;
    }
  }
}
/// X = L^-T X (backward, column dots) for nc columns of x.
template <class T>
void local_lower_t_solve(int n, int nc, const T* l, const T* dinv, T* x) {
  for (int c = 0; c < nc; ++c) {
    T* xc = x + c * kLocalLd;
    for (int i = n - 1; i >= 0; --i) {
      const T* li = l + i * kLocalLd;
      T s = T(0);
      for (int k = i + 1; k < n; ++k) s += li[k] * xc[k];
      xc[i] = (xc[i] - s) * dinv[i];
    }
  }
}

/// op(A) X = alpha B / X op(A) = alpha B with k = order of A <= 16, any number of columns (in
/// chunks of 16); every variant reduced to a lower solve (upper ones in reversed order).
template <class T>
void local_trsm(Side side, Uplo uplo, Trans trans, Diag diag, T alpha, Mat<const T> A, Mat<T> B) {
  const bool lower = reduce_left_notrans(side, uplo, trans, A, B);
  const int k = int(B.m), ncols = int(B.n);
  alignas(64) T l[kLocalLd * kLocalMaxN], x[kLocalLd * kLocalMaxN];
  T dinv[kLocalMaxN];
  local_load_lower(A, k, lower, diag == Diag::Unit, l, dinv);
  for (int c0 = 0; c0 < ncols; c0 += kLocalMaxN) {
    const int nc = ncols - c0 < kLocalMaxN ? ncols - c0 : kLocalMaxN;
    for (int c = 0; c < nc; ++c)
      for (int i = 0; i < k; ++i) x[i + c * kLocalLd] = alpha * B(lower ? i : k - 1 - i, c0 + c);
    local_lower_solve(k, nc, l, dinv, x);
    for (int c = 0; c < nc; ++c)
      for (int i = 0; i < k; ++i) B(lower ? i : k - 1 - i, c0 + c) = x[i + c * kLocalLd];
  }
}

/// X = A^-1 B from potrf's factor (uplo), n <= 16: L y = b, L^T x = y on the local copies.
template <class T>
void local_potrs(Uplo uplo, Mat<const T> A, Mat<T> B) {
  if (uplo == Uplo::Upper) A = A.t();  // L = U^T
  const int n = int(B.m), ncols = int(B.n);
  alignas(64) T l[kLocalLd * kLocalMaxN], x[kLocalLd * kLocalMaxN];
  T dinv[kLocalMaxN];
  local_load_lower(A, n, true, false, l, dinv);
  for (int c0 = 0; c0 < ncols; c0 += kLocalMaxN) {
    const int nc = ncols - c0 < kLocalMaxN ? ncols - c0 : kLocalMaxN;
    for (int c = 0; c < nc; ++c)
      for (int i = 0; i < n; ++i) x[i + c * kLocalLd] = B(i, c0 + c);
    local_lower_solve(n, nc, l, dinv, x);
    local_lower_t_solve(n, nc, l, dinv, x);
    for (int c = 0; c < nc; ++c)
      for (int i = 0; i < n; ++i) B(i, c0 + c) = x[i + c * kLocalLd];
  }
}

}  // namespace kspd::batched::Impl
#endif
