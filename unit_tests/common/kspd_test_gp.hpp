#ifndef KSPD_TEST_GP_HPP
#define KSPD_TEST_GP_HPP
/// \file kspd_test_gp.hpp
/// Host references of the Gaussian-process helpers (log det, diag(A^-1), trace(A^-1 B),
/// jitter): LAPACK's dpotrf/dpotri in double, and SPD / indefinite matrices with a chosen
/// spectrum (Q diag(lambda) Q^T, Q a product of two Householder reflectors).
#include <cmath>
#include <cstddef>
#include <vector>

#include "kspd_test_utils.hpp"

extern "C" {
void dpotrf_(const char*, const int*, double*, const int*, int*, size_t);
void dpotri_(const char*, const int*, double*, const int*, int*, size_t);
}

namespace kspd::test {

/// Q diag(lambda) Q^T with Q = H1 H2 (Householder reflectors of random vectors; fixed seed).
inline HostMat spectrum_matrix(const std::vector<double>& lambda, unsigned seed) {
  const kspd::size_type n = kspd::size_type(lambda.size());
  HostMat Q(n, n);
  for (kspd::size_type i = 0; i < n; ++i) Q(i, i) = 1.0;
  for (int r = 0; r < 2; ++r) {
    HostMat v = random_matrix(n, 1, seed + 7u * unsigned(r));
    double vv = 0;
    for (double x : v.a) vv += x * x;
    if (vv == 0) continue;
    // Q = Q (I - 2 v v^T / v^T v)
    for (kspd::size_type i = 0; i < n; ++i) {
      double qv = 0;
      for (kspd::size_type k = 0; k < n; ++k) qv += Q(i, k) * v(k, 0);
      for (kspd::size_type k = 0; k < n; ++k) Q(i, k) -= 2.0 * qv * v(k, 0) / vv;
    }
  }
  HostMat A(n, n);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i) {
      long double s = 0;
      for (kspd::size_type k = 0; k < n; ++k) s += (long double)Q(i, k) * lambda[size_t(k)] * Q(j, k);
      A(i, j) = double(s);
    }
  for (kspd::size_type j = 0; j < n; ++j)  // exactly symmetric
    for (kspd::size_type i = j + 1; i < n; ++i) A(j, i) = A(i, j);
  return A;
}
/// Eigenvalues in [1, 2] with the smallest replaced by `lmin` (at a seeded position).
inline std::vector<double> spectrum(kspd::size_type n, double lmin, unsigned seed) {
  HostMat r = random_matrix(n, 1, seed, 1.0, 2.0);
  std::vector<double> l(r.a.begin(), r.a.end());
  if (n > 0) l[size_t(seed % unsigned(n))] = lmin;
  return l;
}
/// Condition number `cond`: eigenvalues log-spaced in [1/cond, 1].
inline std::vector<double> log_spectrum(kspd::size_type n, double cond) {
  std::vector<double> l(static_cast<size_t>(n));
  for (kspd::size_type i = 0; i < n; ++i) l[size_t(i)] = std::pow(cond, -double(i) / double(n > 1 ? n - 1 : 1));
  return l;
}

/// LAPACK dpotrf on a copy (lower); info returned, L lower with zeros above.
inline int lapack_chol(const HostMat& A, HostMat& L) {
  const int n = int(A.n), lda = n > 0 ? n : 1;
  L = A;
  int info = 0;
  if (n > 0) dpotrf_("L", &n, L.a.data(), &lda, &info, 1);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) L(i, j) = 0;
  return info;
}
inline double lapack_logdet(const HostMat& A) {
  HostMat L;
  EXPECT_EQ(lapack_chol(A, L), 0);
  double s = 0;
  for (kspd::size_type i = 0; i < A.n; ++i) s += 2.0 * std::log(L(i, i));
  return s;
}
/// The full inverse through dpotrf + dpotri.
inline HostMat lapack_inverse(const HostMat& A) {
  const int n = int(A.n), lda = n > 0 ? n : 1;
  HostMat X = A;
  int info = 0;
  if (n > 0) {
    dpotrf_("L", &n, X.a.data(), &lda, &info, 1);
    EXPECT_EQ(info, 0);
    dpotri_("L", &n, X.a.data(), &lda, &info, 1);
    EXPECT_EQ(info, 0);
  }
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) X(i, j) = X(j, i);
  return X;
}
/// sum_ij S_ij B_ji in long double.
inline double trace_product(const HostMat& S, const HostMat& B) {
  long double t = 0;
  for (kspd::size_type j = 0; j < S.n; ++j)
    for (kspd::size_type i = 0; i < S.n; ++i) t += (long double)S(i, j) * B(j, i);
  return double(t);
}
inline HostMat plus_identity(HostMat A, double j) {
  for (kspd::size_type i = 0; i < A.n; ++i) A(i, i) += j;
  return A;
}
inline double mean_diag(const HostMat& A) {
  double s = 0;
  for (kspd::size_type i = 0; i < A.n; ++i) s += A(i, i);
  return A.n > 0 ? s / double(A.n) : 0.0;
}

}  // namespace kspd::test
#endif
