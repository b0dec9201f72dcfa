// Tests of the embedded problem generators and the host symv: structure against a
// brute-force stencil over all node pairs, the nnz formulas, SPD (dense LAPACK dpotrf),
// physics of the elasticity matrix (rigid motions in the kernel at interior nodes).
#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <random>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_generate.hpp"

extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

namespace {

using kspd::size_type;
namespace sp = kspd::sparse;

template <class Scalar>
struct SparseGenerate : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseGenerate, ScalarTypes);

/// The full symmetric dense matrix (column-major) from the stored lower triangle.
template <class Scalar>
std::vector<double> to_dense(const sp::CscMatrix<Scalar>& A) {
  const size_t n = size_t(A.n);
  std::vector<double> D(n * n, 0.0);
  for (size_type j = 0; j < A.n; ++j)
    for (size_type q = A.colptr[size_t(j)]; q < A.colptr[size_t(j + 1)]; ++q) {
      const size_t i = size_t(A.rowind[size_t(q)]);
      D[i + size_t(j) * n] = double(A.values[size_t(q)]);
      D[size_t(j) + i * n] = double(A.values[size_t(q)]);
    }
  return D;
}

/// LAPACK's dense Cholesky: info (0 = SPD).
int dense_potrf(std::vector<double> D, size_type n) {
  const int nn = int(n), lda = n > 0 ? int(n) : 1;
  int info = -1;
  dpotrf_("L", &nn, D.data(), &lda, &info, 1);
  return info;
}

struct Grid {
  size_type nx, ny, nz;
};

// Brute-force reference of a grid Laplacian: (p, q) couples iff the points are at unit
// Manhattan distance; the diagonal is 2*dim.
std::vector<double> reference_laplacian(const Grid& g, int dim) {
  const size_type n = g.nx * g.ny * g.nz;
  std::vector<double> D(size_t(n * n), 0.0);
  for (size_type p = 0; p < n; ++p)
    for (size_type q = 0; q < n; ++q) {
      const size_type dx = std::llabs(p % g.nx - q % g.nx), dy = std::llabs(p / g.nx % g.ny - q / g.nx % g.ny),
                      dz = std::llabs(p / (g.nx * g.ny) - q / (g.nx * g.ny));
      if (p == q) D[size_t(p + q * n)] = 2.0 * dim;
      else if (dx + dy + dz == 1) D[size_t(p + q * n)] = -1.0;
    }
  return D;
}

template <class Scalar>
void expect_same_dense(const sp::CscMatrix<Scalar>& A, const std::vector<double>& ref) {
  const std::vector<double> D = to_dense(A);
  ASSERT_EQ(D.size(), ref.size());
  size_t bad = 0;
  for (size_t k = 0; k < D.size(); ++k) bad += D[k] != ref[k];
  EXPECT_EQ(bad, 0u) << A.name;
}

TYPED_TEST(SparseGenerate, Laplacian2dMatchesStencilAndIsSpd) {
  using S = TypeParam;
  for (Grid g : {Grid{1, 1, 1}, Grid{1, 5, 1}, Grid{4, 1, 1}, Grid{3, 4, 1}, Grid{7, 6, 1}, Grid{10, 9, 1}}) {
    const auto A = sp::laplacian_2d<S>(g.nx, g.ny);
    SCOPED_TRACE(A.name);
    ASSERT_NO_THROW(sp::check_csc(A));
    EXPECT_EQ(A.n, g.nx * g.ny);
    EXPECT_EQ(A.nnz(), g.nx * g.ny + (g.nx - 1) * g.ny + g.nx * (g.ny - 1));
    EXPECT_EQ(A.nnz(), sp::laplacian_2d_nnz(g.nx, g.ny));
    expect_same_dense(A, reference_laplacian(g, 2));
    EXPECT_EQ(dense_potrf(to_dense(A), A.n), 0);
  }
}

TYPED_TEST(SparseGenerate, Laplacian3dMatchesStencilAndIsSpd) {
  using S = TypeParam;
  for (Grid g : {Grid{1, 1, 1}, Grid{1, 1, 6}, Grid{2, 3, 4}, Grid{5, 4, 3}, Grid{6, 6, 6}}) {
    const auto A = sp::laplacian_3d<S>(g.nx, g.ny, g.nz);
    SCOPED_TRACE(A.name);
    ASSERT_NO_THROW(sp::check_csc(A));
    EXPECT_EQ(A.n, g.nx * g.ny * g.nz);
    EXPECT_EQ(A.nnz(), sp::laplacian_3d_nnz(g.nx, g.ny, g.nz));
    expect_same_dense(A, reference_laplacian(g, 3));
    EXPECT_EQ(dense_potrf(to_dense(A), A.n), 0);
  }
}

