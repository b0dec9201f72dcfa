#ifndef KSPD_SPARSE_SOLVE_LEAVES_HPP
#define KSPD_SPARSE_SOLVE_LEAVES_HPP
/// \file kspd_sparse_solve_leaves.hpp
/// The four leaves of the host supernodal solve on one panel (column-major, leading
/// dimension ld) and nr right-hand sides (column-major, leading dimension ldx): the
/// diagonal triangle forward and transposed, the rows below times X and their transpose.
/// Small panels (k * ld <= kInline) run plain loops: a BLAS call costs more than their work
/// (elasticity's 3-column supernodes, the collection matrices' 1-column ones). The others
/// call core's host BLAS: trsv/gemv for one right-hand side, trsm/gemm for several. The
/// choice depends on the panel only, never on the thread count.

#include "kspd_host_blas.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse::Impl::leaves {

constexpr size_type kInline = 1024;
inline bool small(size_type k, size_type ld) { return k * ld <= kInline; }

/// X = L^-1 X (L: k x k lower, non-unit).
template <class T>
void diag_forward(const T* L, size_type k, size_type ld, T* X, size_type ldx, size_type nr) {
  if (small(k, ld)) {
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
  if (small(k, ld)) {
    for (size_type r = 0; r < nr; ++r) {
      T* x = X + r * ldx;
      for (size_type j = k - 1; j >= 0; --j) {
        const T* l = L + j * ld;
        T s = x[j];
        for (size_type i = j + 1; i < k; ++i) s -= l[i] * x[i];
        x[j] = s / l[j];
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
  if (small(k, ld)) {
    for (size_type r = 0; r < nr; ++r) {
      T* c = C + r * ldc;
      const T* x = X + r * ldx;
      for (size_type i = 0; i < m; ++i) c[i] = T(0);
      for (size_type j = 0; j < k; ++j) {
        const T* b = B + j * ld;
        const T xj = x[j];
        for (size_type i = 0; i < m; ++i) c[i] += b[i] * xj;
      }
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
  if (small(k, ld)) {
    for (size_type r = 0; r < nr; ++r) {
      T* c = C + r * ldc;
      const T* g = G + r * ldg;
      for (size_type j = 0; j < k; ++j) {
        const T* b = B + j * ld;
        T s = T(0);
        for (size_type i = 0; i < m; ++i) s += b[i] * g[i];
        c[j] = minus ? c[j] - s : s;
      }
    }
  } else if (nr == 1) {
    kspd::Impl::host::gemv('T', m, k, minus ? T(-1) : T(1), B, ld, G, 1, minus ? T(1) : T(0), C, 1);
  } else {
    kspd::Impl::host::gemm('T', 'N', k, nr, m, minus ? T(-1) : T(1), B, ld, G, ldg, minus ? T(1) : T(0), C, ldc);
  }
}

}  // namespace kspd::sparse::Impl::leaves
#endif
