// Host BLAS/LAPACK bindings (Fortran 77 interface, 32-bit integers, hidden string lengths).
#include "kspd_host_blas.hpp"

#include <climits>
#include <complex>
#include <cstddef>
#include <string>

#include "kspd_error.hpp"

using fint = int;
using flen = std::size_t;  // gfortran's hidden CHARACTER length

extern "C" {
void sgemm_(const char*, const char*, const fint*, const fint*, const fint*, const float*, const float*,
            const fint*, const float*, const fint*, const float*, float*, const fint*, flen, flen);
void dgemm_(const char*, const char*, const fint*, const fint*, const fint*, const double*, const double*,
            const fint*, const double*, const fint*, const double*, double*, const fint*, flen, flen);
void ssyrk_(const char*, const char*, const fint*, const fint*, const float*, const float*, const fint*,
            const float*, float*, const fint*, flen, flen);
void dsyrk_(const char*, const char*, const fint*, const fint*, const double*, const double*, const fint*,
            const double*, double*, const fint*, flen, flen);
void ssyr2k_(const char*, const char*, const fint*, const fint*, const float*, const float*, const fint*,
             const float*, const fint*, const float*, float*, const fint*, flen, flen);
void dsyr2k_(const char*, const char*, const fint*, const fint*, const double*, const double*, const fint*,
             const double*, const fint*, const double*, double*, const fint*, flen, flen);
void ssymm_(const char*, const char*, const fint*, const fint*, const float*, const float*, const fint*,
            const float*, const fint*, const float*, float*, const fint*, flen, flen);
void dsymm_(const char*, const char*, const fint*, const fint*, const double*, const double*, const fint*,
            const double*, const fint*, const double*, double*, const fint*, flen, flen);
void sgemv_(const char*, const fint*, const fint*, const float*, const float*, const fint*, const float*,
            const fint*, const float*, float*, const fint*, flen);
void dgemv_(const char*, const fint*, const fint*, const double*, const double*, const fint*, const double*,
            const fint*, const double*, double*, const fint*, flen);
void strsv_(const char*, const char*, const char*, const fint*, const float*, const fint*, float*, const fint*,
            flen, flen, flen);
void dtrsv_(const char*, const char*, const char*, const fint*, const double*, const fint*, double*, const fint*,
            flen, flen, flen);
void cgemv_(const char*, const fint*, const fint*, const std::complex<float>*, const std::complex<float>*, const fint*,
            const std::complex<float>*, const fint*, const std::complex<float>*, std::complex<float>*, const fint*, flen);
void zgemv_(const char*, const fint*, const fint*, const std::complex<double>*, const std::complex<double>*, const fint*,
            const std::complex<double>*, const fint*, const std::complex<double>*, std::complex<double>*, const fint*, flen);
void ctrsv_(const char*, const char*, const char*, const fint*, const std::complex<float>*, const fint*,
            std::complex<float>*, const fint*, flen, flen, flen);
void ztrsv_(const char*, const char*, const char*, const fint*, const std::complex<double>*, const fint*,
            std::complex<double>*, const fint*, flen, flen, flen);
void strsm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const float*,
            const float*, const fint*, float*, const fint*, flen, flen, flen, flen);
void dtrsm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const double*,
            const double*, const fint*, double*, const fint*, flen, flen, flen, flen);
void strmm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const float*,
            const float*, const fint*, float*, const fint*, flen, flen, flen, flen);
void dtrmm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const double*,
            const double*, const fint*, double*, const fint*, flen, flen, flen, flen);
void spotrf_(const char*, const fint*, float*, const fint*, fint*, flen);
void dpotrf_(const char*, const fint*, double*, const fint*, fint*, flen);
void spotrs_(const char*, const fint*, const fint*, const float*, const fint*, float*, const fint*, fint*, flen);
void dpotrs_(const char*, const fint*, const fint*, const double*, const fint*, double*, const fint*, fint*, flen);
void strtri_(const char*, const char*, const fint*, float*, const fint*, fint*, flen, flen);
void dtrtri_(const char*, const char*, const fint*, double*, const fint*, fint*, flen, flen);
void slauum_(const char*, const fint*, float*, const fint*, fint*, flen);
void dlauum_(const char*, const fint*, double*, const fint*, fint*, flen);
void spotri_(const char*, const fint*, float*, const fint*, fint*, flen);
void dpotri_(const char*, const fint*, double*, const fint*, fint*, flen);
void cgemm_(const char*, const char*, const fint*, const fint*, const fint*, const std::complex<float>*, const std::complex<float>*,
            const fint*, const std::complex<float>*, const fint*, const std::complex<float>*, std::complex<float>*, const fint*, flen, flen);
