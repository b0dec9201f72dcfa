#ifndef KSPD_DENSE_NATIVE_HPP
#define KSPD_DENSE_NATIVE_HPP
/// \file kspd_dense_native.hpp
/// Portable Kokkos kernels: the leaves of the recursive algorithms when no vendor library
/// serves the backend (and, in tests, to check the recursion without any TPL), plus GEMM on
/// KokkosBlas. Each leaf handles one canonical variant (Left, Lower, NoTranspose or
/// Transpose); the recursive layer maps every other variant onto it by transposition.
/// Leaves are meant for blocks up to a few hundred rows.

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_dense_mat.hpp"

namespace kspd::Impl::native {

template <class ExecSpace, class T>
using StridedView = Kokkos::View<T**, Kokkos::LayoutStride, typename ExecSpace::memory_space,
                                 Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

template <class ExecSpace, class T>
StridedView<ExecSpace, T> as_view(const Mat<T>& a) {
  return StridedView<ExecSpace, T>(a.p, Kokkos::LayoutStride(a.m, a.rs, a.n, a.cs));
}

/// C = beta C, with beta == 0 writing zeros (BLAS semantics: C is not read).
template <class ExecSpace, class T>
void scale(const ExecSpace& exec, T beta, Mat<T> C) {
  if (C.empty() || beta == T(1)) return;
  const size_type m = C.m;
  Kokkos::parallel_for(
      "kspd::native::scale", Kokkos::RangePolicy<ExecSpace>(exec, 0, C.m * C.n),
      KOKKOS_LAMBDA(const size_type idx) {
        T& c = C(idx % m, idx / m);
        c = beta == T(0) ? T(0) : beta * c;
      });
}

/// B = conj(B) (complex scalars; nothing for real ones).
template <class ExecSpace, class T>
void conj_inplace(const ExecSpace& exec, Mat<T> B) {
  if constexpr (is_complex_v<T>) {
    if (B.empty()) return;
    const size_type m = B.m;
    Kokkos::parallel_for(
        "kspd::native::conj", Kokkos::RangePolicy<ExecSpace>(exec, 0, B.m * B.n), KOKKOS_LAMBDA(const size_type idx) {
          T& b = B(idx % m, idx / m);
          b = Kokkos::conj(b);
        });
  } else {
    (void)exec;
    (void)B;
  }
}
/// The lower triangle of the square C conjugated: the lower triangle of a Hermitian matrix
/// seen through a transposed view is the conjugate of what the algorithms expect.
template <class ExecSpace, class T>
void conj_lower(const ExecSpace& exec, Mat<T> C) {
  if constexpr (is_complex_v<T>) {
    if (C.empty()) return;
    const size_type n = C.n;
    Kokkos::parallel_for(
        "kspd::native::conj_lower", Kokkos::RangePolicy<ExecSpace>(exec, 0, n * n), KOKKOS_LAMBDA(const size_type idx) {
          const size_type i = idx % n, j = idx / n;
          if (i >= j) C(i, j) = Kokkos::conj(C(i, j));
        });
  } else {
    (void)exec;
    (void)C;
  }
}

/// C = alpha op(A) op(B) + beta C on KokkosBlas::gemm.
template <class ExecSpace, class T>
void gemm(const ExecSpace& exec, Trans ta, Trans tb, T alpha, CMat<T> A, CMat<T> B, T beta,
          Mat<T> C) {
  if (C.empty()) return;
  const size_type k = is_trans(ta) ? A.m : A.n;
  if (k == 0 || alpha == T(0)) {
    scale(exec, beta, C);
    return;
  }
  if (beta == T(0)) scale(exec, T(0), C);  // so that poison in C never reaches beta * C
  auto op = [](Trans t) { return !is_trans(t) ? "N" : (is_complex_v<T> && is_conj(t)) ? "C" : "T"; };
  const char* sa = op(ta);
  const char* sb = op(tb);
  compat::gemm(exec, sa, sb, alpha, as_view<ExecSpace, const T>(A), as_view<ExecSpace, const T>(B),
               beta, as_view<ExecSpace, T>(C));
}

/// Left, Lower: B = alpha op(A)^{-1} B (solve) or B = alpha op(A) B (multiply); one thread
/// per column of B.
template <class ExecSpace, class T>
void trxm_leaf(const ExecSpace& exec, bool solve, Trans trans, Diag diag, T alpha, CMat<T> A,
               Mat<T> B) {
  if (B.empty()) return;
  const size_type m = B.m;
  const bool unit = diag == Diag::Unit;
  const bool tr = is_trans(trans);
  const bool cj = is_conj(trans);  // op(A) = A^H reads conj(A) (complex scalars)
  Kokkos::parallel_for(
      solve ? "kspd::native::trsm_leaf" : "kspd::native::trmm_leaf",
      Kokkos::RangePolicy<ExecSpace>(exec, 0, B.n), KOKKOS_LAMBDA(const size_type j) {
        if (solve) {
          if (!tr) {  // L x = alpha b, forward
            for (size_type i = 0; i < m; ++i) {
              T s = alpha * B(i, j);
              for (size_type k = 0; k < i; ++k) s -= A(i, k) * B(k, j);
              B(i, j) = unit ? s : s / A(i, i);
            }
          } else {  // L^T x = alpha b (L^H: conjugated reads), backward
            for (size_type i = m - 1; i >= 0; --i) {
              T s = alpha * B(i, j);
              for (size_type k = i + 1; k < m; ++k) s -= conj_if(cj, A(k, i)) * B(k, j);
              B(i, j) = unit ? s : s / conj_if(cj, A(i, i));
            }
          }
        } else {
          if (!tr) {  // b = alpha L b, bottom-up keeps the inputs each row needs
            for (size_type i = m - 1; i >= 0; --i) {
              T s = unit ? B(i, j) : A(i, i) * B(i, j);
              for (size_type k = 0; k < i; ++k) s += A(i, k) * B(k, j);
              B(i, j) = alpha * s;
            }
          } else {  // b = alpha L^T b (L^H), top-down
            for (size_type i = 0; i < m; ++i) {
              T s = unit ? B(i, j) : conj_if(cj, A(i, i)) * B(i, j);
              for (size_type k = i + 1; k < m; ++k) s += conj_if(cj, A(k, i)) * B(k, j);
              B(i, j) = alpha * s;
            }
          }
        }
      });
}

/// Lower triangle of C = alpha (A B^T [+ B A^T]) + beta C, A and B n-by-k (A A^H, herk, for
/// complex scalars; syr2k is real only).
template <class ExecSpace, class T>
void syrk_leaf(const ExecSpace& exec, T alpha, CMat<T> A, CMat<T> B, bool two, T beta,
               Mat<T> C) {
  if (C.empty()) return;
  const size_type n = C.n, k = A.n;
  Kokkos::parallel_for(
      "kspd::native::syrk_leaf", Kokkos::RangePolicy<ExecSpace>(exec, 0, n * n),
      KOKKOS_LAMBDA(const size_type idx) {
        const size_type i = idx % n, j = idx / n;
        if (i < j) return;
        T s = 0;
        if (two)
          for (size_type l = 0; l < k; ++l) s += A(i, l) * B(j, l) + B(i, l) * A(j, l);
        else
          for (size_type l = 0; l < k; ++l) s += A(i, l) * conj_if(true, A(j, l));
        // herk: the diagonal stays real (no constexpr-if here: CUDA's extended lambdas
        // cannot first-capture in one)
        const bool d = !two && i == j;
        s = real_if(d, s);
        C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * real_if(d, C(i, j));
      });
}

/// C = alpha S B + beta C, S symmetric with its lower triangle in A (Left side).
template <class ExecSpace, class T>
void symm_leaf(const ExecSpace& exec, T alpha, CMat<T> A, CMat<T> B, T beta, Mat<T> C) {
  if (C.empty()) return;
  const size_type m = C.m, n = C.n;
  Kokkos::parallel_for(
      "kspd::native::symm_leaf", Kokkos::RangePolicy<ExecSpace>(exec, 0, m * n),
      KOKKOS_LAMBDA(const size_type idx) {
        const size_type i = idx % m, j = idx / m;
        T s = 0;
        for (size_type l = 0; l < m; ++l) s += (i >= l ? A(i, l) : A(l, i)) * B(l, j);
        C(i, j) = beta == T(0) ? alpha * s : alpha * s + beta * C(i, j);
      });
}

/// One team factors a lower-triangular block: right-looking Cholesky. Writes LAPACK's
/// info (0, or the 1-based column of the first non-positive pivot) to *info.
template <class ExecSpace, class T>
void potrf_leaf(const ExecSpace& exec, Mat<T> A, int* info) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const size_type n = A.n;
  Kokkos::parallel_for(
      "kspd::native::potrf_leaf", Policy(exec, 1, Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
        int failed = 0;
        for (size_type j = 0; j < n; ++j) {
          const auto ajj = real_part(A(j, j));  // LAPACK reads the real part of a Hermitian diagonal
          team.team_barrier();
          if (!(ajj > real_t<T>(0)) || A(j, j) != A(j, j)) {  // also catches NaN
            failed = int(j + 1);
            break;
          }
          const T ljj = T(compat::sqrt(ajj));
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, j, n), [&](const size_type i) {
            A(i, j) = i == j ? ljj : A(i, j) / ljj;
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, j + 1, n), [&](const size_type c) {
            const T acj = conj_if(true, A(c, j));
            for (size_type i = c; i < n; ++i) A(i, c) -= A(i, j) * acj;
            A(c, c) = real_if(true, A(c, c));  // a Hermitian diagonal stays real
          });
          team.team_barrier();
        }
        Kokkos::single(Kokkos::PerTeam(team), [&]() { *info = failed; });
      });
}

