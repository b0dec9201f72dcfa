#ifndef KSPD_TEST_UTILS_HPP
#define KSPD_TEST_UTILS_HPP
/// \file kspd_test_utils.hpp
/// Shared test helpers: device matrices in any layout built from host data, host reference
/// kernels (naive loops in double), random inputs with fixed seeds, tolerances, poison.

#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kspd_tags.hpp"
#include "kspd_types.hpp"

#ifndef KSPD_TEST_EXECSPACE
#define KSPD_TEST_EXECSPACE Kokkos::DefaultExecutionSpace
#endif

namespace kspd::test {

using Exec = KSPD_TEST_EXECSPACE;
using Mem = typename Exec::memory_space;

template <class T>
T eps() {
  return std::numeric_limits<T>::epsilon();
}
/// Backward-error bound c * n * eps.
template <class T>
double tolerance(kspd::size_type n, double c = 20.0) {
  return c * double(n > 1 ? n : 1) * double(eps<T>());
}
template <class T>
T poison() {
  return std::numeric_limits<T>::quiet_NaN();
}

/// A column-major host matrix in double, the reference's working format.
struct HostMat {
  kspd::size_type m = 0, n = 0;
  std::vector<double> a;
  HostMat() = default;
  HostMat(kspd::size_type mm, kspd::size_type nn, double v = 0.0) : m(mm), n(nn), a(size_t(mm * nn), v) {}
  double& operator()(kspd::size_type i, kspd::size_type j) { return a[size_t(i + j * m)]; }
  double operator()(kspd::size_type i, kspd::size_type j) const { return a[size_t(i + j * m)]; }
};

inline HostMat random_matrix(kspd::size_type m, kspd::size_type n, unsigned seed, double lo = -1, double hi = 1) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> dist(lo, hi);
  HostMat h(m, n);
  for (auto& v : h.a) v = dist(gen);
  return h;
}
/// A well-conditioned triangle: |diag| in [1,2], off-diagonal scaled by 1/n; the other
/// triangle (and the diagonal when unit) holds NaN so that any read of it shows.
inline HostMat random_triangular(kspd::size_type n, kspd::Uplo uplo, kspd::Diag diag, unsigned seed) {
  HostMat h = random_matrix(n, n, seed);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i) {
      const bool in = uplo == kspd::Uplo::Lower ? i > j : i < j;
      if (i == j) h(i, j) = diag == kspd::Diag::Unit ? std::nan("") : 1.0 + std::fabs(h(i, j));
      else if (in) h(i, j) /= double(n);
      else h(i, j) = std::nan("");
    }
  return h;
}
/// An SPD matrix X X^T / n + I (full, both triangles).
inline HostMat random_spd(kspd::size_type n, unsigned seed) {
  HostMat x = random_matrix(n, n, seed);
  HostMat a(n, n);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i) {
      double s = 0;
      for (kspd::size_type k = 0; k < n; ++k) s += x(i, k) * x(j, k);
      a(i, j) = s / double(n) + (i == j ? 1.0 : 0.0);
    }
  return a;
}
/// Value of the triangular/unit-diagonal matrix actually meant by (uplo, diag) at (i,j).
inline double tri_at(const HostMat& A, kspd::Uplo uplo, kspd::Diag diag, kspd::size_type i, kspd::size_type j) {
  if (i == j) return diag == kspd::Diag::Unit ? 1.0 : A(i, j);
  const bool in = uplo == kspd::Uplo::Lower ? i > j : i < j;
  return in ? A(i, j) : 0.0;
}
inline HostMat matmul(const HostMat& A, bool ta, const HostMat& B, bool tb) {
  const auto m = ta ? A.n : A.m, k = ta ? A.m : A.n, n = tb ? B.m : B.n;
  HostMat C(m, n);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < m; ++i) {
      long double s = 0;
      for (kspd::size_type l = 0; l < k; ++l) s += (long double)(ta ? A(l, i) : A(i, l)) * (tb ? B(j, l) : B(l, j));
      C(i, j) = double(s);
    }
  return C;
}
inline double norm_fro(const HostMat& A) {
  long double s = 0;
  for (double v : A.a) s += (long double)v * v;
  return double(std::sqrt(s));
}
inline double diff_fro(const HostMat& A, const HostMat& B) {
  long double s = 0;
  for (size_t i = 0; i < A.a.size(); ++i) s += (long double)(A.a[i] - B.a[i]) * (A.a[i] - B.a[i]);
  return double(std::sqrt(s));
}

/// How a test matrix is laid out in device memory.
enum class Layout { Left, Right, Padded };
inline const char* name(Layout l) { return l == Layout::Left ? "Left" : l == Layout::Right ? "Right" : "Padded"; }
inline std::vector<Layout> all_layouts() { return {Layout::Left, Layout::Right, Layout::Padded}; }

/// A device matrix seen as a LayoutStride View over its own buffer.
template <class T>
struct DevMat {
  using View = Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  Kokkos::View<T*, Mem> buf;
  kspd::size_type m = 0, n = 0, s0 = 1, s1 = 1, offset = 0;
  View view;

  DevMat(const HostMat& h, Layout layout) : m(h.m), n(h.n) {
    kspd::size_type total = 0;
    if (layout == Layout::Left) { s0 = 1; s1 = m > 0 ? m : 1; total = m * n; }
    if (layout == Layout::Right) { s0 = n > 0 ? n : 1; s1 = 1; total = m * n; }
    if (layout == Layout::Padded) { s0 = 1; s1 = m + 3; offset = 2; total = offset + s1 * n + 1; }
    buf = Kokkos::View<T*, Mem>("kspd::test::buf", size_t(total > 0 ? total : 1));
    auto hb = Kokkos::create_mirror_view(buf);
    for (size_t i = 0; i < hb.extent(0); ++i) hb(i) = poison<T>();  // padding stays NaN
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) hb(size_t(offset + i * s0 + j * s1)) = T(h(i, j));
    Kokkos::deep_copy(buf, hb);
    view = View(buf.data() + offset, Kokkos::LayoutStride(size_t(m), size_t(s0), size_t(n), size_t(s1)));
  }
  HostMat to_host() const {
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    HostMat h(m, n);
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) h(i, j) = double(hb(size_t(offset + i * s0 + j * s1)));
    return h;
  }
  /// True when the padding around the matrix is still NaN (nothing wrote outside it).
  bool padding_intact() const {
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    std::vector<char> inside(hb.extent(0), 0);
    for (kspd::size_type j = 0; j < n; ++j)
      for (kspd::size_type i = 0; i < m; ++i) inside[size_t(offset + i * s0 + j * s1)] = 1;
    for (size_t i = 0; i < hb.extent(0); ++i)
      if (!inside[i] && !std::isnan(double(hb(i)))) return false;
    return true;
  }
};

inline std::vector<kspd::Side> all_sides() { return {kspd::Side::Left, kspd::Side::Right}; }
inline std::vector<kspd::Uplo> all_uplos() { return {kspd::Uplo::Lower, kspd::Uplo::Upper}; }
inline std::vector<kspd::Trans> all_trans() { return {kspd::Trans::NoTranspose, kspd::Trans::Transpose, kspd::Trans::ConjTranspose}; }
inline std::vector<kspd::Diag> all_diags() { return {kspd::Diag::NonUnit, kspd::Diag::Unit}; }

}  // namespace kspd::test
#endif
