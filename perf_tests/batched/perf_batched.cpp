// perf_batched: kspd::batched against the peers, timed in the same run.
//   perf_batched [--n 2,4,8,...] [--batch 1000,10000,100000] [--prec d,s[,z,c]]
//                [--ops potrf,potrs,trsm,gemm,syrk,trmm,trtri,potri] [--nrhs 0] [--reps 7]
//                [--max-gb 1.0] [--leaf 32] [--rec auto|always|never] [--smoke]
//                [--gemm-tile auto|4x4|8x4|8x8[,...]] [--gemm-chunk 32] [--no-kk]
//                [--trsm-rhs-block 0|1|2|4[,...]] [--stream-trsm-max 32|64] [--stream-class24]
//                [--stream-chunk 0|32|...] [--stream-min-blocks 0|4|8[,...]] [--potrf-variant auto|team|warp|shuffle[,...]]
//                [--potrf-team 0|64|128|256[,...]] [--algo auto|serial|team|register[,...]]
//                [--smem MIN:MAX[,...]] [--smem-threads 0|128|256] [--smem-chunk 0|32|64|128[,...]]
//                [--smem-warp -1|0|16|32[,...]] [--smem-trsm auto|MIN:MAX[,...]]
//                [--smem-warp-cols 0|1|...[,...]] [--bf-repack -1|0|KIB[,...]] [--bf-only]
//                [--cluster -1|0|2|4|8[,...]] [--smem-leaf -1|0|32|64[,...]]
// What each flag sets, the peers and the per-line columns: perf_tests/batched/README.md.
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <KokkosBatched_Gemm_Decl.hpp>
#include <KokkosBatched_Trsm_Decl.hpp>

#include <algorithm>
#include <cstdio>
#include <cstdint>
#include <cstring>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_batched.hpp"
#include "kspd_perf_utils.hpp"
#include "kspd_perf_csv.hpp"

#ifdef KSPD_ENABLE_CUDA_TPLS
#include <cublas_v2.h>
#include <cuda_runtime.h>
#include <cusolverDn.h>
#endif

extern "C" {
void dpotrf_(const char*, const int*, double*, const int*, int*);
void spotrf_(const char*, const int*, float*, const int*, int*);
void dpotrs_(const char*, const int*, const int*, const double*, const int*, double*, const int*, int*);
void spotrs_(const char*, const int*, const int*, const float*, const int*, float*, const int*, int*);
void dtrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const double*, const double*,
            const int*, double*, const int*);
void strsm_(const char*, const char*, const char*, const char*, const int*, const int*, const float*, const float*,
            const int*, float*, const int*);
void dgemm_(const char*, const char*, const int*, const int*, const int*, const double*, const double*, const int*,
            const double*, const int*, const double*, double*, const int*);
void sgemm_(const char*, const char*, const int*, const int*, const int*, const float*, const float*, const int*,
            const float*, const int*, const float*, float*, const int*);
}

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
using Mem = Exec::memory_space;
namespace kb = kspd::batched;

using kspd::perf::parse_list;
using kspd::perf::parse_words;

int g_reps = 7;
double g_max_gb = 1.0;
kb::BatchOptions g_opts;  // --leaf, --rec
kb::Impl::TuningOverride g_tune;  // the tuning-table overrides (--gemm-tile ... --potrf-team)
bool g_kk = true;         // --no-kk: skip the Kokkos Kernels peers (seconds per call at n >= 128)
/// Median of g_reps runs of fn(), each after reset() (untimed); one warm-up run first.
bool g_best = false;       // --best: the fastest of the reps instead of the median (a shared, loaded machine)
bool g_bf_only = false;    // --bf-only: the batch-first View and the peer only
template <class Reset, class Fn>
double median_time(Reset reset, Fn fn) {
  if (!g_best) return kspd::perf::median_time(g_reps, reset, fn);
  double best = 1e300;
  for (int r = 0; r < g_reps; ++r) best = std::min(best, kspd::perf::median_time(1, reset, fn));
  return best;
}

double copy_bandwidth() {
  const size_t n = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Mem>::accessible ? (size_t(1) << 25) : (size_t(1) << 28);
  Kokkos::View<double*, Mem> a("a", n), b("b", n);
  Kokkos::deep_copy(a, 1.0);
  const double t = median_time([] {}, [&] { Kokkos::deep_copy(Exec(), b, a); });
  return 2.0 * double(n) * sizeof(double) / t * 1e-9;
}

