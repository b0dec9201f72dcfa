#ifndef KSPD_SPARSE_SOLVE_LEAVES_HPP
#define KSPD_SPARSE_SOLVE_LEAVES_HPP
/// \file kspd_sparse_solve_leaves.hpp
/// The four leaves of the host supernodal solve on one panel (column-major, leading
/// dimension ld) and nr right-hand sides (column-major, leading dimension ldx): the
/// diagonal triangle forward and transposed, the rows below times X and their transpose.
/// Small work runs plain loops: a BLAS call costs more than it (elasticity's 3-column
/// supernodes, the collection matrices' 1-column ones), and OpenBLAS' trsv runs small
/// triangles as one axpy call per column. Triangles of up to kInlineDiag columns and
/// products of up to kInline entries (forward: or of up to kInlineCols columns) run here,
/// four columns at a time; the others call core's host BLAS: trsv/gemv for one right-hand side, trsm/gemm for
/// several. The choice depends on the panel only, never on the thread count.

#include "kspd_host_blas.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse::Impl::leaves {

constexpr size_type kInlineDiag = 64, kInline = 4096, kInlineCols = 16;
inline bool small_diag(size_type k) { return k <= kInlineDiag; }
/// Forward products vectorize at any height (axpy); backward ones are dot products, which
/// stay scalar without reassociation: BLAS takes the tall ones.
inline bool small_forward(size_type k, size_type m) { return k <= kInlineCols || k * m <= kInline; }
inline bool small_backward(size_type k, size_type m) { return k * m <= kInline; }

/// sum_i a[i] b[i] in four interleaved partial sums, combined as (s0 + s1) + (s2 + s3).
template <class T>
inline T dot4(const T* a, const T* b, size_type n) {
  T s0 = T(0), s1 = T(0), s2 = T(0), s3 = T(0);
  size_type i = 0;
  for (; i + 4 <= n; i += 4) {
    s0 += a[i] * b[i];
    s1 += a[i + 1] * b[i + 1];
    s2 += a[i + 2] * b[i + 2];
    s3 += a[i + 3] * b[i + 3];
  }
  for (; i < n; ++i) s0 += a[i] * b[i];
  return (s0 + s1) + (s2 + s3);
}

/// c[i] += sum_j b_j[i] x_j over the k columns of B (ld), four at a time.
template <class T>
inline void axpy_columns(const T* B, size_type m, size_type k, size_type ld, const T* x, T* c) {
  size_type j = 0;
  for (; j + 4 <= k; j += 4) {
    const T *b0 = B + j * ld, *b1 = b0 + ld, *b2 = b1 + ld, *b3 = b2 + ld;
    const T x0 = x[j], x1 = x[j + 1], x2 = x[j + 2], x3 = x[j + 3];
    for (size_type i = 0; i < m; ++i) c[i] = c[i] + b0[i] * x0 + b1[i] * x1 + b2[i] * x2 + b3[i] * x3;
  }
  for (; j < k; ++j) {
    const T* b = B + j * ld;
    const T xj = x[j];
    for (size_type i = 0; i < m; ++i) c[i] += b[i] * xj;
  }
}

/// s_j = sum_i b_j[i] g[i] for the k columns of B (ld), four columns at a time (four
/// independent chains: the sums' order is fixed, no reassociation needed).
template <class T, class Out>
inline void dot_columns(const T* B, size_type m, size_type k, size_type ld, const T* g, Out&& out) {
  size_type j = 0;
  for (; j + 4 <= k; j += 4) {
    const T *b0 = B + j * ld, *b1 = b0 + ld, *b2 = b1 + ld, *b3 = b2 + ld;
    T s0 = T(0), s1 = T(0), s2 = T(0), s3 = T(0);
    for (size_type i = 0; i < m; ++i) {
      const T gi = g[i];
      s0 += b0[i] * gi;
      s1 += b1[i] * gi;
      s2 += b2[i] * gi;
      s3 += b3[i] * gi;
    }
    out(j, s0);
    out(j + 1, s1);
    out(j + 2, s2);
    out(j + 3, s3);
  }
  for (; j < k; ++j) {
    const T* b = B + j * ld;
    T s = T(0);
    for (size_type i = 0; i < m; ++i) s += b[i] * g[i];
    out(j, s);
  }
}

