#ifndef KSPD_TEST_COMPLEX_HPP
#define KSPD_TEST_COMPLEX_HPP
/// \file kspd_test_complex.hpp
/// Complex test helpers: host matrices in std::complex<double> (the references' format),
/// device matrices of Kokkos::complex<R> in any layout with NaN padding, random Hermitian
/// positive definite inputs with fixed seeds, naive host products.

#include <complex>

#include "kspd_test_utils.hpp"

namespace kspd::test {

using cd = std::complex<double>;

struct CHostMat {
  kspd::size_type m = 0, n = 0;
  std::vector<cd> a;
  CHostMat() = default;
  CHostMat(kspd::size_type mm, kspd::size_type nn, cd v = 0.0) : m(mm), n(nn), a(size_t(mm * nn), v) {}
  cd& operator()(kspd::size_type i, kspd::size_type j) { return a[size_t(i + j * m)]; }
  cd operator()(kspd::size_type i, kspd::size_type j) const { return a[size_t(i + j * m)]; }
};

inline CHostMat crandom(kspd::size_type m, kspd::size_type n, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(-1, 1);
  CHostMat h(m, n);
  for (auto& v : h.a) {
    const double re = dist(gen);
    v = cd(re, dist(gen));
  }
  return h;
}
/// Hermitian positive definite: B B^H / n + I with a real diagonal.
inline CHostMat crandom_hpd(kspd::size_type n, unsigned seed) {
  CHostMat B = crandom(n, n, seed), A(n, n);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i) {
      cd s = 0;
      for (kspd::size_type k = 0; k < n; ++k) s += B(i, k) * std::conj(B(j, k));
      A(i, j) = s / double(n > 0 ? n : 1) + (i == j ? 1.0 : 0.0);
    }
  for (kspd::size_type i = 0; i < n; ++i) A(i, i) = A(i, i).real();
  return A;
}
/// A well-conditioned triangle (|diag| in [1,2]), zeros in the other one.
inline CHostMat crandom_tri(kspd::size_type n, kspd::Uplo uplo, unsigned seed) {
  CHostMat A = crandom(n, n, seed);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i) {
      const bool in = uplo == kspd::Uplo::Lower ? i >= j : i <= j;
      if (!in) A(i, j) = 0;
      else if (i == j) A(i, j) = (1.5 + 0.5 * A(i, j).real()) * std::polar(1.0, A(i, j).imag());
      else A(i, j) /= double(n);
    }
  return A;
}
/// op(A): 'N', 'T' or 'C'
inline CHostMat cop(const CHostMat& A, kspd::Trans t) {
  if (t == kspd::Trans::NoTranspose) return A;
  CHostMat B(A.n, A.m);
  for (kspd::size_type j = 0; j < A.n; ++j)
    for (kspd::size_type i = 0; i < A.m; ++i) B(j, i) = t == kspd::Trans::ConjTranspose ? std::conj(A(i, j)) : A(i, j);
  return B;
}
inline CHostMat cmatmul(const CHostMat& A, const CHostMat& B) {
  CHostMat C(A.m, B.n);
  for (kspd::size_type j = 0; j < B.n; ++j)
    for (kspd::size_type k = 0; k < A.n; ++k) {
      const cd b = B(k, j);
      for (kspd::size_type i = 0; i < A.m; ++i) C(i, j) += A(i, k) * b;
    }
  return C;
}
inline double cnorm(const CHostMat& A) {
  double s = 0;
  for (auto v : A.a) s += std::norm(v);
  return std::sqrt(s);
}
inline double cdiff(const CHostMat& A, const CHostMat& B) {
  double s = 0;
  for (size_t i = 0; i < A.a.size(); ++i) s += std::norm(A.a[i] - B.a[i]);
  return std::sqrt(s);
}

/// A device matrix of Kokkos::complex<R> as a LayoutStride View over its own NaN-padded buffer.
template <class T>
struct CDevMat {
  using R = typename T::value_type;
  using View = Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<T*, Mem> buf;
  kspd::size_type m = 0, n = 0, s0 = 1, s1 = 1, offset = 0;
  View view;

  CDevMat(const CHostMat& h, Layout layout) : m(h.m), n(h.n) {
    kspd::size_type total = 0;
    if (layout == Layout::Left) { s0 = 1; s1 = m > 0 ? m : 1; total = m * n; }
    if (layout == Layout::Right) { s0 = n > 0 ? n : 1; s1 = 1; total = m * n; }
    if (layout == Layout::Padded) { s0 = 1; s1 = m + 3; offset = 2; total = offset + s1 * n + 1; }
    buf = Kokkos::View<T*, Mem>("kspd::test::cbuf", size_t(total > 0 ? total : 1));
    auto hb = Kokkos::create_mirror_view(buf);
    for (size_t i = 0; i < hb.extent(0); ++i) hb(i) = T(poison<R>(), poison<R>());
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) {
        const cd v = h(i, j);
        hb(size_t(offset + i * s0 + j * s1)) = T(R(v.real()), R(v.imag()));
      }
    Kokkos::deep_copy(buf, hb);
    view = View(buf.data() + offset, Kokkos::LayoutStride(size_t(m), size_t(s0), size_t(n), size_t(s1)));
  }
  CHostMat to_host() const {
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    CHostMat h(m, n);
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) {
        const T v = hb(size_t(offset + i * s0 + j * s1));
        h(i, j) = cd(double(v.real()), double(v.imag()));
      }
    return h;
  }
  bool padding_intact() const {
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    std::vector<char> inside(hb.extent(0), 0);
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) inside[size_t(offset + i * s0 + j * s1)] = 1;
    for (size_t i = 0; i < hb.extent(0); ++i)
      if (!inside[i] && !std::isnan(double(hb(i).real()))) return false;
    return true;
  }
};

}  // namespace kspd::test
#endif