#include "perf_batched_case.hpp"  // Case<T>: the batch, the peers' copies, resets

#ifdef KSPD_ENABLE_CUDA_TPLS
cublasHandle_t g_cublas;
cusolverDnHandle_t g_cusolver;
cublasStatus_t trsm_batched(double alpha, int m, int n, double** A, double** B, int nb) {
  return cublasDtrsmBatched(g_cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n,
                            &alpha, A, m, B, m, nb);
}
cublasStatus_t trsm_batched(float alpha, int m, int n, float** A, float** B, int nb) {
  return cublasStrsmBatched(g_cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT, m, n,
                            &alpha, A, m, B, m, nb);
}
cusolverStatus_t potrf_batched(int n, double** A, int* info, int nb) {
  return cusolverDnDpotrfBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, A, n, info, nb);
}
cusolverStatus_t potrf_batched(int n, float** A, int* info, int nb) {
  return cusolverDnSpotrfBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, A, n, info, nb);
}
cusolverStatus_t potrs_batched(int n, double** A, double** B, int* info, int nb) {
  return cusolverDnDpotrsBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, 1, A, n, B, n, info, nb);
}
cusolverStatus_t potrs_batched(int n, float** A, float** B, int* info, int nb) {
  return cusolverDnSpotrsBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, 1, A, n, B, n, info, nb);
}
cublasStatus_t gemm_strided(int n, int k, const double* A, const double* B, double* C, int nb) {
  const double one = 1, zero = 0;
  return cublasDgemmStridedBatched(g_cublas, CUBLAS_OP_N, CUBLAS_OP_T, n, k, n, &one, A, n, long(n) * n, B, k,
                                   long(n) * k, &zero, C, n, long(n) * k, nb);
}
cublasStatus_t gemm_strided(int n, int k, const float* A, const float* B, float* C, int nb) {
  const float one = 1, zero = 0;
  return cublasSgemmStridedBatched(g_cublas, CUBLAS_OP_N, CUBLAS_OP_T, n, k, n, &one, A, n, long(n) * n, B, k,
                                   long(n) * k, &zero, C, n, long(n) * k, nb);
}
#else
template <class T>
void lapack_potrf(int n, T* a);
template <>
void lapack_potrf<double>(int n, double* a) {
  int info;
  dpotrf_("L", &n, a, &n, &info);
}
template <>
void lapack_potrf<float>(int n, float* a) {
  int info;
  spotrf_("L", &n, a, &n, &info);
}
void lapack_potrs(int n, int r, const double* a, double* b) {
  int info;
  dpotrs_("L", &n, &r, a, &n, b, &n, &info);
}
void lapack_potrs(int n, int r, const float* a, float* b) {
  int info;
  spotrs_("L", &n, &r, a, &n, b, &n, &info);
}
void lapack_trsm(int n, int r, const double* a, double* b) {
  const double one = 1;
  dtrsm_("L", "L", "N", "N", &n, &r, &one, a, &n, b, &n);
}
void lapack_trsm(int n, int r, const float* a, float* b) {
  const float one = 1;
  strsm_("L", "L", "N", "N", &n, &r, &one, a, &n, b, &n);
}
void lapack_gemm(int n, int k, const double* a, const double* b, double* c) {
  const double one = 1, zero = 0;
  dgemm_("N", "T", &n, &k, &n, &one, a, &n, b, &k, &zero, c, &n);
}
void lapack_gemm(int n, int k, const float* a, const float* b, float* c) {
  const float one = 1, zero = 0;
  sgemm_("N", "T", &n, &k, &n, &one, a, &n, b, &k, &zero, c, &n);
}
#endif

double g_copy_bw = 0;
/// Host builds with a thread pool: the per-core scaling of the column-major run ("kspd-cm"),
/// its one-thread time t1 (kb::Impl::CallerOnlyScope) timed in the same run.
template <class Time>
void print_scaling(const char* prec, const char* op, long n, long nrhs, long nb, double tcm, const Time& time_cm) {
#ifndef KSPD_ENABLE_CUDA_TPLS
  const int nt = kb::Impl::host_threads();
  if (nt <= 1) return;
  double t1;
  {
    const kb::Impl::CallerOnlyScope one;
    t1 = time_cm();
  }
  std::printf("%s %-6s n=%4ld nrhs=%4ld batch=%7ld kspd-cm   1 thread %9.4f ms, %d threads %9.4f ms: %5.2fx = %3.0f%% "
              "of %d x the single-core rate\n",
              prec, op, n, nrhs, nb, t1 * 1e3, nt, tcm * 1e3, t1 / tcm, 100 * t1 / tcm / nt, nt);
  std::fflush(stdout);
#else
  (void)prec, (void)op, (void)n, (void)nrhs, (void)nb, (void)tcm, (void)time_cm;
#endif
}

