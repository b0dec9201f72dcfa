#ifndef KSPD_RFP_TEST_COMPLEX_HPP
#define KSPD_RFP_TEST_COMPLEX_HPP
/// Complex RFP test helpers: LAPACK's c/z RFP routines (extern "C", hidden Fortran string
/// lengths; REAL functions return float with gfortran), the 8 complex variants (transr N/C),
/// buffers moved between std::complex host vectors and Kokkos::complex device Views.
#include <complex>

#include "rfp_test_common.hpp"
#include "kspd_test_complex.hpp"

using zc = std::complex<double>;
using cc = std::complex<float>;
extern "C" {
#define KSPD_TEST_RFP_PROTOS(P, C, R)                                                                                 \
  void P##trttf_(const char*, const char*, const int*, const C*, const int*, C*, int*, size_t, size_t);              \
  void P##tfttr_(const char*, const char*, const int*, const C*, C*, const int*, int*, size_t, size_t);              \
  void P##tpttf_(const char*, const char*, const int*, const C*, C*, int*, size_t, size_t);                          \
  void P##tfttp_(const char*, const char*, const int*, const C*, C*, int*, size_t, size_t);                          \
  void P##pftrf_(const char*, const char*, const int*, C*, int*, size_t, size_t);                                    \
  void P##pftrs_(const char*, const char*, const int*, const int*, const C*, C*, const int*, int*, size_t, size_t);   \
  void P##pftri_(const char*, const char*, const int*, C*, int*, size_t, size_t);                                    \
  void P##hfrk_(const char*, const char*, const char*, const int*, const int*, const R*, const C*, const int*,        \
                const R*, C*, size_t, size_t, size_t);                                                               \
  void P##tfsm_(const char*, const char*, const char*, const char*, const char*, const int*, const int*, const C*,    \
                const C*, C*, const int*, size_t, size_t, size_t, size_t, size_t);                                   \
  R P##lanhf_(const char*, const char*, const char*, const int*, const C*, R*, size_t, size_t, size_t);
KSPD_TEST_RFP_PROTOS(z, zc, double)
KSPD_TEST_RFP_PROTOS(c, cc, float)
#undef KSPD_TEST_RFP_PROTOS
}

