// perf_batched's complex rows (--prec z,c): batched Hermitian POTRF / POTRS / TRSM on
// Kokkos::complex<double / float> against the peers in the same run:
//   CUDA: cuSOLVER zpotrfBatched / cpotrfBatched, zpotrsBatched (nrhs = 1), cuBLAS
//         ztrsmBatched / ctrsmBatched (pointer arrays over the same column-major data);
//   host: a loop of LAPACK zpotrf / zpotrs / ztrsm (c...) calls per matrix.
// Same line format as the real rows ("kspd" on a LayoutLeft batch-first View, "kspd-ptr" on
// the peer's pointer array, "kspd-cm" on the peer's column-major matrices); complex flops
// count 4 real ones per multiply-add pair (potrf 4n^3/3, trsm 4 n^2 nrhs, potrs 8 n^2).
// Included by perf_batched.cpp inside its anonymous namespace (uses median_time, print_line,
// g_opts, g_max_gb; on CUDA g_cublas / g_cusolver).
#ifndef KSPD_PERF_BATCHED_COMPLEX_HPP
#define KSPD_PERF_BATCHED_COMPLEX_HPP

#include <complex>

#ifdef KSPD_ENABLE_CUDA_TPLS
#include <cuComplex.h>
#endif

extern "C" {
void zpotrf_(const char*, const int*, std::complex<double>*, const int*, int*);
void cpotrf_(const char*, const int*, std::complex<float>*, const int*, int*);
void zpotrs_(const char*, const int*, const int*, const std::complex<double>*, const int*, std::complex<double>*,
             const int*, int*);
void cpotrs_(const char*, const int*, const int*, const std::complex<float>*, const int*, std::complex<float>*,
             const int*, int*);
void ztrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const std::complex<double>*,
            const std::complex<double>*, const int*, std::complex<double>*, const int*);
void ctrsm_(const char*, const char*, const char*, const char*, const int*, const int*, const std::complex<float>*,
            const std::complex<float>*, const int*, std::complex<float>*, const int*);
}


#ifdef KSPD_ENABLE_CUDA_TPLS
template <class T>
using cu_t = std::conditional_t<std::is_same<T, Kokkos::complex<double>>::value, cuDoubleComplex, cuComplex>;
template <class T>
cu_t<T>** cu(T** p) {
  return reinterpret_cast<cu_t<T>**>(p);
}
inline void cpeer_check(int status, const char* what) {
  if (status != 0) std::printf("perf_batched: %s returned status %d\n", what, status);
}
inline void cpotrf_batched(int n, Kokkos::complex<double>** A, int* info, int nb) {
  cpeer_check(cusolverDnZpotrfBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, cu(A), n, info, nb), "zpotrfBatched");
}
inline void cpotrf_batched(int n, Kokkos::complex<float>** A, int* info, int nb) {
  cpeer_check(cusolverDnCpotrfBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, cu(A), n, info, nb), "cpotrfBatched");
}
inline void cpotrs_batched(int n, Kokkos::complex<double>** A, Kokkos::complex<double>** B, int* info, int nb) {
  cpeer_check(cusolverDnZpotrsBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, 1, cu(A), n, cu(B), n, info, nb),
              "zpotrsBatched");
}
inline void cpotrs_batched(int n, Kokkos::complex<float>** A, Kokkos::complex<float>** B, int* info, int nb) {
  cpeer_check(cusolverDnCpotrsBatched(g_cusolver, CUBLAS_FILL_MODE_LOWER, n, 1, cu(A), n, cu(B), n, info, nb),
              "cpotrsBatched");
}
inline void ctrsm_batched(int m, int n, Kokkos::complex<double>** A, Kokkos::complex<double>** B, int nb) {
  const cuDoubleComplex one = make_cuDoubleComplex(1, 0);
  cpeer_check(cublasZtrsmBatched(g_cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                 m, n, &one, cu(A), m, cu(B), m, nb),
              "ztrsmBatched");
}
inline void ctrsm_batched(int m, int n, Kokkos::complex<float>** A, Kokkos::complex<float>** B, int nb) {
  const cuComplex one = make_cuComplex(1, 0);
  cpeer_check(cublasCtrsmBatched(g_cublas, CUBLAS_SIDE_LEFT, CUBLAS_FILL_MODE_LOWER, CUBLAS_OP_N, CUBLAS_DIAG_NON_UNIT,
                                 m, n, &one, cu(A), m, cu(B), m, nb),
              "ctrsmBatched");
}
#else
inline std::complex<double>* sc(Kokkos::complex<double>* p) { return reinterpret_cast<std::complex<double>*>(p); }
inline std::complex<float>* sc(Kokkos::complex<float>* p) { return reinterpret_cast<std::complex<float>*>(p); }
inline void clapack_potrf(int n, Kokkos::complex<double>* a) {
  int info;
  zpotrf_("L", &n, sc(a), &n, &info);
}
inline void clapack_potrf(int n, Kokkos::complex<float>* a) {
  int info;
  cpotrf_("L", &n, sc(a), &n, &info);
}
inline void clapack_potrs(int n, Kokkos::complex<double>* a, Kokkos::complex<double>* b) {
  int info, one = 1;
  zpotrs_("L", &n, &one, sc(a), &n, sc(b), &n, &info);
}
inline void clapack_potrs(int n, Kokkos::complex<float>* a, Kokkos::complex<float>* b) {
  int info, one = 1;
  cpotrs_("L", &n, &one, sc(a), &n, sc(b), &n, &info);
}
inline void clapack_trsm(int n, int r, Kokkos::complex<double>* a, Kokkos::complex<double>* b) {
  const std::complex<double> one(1, 0);
  ztrsm_("L", "L", "N", "N", &n, &r, &one, sc(a), &n, sc(b), &n);
}
inline void clapack_trsm(int n, int r, Kokkos::complex<float>* a, Kokkos::complex<float>* b) {
  const std::complex<float> one(1, 0);
  ctrsm_("L", "L", "N", "N", &n, &r, &one, sc(a), &n, sc(b), &n);
}
#endif

