#ifndef KSPD_HOST_BLAS_HPP
#define KSPD_HOST_BLAS_HPP
/// \file kspd_host_blas.hpp
/// Host BLAS/LAPACK bindings: one overload per scalar, compiled in kspd_host_blas.cpp so the
/// Fortran symbols never reach user code. Dimensions are 64-bit here and checked against the
/// 32-bit BLAS interface there. gemv and trsv (BLAS-2) serve the one-right-hand-side
/// supernodal solve; their increments must be positive.

#include "kspd_types.hpp"

namespace kspd::Impl::host {

#define KSPD_HOST_BLAS_DECL(T)                                                                  \
  void gemm(char ta, char tb, size_type m, size_type n, size_type k, T alpha, const T* A,       \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc);       \
  void syrk(char uplo, char trans, size_type n, size_type k, T alpha, const T* A, offset_type lda, \
            T beta, T* C, offset_type ldc);                                                     \
  void syr2k(char uplo, char trans, size_type n, size_type k, T alpha, const T* A,              \
             offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc);      \
  void symm(char side, char uplo, size_type m, size_type n, T alpha, const T* A, offset_type lda, \
            const T* B, offset_type ldb, T beta, T* C, offset_type ldc);                        \
  void trsm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,        \
            const T* A, offset_type lda, T* B, offset_type ldb);                                \
  void gemv(char ta, size_type m, size_type n, T alpha, const T* A, offset_type lda, const T* x, \
            offset_type incx, T beta, T* y, offset_type incy);                                  \
  void trsv(char uplo, char ta, char diag, size_type n, const T* A, offset_type lda, T* x,      \
            offset_type incx);                                                                  \
  void trmm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,        \
            const T* A, offset_type lda, T* B, offset_type ldb);                                \
  int potrf(char uplo, size_type n, T* A, offset_type lda);                                     \
  int potrs(char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, T* B,          \
            offset_type ldb);                                                                   \
  int trtri(char uplo, char diag, size_type n, T* A, offset_type lda);                          \
  int lauum(char uplo, size_type n, T* A, offset_type lda);                                     \
  int potri(char uplo, size_type n, T* A, offset_type lda);

KSPD_HOST_BLAS_DECL(float)
KSPD_HOST_BLAS_DECL(double)
#undef KSPD_HOST_BLAS_DECL

/// Complex (c, z): the same Hermitian set, herk in place of syrk (real alpha and beta,
/// trans 'N' or 'C'); Kokkos::complex pointers are passed to Fortran COMPLEX as they are.
#define KSPD_HOST_BLAS_CDECL(T, R)                                                              \
  void gemm(char ta, char tb, size_type m, size_type n, size_type k, T alpha, const T* A,       \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc);       \
  void herk(char uplo, char trans, size_type n, size_type k, R alpha, const T* A, offset_type lda, \
            R beta, T* C, offset_type ldc);                                                     \
  void trsm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,        \
            const T* A, offset_type lda, T* B, offset_type ldb);                                \
  void gemv(char ta, size_type m, size_type n, T alpha, const T* A, offset_type lda, const T* x, \
            offset_type incx, T beta, T* y, offset_type incy);                                  \
  void trsv(char uplo, char ta, char diag, size_type n, const T* A, offset_type lda, T* x,      \
            offset_type incx);                                                                  \
  void trmm(char side, char uplo, char ta, char diag, size_type m, size_type n, T alpha,        \
            const T* A, offset_type lda, T* B, offset_type ldb);                                \
  int potrf(char uplo, size_type n, T* A, offset_type lda);                                     \
  int potrs(char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, T* B,          \
            offset_type ldb);                                                                   \
  int trtri(char uplo, char diag, size_type n, T* A, offset_type lda);                          \
  int lauum(char uplo, size_type n, T* A, offset_type lda);                                     \
  int potri(char uplo, size_type n, T* A, offset_type lda);

KSPD_HOST_BLAS_CDECL(Kokkos::complex<float>, float)
KSPD_HOST_BLAS_CDECL(Kokkos::complex<double>, double)
#undef KSPD_HOST_BLAS_CDECL

}  // namespace kspd::Impl::host
#endif
