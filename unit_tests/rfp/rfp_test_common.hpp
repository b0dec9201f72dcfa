#ifndef KSPD_RFP_TEST_COMMON_HPP
#define KSPD_RFP_TEST_COMMON_HPP
/// Shared helpers of the rfp tests: LAPACK's RFP routines (extern "C", with the hidden
/// Fortran string lengths), the 8 variants, RFP matrices moved between host and device.
#include <gtest/gtest.h>

#include <cstddef>
#include <string>
#include <vector>

#include "kspd_rfp.hpp"
#include "kspd_test_utils.hpp"

extern "C" {
void dtrttf_(const char*, const char*, const int*, const double*, const int*, double*, int*, size_t, size_t);
void strttf_(const char*, const char*, const int*, const float*, const int*, float*, int*, size_t, size_t);
void dtfttr_(const char*, const char*, const int*, const double*, double*, const int*, int*, size_t, size_t);
void stfttr_(const char*, const char*, const int*, const float*, float*, const int*, int*, size_t, size_t);
void dtpttf_(const char*, const char*, const int*, const double*, double*, int*, size_t, size_t);
void stpttf_(const char*, const char*, const int*, const float*, float*, int*, size_t, size_t);
void dtfttp_(const char*, const char*, const int*, const double*, double*, int*, size_t, size_t);
void stfttp_(const char*, const char*, const int*, const float*, float*, int*, size_t, size_t);
void dpftrf_(const char*, const char*, const int*, double*, int*, size_t, size_t);
void spftrf_(const char*, const char*, const int*, float*, int*, size_t, size_t);
void dpftrs_(const char*, const char*, const int*, const int*, const double*, double*, const int*, int*, size_t,
             size_t);
void spftrs_(const char*, const char*, const int*, const int*, const float*, float*, const int*, int*, size_t, size_t);
void dpftri_(const char*, const char*, const int*, double*, int*, size_t, size_t);
void spftri_(const char*, const char*, const int*, float*, int*, size_t, size_t);
void dtftri_(const char*, const char*, const char*, const int*, double*, int*, size_t, size_t, size_t);
void stftri_(const char*, const char*, const char*, const int*, float*, int*, size_t, size_t, size_t);
void dsfrk_(const char*, const char*, const char*, const int*, const int*, const double*, const double*, const int*,
            const double*, double*, size_t, size_t, size_t);
void ssfrk_(const char*, const char*, const char*, const int*, const int*, const float*, const float*, const int*,
            const float*, float*, size_t, size_t, size_t);
double dlansf_(const char*, const char*, const char*, const int*, const double*, double*, size_t, size_t, size_t);
float slansf_(const char*, const char*, const char*, const int*, const float*, float*, size_t, size_t, size_t);
void dtfsm_(const char*, const char*, const char*, const char*, const char*, const int*, const int*, const double*,
            const double*, double*, const int*, size_t, size_t, size_t, size_t, size_t);
void stfsm_(const char*, const char*, const char*, const char*, const char*, const int*, const int*, const float*,
            const float*, float*, const int*, size_t, size_t, size_t, size_t, size_t);
void dpocon_(const char*, const int*, const double*, const int*, const double*, double*, double*, int*, int*, size_t);
void spocon_(const char*, const int*, const float*, const int*, const float*, float*, float*, int*, int*, size_t);
}