/// Row-by-row in-place kernels over a lower triangle: row i's new entries are computed from
/// data no other thread writes in that step, kept in a row buffer, then stored. Blocks that
/// fit in team scratch (the leaves on GPUs) are first loaded there with coalesced reads, so
/// the O(n^3) inner loops never touch global memory.
template <class ExecSpace, class T, class RowOp>
void rowwise_leaf(const ExecSpace& exec, const char* label, size_type n, Mat<T> A, RowOp op) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  constexpr size_type kMaxScratchBytes = 40 * 1024;
  const size_type nn = n > 0 ? n : 1;
  const bool in_scratch = Scratch::shmem_size(nn * nn + nn) <= size_t(kMaxScratchBytes);
  const size_type scratch_len = in_scratch ? nn * nn + nn : nn;
  Policy policy(exec, 1, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(scratch_len)));
  Kokkos::parallel_for(label, policy, KOKKOS_LAMBDA(const Member& team) {
    Scratch buf(team.team_scratch(0), scratch_len);
    Scratch row(buf.data() + (in_scratch ? nn * nn : 0), nn);
    // the working copy: the scratch block (column-major, ld n) or A itself
    const Mat<T> W = in_scratch ? Mat<T>{buf.data(), n, n, 1, n} : A;
    if (in_scratch) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), n * n), [&](const size_type idx) {
        const size_type i = idx % n, j = idx / n;
        if (i >= j) W(i, j) = A(i, j);
      });
      team.team_barrier();
    }
    for (size_type i = 0; i < n; ++i) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), i + 1),
                           [&](const size_type j) { row(j) = op(W, i, j); });
      team.team_barrier();
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), i + 1),
                           [&](const size_type j) { W(i, j) = row(j); });
      team.team_barrier();
    }
    if (in_scratch) {
      Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), n * n), [&](const size_type idx) {
        const size_type i = idx % n, j = idx / n;
        if (i >= j) A(i, j) = W(i, j);
      });
    }
  });
}