void print_line(const char* prec, const char* op, long n, long nrhs, long nb, const char* who, double t, double flops,
                double bytes, const char* peer, double tpeer) {
  const double gb = bytes / t * 1e-9;
  std::printf("%s %-6s n=%4ld nrhs=%4ld batch=%7ld %-9s %9.4f ms %9.1f GF/s %7.1f GB/s (%5.1f%% copy)", prec, op, n,
              nrhs, nb, who, t * 1e3, flops / t * 1e-9, gb, 100 * gb / g_copy_bw);
  if (tpeer > 0) std::printf(" | %-14s %9.4f ms  ratio %6.2fx", peer, tpeer * 1e3, tpeer / t);
  std::printf("\n");
  std::fflush(stdout);
  kspd::perf::csv_row(prec, op, "", n, nrhs, nb, who, t * 1e3, flops / t * 1e-9);
  if (tpeer > 0) kspd::perf::csv_row(prec, op, "", n, nrhs, nb, peer, tpeer * 1e3, flops / tpeer * 1e-9);
}

template <class T>
void run(const std::vector<long>& ns, const std::vector<long>& batches, const std::vector<std::string>& ops,
         long nrhs_opt, const char* prec) {
  Exec exec;
  const double sz = sizeof(T);
  for (long nb_req : batches)
    for (long n : ns) {
      const long nrhs = nrhs_opt > 0 ? nrhs_opt : n;
      // Cap each array at g_max_gb (the case holds about six of them).
      const long nb = std::max(1L, std::min(nb_req, long(g_max_gb * 1e9 / (double(n) * double(std::max(n, nrhs)) * sz))));
      Case<T> c(n, nrhs, nb);
      double t_gemm = 0, t_gemm_peer = 0;
      for (const auto& op : ops) {
        const double nn = double(n), nr = double(nrhs), B = double(nb);
        if (op == "gemm") {  // C (n x nrhs) = A (n x n) * B2^T, B2 nrhs x n
          Kokkos::View<T***, Kokkos::LayoutLeft, Mem> Bt("Bt", nb, nrhs, n), C("C", nb, n, nrhs);
          const double fl = 2 * nn * nn * nr * B, by = (nn * nn + 2 * nn * nr) * sz * B;
          t_gemm = median_time([] {}, [&] {
            kb::gemm(exec, kspd::Trans::NoTranspose, kspd::Trans::Transpose, T(1), c.A0, Bt, T(0), C, g_opts);
          });
          double tp = 0, tkk = 0;
#ifdef KSPD_ENABLE_CUDA_TPLS
          Kokkos::View<T*, Mem> pbt("pbt", nb * nrhs * n), pc("pc", nb * n * nrhs);
          tp = median_time([] {}, [&] { gemm_strided(int(n), int(nrhs), c.pa0.data(), pbt.data(), pc.data(), int(nb)); });
#else
          Kokkos::View<T*, Mem> pbt("pbt", nb * nrhs * n), pc("pc", nb * n * nrhs);
          tp = median_time([] {}, [&] {
            for (long b = 0; b < nb; ++b)
              lapack_gemm(int(n), int(nrhs), c.pa0.data() + b * n * n, pbt.data() + b * nrhs * n, pc.data() + b * n * nrhs);
          });
#endif
          auto A0 = c.A0;
          if (g_kk) tkk = median_time([] {}, [&] {
            Kokkos::parallel_for(
                "perf::kk_gemm", Kokkos::RangePolicy<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const long b) {
                  auto a = Kokkos::subview(A0, b, Kokkos::ALL, Kokkos::ALL);
                  auto bt = Kokkos::subview(Bt, b, Kokkos::ALL, Kokkos::ALL);
                  auto cc = Kokkos::subview(C, b, Kokkos::ALL, Kokkos::ALL);
                  KokkosBatched::SerialGemm<KokkosBatched::Trans::NoTranspose, KokkosBatched::Trans::Transpose,
                                            KokkosBatched::Algo::Gemm::Unblocked>::invoke(T(1), a, bt, T(0), cc);
                });
          });
          t_gemm_peer = tp;
#ifdef KSPD_ENABLE_CUDA_TPLS
          print_line(prec, "gemm", n, nrhs, nb, "kspd", t_gemm, fl, by, "cublasStrided", tp);
#else
          print_line(prec, "gemm", n, nrhs, nb, "kspd", t_gemm, fl, by, "lapack-loop", tp);
#endif
          if (g_kk) print_line(prec, "gemm", n, nrhs, nb, "kspd", t_gemm, fl, by, "KK-SerialGemm", tkk);
        } else if (op == "potrf") {
          const double fl = nn * nn * nn / 3 * B, by = 2 * nn * nn * sz * B;
          const double t =
              median_time([&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, c.A, c.infos, g_opts); });
          const double tptr = g_bf_only ? 0.0 : median_time(
              [&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, nb, n, c.ptrA(), n, c.infos, g_opts); });
          auto time_cm = [&] {
            return median_time([&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, c.cmA(), c.infos, g_opts); });
          };
          const double tcm = g_bf_only ? 0.0 : time_cm();