/// X = L^-1 X (L: k x k lower, non-unit).
template <class T>
void diag_forward(const T* L, size_type k, size_type ld, T* X, size_type ldx, size_type nr) {
  if (small_diag(k)) {
    for (size_type r = 0; r < nr; ++r) {
      T* x = X + r * ldx;
      for (size_type j = 0; j < k; ++j) {
        const T* l = L + j * ld;
        const T xj = x[j] /= l[j];
        for (size_type i = j + 1; i < k; ++i) x[i] -= l[i] * xj;
      }
    }
  } else if (nr == 1) {
    kspd::Impl::host::trsv('L', 'N', 'N', k, L, ld, X, 1);
  } else {
    kspd::Impl::host::trsm('L', 'L', 'N', 'N', k, nr, T(1), L, ld, X, ldx);
  }
}

/// X = L^-T X.
template <class T>
void diag_backward(const T* L, size_type k, size_type ld, T* X, size_type ldx, size_type nr) {
  if (small_diag(k)) {
    for (size_type r = 0; r < nr; ++r) {
      T* x = X + r * ldx;
      for (size_type j = k - 1; j >= 0; --j) {
        const T* l = L + j * ld;
        x[j] = (x[j] - dot4(l + j + 1, x + j + 1, k - j - 1)) / l[j];
      }
    }
  } else if (nr == 1) {
    kspd::Impl::host::trsv('L', 'T', 'N', k, L, ld, X, 1);
  } else {
    kspd::Impl::host::trsm('L', 'L', 'T', 'N', k, nr, T(1), L, ld, X, ldx);
  }
}

/// C = B X (B: m x k, ld; C: m x nr, ldc).
template <class T>
void below_forward(const T* B, size_type m, size_type k, size_type ld, const T* X, size_type ldx, size_type nr, T* C,
                   size_type ldc) {
  if (small_forward(k, m)) {
    for (size_type r = 0; r < nr; ++r) {
      T* c = C + r * ldc;
      for (size_type i = 0; i < m; ++i) c[i] = T(0);
      axpy_columns(B, m, k, ld, X + r * ldx, c);
    }
  } else if (nr == 1) {
    kspd::Impl::host::gemv('N', m, k, T(1), B, ld, X, 1, T(0), C, 1);
  } else {
    kspd::Impl::host::gemm('N', 'N', m, nr, k, T(1), B, ld, X, ldx, T(0), C, ldc);
  }
}

/// C = B^T G (B: m x k, ld; G: m x nr, ldg; C: k x nr, ldc), or X -= B^T G with minus.
template <class T>
void below_backward(const T* B, size_type m, size_type k, size_type ld, const T* G, size_type ldg, size_type nr, T* C,
                    size_type ldc, bool minus) {
  if (small_backward(k, m)) {
    for (size_type r = 0; r < nr; ++r) {
      T* c = C + r * ldc;
      dot_columns(B, m, k, ld, G + r * ldg, [&](size_type j, T s) { c[j] = minus ? c[j] - s : s; });
    }
  } else if (nr == 1) {
    kspd::Impl::host::gemv('T', m, k, minus ? T(-1) : T(1), B, ld, G, 1, minus ? T(1) : T(0), C, 1);
  } else {
    kspd::Impl::host::gemm('T', 'N', k, nr, m, minus ? T(-1) : T(1), B, ld, G, ldg, minus ? T(1) : T(0), C, ldc);
  }
}

}  // namespace kspd::sparse::Impl::leaves
#endif