template <class T>
struct TrtriRow {
  bool unit;
  KOKKOS_INLINE_FUNCTION T operator()(const Mat<T>& A, size_type i, size_type j) const {
    if (j == i) return unit ? A(i, i) : T(1) / A(i, i);  // a unit diagonal is never touched
    const T inv_ii = unit ? T(1) : T(1) / A(i, i);
    // rows < i hold X = L^{-1} already; row i still holds L; X(j,j) is 1 when unit
    T s = A(i, j) * (unit ? T(1) : A(j, j));
    for (size_type k = j + 1; k < i; ++k) s += A(i, k) * A(k, j);
    return -inv_ii * s;
  }
};
template <class T>
struct LauumRow {
  KOKKOS_INLINE_FUNCTION T operator()(const Mat<T>& A, size_type i, size_type j) const {
    T s = 0;  // (L^H L)(i,j) = sum_{k >= i} conj(L(k,i)) L(k,j); rows >= i are untouched
    for (size_type k = i; k < A.n; ++k) s += conj_if(true, A(k, i)) * A(k, j);
    return s;
  }
};

/// First exactly-zero diagonal entry (1-based) or 0: trtri's singularity test.
template <class ExecSpace, class T>
void zero_diagonal(const ExecSpace& exec, CMat<T> A, int* info) {
  const size_type n = A.n;
  Kokkos::parallel_for(
      "kspd::native::zero_diagonal", Kokkos::RangePolicy<ExecSpace>(exec, 0, 1),
      KOKKOS_LAMBDA(const size_type) {
        int f = 0;
        for (size_type i = 0; i < n && f == 0; ++i)
          if (A(i, i) == T(0)) f = int(i + 1);
        *info = f;
      });
}