#ifdef KSPD_ENABLE_CUDA_TPLS
          const double tp = median_time([&] { c.reset_a(); }, [&] { potrf_batched(int(n), c.ptrA(), c.infos.data(), int(nb)); });
          const char* peer = "cusolverBatched";
#else
          const double tp = median_time([&] { c.reset_a(); }, [&] {
            for (long b = 0; b < nb; ++b) lapack_potrf<T>(int(n), c.pa.data() + b * n * n);
          });
          const char* peer = "lapack-loop";
#endif
          print_line(prec, "potrf", n, 0, nb, "kspd", t, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "potrf", n, 0, nb, "kspd-ptr", tptr, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "potrf", n, 0, nb, "kspd-cm", tcm, fl, by, peer, tp);
          if (!g_bf_only) print_scaling(prec, "potrf", n, 0, nb, tcm, time_cm);
        } else if (op == "potrs") {  // nrhs = 1, cuSOLVER's only choice
          c.factor();
          Kokkos::View<T***, Kokkos::LayoutLeft, Mem> x("x", nb, n, 1), x0("x0", nb, n, 1);
          Kokkos::deep_copy(x0, 1.0);
          Kokkos::View<T*, Mem> px("px", nb * n), px0("px0", nb * n);
          Kokkos::deep_copy(px0, 1.0);
          Kokkos::View<std::uintptr_t*, Mem> pX("pX", nb);
          T* base = px.data();
          Kokkos::parallel_for(
              "perf::px", Kokkos::RangePolicy<Exec>(0, nb),
              KOKKOS_LAMBDA(const long b) { pX(b) = reinterpret_cast<std::uintptr_t>(base + b * n); });
          T** ppx = reinterpret_cast<T**>(pX.data());
          const double fl = 2 * nn * nn * B, by = (nn * nn + 2 * nn) * sz * B;
          const double t = median_time([&] { Kokkos::deep_copy(exec, x, x0); },
                                       [&] { kb::potrs(exec, kspd::Uplo::Lower, c.A, x, c.infos, g_opts); });
          const double tptr = g_bf_only ? 0.0 : median_time([&] { Kokkos::deep_copy(exec, px, px0); }, [&] {
            kb::potrs(exec, kspd::Uplo::Lower, nb, n, 1, const_cast<const T* const*>(c.ptrA()), n, ppx, n, c.infos, g_opts);
          });
          Kokkos::View<T***, Kokkos::LayoutStride, Mem> xcm(px.data(),
                                                           Kokkos::LayoutStride(size_t(nb), size_t(n), size_t(n), 1, 1, size_t(n)));
          auto time_cm = [&] {
            return median_time([&] { Kokkos::deep_copy(exec, px, px0); },
                               [&] { kb::potrs(exec, kspd::Uplo::Lower, c.cmA(), xcm, c.infos, g_opts); });
          };
          const double tcm = g_bf_only ? 0.0 : time_cm();
#ifdef KSPD_ENABLE_CUDA_TPLS
          Kokkos::View<int, Mem> info1("info1");
          const double tp = median_time([&] { Kokkos::deep_copy(exec, px, px0); },
                                        [&] { potrs_batched(int(n), c.ptrA(), ppx, info1.data(), int(nb)); });
          const char* peer = "cusolverBatched";
#else
          const double tp = median_time([&] { Kokkos::deep_copy(exec, px, px0); }, [&] {
            for (long b = 0; b < nb; ++b) lapack_potrs(int(n), 1, c.pa.data() + b * n * n, px.data() + b * n);
          });
          const char* peer = "lapack-loop";
#endif
          print_line(prec, "potrs", n, 1, nb, "kspd", t, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "potrs", n, 1, nb, "kspd-ptr", tptr, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "potrs", n, 1, nb, "kspd-cm", tcm, fl, by, peer, tp);
          if (!g_bf_only) print_scaling(prec, "potrs", n, 1, nb, tcm, time_cm);
        } else if (op == "trsm") {  // Left Lower NoTrans NonUnit, nrhs columns
          c.factor();
          const double fl = nn * nn * nr * B, by = (nn * nn + 2 * nn * nr) * sz * B;
          const double t = median_time([&] { c.reset_b(); }, [&] {
            kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, T(1), c.A,
                     c.B, g_opts);
          });
          const double tptr = g_bf_only ? 0.0 : median_time([&] { c.reset_b(); }, [&] {
            kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, T(1), nb,
                     n, nrhs, const_cast<const T* const*>(c.ptrA()), n, c.ptrB(), n, g_opts);
          });
          auto time_cm = [&] {
            return median_time([&] { c.reset_b(); }, [&] {
              kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, T(1),
                       c.cmA(), c.cmB(), g_opts);
            });
          };
          const double tcm = g_bf_only ? 0.0 : time_cm();
