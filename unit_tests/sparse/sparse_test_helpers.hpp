#ifndef KSPD_SPARSE_TEST_HELPERS_HPP
#define KSPD_SPARSE_TEST_HELPERS_HPP
/// Helpers of the sparse Cholesky tests: random sparse SPD matrices, dense copies, the
/// LAPACK oracle (a factor checked against dpotrf), residuals, the shared collection's matrices and their conditioning.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_test_utils.hpp"

extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info);

namespace kspd::test::sparse {

using kspd::size_type;
using kspd::sparse::CscMatrix;

/// Random symmetric pattern with about `per_col` off-diagonals per column, values in
/// [-1, 1], diagonal = row sum of |off-diagonals| + shift: SPD for shift > 0.
template <class Scalar>
CscMatrix<Scalar> random_spd(size_type n, double per_col, unsigned seed, double shift = 1.0) {
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> val(-1, 1);
  std::uniform_int_distribution<size_type> pick(0, n > 0 ? n - 1 : 0);
  std::vector<std::vector<std::pair<size_type, double>>> cols(static_cast<size_t>(n));
  std::vector<double> diag(static_cast<size_t>(n), shift);
  const size_type ne = size_type(per_col * double(n));
  for (size_type e = 0; e < ne; ++e) {
    size_type i = pick(gen), j = pick(gen);
    if (i == j) continue;
    if (i < j) std::swap(i, j);
    bool dup = false;
    for (auto& p : cols[size_t(j)]) dup = dup || p.first == i;
    if (dup) continue;
    const double v = val(gen);
    cols[size_t(j)].push_back({i, v});
    diag[size_t(i)] += std::fabs(v);
    diag[size_t(j)] += std::fabs(v);
  }
  CscMatrix<Scalar> A;
  A.n = n;
  A.colptr.push_back(0);
  for (size_type j = 0; j < n; ++j) {
    cols[size_t(j)].push_back({j, diag[size_t(j)]});
    std::sort(cols[size_t(j)].begin(), cols[size_t(j)].end());
    for (auto& p : cols[size_t(j)]) {
      A.rowind.push_back(p.first);
      A.values.push_back(Scalar(p.second));
    }
    A.colptr.push_back(size_type(A.rowind.size()));
  }
  A.name = "random_spd";
  return A;
}

/// The full symmetric dense matrix (double).
template <class Scalar>
HostMat dense(const CscMatrix<Scalar>& A) {
  HostMat D(A.n, A.n);
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
      D(A.rowind[size_t(p)], j) = double(A.values[size_t(p)]);
      D(j, A.rowind[size_t(p)]) = double(A.values[size_t(p)]);
    }
  return D;
}

/// y = A x for the symmetric A (lower stored), in double.
template <class Scalar>
std::vector<double> sym_apply(const CscMatrix<Scalar>& A, const std::vector<double>& x) {
  std::vector<double> y(static_cast<size_t>(A.n), 0.0);
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
      const size_type i = A.rowind[size_t(p)];
      const double v = double(A.values[size_t(p)]);
      y[size_t(i)] += v * x[size_t(j)];
      if (i != j) y[size_t(j)] += v * x[size_t(i)];
    }
  return y;
}

template <class Scalar>
double norm_fro(const CscMatrix<Scalar>& A) {
  double s = 0;
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
      const double v = double(A.values[size_t(p)]);
      s += (A.rowind[size_t(p)] == j ? 1 : 2) * v * v;
    }
  return std::sqrt(s);
}

inline double norm2(const std::vector<double>& v) {
  double s = 0;
  for (double x : v) s += x * x;
  return std::sqrt(s);
}

/// ||A x - b|| / (||A|| ||x|| + ||b||) for one column.
template <class Scalar>
double relative_residual(const CscMatrix<Scalar>& A, const std::vector<double>& x, const std::vector<double>& b) {
  auto r = sym_apply(A, x);
  for (size_t i = 0; i < r.size(); ++i) r[i] -= b[i];
  const double den = norm_fro(A) * norm2(x) + norm2(b);
  return den > 0 ? norm2(r) / den : norm2(r);
}

/// ||A||_1 (= ||A||_inf) of the symmetric A stored by its lower triangle.
inline double sym_norm1(const CscMatrix<double>& A) {
  std::vector<double> cs(static_cast<size_t>(A.n), 0.0);
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
      cs[size_t(j)] += std::fabs(A.values[size_t(p)]);
      if (A.rowind[size_t(p)] != j) cs[size_t(A.rowind[size_t(p)])] += std::fabs(A.values[size_t(p)]);
    }
  return cs.empty() ? 0.0 : *std::max_element(cs.begin(), cs.end());
}