/// LAPACK potrf implementations differ on NaN pivots (reference LAPACK reports them,
/// OpenBLAS does not); this makes every backend report the first column whose factor
/// diagonal is NaN when *info is still 0. NaN anywhere in A reaches the diagonal of L at
/// or after its column. Runs on the stream, no fence.
template <class ExecSpace, class T>
void nan_diagonal(const ExecSpace& exec, CMat<T> A, int* info) {
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  const size_type n = A.n;
  Kokkos::parallel_for(
      "kspd::native::nan_diagonal", Policy(exec, 1, Kokkos::AUTO), KOKKOS_LAMBDA(const Member& team) {
        int first = 0x7fffffff;
        Kokkos::parallel_reduce(
            Kokkos::TeamThreadRange(team, size_type(0), n),
            [&](const size_type i, int& f) {
              const T d = A(i, i);
              if (d != d && int(i + 1) < f) f = int(i + 1);
            },
            Kokkos::Min<int>(first));
        Kokkos::single(Kokkos::PerTeam(team), [&]() {
          if (*info == 0 && first != 0x7fffffff) *info = first;
        });
      });
}

template <class ExecSpace, class T>
void trtri_leaf(const ExecSpace& exec, Diag diag, Mat<T> A) {
  rowwise_leaf(exec, "kspd::native::trtri_leaf", A.n, A, TrtriRow<T>{diag == Diag::Unit});
}
/// L^T L of a lower triangle. A block that fits in team scratch is snapshotted there once;
/// every entry of the result then depends only on the snapshot, so all of them are computed
/// at once and stored straight to A (no per-row barriers: the GPU leaf of LAUUM).
template <class ExecSpace, class T>
void lauum_leaf(const ExecSpace& exec, Mat<T> A) {
  using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space,
                               Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  const size_type n = A.n;
  if (n == 0) return;
  if (Scratch::shmem_size(n * n) > size_t(40 * 1024)) {
    rowwise_leaf(exec, "kspd::native::lauum_leaf", n, A, LauumRow<T>{});
    return;
  }
  using Policy = Kokkos::TeamPolicy<ExecSpace>;
  using Member = typename Policy::member_type;
  Policy policy(exec, 1, Kokkos::AUTO);
  policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(n * n)));
  Kokkos::parallel_for("kspd::native::lauum_leaf", policy, KOKKOS_LAMBDA(const Member& team) {
    Scratch buf(team.team_scratch(0), n * n);
    const Mat<T> L{buf.data(), n, n, 1, n};
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), n * n), [&](const size_type idx) {
      const size_type i = idx % n, j = idx / n;
      if (i >= j) L(i, j) = A(i, j);
    });
    team.team_barrier();
    Kokkos::parallel_for(Kokkos::TeamThreadRange(team, size_type(0), n * n), [&](const size_type idx) {
      const size_type i = idx % n, j = idx / n;
      if (i < j) return;
      T s = 0;  // (L^H L)(i,j) = sum_{k >= i} conj(L(k,i)) L(k,j)
      for (size_type k = i; k < n; ++k) s += conj_if(true, L(k, i)) * L(k, j);
      A(i, j) = s;
    });
  });
}

}  // namespace kspd::Impl::native
#endif