// Elasticity: structure against the 27-point node stencil over all node pairs, dense 3x3
// blocks (no stored zero), translation invariance of the blocks, rigid motions in the
// kernel of interior rows, SPD by dense Cholesky.
TYPED_TEST(SparseGenerate, Elasticity3dStructureValuesAndSpd) {
  using S = TypeParam;
  for (Grid g : {Grid{1, 1, 1}, Grid{2, 1, 1}, Grid{1, 3, 2}, Grid{2, 3, 4}, Grid{3, 3, 3}, Grid{4, 5, 3}}) {
    const auto A = sp::elasticity_3d<S>(g.nx, g.ny, g.nz);
    SCOPED_TRACE(A.name);
    ASSERT_NO_THROW(sp::check_csc(A));
    const size_type N = g.nx * g.ny * g.nz, n = 3 * N;
    ASSERT_EQ(A.n, n);
    EXPECT_EQ(A.nnz(), sp::elasticity_3d_nnz(g.nx, g.ny, g.nz));
    const std::vector<double> D = to_dense(A);
    auto coord = [&](size_type p, int c) { return c == 0 ? p % g.nx : c == 1 ? p / g.nx % g.ny : p / (g.nx * g.ny); };
    size_type pairs = 0, zeros = 0;
    for (size_type p = 0; p < N; ++p)
      for (size_type q = 0; q < N; ++q) {
        bool nb = true;
        for (int c = 0; c < 3; ++c) nb = nb && std::llabs(coord(p, c) - coord(q, c)) <= 1;
        pairs += nb && q > p;
        for (int r = 0; r < 3; ++r)
          for (int c = 0; c < 3; ++c) {
            const double v = D[size_t((3 * q + r) + (3 * p + c) * n)];
            if (!nb) {
              EXPECT_EQ(v, 0.0) << "entry outside the 27-point stencil";
            }
            zeros += nb && std::abs(v) < 1e-6;
          }
      }
    EXPECT_EQ(zeros, 0) << "the 3x3 blocks must be dense";
    EXPECT_EQ(A.nnz(), 6 * N + 9 * pairs);
    // Interior node rows (all 26 neighbours present) annihilate rigid translations:
    // sum_d K_d = 0, which is independent of the displacement frame (sum R K_d R^T = 0).
    for (size_type p = 0; p < N; ++p) {
      bool interior = true;
      for (int c = 0; c < 3; ++c) {
        const size_type nc = c == 0 ? g.nx : c == 1 ? g.ny : g.nz;
        interior = interior && coord(p, c) > 0 && coord(p, c) + 1 < nc;
      }
      if (!interior) continue;
      for (int r = 0; r < 3; ++r)
        for (int c = 0; c < 3; ++c) {
          double s = 0, mag = 0;
          for (size_type q = 0; q < N; ++q) {
            s += D[size_t((3 * p + r) + (3 * q + c) * n)];
            mag += std::abs(D[size_t((3 * p + r) + (3 * q + c) * n)]);
          }
          EXPECT_LE(std::abs(s), 1e-6 * mag) << "translation not in the kernel at node " << p;
        }
    }
    EXPECT_EQ(dense_potrf(D, n), 0);
  }
}

TYPED_TEST(SparseGenerate, FloatMatchesDoubleAndEmptyGrids) {
  using S = TypeParam;
  const auto Ad = sp::elasticity_3d<double>(3, 2, 2);
  const auto As = sp::elasticity_3d<S>(3, 2, 2);
  ASSERT_EQ(As.rowind, Ad.rowind);
  for (size_t k = 0; k < Ad.values.size(); ++k) EXPECT_EQ(As.values[k], S(Ad.values[k]));
  for (const auto& A : {sp::laplacian_2d<S>(0, 5), sp::laplacian_3d<S>(3, 0, 2), sp::elasticity_3d<S>(0, 0, 0)}) {
    EXPECT_EQ(A.n, 0);
    EXPECT_EQ(A.nnz(), 0);
    EXPECT_NO_THROW(sp::check_csc(A));
  }
  EXPECT_THROW(sp::laplacian_2d<S>(-1, 3), kspd::InvalidArgument);
  EXPECT_THROW(sp::laplacian_3d<S>(2, -3, 3), kspd::InvalidArgument);
  EXPECT_THROW(sp::elasticity_3d<S>(2, 2, -1), kspd::InvalidArgument);
}