namespace kspd::test::rfp {

inline void lapack_trttf(char tr, char ul, int n, const double* a, int lda, double* arf, int* info) {
  dtrttf_(&tr, &ul, &n, a, &lda, arf, info, 1, 1);
}
inline void lapack_trttf(char tr, char ul, int n, const float* a, int lda, float* arf, int* info) {
  strttf_(&tr, &ul, &n, a, &lda, arf, info, 1, 1);
}
inline void lapack_tfttr(char tr, char ul, int n, const double* arf, double* a, int lda, int* info) {
  dtfttr_(&tr, &ul, &n, arf, a, &lda, info, 1, 1);
}
inline void lapack_tfttr(char tr, char ul, int n, const float* arf, float* a, int lda, int* info) {
  stfttr_(&tr, &ul, &n, arf, a, &lda, info, 1, 1);
}
inline void lapack_tpttf(char tr, char ul, int n, const double* ap, double* arf, int* info) {
  dtpttf_(&tr, &ul, &n, ap, arf, info, 1, 1);
}
inline void lapack_tpttf(char tr, char ul, int n, const float* ap, float* arf, int* info) {
  stpttf_(&tr, &ul, &n, ap, arf, info, 1, 1);
}
inline void lapack_tfttp(char tr, char ul, int n, const double* arf, double* ap, int* info) {
  dtfttp_(&tr, &ul, &n, arf, ap, info, 1, 1);
}
inline void lapack_tfttp(char tr, char ul, int n, const float* arf, float* ap, int* info) {
  stfttp_(&tr, &ul, &n, arf, ap, info, 1, 1);
}
inline void lapack_pftrf(char tr, char ul, int n, double* a, int* info) { dpftrf_(&tr, &ul, &n, a, info, 1, 1); }
inline void lapack_pftrf(char tr, char ul, int n, float* a, int* info) { spftrf_(&tr, &ul, &n, a, info, 1, 1); }
inline void lapack_pftrs(char tr, char ul, int n, int nrhs, const double* a, double* b, int ldb, int* info) {
  dpftrs_(&tr, &ul, &n, &nrhs, a, b, &ldb, info, 1, 1);
}
inline void lapack_pftrs(char tr, char ul, int n, int nrhs, const float* a, float* b, int ldb, int* info) {
  spftrs_(&tr, &ul, &n, &nrhs, a, b, &ldb, info, 1, 1);
}
inline void lapack_pftri(char tr, char ul, int n, double* a, int* info) { dpftri_(&tr, &ul, &n, a, info, 1, 1); }
inline void lapack_pftri(char tr, char ul, int n, float* a, int* info) { spftri_(&tr, &ul, &n, a, info, 1, 1); }
inline void lapack_tftri(char tr, char ul, char dg, int n, double* a, int* info) {
  dtftri_(&tr, &ul, &dg, &n, a, info, 1, 1, 1);
}
inline void lapack_tftri(char tr, char ul, char dg, int n, float* a, int* info) {
  stftri_(&tr, &ul, &dg, &n, a, info, 1, 1, 1);
}
inline void lapack_sfrk(char tr, char ul, char t, int n, int k, double alpha, const double* a, int lda, double beta,
                        double* c) {
  dsfrk_(&tr, &ul, &t, &n, &k, &alpha, a, &lda, &beta, c, 1, 1, 1);
}
inline void lapack_sfrk(char tr, char ul, char t, int n, int k, float alpha, const float* a, int lda, float beta,
                        float* c) {
  ssfrk_(&tr, &ul, &t, &n, &k, &alpha, a, &lda, &beta, c, 1, 1, 1);
}
inline double lapack_lansf(char norm, char tr, char ul, int n, const double* a) {
  std::vector<double> w(size_t(n > 0 ? n : 1));
  return dlansf_(&norm, &tr, &ul, &n, a, w.data(), 1, 1, 1);
}
inline double lapack_lansf(char norm, char tr, char ul, int n, const float* a) {
  std::vector<float> w(size_t(n > 0 ? n : 1));
  return slansf_(&norm, &tr, &ul, &n, a, w.data(), 1, 1, 1);
}
inline void lapack_tfsm(char tr, char side, char ul, char t, char dg, int m, int n, double alpha, const double* a,
                        double* b, int ldb) {
  dtfsm_(&tr, &side, &ul, &t, &dg, &m, &n, &alpha, a, b, &ldb, 1, 1, 1, 1, 1);
}
inline void lapack_tfsm(char tr, char side, char ul, char t, char dg, int m, int n, float alpha, const float* a,
                        float* b, int ldb) {
  stfsm_(&tr, &side, &ul, &t, &dg, &m, &n, &alpha, a, b, &ldb, 1, 1, 1, 1, 1);
}

struct Variant {
  kspd::Trans transr;
  kspd::Uplo uplo;
};
inline std::vector<Variant> all_variants() {
  return {{kspd::Trans::NoTranspose, kspd::Uplo::Lower},
          {kspd::Trans::NoTranspose, kspd::Uplo::Upper},
          {kspd::Trans::Transpose, kspd::Uplo::Lower},
          {kspd::Trans::Transpose, kspd::Uplo::Upper}};
}
inline std::string name(const Variant& v, int n) {
  return std::string("transr=") + kspd::to_char(v.transr) + " uplo=" + kspd::to_char(v.uplo) + " n=" + std::to_string(n);
}
/// The sizes: odd and even (the 8 variants), around powers of two.
inline const std::vector<int>& sizes() {
  static const std::vector<int> s = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 31, 32, 33, 64, 65, 127, 128, 129, 257};
  return s;
}