void cherk_(const char*, const char*, const fint*, const fint*, const float*, const std::complex<float>*, const fint*,
            const float*, std::complex<float>*, const fint*, flen, flen);
void ctrsm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const std::complex<float>*,
            const std::complex<float>*, const fint*, std::complex<float>*, const fint*, flen, flen, flen, flen);
void ctrmm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const std::complex<float>*,
            const std::complex<float>*, const fint*, std::complex<float>*, const fint*, flen, flen, flen, flen);
void cpotrf_(const char*, const fint*, std::complex<float>*, const fint*, fint*, flen);
void cpotrs_(const char*, const fint*, const fint*, const std::complex<float>*, const fint*, std::complex<float>*, const fint*, fint*, flen);
void ctrtri_(const char*, const char*, const fint*, std::complex<float>*, const fint*, fint*, flen, flen);
void clauum_(const char*, const fint*, std::complex<float>*, const fint*, fint*, flen);
void cpotri_(const char*, const fint*, std::complex<float>*, const fint*, fint*, flen);
void zgemm_(const char*, const char*, const fint*, const fint*, const fint*, const std::complex<double>*, const std::complex<double>*,
            const fint*, const std::complex<double>*, const fint*, const std::complex<double>*, std::complex<double>*, const fint*, flen, flen);
void zherk_(const char*, const char*, const fint*, const fint*, const double*, const std::complex<double>*, const fint*,
            const double*, std::complex<double>*, const fint*, flen, flen);
void ztrsm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const std::complex<double>*,
            const std::complex<double>*, const fint*, std::complex<double>*, const fint*, flen, flen, flen, flen);
void ztrmm_(const char*, const char*, const char*, const char*, const fint*, const fint*, const std::complex<double>*,
            const std::complex<double>*, const fint*, std::complex<double>*, const fint*, flen, flen, flen, flen);
void zpotrf_(const char*, const fint*, std::complex<double>*, const fint*, fint*, flen);
void zpotrs_(const char*, const fint*, const fint*, const std::complex<double>*, const fint*, std::complex<double>*, const fint*, fint*, flen);
void ztrtri_(const char*, const char*, const fint*, std::complex<double>*, const fint*, fint*, flen, flen);
void zlauum_(const char*, const fint*, std::complex<double>*, const fint*, fint*, flen);
void zpotri_(const char*, const fint*, std::complex<double>*, const fint*, fint*, flen);
}

