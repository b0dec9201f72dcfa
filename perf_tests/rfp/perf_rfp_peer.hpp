#ifndef KSPD_PERF_RFP_PEER_HPP
#define KSPD_PERF_RFP_PEER_HPP
// The peers the rfp benchmarks time kspd against, called directly (not through kspd):
// CUDA builds: dense cuSOLVER/cuBLAS potrf (cusolverDnXpotrf), syrk, potrs (Xpotrs), potri.
// Host builds: LAPACK's own RFP routines (?pftrf, ?sfrk, ?pftrs, ?pftri) on the same buffer,
// and dense ?potrf.
#include "perf_rfp_common.hpp"

#ifdef KSPD_ENABLE_CUDA_TPLS
#include <cublas_v2.h>
#include <cusolverDn.h>
#endif

extern "C" {
void dpftrf_(const char*, const char*, const int*, double*, int*, size_t, size_t);
void spftrf_(const char*, const char*, const int*, float*, int*, size_t, size_t);
void dpftrs_(const char*, const char*, const int*, const int*, const double*, double*, const int*, int*, size_t, size_t);
void spftrs_(const char*, const char*, const int*, const int*, const float*, float*, const int*, int*, size_t, size_t);
void dpftri_(const char*, const char*, const int*, double*, int*, size_t, size_t);
void spftri_(const char*, const char*, const int*, float*, int*, size_t, size_t);
void dsfrk_(const char*, const char*, const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, double*, size_t, size_t, size_t);
void ssfrk_(const char*, const char*, const char*, const int*, const int*, const float*, const float*, const int*,
            const float*, float*, size_t, size_t, size_t);
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void spotrf_(const char*, const int*, float*, const int*, int*, size_t);
}