template <class T>
std::vector<T> to_vec(const HostMat& A) {
  std::vector<T> v(A.a.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = T(A.a[i]);
  return v;
}

/// RFP buffer made by LAPACK's ?trttf from the column-major full matrix A.
template <class T>
std::vector<T> lapack_rfp(const HostMat& A, const Variant& v) {
  const int n = int(A.n);
  std::vector<T> a = to_vec<T>(A), arf(size_t(kspd::rfp::packed_size(n)) + 1);
  int info = 0;
  lapack_trttf(kspd::to_char(v.transr), kspd::to_char(v.uplo), n, a.data(), n > 0 ? n : 1, arf.data(), &info);
  arf.resize(size_t(kspd::rfp::packed_size(n)));
  return arf;
}

/// A device RFP matrix with the given contents.
template <class T>
kspd::rfp::Matrix<T, Mem> device_rfp(const std::vector<T>& arf, int n, const Variant& v) {
  typename kspd::rfp::Matrix<T, Mem>::view_type d("kspd::test::rfp", arf.size());
  auto h = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < arf.size(); ++i) h(i) = arf[i];
  Kokkos::deep_copy(d, h);
  return kspd::rfp::Matrix<T, Mem>(n, v.transr, v.uplo, d);
}
template <class T>
std::vector<T> host_rfp(const kspd::rfp::Matrix<T, Mem>& A) {
  auto h = Kokkos::create_mirror_view(A.data());
  Kokkos::deep_copy(h, A.data());
  std::vector<T> v(h.extent(0));
  for (size_t i = 0; i < v.size(); ++i) v[i] = h(i);
  return v;
}
/// The full symmetric matrix an RFP buffer stands for (both triangles filled).
template <class T>
HostMat full_from_rfp(const std::vector<T>& arf, int n, const Variant& v) {
  const auto L = kspd::rfp::make_layout(n, v.transr, v.uplo);
  HostMat A(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) A(i, j) = double(arf[size_t(L.index(i, j))]);
  return A;
}
/// Largest |a-b| / (|b| scale).
template <class T>
double max_rel_diff(const std::vector<T>& a, const std::vector<T>& b, double scale) {
  double m = 0;
  for (size_t i = 0; i < a.size(); ++i) {
    const double d = std::fabs(double(a[i]) - double(b[i])) / scale;
    if (!(d <= m)) m = d;  // NaN propagates
  }
  return m;
}
inline double max_abs(const HostMat& A) {
  double m = 0;
  for (double x : A.a) m = std::max(m, std::fabs(x));
  return m;
}
/// A device column-major (LayoutLeft) matrix from host data, and back.
template <class T>
Kokkos::View<T**, Kokkos::LayoutLeft, Mem> device_dense(const HostMat& A) {
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> d("kspd::test::dense", size_t(A.m), size_t(A.n));
  auto h = Kokkos::create_mirror_view(d);
  for (int j = 0; j < A.n; ++j)
    for (int i = 0; i < A.m; ++i) h(i, j) = T(A(i, j));
  Kokkos::deep_copy(d, h);
  return d;
}
template <class V>
HostMat host_dense(const V& d) {
  auto h = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(h, d);
  HostMat A(kspd::size_type(d.extent(0)), kspd::size_type(d.extent(1)));
  for (int j = 0; j < A.n; ++j)
    for (int i = 0; i < A.m; ++i) A(i, j) = double(h(i, j));
  return A;
}

}  // namespace kspd::test::rfp
#endif
