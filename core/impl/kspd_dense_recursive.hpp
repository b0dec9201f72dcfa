#ifndef KSPD_DENSE_RECURSIVE_HPP
#define KSPD_DENSE_RECURSIVE_HPP
/// \file kspd_dense_recursive.hpp
/// Recursive TRSM, TRMM, SYRK, SYR2K, SYMM, POTRF, TRTRI, LAUUM (KBLAS paper, sec. 4): split
/// at the largest power of two below the size (half at a power of two), GEMM for the
/// off-diagonal blocks, a leaf below the cutoff. Everything is in place and allocates nothing
/// but one int for info. All variants are reduced to Left/Lower by transposition of the
/// strided operands, so each algorithm has one body.

#include "kspd_dense_native.hpp"
#include "kspd_dense_vendor.hpp"

namespace kspd::Impl {

/// Where LAPACK's info lives during a call: host memory on host spaces, one device int else.
template <class ExecSpace>
class InfoSlot {
 public:
  explicit InfoSlot(const ExecSpace& exec) : exec_(exec) {
    if constexpr (!compat::is_host_exec_v<ExecSpace>)
      dev_ = Kokkos::View<int, typename ExecSpace::memory_space>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::info"));
  }
  int* ptr() {
    if constexpr (compat::is_host_exec_v<ExecSpace>) return &host_;
    else return dev_.data();
  }
  /// Reads the value back (fences `exec` on device backends).
  int read() {
    if constexpr (compat::is_host_exec_v<ExecSpace>) {
      compat::fence(exec_, "kspd::info::read");
      return host_;
    } else {
      int v = 0;
      Kokkos::View<int, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> h(&v);
      Kokkos::deep_copy(exec_, h, dev_);
      compat::fence(exec_, "kspd::info::read");
      return v;
    }
  }

 private:
  ExecSpace exec_;
  int host_ = 0;
  Kokkos::View<int, typename ExecSpace::memory_space> dev_;
};

template <class ExecSpace, class T>
struct Recursive {
  ExecSpace exec;
  bool vendor;     // vendor GEMM and vendor leaves where the backend has them
  size_type leaf;  // recursion cutoff

  void gemm(Trans ta, Trans tb, T alpha, Mat<const T> A, Mat<const T> B, T beta, Mat<T> C) const {
    if (C.empty()) return;
    if (vendor && (is_trans(ta) ? A.m : A.n) > 0 && vendor_gemm(exec, ta, tb, alpha, A, B, beta, C))
      return;
    native::gemm(exec, ta, tb, alpha, A, B, beta, C);
  }

  // ---- TRSM / TRMM: Left, Lower, op(A) = A or A^T --------------------------------------
  void trxm(bool solve, Trans t, Diag d, T alpha, Mat<const T> A, Mat<T> B) const {
    const size_type m = B.m;
    if (B.empty()) return;
    if (m <= leaf) {
      if (!(vendor && vendor_trxm(exec, solve, Side::Left, Uplo::Lower, t, d, alpha, A, B)))
        native::trxm_leaf(exec, solve, t, d, alpha, A, B);
      return;
    }
    const size_type m1 = recursion_split(m), m2 = m - m1, n = B.n;
    auto A11 = A.sub(0, 0, m1, m1), A21 = A.sub(m1, 0, m2, m1), A22 = A.sub(m1, m1, m2, m2);
    auto B1 = B.sub(0, 0, m1, n), B2 = B.sub(m1, 0, m2, n);
    // t is NoTranspose, Transpose or (complex) ConjTranspose: the off-diagonal GEMM takes it
    if (solve) {
      if (!is_trans(t)) {  // [L11 0; L21 L22] X = alpha B
        trxm(true, t, d, alpha, A11, B1);
        gemm(Trans::NoTranspose, Trans::NoTranspose, T(-1), A21, B1, alpha, B2);
        trxm(true, t, d, T(1), A22, B2);
      } else {  // [L11^T L21^T; 0 L22^T] X = alpha B
        trxm(true, t, d, alpha, A22, B2);
        gemm(t, Trans::NoTranspose, T(-1), A21, B2, alpha, B1);
        trxm(true, t, d, T(1), A11, B1);
      }
    } else {
      if (!is_trans(t)) {  // B2 = a(L21 B1 + L22 B2) first, it needs the old B1
        trxm(false, t, d, alpha, A22, B2);
        gemm(Trans::NoTranspose, Trans::NoTranspose, alpha, A21, B1, T(1), B2);
        trxm(false, t, d, alpha, A11, B1);
      } else {  // B1 = a(L11^T B1 + L21^T B2) first, it needs the old B2
        trxm(false, t, d, alpha, A11, B1);
        gemm(t, Trans::NoTranspose, alpha, A21, B2, T(1), B1);
        trxm(false, t, d, alpha, A22, B2);
      }
    }
  }