namespace kspd::test::rfp {

#define KSPD_TEST_RFP_WRAP(P, C, R)                                                                               \
  inline void lapack_trttf(char tr, char ul, int n, const C* a, int lda, C* arf, int* info) {                    \
    P##trttf_(&tr, &ul, &n, a, &lda, arf, info, 1, 1);                                                           \
  }                                                                                                              \
  inline void lapack_tfttr(char tr, char ul, int n, const C* arf, C* a, int lda, int* info) {                    \
    P##tfttr_(&tr, &ul, &n, arf, a, &lda, info, 1, 1);                                                           \
  }                                                                                                              \
  inline void lapack_tpttf(char tr, char ul, int n, const C* ap, C* arf, int* info) {                            \
    P##tpttf_(&tr, &ul, &n, ap, arf, info, 1, 1);                                                                \
  }                                                                                                              \
  inline void lapack_tfttp(char tr, char ul, int n, const C* arf, C* ap, int* info) {                            \
    P##tfttp_(&tr, &ul, &n, arf, ap, info, 1, 1);                                                                \
  }                                                                                                              \
  inline void lapack_pftrf(char tr, char ul, int n, C* a, int* info) { P##pftrf_(&tr, &ul, &n, a, info, 1, 1); } \
  inline void lapack_pftrs(char tr, char ul, int n, int nrhs, const C* a, C* b, int ldb, int* info) {            \
    P##pftrs_(&tr, &ul, &n, &nrhs, a, b, &ldb, info, 1, 1);                                                      \
  }                                                                                                              \
  inline void lapack_pftri(char tr, char ul, int n, C* a, int* info) { P##pftri_(&tr, &ul, &n, a, info, 1, 1); } \
  inline void lapack_hfrk(char tr, char ul, char t, int n, int k, R alpha, const C* a, int lda, R beta, C* c) {   \
    P##hfrk_(&tr, &ul, &t, &n, &k, &alpha, a, &lda, &beta, c, 1, 1, 1);                                          \
  }                                                                                                              \
  inline void lapack_tfsm(char tr, char side, char ul, char t, char dg, int m, int n, C alpha, const C* a, C* b,  \
                          int ldb) {                                                                             \
    P##tfsm_(&tr, &side, &ul, &t, &dg, &m, &n, &alpha, a, b, &ldb, 1, 1, 1, 1, 1);                               \
  }                                                                                                              \
  inline double lapack_lanhf(char norm, char tr, char ul, int n, const C* a) {                                   \
    std::vector<R> w(size_t(n > 0 ? n : 1));                                                                     \
    return double(P##lanhf_(&norm, &tr, &ul, &n, a, w.data(), 1, 1, 1));                                         \
  }
KSPD_TEST_RFP_WRAP(z, zc, double)
KSPD_TEST_RFP_WRAP(c, cc, float)
#undef KSPD_TEST_RFP_WRAP

/// The 8 complex variants: transr N or C (LAPACK's 'C' for complex RFP), uplo L or U.
inline std::vector<Variant> all_complex_variants() {
  return {{kspd::Trans::NoTranspose, kspd::Uplo::Lower},
          {kspd::Trans::NoTranspose, kspd::Uplo::Upper},
          {kspd::Trans::ConjTranspose, kspd::Uplo::Lower},
          {kspd::Trans::ConjTranspose, kspd::Uplo::Upper}};
}

/// std::complex<R> on the host, Kokkos::complex<R> on the device.
template <class T>
using HostC = std::complex<typename T::value_type>;

template <class T>
std::vector<HostC<T>> to_cvec(const CHostMat& A) {
  std::vector<HostC<T>> v(A.a.size());
  for (size_t i = 0; i < v.size(); ++i) v[i] = HostC<T>(A.a[i]);
  return v;
}
template <class T>
std::vector<HostC<T>> lapack_crfp(const CHostMat& A, const Variant& v) {
  const int n = int(A.n);
  auto a = to_cvec<T>(A);
  std::vector<HostC<T>> arf(size_t(kspd::rfp::packed_size(n)) + 1);
  int info = 0;
  lapack_trttf(kspd::to_char(v.transr), kspd::to_char(v.uplo), n, a.data(), n > 0 ? n : 1, arf.data(), &info);
  arf.resize(size_t(kspd::rfp::packed_size(n)));
  return arf;
}
template <class T, class HV>
Kokkos::View<T*, Mem> device_cvec(const HV& h) {
  Kokkos::View<T*, Mem> d("kspd::test::crfp", h.size());
  auto m = Kokkos::create_mirror_view(d);
  for (size_t i = 0; i < h.size(); ++i) m(i) = T(h[i].real(), h[i].imag());
  Kokkos::deep_copy(d, m);
  return d;
}
template <class T>
std::vector<HostC<T>> host_cvec(const Kokkos::View<T*, Mem>& d) {
  auto m = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(m, d);
  std::vector<HostC<T>> v(m.extent(0));
  for (size_t i = 0; i < v.size(); ++i) v[i] = HostC<T>(m(i).real(), m(i).imag());
  return v;
}
template <class T>
kspd::rfp::Matrix<T, Mem> device_crfp(const std::vector<HostC<T>>& arf, int n, const Variant& v) {
  return kspd::rfp::Matrix<T, Mem>(n, v.transr, v.uplo, device_cvec<T>(arf));
}
/// Column-major n x m dense device matrix (LayoutLeft) from a host vector, and back.
template <class T>
Kokkos::View<T**, Kokkos::LayoutLeft, Mem> device_cdense(const std::vector<HostC<T>>& h, int m, int n) {
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> d("kspd::test::cdense", size_t(m), size_t(n));
  auto hm = Kokkos::create_mirror_view(d);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) hm(i, j) = T(h[size_t(i + j * m)].real(), h[size_t(i + j * m)].imag());
  Kokkos::deep_copy(d, hm);
  return d;
}
template <class T>
std::vector<HostC<T>> host_cdense(const Kokkos::View<T**, Kokkos::LayoutLeft, Mem>& d) {
  auto hm = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(hm, d);
  const int m = int(d.extent(0)), n = int(d.extent(1));
  std::vector<HostC<T>> h(size_t(m) * size_t(n));
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < m; ++i) h[size_t(i + j * m)] = HostC<T>(hm(i, j).real(), hm(i, j).imag());
  return h;
}
/// Largest |a-b| / scale (NaN propagates).
template <class C>
double cmax_rel_diff(const std::vector<C>& a, const std::vector<C>& b, double scale) {
  double m = a.size() == b.size() ? 0.0 : std::nan("");
  for (size_t i = 0; i < a.size() && i < b.size(); ++i) {
    const double d = double(std::abs(a[i] - b[i])) / scale;
    if (!(d <= m)) m = d;
  }
  return m;
}
/// Bitwise equality (NaN payloads included): the layout tests are byte-exact.
template <class C>
bool same_bytes(const std::vector<C>& a, const std::vector<C>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(C)) == 0);
}

}  // namespace kspd::test::rfp
#endif