#ifdef KSPD_ENABLE_CUDA_TPLS
          const double tp = median_time([&] { c.reset_b(); },
                                        [&] { trsm_batched(T(1), int(n), int(nrhs), c.ptrA(), c.ptrB(), int(nb)); });
          const char* peer = "cublasBatched";
#else
          const double tp = median_time([&] { c.reset_b(); }, [&] {
            for (long b = 0; b < nb; ++b) lapack_trsm(int(n), int(nrhs), c.pa.data() + b * n * n, c.pb.data() + b * n * nrhs);
          });
          const char* peer = "lapack-loop";
#endif
          auto A = c.A;
          auto Bv = c.B;
          const double tkk = !g_kk ? 0.0 : median_time([&] { c.reset_b(); }, [&] {
            Kokkos::parallel_for(
                "perf::kk_trsm", Kokkos::RangePolicy<Exec>(exec, 0, nb), KOKKOS_LAMBDA(const long b) {
                  auto a = Kokkos::subview(A, b, Kokkos::ALL, Kokkos::ALL);
                  auto x = Kokkos::subview(Bv, b, Kokkos::ALL, Kokkos::ALL);
                  KokkosBatched::SerialTrsm<KokkosBatched::Side::Left, KokkosBatched::Uplo::Lower,
                                            KokkosBatched::Trans::NoTranspose, KokkosBatched::Diag::NonUnit,
                                            KokkosBatched::Algo::Trsm::Unblocked>::invoke(T(1), a, x);
                });
          });
          print_line(prec, "trsm", n, nrhs, nb, "kspd", t, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "trsm", n, nrhs, nb, "kspd-ptr", tptr, fl, by, peer, tp);
          if (!g_bf_only) print_line(prec, "trsm", n, nrhs, nb, "kspd-cm", tcm, fl, by, peer, tp);
          if (!g_bf_only) print_scaling(prec, "trsm", n, nrhs, nb, tcm, time_cm);
          if (g_kk) print_line(prec, "trsm", n, nrhs, nb, "kspd", t, fl, by, "KK-SerialTrsm", tkk);
        } else {  // operations without a batched peer: syrk, trmm, trtri, potri
          // Timed on the LayoutLeft batch ("kspd") and on the column-major strided one ("kspd-cm").
          double fl = 0, by = 2 * nn * nn * sz * B, t = 0, tcm = 0;
          if (op == "syrk") {
            Kokkos::View<T***, Kokkos::LayoutLeft, Mem> C("C", nb, n, n);
            Kokkos::View<T*, Mem> pc("pc", nb * n * n);
            Kokkos::View<T***, Kokkos::LayoutStride, Mem> Ccm(
                pc.data(), Kokkos::LayoutStride(size_t(nb), size_t(n * n), size_t(n), 1, size_t(n), size_t(n)));
            Kokkos::View<const T***, Kokkos::LayoutStride, Mem> Bcm(
                c.pb0.data(), Kokkos::LayoutStride(size_t(nb), size_t(n * nrhs), size_t(n), 1, size_t(nrhs), size_t(n)));
            fl = nn * nn * nr * B;
            by = (nn * nr + nn * nn) * sz * B;
            t = median_time([] {}, [&] {
              kb::syrk(exec, kspd::Uplo::Lower, kspd::Trans::NoTranspose, T(1), c.B0, T(0), C, g_opts);
            });
            tcm = median_time([] {}, [&] {
              kb::syrk(exec, kspd::Uplo::Lower, kspd::Trans::NoTranspose, T(1), Bcm, T(0), Ccm, g_opts);
            });
          } else if (op == "trmm") {
            c.factor();
            fl = nn * nn * nr * B;
            by = (nn * nn + 2 * nn * nr) * sz * B;
            t = median_time([&] { c.reset_b(); }, [&] {
              kb::trmm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, T(1),
                       c.A, c.B, g_opts);
            });
            tcm = median_time([&] { c.reset_b(); }, [&] {
              kb::trmm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, T(1),
                       c.cmA(), c.cmB(), g_opts);
            });
          } else if (op == "trtri" || op == "potri") {
            c.factor();
            fl = (op == "trtri" ? 1.0 : 2.0) * nn * nn * nn / 3 * B;
            auto inv = [&](const auto& A) {
              if (op == "trtri") kb::trtri(exec, kspd::Uplo::Lower, kspd::Diag::NonUnit, A, c.infos, g_opts);
              else kb::potri(exec, kspd::Uplo::Lower, A, c.infos, g_opts);  // infos: potrf's (zeros)
            };
            t = median_time([&] { c.reset_a(); }, [&] { inv(c.A); });
            tcm = median_time([&] { c.reset_a(); }, [&] { inv(c.cmA()); });
          } else {
            std::printf("unknown op %s\n", op.c_str());
            continue;
          }
          // Reference rate: the batched GEMM n x n x nrhs (kspd's and, on CUDA, cuBLAS
          // gemmStridedBatched), when --ops ran gemm before.
          for (int v = 0; v < 2; ++v) {
            const double tv = v == 0 ? t : tcm;
            std::printf("%s %-6s n=%4ld nrhs=%4ld batch=%7ld %-9s %9.4f ms %9.1f GF/s %7.1f GB/s (%5.1f%% copy)", prec,
                        op.c_str(), n, nrhs, nb, v == 0 ? "kspd" : "kspd-cm", tv * 1e3, fl / tv * 1e-9, by / tv * 1e-9,
                        100 * by / tv * 1e-9 / g_copy_bw);
            if (t_gemm > 0)
              std::printf(" | gemm(n x n x nrhs) GF/s: kspd %7.1f peer %7.1f", 2 * nn * nn * nr * B / t_gemm * 1e-9,
                          t_gemm_peer > 0 ? 2 * nn * nn * nr * B / t_gemm_peer * 1e-9 : 0.0);
            std::printf("\n");
            kspd::perf::csv_row(prec, op, "", n, nrhs, nb, v == 0 ? "kspd" : "kspd-cm", tv * 1e3, fl / tv * 1e-9);
          }
        }
      }
    }
}
#include "perf_batched_complex.hpp"  // --prec z,c: run_complex
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH
}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<long> ns{2, 3, 4, 5, 8, 12, 16, 24, 32, 33, 48, 64, 100, 128, 200, 256};
  std::vector<long> batches{1000, 10000, 100000};
  std::vector<std::string> precs{"d", "s"}, ops{"gemm", "potrf", "potrs", "trsm", "syrk", "trmm", "trtri", "potri"};
  long nrhs = 0;
  std::vector<std::string> tiles{"auto"};
  std::vector<long> rhs_blocks{0}, potrf_teams{0}, min_blocks{0};
  std::vector<std::string> potrf_variants{"auto"};
  std::vector<std::string> algos{"auto"};
  std::vector<std::string> smem_ranges{"auto"};
  std::vector<long> smem_chunks{0};
  std::vector<long> smem_warps{-1};
  std::vector<std::string> smem_trsm_ranges{"auto"};
  std::vector<long> smem_warp_cols{0};
  std::vector<long> bf_repacks{-1};
  std::vector<long> clusters{-1};
  std::vector<long> smem_leaves{-1};
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto next = [&]() -> std::string { return i + 1 < argc ? argv[++i] : ""; };
    if (a == "--n") ns = parse_list(next());
    else if (a == "--batch") batches = parse_list(next());
    else if (a == "--prec") precs = parse_words(next());
    else if (a == "--ops") ops = parse_words(next());
    else if (a == "--nrhs") nrhs = std::stol(next());
    else if (a == "--reps") g_reps = int(std::stol(next()));
    else if (a == "--max-gb") g_max_gb = std::stod(next());
    else if (a == "--gemm-tile") tiles = parse_words(next());
    else if (a == "--gemm-chunk") g_tune.gemm_chunk = int(std::stol(next()));
    else if (a == "--trsm-rhs-block") rhs_blocks = parse_list(next());
    else if (a == "--stream-trsm-max") g_tune.stream_trsm_max = int(std::stol(next()));
    else if (a == "--stream-class24") g_tune.stream_class24 = 1;
    else if (a == "--stream-min-blocks") min_blocks = parse_list(next());
    else if (a == "--stream-chunk") g_tune.stream_chunk = int(std::stol(next()));
    else if (a == "--potrf-variant") potrf_variants = parse_words(next());
    else if (a == "--potrf-team") potrf_teams = parse_list(next());
    else if (a == "--no-kk") g_kk = false;
    else if (a == "--algo") algos = parse_words(next());
    else if (a == "--smem") smem_ranges = parse_words(next());
    else if (a == "--smem-threads") g_tune.smem_threads = int(std::stol(next()));
    else if (a == "--smem-chunk") smem_chunks = parse_list(next());
    else if (a == "--smem-warp") smem_warps = parse_list(next());
    else if (a == "--smem-trsm") smem_trsm_ranges = parse_words(next());
    else if (a == "--smem-warp-cols") smem_warp_cols = parse_list(next());
    else if (a == "--bf-repack") bf_repacks = parse_list(next());
    else if (a == "--cluster") clusters = parse_list(next());
    else if (a == "--smem-leaf") smem_leaves = parse_list(next());
    else if (a == "--best") g_best = true;
    else if (a == "--bf-only") g_bf_only = true;
    else if (a == "--leaf") g_opts.leaf_size = int(std::stol(next()));
    else if (a == "--rec") {
      const std::string r = next();
      g_opts.recursion = r == "always" ? kb::BatchRecursion::Always
                         : r == "never" ? kb::BatchRecursion::Never
                                        : kb::BatchRecursion::Auto;
    }
    else if (a == "--smoke") {
      ns = {3, 8, 17};
      batches = {200};
      g_reps = 1;
    }
  }