  /// Any side/uplo/trans onto Left/Lower.
  /// For complex scalars op is (transpose?, conjugate?): a transposition keeps the conjugation,
  /// and a conjugation left without a transpose (conj(A) X = alpha B) becomes
  /// A conj(X) = conj(alpha) conj(B), solved on B conjugated in place (two O(mn) passes).
  void trxm(bool solve, Side side, Uplo uplo, Trans t, Diag d, T alpha, Mat<const T> A,
            Mat<T> B) const {
    bool tr = is_trans(t);
    const bool cj = is_complex_v<T> && is_conj(t);
    if (side == Side::Right) {  // X op(A) = B  <=>  op(A)^T X^T = B^T
      B = B.t();
      tr = !tr;
    }
    if (uplo == Uplo::Upper) {  // U = (U^T)^T and U^T is lower
      A = A.t();
      tr = !tr;
    }
    if (cj && !tr) {
      native::conj_inplace(exec, B);
      trxm(solve, Trans::NoTranspose, d, conj_if(true, alpha), A, B);
      native::conj_inplace(exec, B);
      return;
    }
    trxm(solve, !tr ? Trans::NoTranspose : cj ? Trans::ConjTranspose : Trans::Transpose, d, alpha, A, B);
  }

  // ---- SYRK / SYR2K: lower C = alpha (A B^T [+ B A^T]) + beta C, A, B n-by-k ------------
  // (HERK, A A^H, for complex scalars; SYR2K is real only)
  void syrk(T alpha, Mat<const T> A, Mat<const T> B, bool two, T beta, Mat<T> C) const {
    const size_type n = C.n;
    if (n == 0) return;
    if (n <= leaf) {
      bool done = false;
      if (vendor)
        done = two ? vendor_syr2k(exec, Uplo::Lower, Trans::NoTranspose, alpha, A, B, beta, C)
                   : vendor_syrk(exec, Uplo::Lower, Trans::NoTranspose, alpha, A, beta, C);
      if (!done) native::syrk_leaf(exec, alpha, A, B, two, beta, C);
      return;
    }
    const size_type n1 = recursion_split(n), n2 = n - n1, k = A.n;
    auto A1 = A.sub(0, 0, n1, k), A2 = A.sub(n1, 0, n2, k);
    auto B1 = B.sub(0, 0, n1, k), B2 = B.sub(n1, 0, n2, k);
    syrk(alpha, A1, B1, two, beta, C.sub(0, 0, n1, n1));
    gemm(Trans::NoTranspose, herm_trans<T>(), alpha, A2, two ? B1 : A1, beta, C.sub(n1, 0, n2, n1));
    if (two) gemm(Trans::NoTranspose, Trans::Transpose, alpha, B2, A1, T(1), C.sub(n1, 0, n2, n1));
    syrk(alpha, A2, B2, two, beta, C.sub(n1, n1, n2, n2));
  }

  // ---- SYMM: C = alpha S B + beta C, S's lower triangle in A -----------------------------
  void symm(T alpha, Mat<const T> A, Mat<const T> B, T beta, Mat<T> C) const {
    const size_type m = C.m;
    if (C.empty()) return;
    if (m <= leaf) {
      if (!(vendor && vendor_symm(exec, Side::Left, Uplo::Lower, alpha, A, B, beta, C)))
        native::symm_leaf(exec, alpha, A, B, beta, C);
      return;
    }
    const size_type m1 = recursion_split(m), m2 = m - m1, n = C.n;
    auto A11 = A.sub(0, 0, m1, m1), A21 = A.sub(m1, 0, m2, m1), A22 = A.sub(m1, m1, m2, m2);
    auto B1 = B.sub(0, 0, m1, n), B2 = B.sub(m1, 0, m2, n);
    auto C1 = C.sub(0, 0, m1, n), C2 = C.sub(m1, 0, m2, n);
    symm(alpha, A11, B1, beta, C1);                                                // S11 B1
    gemm(Trans::Transpose, Trans::NoTranspose, alpha, A21, B2, T(1), C1);          // + S21^T B2
    gemm(Trans::NoTranspose, Trans::NoTranspose, alpha, A21, B1, beta, C2);        // S21 B1
    symm(alpha, A22, B2, T(1), C2);                                                // + S22 B2
  }

