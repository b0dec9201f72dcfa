// cuBLAS / cuSOLVER bindings. See kspd_cuda_bindings.hpp.
#include "kspd_cuda_bindings.hpp"

#ifdef KSPD_ENABLE_CUDA_TPLS
#include <Kokkos_Core.hpp>
#include <cublas_v2.h>
#include <cusolverDn.h>

#include <climits>
#include <algorithm>
#include <mutex>
#include <sstream>
#include <vector>

#include "kspd_error.hpp"

namespace kspd::Impl::cuda {
namespace {

[[noreturn]] void throw_cuda(cudaError_t e, const char* call, const char* file, int line) {
  std::ostringstream os;
  os << call << " failed: " << cudaGetErrorName(e) << " (" << cudaGetErrorString(e) << ") ["
     << file << ':' << line << ']';
  if (e == cudaErrorMemoryAllocation) throw kspd::OutOfDeviceMemory(os.str());
  throw kspd::TplError(os.str());
}
[[noreturn]] void throw_status(int status, const char* lib, const char* call, const char* file,
                               int line) {
  std::ostringstream os;
  os << call << " failed: " << lib << " status " << status << " [" << file << ':' << line << ']';
  if ((std::string(lib) == "cuBLAS" && status == CUBLAS_STATUS_ALLOC_FAILED) ||
      (std::string(lib) == "cuSOLVER" && status == CUSOLVER_STATUS_ALLOC_FAILED))
    throw kspd::OutOfDeviceMemory(os.str());
  throw kspd::TplError(os.str());
}
#define KSPD_CUDA_SAFE_CALL(call)                                   \
  do {                                                              \
    cudaError_t kspd_e_ = (call);                                   \
    if (kspd_e_ != cudaSuccess) throw_cuda(kspd_e_, #call, __FILE__, __LINE__); \
  } while (0)
#define KSPD_CUBLAS_SAFE_CALL(call)                                 \
  do {                                                              \
    cublasStatus_t kspd_s_ = (call);                                \
    if (kspd_s_ != CUBLAS_STATUS_SUCCESS)                           \
      throw_status(int(kspd_s_), "cuBLAS", #call, __FILE__, __LINE__); \
  } while (0)
#define KSPD_CUSOLVER_SAFE_CALL(call)                               \
  do {                                                              \
    cusolverStatus_t kspd_s_ = (call);                              \
    if (kspd_s_ != CUSOLVER_STATUS_SUCCESS)                         \
      throw_status(int(kspd_s_), "cuSOLVER", #call, __FILE__, __LINE__); \
  } while (0)

// One cuBLAS and one cuSOLVER handle set per host thread and stream: cuBLAS's default
// workspace and cuSOLVER's internal buffers belong to a handle, so two streams that one thread
// keeps busy at once (pftrf's look-ahead) must not share a set. The set also keeps the
// cuSOLVER calls' workspaces (work()): grown on its stream when a call needs more, never
// allocated and freed per call (issue #14: a per-call cudaMallocAsync/cudaFreeAsync pair
// after each host fence maps fresh memory from a trimmed pool). A thread's handles are
// destroyed when the thread exits (worker threads of the sparse scheduler) or at Kokkos
// finalize, whichever comes first; the registry never holds a handle set of a thread that has
// exited.
struct Handles;
std::mutex g_mutex;
std::vector<Handles*> g_all;
unsigned g_generation = 1;
bool g_hook = false;

struct Handles {
  cublasHandle_t blas = nullptr;
  cusolverDnHandle_t solver = nullptr;
  cusolverDnParams_t params = nullptr;
  cudaStream_t stream = nullptr;
  unsigned generation = 0;
  unsigned long long last_use = 0;
  void* dwork = nullptr;  // cuSOLVER's device workspace, dwork_bytes, on `stream`
  size_t dwork_bytes = 0;
  std::vector<char> hwork;  // and its host workspace

  struct Work {
    void* d;
    void* h;
  };
  /// Workspaces of at least dbytes (device, ordered on `stream`) and hbytes (host). The
  /// stream orders the reuse by the next call; a larger request frees the old buffer on the
  /// stream after the calls enqueued so far.
  Work work(size_t dbytes, size_t hbytes) {
    if (dbytes > dwork_bytes) {
      if (dwork) KSPD_CUDA_SAFE_CALL(cudaFreeAsync(dwork, stream));
      dwork = nullptr;
      dwork_bytes = 0;
      KSPD_CUDA_SAFE_CALL(cudaMallocAsync(&dwork, dbytes, stream));
      dwork_bytes = dbytes;
    }
    if (hbytes > hwork.size()) hwork.resize(hbytes);
    return {dwork, hwork.data()};
  }

  void release() {  // g_mutex held
    // cudaFree (not ...Async): the stream may be gone by now; it waits for the device
    if (dwork) cudaFree(dwork);
    dwork = nullptr;
    dwork_bytes = 0;
    hwork = std::vector<char>();
    if (params) cusolverDnDestroyParams(params);
    if (solver) cusolverDnDestroy(solver);
    if (blas) cublasDestroy(blas);
    params = nullptr;
    solver = nullptr;
    blas = nullptr;
    generation = 0;
  }
  void unregister() {  // g_mutex held
    auto it = std::find(g_all.begin(), g_all.end(), this);
    if (it == g_all.end()) return;  // already destroyed at finalize
    g_all.erase(it);
    release();
  }
  ~Handles() {  // thread exit
    std::lock_guard<std::mutex> lock(g_mutex);
    unregister();
  }
};

void destroy_all() {
  std::lock_guard<std::mutex> lock(g_mutex);
  for (Handles* h : g_all) h->release();
  g_all.clear();
  ++g_generation;
  g_hook = false;
}

// Handle sets a thread keeps (one per stream in use; the least recently used one is
// replaced when a thread cycles through more streams than this). 16: a thread that
// refactors and updates a resident sparse factor in turn uses 9 (exec, the factorization's 4
// side streams, the update's 4 side lanes); with 8 slots every update re-created its handles
// after a factorization (H100, 40^3 rank 16: 18.0 ms against 14.6 ms back to back).
constexpr int kHandleSlots = 16;

Handles& handles(cudaStream_t s) {
  thread_local Handles slots[kHandleSlots];
  thread_local unsigned long long clock = 0;
  Handles* h = nullptr;
  {
    std::lock_guard<std::mutex> lock(g_mutex);
    for (Handles& c : slots)
      if (c.generation == g_generation && c.stream == s) h = &c;
    if (!h) {
      h = &slots[0];
      for (Handles& c : slots) {
        if (c.generation != g_generation) {  // free (or left from before a finalize)
          h = &c;
          break;
        }
        if (c.last_use < h->last_use) h = &c;
      }
      if (h->generation == g_generation) h->unregister();
      KSPD_CUBLAS_SAFE_CALL(cublasCreate(&h->blas));
      KSPD_CUSOLVER_SAFE_CALL(cusolverDnCreate(&h->solver));
      KSPD_CUSOLVER_SAFE_CALL(cusolverDnCreateParams(&h->params));
      h->generation = g_generation;
      h->stream = s;
      g_all.push_back(h);
      if (!g_hook) {
        Kokkos::push_finalize_hook(destroy_all);
        g_hook = true;
      }
      KSPD_CUBLAS_SAFE_CALL(cublasSetStream(h->blas, s));
      KSPD_CUSOLVER_SAFE_CALL(cusolverDnSetStream(h->solver, s));
    }
  }
  h->last_use = ++clock;
  return *h;
}

cublasOperation_t op(char t) {
  return t == 'N' ? CUBLAS_OP_N : (t == 'T' ? CUBLAS_OP_T : CUBLAS_OP_C);
}
cublasFillMode_t fill(char u) { return u == 'L' ? CUBLAS_FILL_MODE_LOWER : CUBLAS_FILL_MODE_UPPER; }
cublasSideMode_t side(char s) { return s == 'L' ? CUBLAS_SIDE_LEFT : CUBLAS_SIDE_RIGHT; }
cublasDiagType_t diag(char d) { return d == 'U' ? CUBLAS_DIAG_UNIT : CUBLAS_DIAG_NON_UNIT; }
int64_t ld(offset_type v) { return v < 1 ? 1 : v; }

template <class T> cudaDataType dtype();
template <> cudaDataType dtype<float>() { return CUDA_R_32F; }
template <> cudaDataType dtype<double>() { return CUDA_R_64F; }
template <> cudaDataType dtype<Kokkos::complex<float>>() { return CUDA_C_32F; }
template <> cudaDataType dtype<Kokkos::complex<double>>() { return CUDA_C_64F; }

// Kokkos::complex<R> is layout-compatible with cuComplex / cuDoubleComplex.
template <class R> struct CuComplex;
template <> struct CuComplex<float> { using type = cuComplex; };
template <> struct CuComplex<double> { using type = cuDoubleComplex; };
template <class R>
typename CuComplex<R>::type* cu(Kokkos::complex<R>* p) { return reinterpret_cast<typename CuComplex<R>::type*>(p); }
template <class R>
const typename CuComplex<R>::type* cu(const Kokkos::complex<R>* p) {
  return reinterpret_cast<const typename CuComplex<R>::type*>(p);
}
static_assert(sizeof(Kokkos::complex<double>) == sizeof(cuDoubleComplex), "complex layouts differ");

// Stream-ordered scratch for one call's operands (prepare); workspaces: Handles::work.
struct DeviceScratch {
  void* p = nullptr;
  cudaStream_t s;
  DeviceScratch(size_t bytes, cudaStream_t st) : s(st) {
    if (bytes) KSPD_CUDA_SAFE_CALL(cudaMallocAsync(&p, bytes, s));
  }
  ~DeviceScratch() {
    if (p) cudaFreeAsync(p, s);
  }
};

template <class T>
void xpotrf(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* info) {
  if (n == 0) {
    KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(info, 0, sizeof(int), s));
    return;
  }
  Handles& h = handles(s);
  size_t dbytes = 0, hbytes = 0;
  KSPD_CUSOLVER_SAFE_CALL(cusolverDnXpotrf_bufferSize(h.solver, h.params, fill(uplo), n, dtype<T>(), A,
                                                       ld(lda), dtype<T>(), &dbytes, &hbytes));
  const Handles::Work w = h.work(dbytes, hbytes);
  KSPD_CUSOLVER_SAFE_CALL(cusolverDnXpotrf(h.solver, h.params, fill(uplo), n, dtype<T>(), A, ld(lda),
                                            dtype<T>(), w.d, dbytes, w.h, hbytes, info));
}
template <class T>
void xpotrs(cudaStream_t s, char uplo, size_type n, size_type nrhs, const T* A, offset_type lda, T* B,
            offset_type ldb, int* info) {
  if (n == 0 || nrhs == 0) {
    KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(info, 0, sizeof(int), s));
    return;
  }
  Handles& h = handles(s);
  KSPD_CUSOLVER_SAFE_CALL(cusolverDnXpotrs(h.solver, h.params, fill(uplo), n, nrhs, dtype<T>(), A,
                                            ld(lda), dtype<T>(), B, ld(ldb), info));
}
template <class T>
void xtrtri(cudaStream_t s, char uplo, char dg, size_type n, T* A, offset_type lda, int* info) {
  if (n == 0) {
    KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(info, 0, sizeof(int), s));
    return;
  }
  Handles& h = handles(s);
  size_t dbytes = 0, hbytes = 0;
  KSPD_CUSOLVER_SAFE_CALL(cusolverDnXtrtri_bufferSize(h.solver, fill(uplo), diag(dg), n, dtype<T>(),
                                                       A, ld(lda), &dbytes, &hbytes));
  const Handles::Work w = h.work(dbytes, hbytes);
  KSPD_CUSOLVER_SAFE_CALL(cusolverDnXtrtri(h.solver, fill(uplo), diag(dg), n, dtype<T>(), A, ld(lda),
                                            w.d, dbytes, w.h, hbytes, info));
}
int to_int(long long v, const char* what) {
  if (v < 0 || v > INT_MAX) {
    std::ostringstream os;
    os << "kspd cuSOLVER potri: " << what << " = " << v << " exceeds the 32-bit cuSOLVER API";
    throw kspd::InvalidArgument(os.str());
  }
  return int(v);
}
}  // namespace

#define KSPD_CUDA_BLAS_DEF(T, P)                                                                    \
  void gemm(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k, T alpha,       \
            const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,                 \
            offset_type ldc) {                                                                      \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##gemm_64(handles(s).blas, op(ta), op(tb), m, n, k, &alpha, A,   \
                                             ld(lda), B, ld(ldb), &beta, C, ld(ldc)));              \
  }                                                                                                 \
  void gemm_strided_batched(cudaStream_t s, char ta, char tb, size_type m, size_type n,             \
                            size_type k, T alpha, const T* A, offset_type lda, offset_type sa,      \
                            const T* B, offset_type ldb, offset_type sb, T beta, T* C,              \
                            offset_type ldc, offset_type sc, size_type batch) {                     \
    if (m == 0 || n == 0 || batch == 0) return;                                                     \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##gemmStridedBatched_64(                                         \
        handles(s).blas, op(ta), op(tb), m, n, k, &alpha, A, ld(lda), sa, B, ld(ldb), sb, &beta, C, \
        ld(ldc), sc, batch));                                                                       \
  }                                                                                                 \
  void gemm_batched(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k,        \
                    T alpha, const T* const* A, offset_type lda, const T* const* B,                 \
                    offset_type ldb, T beta, T* const* C, offset_type ldc, size_type batch) {       \
    if (m == 0 || n == 0 || batch == 0) return;                                                     \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##gemmBatched_64(handles(s).blas, op(ta), op(tb), m, n, k,       \
                                                    &alpha, A, ld(lda), B, ld(ldb), &beta, C,       \
                                                    ld(ldc), batch));                               \
  }                                                                                                 \
  void syrk(cudaStream_t s, char uplo, char trans, size_type n, size_type k, T alpha, const T* A,   \
            offset_type lda, T beta, T* C, offset_type ldc) {                                       \
    if (n == 0) return;                                                                             \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##syrk_64(handles(s).blas, fill(uplo), op(trans), n, k, &alpha,  \
                                             A, ld(lda), &beta, C, ld(ldc)));                       \
  }                                                                                                 \
  void syr2k(cudaStream_t s, char uplo, char trans, size_type n, size_type k, T alpha,              \
             const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,                \
             offset_type ldc) {                                                                     \
    if (n == 0) return;                                                                             \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##syr2k_64(handles(s).blas, fill(uplo), op(trans), n, k, &alpha, \
                                              A, ld(lda), B, ld(ldb), &beta, C, ld(ldc)));          \
  }                                                                                                 \
  void symm(cudaStream_t s, char sd, char uplo, size_type m, size_type n, T alpha, const T* A,      \
            offset_type lda, const T* B, offset_type ldb, T beta, T* C, offset_type ldc) {          \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##symm_64(handles(s).blas, side(sd), fill(uplo), m, n, &alpha,   \
                                             A, ld(lda), B, ld(ldb), &beta, C, ld(ldc)));           \
  }                                                                                                 \
  void trsm(cudaStream_t s, char sd, char uplo, char ta, char dg, size_type m, size_type n,         \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb) {                          \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##trsm_64(handles(s).blas, side(sd), fill(uplo), op(ta),         \
                                             diag(dg), m, n, &alpha, A, ld(lda), B, ld(ldb)));      \
  }                                                                                                 \
  void trmm(cudaStream_t s, char sd, char uplo, char ta, char dg, size_type m, size_type n,         \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb) {                          \
    if (m == 0 || n == 0) return;                                                                   \
    /* cuBLAS trmm is out of place; C == B is its documented in-place mode. */                     \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##trmm_64(handles(s).blas, side(sd), fill(uplo), op(ta),         \
                                             diag(dg), m, n, &alpha, A, ld(lda), B, ld(ldb), B,     \
                                             ld(ldb)));                                             \
  }                                                                                                 \
  void potrf(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* info) {            \
    xpotrf<T>(s, uplo, n, A, lda, info);                                                            \
  }                                                                                                 \
  void potrs(cudaStream_t s, char uplo, size_type n, size_type nrhs, const T* A, offset_type lda,   \
             T* B, offset_type ldb, int* info) {                                                    \
    xpotrs<T>(s, uplo, n, nrhs, A, lda, B, ldb, info);                                              \
  }                                                                                                 \
  void trtri(cudaStream_t s, char uplo, char dg, size_type n, T* A, offset_type lda, int* info) {   \
    xtrtri<T>(s, uplo, dg, n, A, lda, info);                                                        \
  }                                                                                                 \
  void potri(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* info) {            \
    if (n == 0) {                                                                                   \
      KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(info, 0, sizeof(int), s));                               \
      return;                                                                                       \
    }                                                                                               \
    Handles& h = handles(s);                                                                        \
    int N = to_int(n, "n"), LDA = to_int(ld(lda), "lda"), lwork = 0;                                \
    KSPD_CUSOLVER_SAFE_CALL(cusolverDn##P##potri_bufferSize(h.solver, fill(uplo), N, A, LDA, &lwork)); \
    void* w = h.work(size_t(lwork) * sizeof(T), 0).d;                                               \
    KSPD_CUSOLVER_SAFE_CALL(                                                                        \
        cusolverDn##P##potri(h.solver, fill(uplo), N, A, LDA, static_cast<T*>(w), lwork, info));    \
  }

KSPD_CUDA_BLAS_DEF(float, S)
KSPD_CUDA_BLAS_DEF(double, D)
#undef KSPD_CUDA_BLAS_DEF

#define KSPD_CUDA_BLAS_CDEF(T, R, P)                                                                \
  void gemm(cudaStream_t s, char ta, char tb, size_type m, size_type n, size_type k, T alpha,       \
            const T* A, offset_type lda, const T* B, offset_type ldb, T beta, T* C,                 \
            offset_type ldc) {                                                                      \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##gemm_64(handles(s).blas, op(ta), op(tb), m, n, k, cu(&alpha),  \
                                             cu(A), ld(lda), cu(B), ld(ldb), cu(&beta), cu(C),      \
                                             ld(ldc)));                                             \
  }                                                                                                 \
  void herk(cudaStream_t s, char uplo, char trans, size_type n, size_type k, R alpha, const T* A,   \
            offset_type lda, R beta, T* C, offset_type ldc) {                                       \
    if (n == 0) return;                                                                             \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##herk_64(handles(s).blas, fill(uplo), op(trans), n, k, &alpha,  \
                                             cu(A), ld(lda), &beta, cu(C), ld(ldc)));               \
  }                                                                                                 \
  void trsm(cudaStream_t s, char sd, char uplo, char ta, char dg, size_type m, size_type n,         \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb) {                          \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##trsm_64(handles(s).blas, side(sd), fill(uplo), op(ta),         \
                                             diag(dg), m, n, cu(&alpha), cu(A), ld(lda), cu(B),     \
                                             ld(ldb)));                                             \
  }                                                                                                 \
  void trmm(cudaStream_t s, char sd, char uplo, char ta, char dg, size_type m, size_type n,         \
            T alpha, const T* A, offset_type lda, T* B, offset_type ldb) {                          \
    if (m == 0 || n == 0) return;                                                                   \
    KSPD_CUBLAS_SAFE_CALL(cublas##P##trmm_64(handles(s).blas, side(sd), fill(uplo), op(ta),         \
                                             diag(dg), m, n, cu(&alpha), cu(A), ld(lda), cu(B),     \
                                             ld(ldb), cu(B), ld(ldb)));                             \
  }                                                                                                 \
  void potrf(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* info) {            \
    xpotrf<T>(s, uplo, n, A, lda, info);                                                            \
  }                                                                                                 \
  void potrs(cudaStream_t s, char uplo, size_type n, size_type nrhs, const T* A, offset_type lda,   \
             T* B, offset_type ldb, int* info) {                                                    \
    xpotrs<T>(s, uplo, n, nrhs, A, lda, B, ldb, info);                                              \
  }                                                                                                 \
  void trtri(cudaStream_t s, char uplo, char dg, size_type n, T* A, offset_type lda, int* info) {   \
    xtrtri<T>(s, uplo, dg, n, A, lda, info);                                                        \
  }                                                                                                 \
  void potri(cudaStream_t s, char uplo, size_type n, T* A, offset_type lda, int* info) {            \
    if (n == 0) {                                                                                   \
      KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(info, 0, sizeof(int), s));                               \
      return;                                                                                       \
    }                                                                                               \
    Handles& h = handles(s);                                                                        \
    int N = to_int(n, "n"), LDA = to_int(ld(lda), "lda"), lwork = 0;                                \
    KSPD_CUSOLVER_SAFE_CALL(                                                                        \
        cusolverDn##P##potri_bufferSize(h.solver, fill(uplo), N, cu(A), LDA, &lwork));              \
    void* w = h.work(size_t(lwork) * sizeof(T), 0).d;                                               \
    KSPD_CUSOLVER_SAFE_CALL(cusolverDn##P##potri(h.solver, fill(uplo), N, cu(A), LDA,               \
                                                 cu(static_cast<T*>(w)), lwork, info));             \
  }