namespace kspd::Impl::host {
namespace {
fint to_fint(long long v, const char* what) {
  KSPD_REQUIRE(v >= 0 && v <= INT_MAX, kspd::InvalidArgument,
               "kspd host BLAS: " << what << " = " << v
                                  << " does not fit the 32-bit host BLAS interface");
  return static_cast<fint>(v);
}
fint ld(long long v) { return to_fint(v < 1 ? 1 : v, "leading dimension"); }
}  // namespace

#define KSPD_HOST_BLAS_DEF(T, P)                                                                 \
  void gemm(char ta, char tb, size_type m, size_type n, size_type k, T alpha, const T* A,        \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc) {       \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), K = to_fint(k, "k"), LA = ld(lda),             \
         LB = ld(ldb), LC = ld(ldc);                                                             \
    if (M == 0 || N == 0) return;                                                                \
    P##gemm_(&ta, &tb, &M, &N, &K, &alpha, A, &LA, B, &LB, &beta, C, &LC, 1, 1);                 \
  }                                                                                              \
  void syrk(char uplo, char trans, size_type n, size_type k, T alpha, const T* A, offset_type lda, \
            T beta, T* C, offset_type ldc) {                                                     \
    fint N = to_fint(n, "n"), K = to_fint(k, "k"), LA = ld(lda), LC = ld(ldc);                   \
    if (N == 0) return;                                                                          \
    P##syrk_(&uplo, &trans, &N, &K, &alpha, A, &LA, &beta, C, &LC, 1, 1);                        \
  }                                                                                              \
  void syr2k(char uplo, char trans, size_type n, size_type k, T alpha, const T* A,               \
             offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc) {      \
    fint N = to_fint(n, "n"), K = to_fint(k, "k"), LA = ld(lda), LB = ld(ldb), LC = ld(ldc);     \
    if (N == 0) return;                                                                          \
    P##syr2k_(&uplo, &trans, &N, &K, &alpha, A, &LA, B, &LB, &beta, C, &LC, 1, 1);               \
  }                                                                                              \
  void symm(char side, char uplo, size_type m, size_type n, T alpha, const T* A, offset_type lda, \
            const T* B, offset_type ldb, T beta, T* C, offset_type ldc) {                        \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), LB = ld(ldb), LC = ld(ldc);     \
    if (M == 0 || N == 0) return;                                                                \
    P##symm_(&side, &uplo, &M, &N, &alpha, A, &LA, B, &LB, &beta, C, &LC, 1, 1);                 \
  }                                                                                              \
  void trsm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,         \
            const T* A, offset_type lda, T* B, offset_type ldb) {                                \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), LB = ld(ldb);                   \
    if (M == 0 || N == 0) return;                                                                \
    P##trsm_(&side, &uplo, &ta, &diag, &M, &N, &alpha, A, &LA, B, &LB, 1, 1, 1, 1);              \
  }                                                                                              \
  void gemv(char ta, size_type m, size_type n, T alpha, const T* A, offset_type lda, const T* x, \
            offset_type incx, T beta, T* y, offset_type incy) {                                  \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), IX = to_fint(incx, "incx"),      \
         IY = to_fint(incy, "incy");                                                             \
    if (M == 0 || N == 0) return;                                                                \
    P##gemv_(&ta, &M, &N, &alpha, A, &LA, x, &IX, &beta, y, &IY, 1);                             \
  }                                                                                              \
  void trsv(char uplo, char ta, char diag, size_type n, const T* A, offset_type lda, T* x,       \
            offset_type incx) {                                                                  \
    fint N = to_fint(n, "n"), LA = ld(lda), IX = to_fint(incx, "incx");                          \
    if (N == 0) return;                                                                          \
    P##trsv_(&uplo, &ta, &diag, &N, A, &LA, x, &IX, 1, 1, 1);                                    \
  }                                                                                              \
  void trmm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,         \
            const T* A, offset_type lda, T* B, offset_type ldb) {                                \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), LB = ld(ldb);                   \
    if (M == 0 || N == 0) return;                                                                \
    P##trmm_(&side, &uplo, &ta, &diag, &M, &N, &alpha, A, &LA, B, &LB, 1, 1, 1, 1);              \
  }                                                                                              \
  int potrf(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##potrf_(&uplo, &N, A, &LA, &info, 1);                                                      \
    return info;                                                                                 \
  }                                                                                              \
  int potrs(char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, T* B,           \
            offset_type ldb) {                                                                   \
    fint N = to_fint(n, "n"), R = to_fint(nrhs, "nrhs"), LA = ld(lda), LB = ld(ldb), info = 0;   \
    if (N == 0 || R == 0) return 0;                                                              \
    P##potrs_(&uplo, &N, &R, A, &LA, B, &LB, &info, 1);                                          \
    return info;                                                                                 \
  }                                                                                              \
  int trtri(char uplo, char diag, size_type n, T* A, offset_type lda) {                          \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##trtri_(&uplo, &diag, &N, A, &LA, &info, 1, 1);                                            \
    return info;                                                                                 \
  }                                                                                              \
  int lauum(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##lauum_(&uplo, &N, A, &LA, &info, 1);                                                      \
    return info;                                                                                 \
  }                                                                                              \
  int potri(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##potri_(&uplo, &N, A, &LA, &info, 1);                                                      \
    return info;                                                                                 \
  }

KSPD_HOST_BLAS_DEF(float, s)
KSPD_HOST_BLAS_DEF(double, d)
#undef KSPD_HOST_BLAS_DEF