  // ---- POTRF (lower): returns LAPACK's info, read back after each leaf --------------------
  int potrf(Mat<T> A, InfoSlot<ExecSpace>& info) const {
    const size_type n = A.n;
    if (n == 0) return 0;
    if (n <= leaf) {
      if (!(vendor && vendor_factor(exec, FactorOp::Potrf, Uplo::Lower, Diag::NonUnit, A, info.ptr())))
        native::potrf_leaf(exec, A, info.ptr());
      return info.read();
    }
    const size_type n1 = recursion_split(n), n2 = n - n1;
    auto A11 = A.sub(0, 0, n1, n1), A21 = A.sub(n1, 0, n2, n1), A22 = A.sub(n1, n1, n2, n2);
    if (int i1 = potrf(A11, info)) return i1;
    trxm(true, Side::Right, Uplo::Lower, herm_trans<T>(), Diag::NonUnit, T(1), A11, A21);
    syrk(T(-1), A21, A21, false, T(1), A22);
    const int i2 = potrf(A22, info);
    return i2 ? int(n1) + i2 : 0;
  }

  // ---- TRTRI (lower, in place; the caller has checked the diagonal) ---------------------
  void trtri(Diag d, Mat<T> A) const {
    const size_type n = A.n;
    if (n == 0) return;
    if (n <= leaf) {
      // the vendor routine's info is not needed: the diagonal was checked up front
      bool done = false;
      if (vendor) {
        if constexpr (compat::is_host_exec_v<ExecSpace>) {
          int info = 0;
          done = vendor_factor(exec, FactorOp::Trtri, Uplo::Lower, d, A, &info);
        } else {
          InfoSlot<ExecSpace> slot(exec);
          done = vendor_factor(exec, FactorOp::Trtri, Uplo::Lower, d, A, slot.ptr());
        }
      }
      if (!done) native::trtri_leaf(exec, d, A);
      return;
    }
    const size_type n1 = recursion_split(n), n2 = n - n1;
    auto A11 = A.sub(0, 0, n1, n1), A21 = A.sub(n1, 0, n2, n1), A22 = A.sub(n1, n1, n2, n2);
    // inv = [L11^-1 0; -L22^-1 L21 L11^-1  L22^-1]: invert the diagonal blocks first, then two
    // in-place TRMMs (faster than TRSMs on GPUs and free of divisions)
    trtri(d, A11);
    trtri(d, A22);
    trxm(false, Side::Left, Uplo::Lower, Trans::NoTranspose, d, T(-1), A22, A21);
    trxm(false, Side::Right, Uplo::Lower, Trans::NoTranspose, d, T(1), A11, A21);
  }

  // ---- LAUUM (lower): A = L^T L in place ------------------------------------------------
  void lauum(Mat<T> A) const {
    const size_type n = A.n;
    if (n == 0) return;
    if (n <= leaf) {
      bool done = false;
      if (vendor) {
        if constexpr (compat::is_host_exec_v<ExecSpace>) {
          int info = 0;
          done = vendor_factor(exec, FactorOp::Lauum, Uplo::Lower, Diag::NonUnit, A, &info);
        }
      }
      if (!done) native::lauum_leaf(exec, A);
      return;
    }
    const size_type n1 = recursion_split(n), n2 = n - n1;
    auto A11 = A.sub(0, 0, n1, n1), A21 = A.sub(n1, 0, n2, n1), A22 = A.sub(n1, n1, n2, n2);
    lauum(A11);                                                   // L11^T L11
    // + L21^T L21; complex: A21^T conj(A21) = conj(L21^H L21), added to conj(A11)
    native::conj_lower(exec, A11);
    syrk(T(1), A21.t(), A21.t(), false, T(1), A11);
    native::conj_lower(exec, A11);
    trxm(false, Side::Left, Uplo::Lower, herm_trans<T>(), Diag::NonUnit, T(1), A22, A21);  // L22^T L21
    lauum(A22);                                                   // L22^T L22
  }
};

}  // namespace kspd::Impl
#endif