KSPD_CUDA_BLAS_CDEF(Kokkos::complex<float>, float, C)
KSPD_CUDA_BLAS_CDEF(Kokkos::complex<double>, double, Z)
#undef KSPD_CUDA_BLAS_CDEF

void stream_wait(cudaStream_t waiter, cudaStream_t signaler) {
  if (waiter == signaler) return;
  cudaEvent_t e;
  KSPD_CUDA_SAFE_CALL(cudaEventCreateWithFlags(&e, cudaEventDisableTiming));
  KSPD_CUDA_SAFE_CALL(cudaEventRecord(e, signaler));
  KSPD_CUDA_SAFE_CALL(cudaStreamWaitEvent(waiter, e, 0));
  KSPD_CUDA_SAFE_CALL(cudaEventDestroy(e));  // the wait keeps the recorded work
}

cudaStream_t stream_create_urgent() {
  int least = 0, greatest = 0;
  KSPD_CUDA_SAFE_CALL(cudaDeviceGetStreamPriorityRange(&least, &greatest));
  cudaStream_t s = nullptr;
  KSPD_CUDA_SAFE_CALL(cudaStreamCreateWithPriority(&s, cudaStreamNonBlocking, greatest));
  return s;
}

void prepare(cudaStream_t s) {
  handles(s);
  // One small call of each kind the factorizations make, in each precision: the libraries
  // set up their per-handle workspaces (a synchronizing allocation) and load these kernels now.
  constexpr size_type n = 64;
  DeviceScratch w(2 * n * n * sizeof(double) + sizeof(int), s);
  double* a = static_cast<double*>(w.p);
  int* info = reinterpret_cast<int*>(a + 2 * n * n);
  KSPD_CUDA_SAFE_CALL(cudaMemsetAsync(w.p, 0, 2 * n * n * sizeof(double) + sizeof(int), s));
  const auto both = [&](auto t) {
    using T = decltype(t);
    T* A = reinterpret_cast<T*>(a);
    T* B = A + n * n;
    gemm(s, 'N', 'T', n, n, n, T(1), A, n, A, n, T(0), B, n);
    syrk(s, 'L', 'N', n, n, T(1), A, n, T(0), B, n);
    trsm(s, 'R', 'L', 'T', 'U', n, n, T(1), A, n, B, n);  // unit diagonal: no division by A's zeros
    potrf(s, 'L', n, A, n, info);  // fails at column 1 on the zero matrix: info only
  };
  both(float{});
  both(double{});
}

void stream_destroy(cudaStream_t s) {
  if (s) cudaStreamDestroy(s);
}

void mem_get_info(size_type& free_bytes, size_type& total_bytes) {
  size_t f = 0, t = 0;
  KSPD_CUDA_SAFE_CALL(cudaMemGetInfo(&f, &t));
  free_bytes = static_cast<size_type>(f);
  total_bytes = static_cast<size_type>(t);
}

}  // namespace kspd::Impl::cuda
#endif
