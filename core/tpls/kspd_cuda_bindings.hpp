#ifndef KSPD_CUDA_BINDINGS_HPP
#define KSPD_CUDA_BINDINGS_HPP
/// \file kspd_cuda_bindings.hpp
/// cuBLAS/cuSOLVER bindings, one overload per scalar, compiled in kspd_cuda_bindings.cpp so
/// <cublas_v2.h> and <cusolverDn.h> never reach user code. Every call runs on `stream`; the
/// handles are created once per thread and freed by a Kokkos finalize hook. The 64-bit APIs
/// are used where they exist (cublas*_64, cusolverDnX*); potri has only a 32-bit API.

#include "KSPD_Config.hpp"
#ifdef KSPD_ENABLE_CUDA_TPLS
#include <cuda_runtime_api.h>

#include "kspd_types.hpp"

namespace kspd::Impl::cuda {

#define KSPD_CUDA_BLAS_DECL(T)                                                                    \
  void gemm(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k, T alpha,     \
            const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,               \
            offset_type ldc);                                                                     \
  /* C_b = alpha op(A_b) op(B_b) + beta C_b for b < batch, A_b = A + b * sa (likewise B, C). */ \
  void gemm_strided_batched(cudaStream_t s, char ta, char tb, size_type m, size_type n,           \
                            size_type k, T alpha, const T* A, offset_type lda, offset_type sa,    \
                            const T* B, offset_type ldb, offset_type sb, T beta, T* C,            \
                            offset_type ldc, offset_type sc, size_type batch);                    \
  /* The same over device arrays of device pointers (A[b], B[b], C[b]: column-major). */          \
  void gemm_batched(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k,      \
                    T alpha, const T* const* A, offset_type lda, const T* const* B,               \
                    offset_type ldb, T beta, T* const* C, offset_type ldc, size_type batch);      \
  void syrk(cudaStream_t s, char uplo, char trans, size_type n, size_type k, T alpha, const T* A, \
            offset_type lda, T beta, T* C, offset_type ldc);                                      \
  void syr2k(cudaStream_t s, char uplo, char trans, size_type n, size_type k, T alpha,            \
             const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,              \
             offset_type ldc);                                                                    \
  void symm(cudaStream_t s, char side, char uplo, size_type m, size_type n, T alpha, const T* A,  \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc);         \
  void trsm(cudaStream_t s, char side, char uplo, char ta, char diag, size_type m, size_type n,   \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb);                         \
  void trmm(cudaStream_t s, char side, char uplo, char ta, char diag, size_type m, size_type n,   \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb);                         \
  /* The factorizations write LAPACK's info into the device int `dev_info` (non-blocking). */     \
  void potrf(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* dev_info);       \
  void potrs(cudaStream_t s, char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, \
             T* B, offset_type ldb, int* dev_info);                                               \
  void trtri(cudaStream_t s, char uplo, char diag, size_type n, T* A, offset_type lda,            \
             int* dev_info);                                                                      \
  void potri(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* dev_info);

KSPD_CUDA_BLAS_DECL(float)
KSPD_CUDA_BLAS_DECL(double)
#undef KSPD_CUDA_BLAS_DECL

/// Complex (cuBLAS C/Z, cuSOLVER X-API with CUDA_C_32F/64F): the Hermitian set, herk in place
/// of syrk (real alpha, beta; trans 'N' or 'C').
#define KSPD_CUDA_BLAS_CDECL(T, R)                                                                \
  void gemm(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k, T alpha,     \
            const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,               \
            offset_type ldc);                                                                     \
  void herk(cudaStream_t s, char uplo, char trans, size_type n, size_type k, R alpha, const T* A, \
            offset_type lda, R beta, T* C, offset_type ldc);                                      \
  void trsm(cudaStream_t s, char side, char uplo, char ta, char diag, size_type m, size_type n,   \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb);                         \
  void trmm(cudaStream_t s, char side, char uplo, char ta, char diag, size_type m, size_type n,   \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb);                         \
  void potrf(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* dev_info);       \
  void potrs(cudaStream_t s, char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, \
             T* B, offset_type ldb, int* dev_info);                                               \
  void trtri(cudaStream_t s, char uplo, char diag, size_type n, T* A, offset_type lda,            \
             int* dev_info);                                                                      \
  void potri(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* dev_info);

KSPD_CUDA_BLAS_CDECL(Kokkos::complex<float>, float)
KSPD_CUDA_BLAS_CDECL(Kokkos::complex<double>, double)
#undef KSPD_CUDA_BLAS_CDECL

/// Prepares `stream` for the calls above now instead of at their first use: this thread's
/// cuBLAS/cuSOLVER handles for it, their workspaces, and the kernels of one small gemm,
/// syrk, trsm and potrf in float and double (a few milliseconds, queued on the stream).
void prepare(cudaStream_t stream);

/// Makes `waiter` wait (on the device) for the work enqueued on `signaler` so far.
void stream_wait(cudaStream_t waiter, cudaStream_t signaler);

/// A new non-blocking stream at the device's highest priority (its blocks are scheduled ahead
/// of those of default-priority streams as SMs free up); destroy it with stream_destroy.
cudaStream_t stream_create_urgent();
void stream_destroy(cudaStream_t s);

/// Device memory currently free and total (cudaMemGetInfo), for memory reports.
void mem_get_info(size_type& free_bytes, size_type& total_bytes);

}  // namespace kspd::Impl::cuda
#endif
#endif
