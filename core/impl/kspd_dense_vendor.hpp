#ifndef KSPD_DENSE_VENDOR_HPP
#define KSPD_DENSE_VENDOR_HPP
/// \file kspd_dense_vendor.hpp
/// Vendor calls on strided operands: each function brings its operands to column-major
/// form (a row-major operand is the column-major storage of its transpose: flip uplo, toggle
/// trans, or swap the side) and calls cuBLAS/cuSOLVER on CUDA or host BLAS/LAPACK on host
/// spaces. It returns false when the backend has no vendor library or an operand has no unit
/// stride; the caller then runs the native path.

#include <type_traits>
#include <utility>

#include "kspd_compat.hpp"
#include "kspd_dense_mat.hpp"
#include "kspd_host_blas.hpp"
#include "kspd_cuda_bindings.hpp"

namespace kspd::Impl {

template <class ExecSpace, class T>
inline constexpr bool has_vendor_v =
    is_vendor_scalar<std::remove_const_t<T>>::value &&
    (compat::is_host_exec_v<ExecSpace>
#ifdef KSPD_ENABLE_CUDA_TPLS
     || compat::is_cuda_exec_v<ExecSpace>
#endif
    );

/// Brings `a` to column-major storage; `transposed` tells whether the storage is a^T.
template <class T>
bool orient(Mat<T>& a, bool& transposed) {
  transposed = false;
  if (is_col_major(a)) return true;
  if (is_col_major(a.t())) {
    a = a.t();
    transposed = true;
    return true;
  }
  return false;
}

/// Toggles op for an operand seen through its transpose. For complex scalars A^H = conj(S)
/// for the storage S = A^T, which BLAS cannot express: returns false (the caller falls back).
template <class T>
bool toggle_op(Trans& t) {
  if (is_complex_v<T> && is_conj(t)) return false;
  t = toggle(t);
  return true;
}

#ifdef KSPD_ENABLE_CUDA_TPLS
#define KSPD_VENDOR_CALL(exec, fn, ...)                                 \
  do {                                                                  \
    if constexpr (compat::is_host_exec_v<ExecSpace>) {                  \
      host::fn(__VA_ARGS__);                                            \
    } else {                                                            \
      cuda::fn(exec.cuda_stream(), __VA_ARGS__);                        \
    }                                                                   \
  } while (0)
#else
#define KSPD_VENDOR_CALL(exec, fn, ...) host::fn(__VA_ARGS__)
#endif

/// Creates the vendor library's per-stream state for exec now (cuBLAS/cuSOLVER handles on
/// CUDA; nothing on host spaces), so the first call on exec does not pay for it.
template <class ExecSpace>
void vendor_prepare([[maybe_unused]] const ExecSpace& exec) {
#ifdef KSPD_ENABLE_CUDA_TPLS
  if constexpr (compat::is_cuda_exec_v<ExecSpace>) cuda::prepare(exec.cuda_stream());
#endif
}

template <class ExecSpace, class T>
bool vendor_gemm(const ExecSpace& exec, Trans ta, Trans tb, T alpha, CMat<T> A, CMat<T> B,
                 T beta, Mat<T> C) {
  if constexpr (!has_vendor_v<ExecSpace, T>) {
    return false;
  } else {
    bool tC, tA, tB;
    if (!orient(C, tC)) return false;
    if (tC) {  // C^T = op(B)^T op(A)^T
      std::swap(A, B);
      Trans t = ta;
      ta = tb;
      tb = t;
      if (!toggle_op<T>(ta) || !toggle_op<T>(tb)) return false;
    }
    // With an operand stored transposed, its op toggles.
    if (!orient(A, tA) || !orient(B, tB)) return false;
    if (tA && !toggle_op<T>(ta)) return false;
    if (tB && !toggle_op<T>(tb)) return false;
    auto a = col_major(A);
    auto b = col_major(B);
    auto c = col_major(C);
    const size_type k = is_trans(ta) ? a.m : a.n;
    KSPD_VENDOR_CALL(exec, gemm, to_char(ta), to_char(tb), c.m, c.n, k, alpha, a.p, a.ld, b.p, b.ld,
                     beta, c.p, c.ld);
    return true;
  }
}

/// C(uplo) = alpha op(A) op(A)^T + beta C (complex: herk, alpha op(A) op(A)^H with real
/// alpha and beta, op N or C)
template <class ExecSpace, class T>
bool vendor_syrk(const ExecSpace& exec, Uplo uplo, Trans trans, T alpha, CMat<T> A, T beta,
                 Mat<T> C) {
  if constexpr (!has_vendor_v<ExecSpace, T>) {
    return false;
  } else {
    bool tC, tA;
    if (!orient(C, tC) || !orient(A, tA)) return false;
    if constexpr (is_complex_v<T>) {
      // herk: C's transpose is conj(C), A's storage conj(A^H): neither is a BLAS call
      if (tC || tA) return false;
      auto a = col_major(A);
      auto c = col_major(C);
      const size_type k = is_trans(trans) ? a.m : a.n;
      KSPD_VENDOR_CALL(exec, herk, to_char(uplo), is_trans(trans) ? 'C' : 'N', c.n, k, alpha.real(), a.p, a.ld,
                       beta.real(), c.p, c.ld);
      return true;
    } else {
      if (tC) uplo = flip(uplo);
      if (tA) trans = toggle(trans);
      auto a = col_major(A);
      auto c = col_major(C);
      const size_type k = is_trans(trans) ? a.m : a.n;
      KSPD_VENDOR_CALL(exec, syrk, to_char(uplo), to_char(trans), c.n, k, alpha, a.p, a.ld, beta, c.p,
                       c.ld);
      return true;
    }
  }
}

/// C(uplo) = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C; A and B must share an orientation.
template <class ExecSpace, class T>
bool vendor_syr2k(const ExecSpace& exec, Uplo uplo, Trans trans, T alpha, CMat<T> A,
                  CMat<T> B, T beta, Mat<T> C) {
  if constexpr (!has_vendor_v<ExecSpace, T> || is_complex_v<T>) {
    return false;
  } else {
    bool tC, tA, tB;
    if (!orient(C, tC) || !orient(A, tA) || !orient(B, tB) || tA != tB) return false;
    if (tC) uplo = flip(uplo);
    if (tA) trans = toggle(trans);
    auto a = col_major(A);
    auto b = col_major(B);
    auto c = col_major(C);
    const size_type k = is_trans(trans) ? a.m : a.n;
    KSPD_VENDOR_CALL(exec, syr2k, to_char(uplo), to_char(trans), c.n, k, alpha, a.p, a.ld, b.p, b.ld,
                     beta, c.p, c.ld);
    return true;
  }
}

/// C = alpha A B + beta C (Left) or alpha B A + beta C (Right), A symmetric in `uplo`.
template <class ExecSpace, class T>
bool vendor_symm(const ExecSpace& exec, Side side, Uplo uplo, T alpha, CMat<T> A,
                 CMat<T> B, T beta, Mat<T> C) {
  if constexpr (!has_vendor_v<ExecSpace, T> || is_complex_v<T>) {
    return false;
  } else {
    bool tA, tB, tC;
    if (!orient(A, tA) || !orient(B, tB) || !orient(C, tC) || tB != tC) return false;
    if (tA) uplo = flip(uplo);
    if (tC) side = flip(side);  // C^T = B^T A
    auto a = col_major(A);
    auto b = col_major(B);
    auto c = col_major(C);
    KSPD_VENDOR_CALL(exec, symm, to_char(side), to_char(uplo), c.m, c.n, alpha, a.p, a.ld, b.p, b.ld,
                     beta, c.p, c.ld);
    return true;
  }
}

/// Triangular solve or multiply, in place on B (is_solve selects trsm or trmm).
template <class ExecSpace, class T>
bool vendor_trxm(const ExecSpace& exec, bool is_solve, Side side, Uplo uplo, Trans trans, Diag diag,
                 T alpha, CMat<T> A, Mat<T> B) {
  if constexpr (!has_vendor_v<ExecSpace, T>) {
    return false;
  } else {
    bool tA, tB;
    if (!orient(A, tA) || !orient(B, tB)) return false;
    if (tA) {
      uplo = flip(uplo);
      if (!toggle_op<T>(trans)) return false;
    }
    if (tB) {  // op(A) X = B  <=>  X^T op(A)^T = B^T
      side = flip(side);
      if (!toggle_op<T>(trans)) return false;
    }
    auto a = col_major(A);
    auto b = col_major(B);
    if (is_solve)
      KSPD_VENDOR_CALL(exec, trsm, to_char(side), to_char(uplo), to_char(trans), to_char(diag), b.m,
                       b.n, alpha, a.p, a.ld, b.p, b.ld);
    else
      KSPD_VENDOR_CALL(exec, trmm, to_char(side), to_char(uplo), to_char(trans), to_char(diag), b.m,
                       b.n, alpha, a.p, a.ld, b.p, b.ld);
    return true;
  }
}

enum class FactorOp { Potrf, Trtri, Lauum, Potri };

/// potrf / trtri / lauum / potri on A. `info` points to an int in ExecSpace's memory space
/// (host memory on host spaces: written at once; device memory on CUDA: written in stream
/// order). Returns false when there is no vendor routine (CUDA has no lauum).
template <class ExecSpace, class T>
bool vendor_factor(const ExecSpace& exec, FactorOp fop, Uplo uplo, Diag diag, Mat<T> A, int* info) {
  if constexpr (!has_vendor_v<ExecSpace, T>) {
    return false;
  } else {
    bool tA;
    if (!orient(A, tA)) return false;
    // Complex too: the storage of a Hermitian A's transposed view is conj(A) = A^T, whose
    // factor in the flipped triangle is the conjugate of A's (and inv, L^H L likewise).
    if (tA) uplo = flip(uplo);
    auto a = col_major(A);
    const char u = to_char(uplo);
    if constexpr (compat::is_host_exec_v<ExecSpace>) {
      // OpenBLAS 0.3.21's z/clauum 'U' (also inside z/cpotri) reads a column past the matrix
      // (its zdotc with stride lda; AddressSanitizer stopped it at the end of a mapping, n =
      // 40, lda = 43): complex lauum / potri in 'U' take kspd's own recursion instead.
      if constexpr (is_complex_v<T>)
        if (u == 'U' && (fop == FactorOp::Lauum || fop == FactorOp::Potri)) return false;
      switch (fop) {
        case FactorOp::Potrf: *info = host::potrf(u, a.n, a.p, a.ld); break;
        case FactorOp::Trtri: *info = host::trtri(u, to_char(diag), a.n, a.p, a.ld); break;
        case FactorOp::Lauum: *info = host::lauum(u, a.n, a.p, a.ld); break;
        case FactorOp::Potri: *info = host::potri(u, a.n, a.p, a.ld); break;
      }
      return true;
    }
#ifdef KSPD_ENABLE_CUDA_TPLS
    else {
      switch (fop) {
        case FactorOp::Potrf: cuda::potrf(exec.cuda_stream(), u, a.n, a.p, a.ld, info); return true;
        case FactorOp::Trtri:
          // FIXME_CUDA: cuSOLVER's trtri writes the unit diagonal that LAPACK leaves alone;
          // the native leaf keeps LAPACK's contract there.
          if (diag == Diag::Unit) return false;
          cuda::trtri(exec.cuda_stream(), u, to_char(diag), a.n, a.p, a.ld, info);
          return true;
        case FactorOp::Potri: cuda::potri(exec.cuda_stream(), u, a.n, a.p, a.ld, info); return true;
        case FactorOp::Lauum: return false;
      }
      return false;
    }
#endif
  }
}

}  // namespace kspd::Impl
#endif