template <class T>
void run_complex(const std::vector<long>& ns, const std::vector<long>& batches, const std::vector<std::string>& ops,
                 long nrhs_opt, const char* prec) {
  using R = typename T::value_type;
  Exec exec;
  const double sz = sizeof(T);
  for (long nb_req : batches)
    for (long n : ns) {
      const long nrhs = nrhs_opt > 0 ? nrhs_opt : n;
      const long nb = std::max(1L, std::min(nb_req, long(g_max_gb * 1e9 / (double(n) * double(std::max(n, nrhs)) * sz))));
      Case<T> c(n, nrhs, nb);
      const double nn = double(n), nr = double(nrhs), B = double(nb);
#ifdef KSPD_ENABLE_CUDA_TPLS
      const char* potrf_peer = "cusolverBatched";
      const char* trsm_peer = "cublasBatched";
#else
      const char* potrf_peer = "lapack-loop";
      const char* trsm_peer = "lapack-loop";
#endif
      for (const auto& op : ops) {
        if (op == "potrf") {
          const double fl = 4 * nn * nn * nn / 3 * B, by = 2 * nn * nn * sz * B;
          const double t =
              median_time([&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, c.A, c.infos, g_opts); });
          const double tptr = median_time(
              [&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, nb, n, c.ptrA(), n, c.infos, g_opts); });
          const double tcm =
              median_time([&] { c.reset_a(); }, [&] { kb::potrf(exec, kspd::Uplo::Lower, c.cmA(), c.infos, g_opts); });
#ifdef KSPD_ENABLE_CUDA_TPLS
          const double tp = median_time([&] { c.reset_a(); }, [&] { cpotrf_batched(int(n), c.ptrA(), c.infos.data(), int(nb)); });
#else
          const double tp = median_time([&] { c.reset_a(); }, [&] {
            for (long b = 0; b < nb; ++b) clapack_potrf(int(n), c.pa.data() + b * n * n);
          });
#endif
          print_line(prec, "potrf", n, 0, nb, "kspd", t, fl, by, potrf_peer, tp);
          print_line(prec, "potrf", n, 0, nb, "kspd-ptr", tptr, fl, by, potrf_peer, tp);
          print_line(prec, "potrf", n, 0, nb, "kspd-cm", tcm, fl, by, potrf_peer, tp);
        } else if (op == "potrs") {  // nrhs = 1, cuSOLVER's only choice
          c.factor();
          Kokkos::View<T***, Kokkos::LayoutLeft, Mem> x("x", nb, n, 1), x0("x0", nb, n, 1);
          Kokkos::deep_copy(x0, T(R(1), R(-1)));
          Kokkos::View<T*, Mem> px("px", nb * n), px0("px0", nb * n);
          Kokkos::deep_copy(px0, T(R(1), R(-1)));
          Kokkos::View<std::uintptr_t*, Mem> pX("pX", nb);
          T* base = px.data();
          Kokkos::parallel_for(
              "perf::px", Kokkos::RangePolicy<Exec>(0, nb),
              KOKKOS_LAMBDA(const long b) { pX(b) = reinterpret_cast<std::uintptr_t>(base + b * n); });
          T** ppx = reinterpret_cast<T**>(pX.data());
          const double fl = 8 * nn * nn * B, by = (nn * nn + 2 * nn) * sz * B;
          const double t = median_time([&] { Kokkos::deep_copy(exec, x, x0); },
                                       [&] { kb::potrs(exec, kspd::Uplo::Lower, c.A, x, c.infos, g_opts); });
          const double tptr = median_time([&] { Kokkos::deep_copy(exec, px, px0); }, [&] {
            kb::potrs(exec, kspd::Uplo::Lower, nb, n, 1, const_cast<const T* const*>(c.ptrA()), n, ppx, n, c.infos, g_opts);
          });
          Kokkos::View<T***, Kokkos::LayoutStride, Mem> xcm(px.data(),
                                                           Kokkos::LayoutStride(size_t(nb), size_t(n), size_t(n), 1, 1, size_t(n)));
          const double tcm = median_time([&] { Kokkos::deep_copy(exec, px, px0); },
                                         [&] { kb::potrs(exec, kspd::Uplo::Lower, c.cmA(), xcm, c.infos, g_opts); });
#ifdef KSPD_ENABLE_CUDA_TPLS
          Kokkos::View<int, Mem> info1("info1");
          const double tp = median_time([&] { Kokkos::deep_copy(exec, px, px0); },
                                        [&] { cpotrs_batched(int(n), c.ptrA(), ppx, info1.data(), int(nb)); });
#else
          const double tp = median_time([&] { Kokkos::deep_copy(exec, px, px0); }, [&] {
            for (long b = 0; b < nb; ++b) clapack_potrs(int(n), c.pa.data() + b * n * n, px.data() + b * n);
          });
#endif
          print_line(prec, "potrs", n, 1, nb, "kspd", t, fl, by, potrf_peer, tp);
          print_line(prec, "potrs", n, 1, nb, "kspd-ptr", tptr, fl, by, potrf_peer, tp);
          print_line(prec, "potrs", n, 1, nb, "kspd-cm", tcm, fl, by, potrf_peer, tp);
        } else if (op == "trsm") {  // Left Lower NoTrans NonUnit, nrhs columns
          c.factor();
          const double fl = 4 * nn * nn * nr * B, by = (nn * nn + 2 * nn * nr) * sz * B;
          const T one(R(1), R(0));
          const double t = median_time([&] { c.reset_b(); }, [&] {
            kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, one, c.A,
                     c.B, g_opts);
          });
          const double tptr = median_time([&] { c.reset_b(); }, [&] {
            kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, one, nb,
                     n, nrhs, const_cast<const T* const*>(c.ptrA()), n, c.ptrB(), n, g_opts);
          });
          const double tcm = median_time([&] { c.reset_b(); }, [&] {
            kb::trsm(exec, kspd::Side::Left, kspd::Uplo::Lower, kspd::Trans::NoTranspose, kspd::Diag::NonUnit, one,
                     c.cmA(), c.cmB(), g_opts);
          });
#ifdef KSPD_ENABLE_CUDA_TPLS
          const double tp =
              median_time([&] { c.reset_b(); }, [&] { ctrsm_batched(int(n), int(nrhs), c.ptrA(), c.ptrB(), int(nb)); });
#else
          const double tp = median_time([&] { c.reset_b(); }, [&] {
            for (long b = 0; b < nb; ++b) clapack_trsm(int(n), int(nrhs), c.pa.data() + b * n * n, c.pb.data() + b * n * nrhs);
          });
#endif
          print_line(prec, "trsm", n, nrhs, nb, "kspd", t, fl, by, trsm_peer, tp);
          print_line(prec, "trsm", n, nrhs, nb, "kspd-ptr", tptr, fl, by, trsm_peer, tp);
          print_line(prec, "trsm", n, nrhs, nb, "kspd-cm", tcm, fl, by, trsm_peer, tp);
        }
        // gemm, syrk, trmm, trtri, potri: real-only in kspd::batched (no complex rows).
      }
    }
}

#endif