// nnz formulas against counting on larger, uneven grids (no dense matrix).
TEST(SparseGenerateNnz, FormulasMatchBuiltMatrices) {
  for (Grid g : {Grid{17, 9, 5}, Grid{2, 31, 3}, Grid{12, 12, 12}}) {
    EXPECT_EQ(sp::laplacian_3d<double>(g.nx, g.ny, g.nz).nnz(), sp::laplacian_3d_nnz(g.nx, g.ny, g.nz));
    const auto A = sp::elasticity_3d<double>(g.nx, g.ny, g.nz);
    EXPECT_NO_THROW(sp::check_csc(A));
    EXPECT_EQ(A.nnz(), sp::elasticity_3d_nnz(g.nx, g.ny, g.nz));
    // An interior column holds its node's lower diagonal block and 13 forward neighbours.
    const size_type p = 1 + g.nx * (1 + g.ny * 1);
    if (g.nx > 2 && g.ny > 2 && g.nz > 2) {
      EXPECT_EQ(A.colptr[size_t(3 * p + 1)] - A.colptr[size_t(3 * p)], 3 + 13 * 3);
    }
  }
  // Closed forms for a cube m^3: 6 m^3 + 9 (3 m^2 (m-1) + 6 m (m-1)^2 + 4 (m-1)^3).
  for (size_type m : {1, 2, 5, 100}) {
    const size_type e = 3 * m * m * (m - 1) + 6 * m * (m - 1) * (m - 1) + 4 * (m - 1) * (m - 1) * (m - 1);
    EXPECT_EQ(sp::elasticity_3d_nnz(m, m, m), 6 * m * m * m + 9 * e);
  }
  EXPECT_EQ(sp::laplacian_2d_nnz(1000, 1000), 1000000 + 2 * 999 * 1000);
}

TYPED_TEST(SparseGenerate, SymvAndKnownSolutionRhsMatchDenseProduct) {
  using S = TypeParam;
  for (const auto& A : {sp::elasticity_3d<S>(3, 2, 3), sp::laplacian_2d<S>(7, 4)}) {
    const size_type n = A.n, nrhs = 3;
    std::mt19937_64 gen(42);
    std::uniform_real_distribution<double> dist(-1, 1);
    std::vector<S> X(size_t(n * nrhs));
    for (auto& v : X) v = S(dist(gen));
    const auto D = to_dense(A);
    const auto B = sp::known_solution_rhs(A, X, nrhs);
    ASSERT_EQ(B.size(), X.size());
    double amax = 0;
    for (double v : D) amax = std::max(amax, std::abs(v));
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < n; ++i) {
        double s = 0;
        for (size_type j = 0; j < n; ++j) s += D[size_t(i + j * n)] * double(X[size_t(j + r * n)]);
        EXPECT_NEAR(double(B[size_t(i + r * n)]), s, 30 * amax * double(std::numeric_limits<S>::epsilon()));
      }
    std::vector<S> y(size_t(n), std::numeric_limits<S>::quiet_NaN());
    std::vector<S> x1(X.begin(), X.begin() + n);
    sp::symv(A, x1, y);
    for (size_type i = 0; i < n; ++i) EXPECT_EQ(y[size_t(i)], B[size_t(i)]);
    std::vector<S> wrong(size_t(n + 1));
    EXPECT_THROW(sp::symv(A, wrong, y), kspd::DimensionMismatch);
    EXPECT_THROW(sp::known_solution_rhs(A, X, 2), kspd::DimensionMismatch);
  }
}

TEST(SparseGenerateCheck, CheckCscRejectsBrokenInvariants) {
  auto A = sp::laplacian_2d<double>(3, 3);
  auto B = A;
  std::swap(B.rowind[1], B.rowind[2]);  // unsorted column 0
  EXPECT_THROW(sp::check_csc(B), kspd::InvalidArgument);
  B = A;
  B.rowind[A.colptr[4]] = 2;  // upper-triangle row in column 4
  EXPECT_THROW(sp::check_csc(B), kspd::InvalidArgument);
  B = A;
  B.colptr.pop_back();
  EXPECT_THROW(sp::check_csc(B), kspd::InvalidArgument);
}

// The large-n path: counts first, then fills; a 1.4M-row elasticity problem builds in seconds.
TEST(SparseGenerateScale, ElasticityMillionRowsIsFast) {
  const auto t0 = std::chrono::steady_clock::now();
  const auto A = sp::elasticity_3d<double>(80, 80, 75);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  EXPECT_EQ(A.n, 3 * 80 * 80 * 75);
  EXPECT_EQ(A.nnz(), sp::elasticity_3d_nnz(80, 80, 75));
  std::printf("[          ] elasticity_3d 80x80x75: n = %lld, nnz = %lld, %.2f s\n", (long long)A.n,
              (long long)A.nnz(), sec);
  EXPECT_LT(sec, 30.0);
}

}  // namespace