namespace perf_rfp {

#ifdef KSPD_ENABLE_CUDA_TPLS
#define PERF_CHECK(call)                                                         \
  do {                                                                           \
    const int perf_status_ = int(call);                                          \
    if (perf_status_ != 0) {                                                     \
      std::fprintf(stderr, "%s failed with status %d\n", #call, perf_status_);  \
      std::exit(1);                                                              \
    }                                                                            \
  } while (0)

template <class T>
cudaDataType dtype() {
  if constexpr (std::is_same<T, double>::value) return CUDA_R_64F;
  else if constexpr (std::is_same<T, float>::value) return CUDA_R_32F;
  else if constexpr (std::is_same<T, Kokkos::complex<float>>::value) return CUDA_C_32F;
  else return CUDA_C_64F;
}

/// cuSOLVER / cuBLAS on exec's stream, with a reusable workspace.
class CudaPeer {
 public:
  explicit CudaPeer(cudaStream_t s) : stream_(s) {
    PERF_CHECK(cublasCreate(&blas_));
    PERF_CHECK(cusolverDnCreate(&sol_));
    PERF_CHECK(cusolverDnCreateParams(&params_));
    PERF_CHECK(cublasSetStream(blas_, s));
    PERF_CHECK(cusolverDnSetStream(sol_, s));
    PERF_CHECK(cudaMalloc(&dinfo_, sizeof(int)));
  }
  ~CudaPeer() {
    release();
    cudaFree(dinfo_);
    cusolverDnDestroyParams(params_);
    cusolverDnDestroy(sol_);
    cublasDestroy(blas_);
  }
  CudaPeer(const CudaPeer&) = delete;
  CudaPeer& operator=(const CudaPeer&) = delete;
  /// The triangle the dense potrf/potrs/potri use: the RFP matrix's, since tfttr unpacks
  /// only that triangle into the dense peer matrix.
  void set_uplo(kspd::Uplo u) { fill_ = u == kspd::Uplo::Lower ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }
  /// Frees the workspace (so that a memory run counts its own).
  void release() {
    if (dwork_) cudaFree(dwork_);
    dwork_ = nullptr;
    dbytes_ = 0;
  }

  template <class T>
  int potrf(const Dense<T>& D) {
    const int64_t n = D.extent(0), ld = D.stride(1);
    size_t db = 0, hb = 0;
    PERF_CHECK(cusolverDnXpotrf_bufferSize(sol_, params_, fill_, n, dtype<T>(), D.data(), ld,
                                           dtype<T>(), &db, &hb));
    reserve(db);
    hwork_.resize(hb + 1);
    PERF_CHECK(cusolverDnXpotrf(sol_, params_, fill_, n, dtype<T>(), D.data(), ld, dtype<T>(),
                                dwork_, db, hwork_.data(), hb, dinfo_));
    return info();
  }
  template <class T>
  void potrs(const Dense<T>& D, const Dense<T>& B) {
    PERF_CHECK(cusolverDnXpotrs(sol_, params_, fill_, int64_t(D.extent(0)), int64_t(B.extent(1)),
                                dtype<T>(), D.data(), int64_t(D.stride(1)), dtype<T>(), B.data(),
                                int64_t(B.stride(1)), dinfo_));
  }
  // cuSOLVER has no 64-bit potri: the legacy 32-bit API (n and lda must fit an int).
  int potri(const Dense<double>& D) {
    int lwork = 0;
    const int n = int(D.extent(0)), ld = int(D.stride(1));
    PERF_CHECK(cusolverDnDpotri_bufferSize(sol_, fill_, n, D.data(), ld, &lwork));
    reserve(size_t(lwork) * sizeof(double));
    PERF_CHECK(cusolverDnDpotri(sol_, fill_, n, D.data(), ld, static_cast<double*>(dwork_), lwork,
                                dinfo_));
    return info();
  }
  int potri(const Dense<float>& D) {
    int lwork = 0;
    const int n = int(D.extent(0)), ld = int(D.stride(1));
    PERF_CHECK(cusolverDnSpotri_bufferSize(sol_, fill_, n, D.data(), ld, &lwork));
    reserve(size_t(lwork) * sizeof(float));
    PERF_CHECK(cusolverDnSpotri(sol_, fill_, n, D.data(), ld, static_cast<float*>(dwork_), lwork,
                                dinfo_));
    return info();
  }
  void syrk(double alpha, const Dense<double>& X, const Dense<double>& D) {
    const double beta = 0;
    PERF_CHECK(cublasDsyrk_64(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, int64_t(D.extent(0)),
                              int64_t(X.extent(1)), &alpha, X.data(), int64_t(X.stride(1)), &beta, D.data(),
                              int64_t(D.stride(1))));
  }
  void syrk(float alpha, const Dense<float>& X, const Dense<float>& D) {
    const float beta = 0;
    PERF_CHECK(cublasSsyrk_64(blas_, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, int64_t(D.extent(0)),
                              int64_t(X.extent(1)), &alpha, X.data(), int64_t(X.stride(1)), &beta, D.data(),
                              int64_t(D.stride(1))));
  }

 private:
  void reserve(size_t bytes) {
    if (bytes <= dbytes_) return;
    release();
    PERF_CHECK(cudaMalloc(&dwork_, bytes));
    dbytes_ = bytes;
  }
  int info() {
    int h = 0;
    PERF_CHECK(cudaMemcpyAsync(&h, dinfo_, sizeof(int), cudaMemcpyDeviceToHost, stream_));
    PERF_CHECK(cudaStreamSynchronize(stream_));
    return h;
  }
  cudaStream_t stream_;
  cublasFillMode_t fill_ = CUBLAS_FILL_MODE_LOWER;
  cublasHandle_t blas_;
  cusolverDnHandle_t sol_;
  cusolverDnParams_t params_;
  void* dwork_ = nullptr;
  size_t dbytes_ = 0;
  std::vector<char> hwork_;
  int* dinfo_ = nullptr;
};
#endif

/// LAPACK's own RFP routines and dense potrf (host builds: the buffers are host memory).
struct LapackPeer {
  static char tr(kspd::Trans t) { return kspd::to_char(t); }
  template <class T>
  static int pftrf(const kspd::rfp::Matrix<T, Mem>& A) {
    const char t = tr(A.transr()), u = kspd::to_char(A.uplo());
    const int n = int(A.n());
    int info = 0;
    if constexpr (std::is_same<T, double>::value) dpftrf_(&t, &u, &n, A.data().data(), &info, 1, 1);
    else spftrf_(&t, &u, &n, A.data().data(), &info, 1, 1);
    return info;
  }
  template <class T>
  static void pftrs(const kspd::rfp::Matrix<T, Mem>& A, const Dense<T>& B) {
    const char t = tr(A.transr()), u = kspd::to_char(A.uplo());
    const int n = int(A.n()), nrhs = int(B.extent(1)), ldb = int(B.stride(1));
    int info = 0;
    if constexpr (std::is_same<T, double>::value) dpftrs_(&t, &u, &n, &nrhs, A.data().data(), B.data(), &ldb, &info, 1, 1);
    else spftrs_(&t, &u, &n, &nrhs, A.data().data(), B.data(), &ldb, &info, 1, 1);
  }
  template <class T>
  static int pftri(const kspd::rfp::Matrix<T, Mem>& A) {
    const char t = tr(A.transr()), u = kspd::to_char(A.uplo());
    const int n = int(A.n());
    int info = 0;
    if constexpr (std::is_same<T, double>::value) dpftri_(&t, &u, &n, A.data().data(), &info, 1, 1);
    else spftri_(&t, &u, &n, A.data().data(), &info, 1, 1);
    return info;
  }
  template <class T>
  static void sfrk(T alpha, const Dense<T>& X, const kspd::rfp::Matrix<T, Mem>& C) {
    const char t = tr(C.transr()), u = kspd::to_char(C.uplo()), nt = 'N';
    const int n = int(C.n()), k = int(X.extent(1)), ld = int(X.stride(1));
    const T beta = 0;
    if constexpr (std::is_same<T, double>::value)
      dsfrk_(&t, &u, &nt, &n, &k, &alpha, X.data(), &ld, &beta, C.data().data(), 1, 1, 1);
    else
      ssfrk_(&t, &u, &nt, &n, &k, &alpha, X.data(), &ld, &beta, C.data().data(), 1, 1, 1);
  }
  template <class T>
  static int potrf(const Dense<T>& D) {
    const char u = 'L';
    const int n = int(D.extent(0)), ld = int(D.stride(1));
    int info = 0;
    if constexpr (std::is_same<T, double>::value) dpotrf_(&u, &n, D.data(), &ld, &info, 1);
    else spotrf_(&u, &n, D.data(), &ld, &info, 1);
    return info;
  }
};

}  // namespace perf_rfp
#endif