#ifdef KSPD_ENABLE_CUDA_TPLS
  cublasCreate(&g_cublas);
  cusolverDnCreate(&g_cusolver);
  // The peers run on Kokkos' stream, so the fences that bracket every timing cover them.
  cublasSetStream(g_cublas, Exec().cuda_stream());
  cusolverDnSetStream(g_cusolver, Exec().cuda_stream());
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  size_t free_b, total_b;
  cudaMemGetInfo(&free_b, &total_b);
  std::printf("device %s SMs %d mem free %.1f GiB total %.1f GiB\n", prop.name, prop.multiProcessorCount,
              free_b / 1073741824.0, total_b / 1073741824.0);
#else
  std::printf("device host (%s), peer: a loop of LAPACK/BLAS calls per matrix\n", Exec::name());
#endif
  std::printf("kspd %s, Kokkos %d, exec %s\n", KSPD_GIT_HASH, KOKKOS_VERSION, Exec::name());
  g_copy_bw = copy_bandwidth();
  std::printf("copy bandwidth %.0f GB/s (device-to-device deep_copy, read + write)\n", g_copy_bw);
  for (const long sw : smem_warps)
  for (const long sc : smem_chunks)
  for (const auto& smem : smem_ranges)
  for (const auto& smem_trsm : smem_trsm_ranges)
  for (const long swc : smem_warp_cols)
  for (const long bfr : bf_repacks)
  for (const long cl : clusters)
  for (const long leaf : smem_leaves)
  for (const auto& algo : algos)
  for (const auto& tile : tiles) {
    const size_t colon = smem.find(':');
    const int smin = smem == "auto" || colon == std::string::npos ? -1 : std::stoi(smem.substr(0, colon));
    const int smax = smem == "auto" || colon == std::string::npos ? -1 : std::stoi(smem.substr(colon + 1));
    g_tune.smem_potrf_min = g_tune.smem_trsm_min = smin;
    g_tune.smem_potrf_max = g_tune.smem_trsm_max = smax;
    g_tune.smem_trsm_warp_min = smin;  // 0:0 switches the warp-per-matrix TRSM off too
    g_tune.smem_trsm_warp_max = sw >= 0 ? int(sw) : smax == 0 ? 0 : -1;
    g_tune.smem_trsm_chunk = sc > 0 ? int(sc) : -1;
    g_tune.smem_potrf_warp_max = int(sw);
    const size_t tcolon = smem_trsm.find(':');
    if (smem_trsm != "auto" && tcolon != std::string::npos) {  // TRSM only (both layout classes)
      g_tune.smem_trsm_min = std::stoi(smem_trsm.substr(0, tcolon));
      g_tune.smem_trsm_max = std::stoi(smem_trsm.substr(tcolon + 1));
    }
    g_tune.smem_trsm_warp_cols_cm = swc > 0 ? int(swc) : -1;
    g_tune.bf_repack_kib = int(bfr);
    g_tune.smem_cluster = int(cl);
    g_tune.smem_trsm_leaf_max = g_tune.smem_trsm_leaf_max_cm = int(leaf);
    std::printf("smem-leaf %ld (largest shared-memory TRSM leaf, both layouts; -1 = the table, 0 = no cap)\n", leaf);
    std::printf("cluster %ld (batch-first shared-memory POTRF / TRSM blocks per cluster; -1 = the tuning table, 0 = none)\n", cl);
    std::printf("bf-repack %ld KiB (batch-first chunks through column-major copies; -1 = the tuning table, 0 = off)\n", bfr);
    std::printf("smem %s trsm %s (shared-memory POTRF / TRSM orders; auto = the tuning table) chunk %ld warp-max %ld "
                "warp-cols-cm %ld\n",
                smem.c_str(), smem_trsm.c_str(), sc, sw, swc);
    g_opts.algo = algo == "serial" ? kb::BatchAlgo::Serial
                  : algo == "team" ? kb::BatchAlgo::Team
                  : algo == "register" ? kb::BatchAlgo::Register
                                       : kb::BatchAlgo::Auto;
    std::printf("algo %s (host threads %d)\n", algo.c_str(), kb::Impl::host_threads());
    g_tune.gemm_tile = tile == "4x4"   ? kb::Impl::GemmTile::T4x4
                       : tile == "8x4" ? kb::Impl::GemmTile::T8x4
                       : tile == "8x8" ? kb::Impl::GemmTile::T8x8
                                       : kb::Impl::GemmTile::Auto;
    for (const long mb : min_blocks)
      for (const long rb : rhs_blocks)
        for (const auto& pv : potrf_variants)
          for (const long pt : potrf_teams) {
            g_tune.trsm_rhs_block = rb > 0 ? int(rb) : -1;
            g_tune.stream_min_blocks = mb > 0 ? int(mb) : -1;
            g_tune.potrf_sync = pv == "team"      ? kb::Impl::PotrfSync::TeamSync
                                : pv == "warp"    ? kb::Impl::PotrfSync::WarpSync
                                : pv == "shuffle" ? kb::Impl::PotrfSync::Shuffle
                                                  : kb::Impl::PotrfSync::Auto;
            g_tune.potrf_group_team = pt > 0 ? int(pt) : -1;
            const kb::Impl::TuningScope scope(g_tune);  // throws for variants this build does not compile
            std::printf("variant tile %s chunk %d trsm-rhs-block %ld stream-trsm-max %d stream-class24 %d "
                        "stream-chunk %d stream-min-blocks %ld potrf-variant %s potrf-team %ld (0 = Auto / default)\n",
                        tile.c_str(), g_tune.gemm_chunk >= 0 ? g_tune.gemm_chunk : 32, rb,
                        g_tune.stream_trsm_max >= 0 ? g_tune.stream_trsm_max : 32, int(g_tune.stream_class24 > 0),
                        g_tune.stream_chunk >= 0 ? g_tune.stream_chunk : 32, mb, pv.c_str(), pt);
            for (const auto& p : precs) {
              if (p == "d") run<double>(ns, batches, ops, nrhs, "d");
              if (p == "s") run<float>(ns, batches, ops, nrhs, "s");
              if (p == "z") run_complex<Kokkos::complex<double>>(ns, batches, ops, nrhs, "z");
              if (p == "c") run_complex<Kokkos::complex<float>>(ns, batches, ops, nrhs, "c");
            }
          }
  }
#ifdef KSPD_ENABLE_CUDA_TPLS
  cusolverDnDestroy(g_cusolver);
  cublasDestroy(g_cublas);
#endif
  return 0;
}