/// Hager's estimate of kappa_1(A) = ||A||_1 ||A^-1||_1 with fp64 solves (a lower bound,
/// usually within a small factor).
inline double condition_estimate(const CscMatrix<double>& A) {
  kspd::sparse::Options o;
  o.threads = 2;
  kspd::sparse::SupernodalCholesky<double> chol(o);
  EXPECT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
  const size_t n = size_t(A.n);
  std::vector<double> x(n, 1.0 / double(n)), y, z;
  double est = 0;
  for (int it = 0; it < 5; ++it) {
    y = x;
    chol.solve(y);
    double s = 0;
    for (double v : y) s += std::fabs(v);
    est = std::max(est, s);
    z.resize(n);
    for (size_t i = 0; i < n; ++i) z[i] = y[i] >= 0 ? 1.0 : -1.0;
    chol.solve(z);
    size_t jm = 0;
    double zx = 0;
    for (size_t i = 0; i < n; ++i) {
      zx += z[i] * x[i];
      if (std::fabs(z[i]) > std::fabs(z[jm])) jm = i;
    }
    if (it > 0 && std::fabs(z[jm]) <= zx) break;
    std::fill(x.begin(), x.end(), 0.0);
    x[jm] = 1.0;
  }
  return sym_norm1(A) * est;
}

/// chol factors A and reports no failing pivot.
template <class Chol, class Matrix>
void factor_ok(Chol& chol, const Matrix& A) {
  ASSERT_EQ(chol.factorize(typename Chol::execution_space(), A), 0);
}

/// Factors A with chol (analysed already or not), then: the factor vs LAPACK dpotrf of the
/// permuted dense matrix, and a solve with several rhs.
template <class Scalar>
void check_factor_against_dense(kspd::sparse::SupernodalCholesky<Scalar>& chol, const CscMatrix<Scalar>& A,
                                size_type nrhs) {
  const size_type n = A.n;
  factor_ok(chol, A);
  const auto& perm = chol.permutation();
  const auto D = dense(A);
  std::vector<double> P(static_cast<size_t>(n * n));
  for (size_type j = 0; j < n; ++j)
    for (size_type i = 0; i < n; ++i) P[size_t(i + j * n)] = D(perm[size_t(i)], perm[size_t(j)]);
  int info = 0, ni = int(n);
  if (n > 0) dpotrf_("L", &ni, P.data(), &ni, &info);
  ASSERT_EQ(info, 0);
  const auto L = chol.factor_csc();
  ASSERT_EQ(L.n, n);
  std::vector<double> Ld(static_cast<size_t>(n * n), 0.0);
  for (size_type j = 0; j < n; ++j)
    for (size_type p = L.colptr[size_t(j)]; p < L.colptr[size_t(j + 1)]; ++p)
      Ld[size_t(L.rowind[size_t(p)] + j * n)] = double(L.values[size_t(p)]);
  double diff = 0, ref = 0;
  for (size_type j = 0; j < n; ++j)
    for (size_type i = j; i < n; ++i) {
      diff = std::max(diff, std::fabs(Ld[size_t(i + j * n)] - P[size_t(i + j * n)]));
      ref = std::max(ref, std::fabs(P[size_t(i + j * n)]));
    }
  EXPECT_LE(diff, kspd::test::tolerance<Scalar>(n, 50.0) * std::max(ref, 1.0)) << "factor differs from dpotrf";
  // Many right-hand sides, LayoutLeft and LayoutRight, poisoned nowhere (solve is in place).
  Kokkos::View<Scalar**, Kokkos::LayoutRight, Kokkos::HostSpace> B("B", size_t(n), size_t(nrhs));
  auto X0 = kspd::test::random_matrix(n, nrhs, 99);
  std::vector<std::vector<double>> b(static_cast<size_t>(nrhs));
  for (size_type r = 0; r < nrhs; ++r) {
    std::vector<double> x(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = X0(i, r);
    b[size_t(r)] = sym_apply(A, x);
    for (size_type i = 0; i < n; ++i) B(static_cast<size_t>(i), size_t(r)) = Scalar(b[size_t(r)][size_t(i)]);
  }
  chol.solve(Kokkos::DefaultExecutionSpace(), B);
  for (size_type r = 0; r < nrhs; ++r) {
    std::vector<double> x(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = double(B(static_cast<size_t>(i), size_t(r)));
    EXPECT_LE(relative_residual(A, x, b[size_t(r)]), kspd::test::tolerance<Scalar>(n)) << "rhs " << r;
  }
}

/// check_factor_against_dense with a fresh solver of options opt.
template <class Scalar>
void check_against_dense(const CscMatrix<Scalar>& A, kspd::sparse::Options opt, size_type nrhs) {
  kspd::sparse::SupernodalCholesky<Scalar> chol(opt);
  check_factor_against_dense(chol, A, nrhs);
}

/// Calls f(A) for every matrix of the shared collection in `dir` (Matrix Market and
/// Rutherford-Boeing files, gzipped or not, in name order) with n <= max_n, under a
/// SCOPED_TRACE naming it; expects the whole collection (40 files or more) to be there.
template <class F>
void for_each_collection_matrix(const std::string& dir, size_type max_n, F&& f) {
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string p = e.path().string();
    auto ends = [&](const char* x) {
      return p.size() >= std::strlen(x) && p.compare(p.size() - std::strlen(x), std::string::npos, x) == 0;
    };
    if (ends(".mtx") || ends(".mtx.gz") || ends(".rsa") || ends(".rb")) files.push_back(p);
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 40u) << "the collection in " << dir << " is incomplete";
  for (const auto& p : files) {
    const auto A = kspd::sparse::read_matrix<double>(p);
    if (A.n > max_n) continue;
    SCOPED_TRACE(A.name + " n=" + std::to_string(A.n));
    f(A);
  }
}

}  // namespace kspd::test::sparse
#endif