// Kokkos::complex<R> and std::complex<R> share their layout (two R, real first).
#define KSPD_HOST_BLAS_CDEF(T, R, P)                                                             \
  static_assert(sizeof(T) == sizeof(std::complex<R>) && alignof(T) >= alignof(std::complex<R>),  \
                "Kokkos::complex and std::complex must be layout-compatible");                   \
  namespace {                                                                                    \
  inline std::complex<R>* fc(T* p) { return reinterpret_cast<std::complex<R>*>(p); }             \
  inline const std::complex<R>* fc(const T* p) { return reinterpret_cast<const std::complex<R>*>(p); } \
  inline std::complex<R> fc(T v) { return std::complex<R>(v.real(), v.imag()); }                 \
  }                                                                                              \
  void gemm(char ta, char tb, size_type m, size_type n, size_type k, T alpha, const T* A,        \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc) {       \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), K = to_fint(k, "k"), LA = ld(lda),             \
         LB = ld(ldb), LC = ld(ldc);                                                             \
    if (M == 0 || N == 0) return;                                                                \
    const std::complex<R> a = fc(alpha), b = fc(beta);                                           \
    P##gemm_(&ta, &tb, &M, &N, &K, &a, fc(A), &LA, fc(B), &LB, &b, fc(C), &LC, 1, 1);            \
  }                                                                                              \
  void herk(char uplo, char trans, size_type n, size_type k, R alpha, const T* A, offset_type lda, \
            R beta, T* C, offset_type ldc) {                                                     \
    fint N = to_fint(n, "n"), K = to_fint(k, "k"), LA = ld(lda), LC = ld(ldc);                   \
    if (N == 0) return;                                                                          \
    P##herk_(&uplo, &trans, &N, &K, &alpha, fc(A), &LA, &beta, fc(C), &LC, 1, 1);                \
  }                                                                                              \
  void trsm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,         \
            const T* A, offset_type lda, T* B, offset_type ldb) {                                \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), LB = ld(ldb);                   \
    if (M == 0 || N == 0) return;                                                                \
    const std::complex<R> a = fc(alpha);                                                         \
    P##trsm_(&side, &uplo, &ta, &diag, &M, &N, &a, fc(A), &LA, fc(B), &LB, 1, 1, 1, 1);          \
  }                                                                                              \
  void gemv(char ta, size_type m, size_type n, T alpha, const T* A, offset_type lda, const T* x, \
            offset_type incx, T beta, T* y, offset_type incy) {                                  \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), IX = to_fint(incx, "incx"),      \
         IY = to_fint(incy, "incy");                                                             \
    if (M == 0 || N == 0) return;                                                                \
    const std::complex<R> a = fc(alpha), b = fc(beta);                                           \
    P##gemv_(&ta, &M, &N, &a, fc(A), &LA, fc(x), &IX, &b, fc(y), &IY, 1);                        \
  }                                                                                              \
  void trsv(char uplo, char ta, char diag, size_type n, const T* A, offset_type lda, T* x,       \
            offset_type incx) {                                                                  \
    fint N = to_fint(n, "n"), LA = ld(lda), IX = to_fint(incx, "incx");                          \
    if (N == 0) return;                                                                          \
    P##trsv_(&uplo, &ta, &diag, &N, fc(A), &LA, fc(x), &IX, 1, 1, 1);                            \
  }                                                                                              \
  void trmm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,         \
            const T* A, offset_type lda, T* B, offset_type ldb) {                                \
    fint M = to_fint(m, "m"), N = to_fint(n, "n"), LA = ld(lda), LB = ld(ldb);                   \
    if (M == 0 || N == 0) return;                                                                \
    const std::complex<R> a = fc(alpha);                                                         \
    P##trmm_(&side, &uplo, &ta, &diag, &M, &N, &a, fc(A), &LA, fc(B), &LB, 1, 1, 1, 1);          \
  }                                                                                              \
  int potrf(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##potrf_(&uplo, &N, fc(A), &LA, &info, 1);                                                  \
    return info;                                                                                 \
  }                                                                                              \
  int potrs(char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, T* B,           \
            offset_type ldb) {                                                                   \
    fint N = to_fint(n, "n"), RH = to_fint(nrhs, "nrhs"), LA = ld(lda), LB = ld(ldb), info = 0;  \
    if (N == 0 || RH == 0) return 0;                                                             \
    P##potrs_(&uplo, &N, &RH, fc(A), &LA, fc(B), &LB, &info, 1);                                 \
    return info;                                                                                 \
  }                                                                                              \
  int trtri(char uplo, char diag, size_type n, T* A, offset_type lda) {                          \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##trtri_(&uplo, &diag, &N, fc(A), &LA, &info, 1, 1);                                        \
    return info;                                                                                 \
  }                                                                                              \
  int lauum(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##lauum_(&uplo, &N, fc(A), &LA, &info, 1);                                                  \
    return info;                                                                                 \
  }                                                                                              \
  int potri(char uplo, size_type n, T* A, offset_type lda) {                                     \
    fint N = to_fint(n, "n"), LA = ld(lda), info = 0;                                            \
    if (N == 0) return 0;                                                                        \
    P##potri_(&uplo, &N, fc(A), &LA, &info, 1);                                                  \
    return info;                                                                                 \
  }

KSPD_HOST_BLAS_CDEF(Kokkos::complex<float>, float, c)
KSPD_HOST_BLAS_CDEF(Kokkos::complex<double>, double, z)
#undef KSPD_HOST_BLAS_CDEF

}  // namespace kspd::Impl::host
