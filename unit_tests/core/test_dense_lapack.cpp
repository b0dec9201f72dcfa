// potrf, potrs, trtri, lauum, potri: both triangles, both precisions, three layouts, all
// algorithms, sizes around the cutoffs; backward errors against host references; info for
// non-SPD and singular inputs; the untouched triangle keeps its NaN poison.
#include <gtest/gtest.h>

#include "kspd_core.hpp"
#include "dense_test_options.hpp"
#include "kspd_test_utils.hpp"

namespace {
using namespace kspd::test;
using kspd::Algo;
using kspd::Diag;
using kspd::Uplo;

template <class T>
struct DenseLapack : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseLapack, ScalarTypes);

const std::vector<int> kSizes = {0, 1, 2, 3, 7, 8, 15, 16, 17, 31, 33, 64, 65, 130};

bool in_tri(Uplo u, int i, int j) { return u == Uplo::Lower ? i >= j : i <= j; }

/// A with the other triangle set to NaN.
HostMat triangle_only(const HostMat& A, Uplo u) {
  HostMat B = A;
  for (int j = 0; j < A.n; ++j)
    for (int i = 0; i < A.m; ++i)
      if (!in_tri(u, i, j)) B(i, j) = std::nan("");
  return B;
}
/// The factor as a full triangular matrix (zeros outside `u`).
HostMat as_triangular(const HostMat& F, Uplo u) {
  HostMat B(F.m, F.n);
  for (int j = 0; j < F.n; ++j)
    for (int i = 0; i < F.m; ++i) B(i, j) = in_tri(u, i, j) ? F(i, j) : 0.0;
  return B;
}
void expect_other_triangle_nan(const HostMat& X, Uplo u, const std::string& where) {
  for (int j = 0; j < X.n; ++j)
    for (int i = 0; i < X.m; ++i)
      if (!in_tri(u, i, j)) ASSERT_TRUE(std::isnan(X(i, j))) << where << ": wrote outside the triangle at " << i << "," << j;
}

TYPED_TEST(DenseLapack, PotrfBackwardError) {
  using T = TypeParam;
  unsigned seed = 300;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (const auto& opt : dense_factor_options()) {
        ++seed;
        HostMat A = random_spd(n, seed);
        DevMat<T> dA(triangle_only(A, uplo), all_layouts()[seed % 3]);
        const int info = kspd::potrf(Exec(), uplo, dA.view, opt);
        const std::string where = "potrf uplo=" + std::string(1, kspd::to_char(uplo)) + " n=" + std::to_string(n) +
                                  " algo=" + std::to_string(int(opt.algo)) + " leaf=" + std::to_string(opt.leaf_size);
        ASSERT_EQ(info, 0) << where;
        HostMat F = dA.to_host();
        expect_other_triangle_nan(F, uplo, where);
        HostMat L = as_triangular(F, uplo);
        HostMat R = uplo == Uplo::Lower ? matmul(L, false, L, true) : matmul(L, true, L, false);
        EXPECT_LE(diff_fro(R, A) / (norm_fro(A) + 1e-300), tolerance<T>(n)) << where;
        EXPECT_TRUE(dA.padding_intact()) << where;
      }
}

TYPED_TEST(DenseLapack, PotrfReportsTheFailingColumn) {
  using T = TypeParam;
  for (auto uplo : all_uplos())
    for (const auto& opt : dense_factor_options())
      for (int k : {1, 9, 17, 33, 65}) {
        const int n = 65;
        HostMat A = random_spd(n, 17 + k);
        A(k - 1, k - 1) = -1.0;  // minors 1..k-1 stay positive definite, minor k fails
        DevMat<T> dA(triangle_only(A, uplo), Layout::Left);
        EXPECT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), k)
            << "uplo=" << kspd::to_char(uplo) << " algo=" << int(opt.algo) << " leaf=" << opt.leaf_size;
      }
  // NaN input is not positive definite either, and the exception names the column.
  HostMat A = random_spd(20, 3);
  A(4, 4) = std::nan("");
  DevMat<T> dA(A, Layout::Left);
  const int info = kspd::potrf(Exec(), Uplo::Lower, dA.view);
  EXPECT_EQ(info, 5);
  try {
    kspd::require_spd(info, "kspd::potrf");
    FAIL() << "require_spd did not throw";
  } catch (const kspd::NotPositiveDefinite& e) {
    EXPECT_EQ(e.column(), 5);
    EXPECT_NE(std::string(e.what()).find("column 5"), std::string::npos) << e.what();
  }
}

TYPED_TEST(DenseLapack, PotrfInfoViewOverload) {
  using T = TypeParam;
  HostMat A = random_spd(40, 8);
  A(22, 22) = -3;
  DevMat<T> dA(A, Layout::Left);
  Kokkos::View<int, Mem> info("info");
  kspd::potrf(Exec(), Uplo::Upper, dA.view, info);
  auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), info);
  EXPECT_EQ(h(), 23);
}

// potrf into device infos with the NaN-pivot scan deferred to one flush
// (kspd_dense_nan_scan.hpp, the sparse engine's resident factorization): the same infos as
// the scan after each potrf, for NaN and negative pivots, both triangles, odd/even n, two
// layouts; the vendor calls are recorded, not scanned, until the flush.
TYPED_TEST(DenseLapack, PotrfNanScanDeferredToOneFlushGivesTheSameInfos) {
  using T = TypeParam;
  struct Case {
    int n;
    Uplo uplo;
    int i, j;  // the entry spoiled (i < 0: none)
    double v;
  };
  const Case cases[] = {{20, Uplo::Lower, 4, 4, std::nan("")},  {33, Uplo::Lower, 20, 3, std::nan("")},
                        {64, Uplo::Lower, 40, 40, -1.0},          {7, Uplo::Lower, -1, -1, 0.0},
                        {65, Uplo::Upper, 9, 30, std::nan("")},   {16, Uplo::Upper, 15, 15, std::nan("")},
                        {31, Uplo::Lower, 30, 30, std::nan("")},  {1, Uplo::Lower, 0, 0, std::nan("")}};
  const int nc = int(std::size(cases));
  kspd::DenseOptions vendor;
  vendor.algo = Algo::Vendor;
  for (Layout layout : {Layout::Left, Layout::Padded}) {
    std::vector<DevMat<T>> now, later;
    for (const Case& c : cases) {
      HostMat A = random_spd(c.n, 40 + c.n);
      if (c.i >= 0) A(c.i, c.j) = A(c.j, c.i) = c.v;
      now.emplace_back(triangle_only(A, c.uplo), layout);
      later.emplace_back(triangle_only(A, c.uplo), layout);
    }
    Kokkos::View<int*, Mem> info_now("info_now", size_t(nc)), info_later("info_later", size_t(nc));
    for (int q = 0; q < nc; ++q) kspd::potrf(Exec(), cases[q].uplo, now[size_t(q)].view, Kokkos::subview(info_now, q), vendor);
    {
      kspd::Impl::DeferredNanScan<Exec, T> scan{Exec()};
      for (int q = 0; q < nc; ++q)
        kspd::potrf(Exec(), cases[q].uplo, later[size_t(q)].view, Kokkos::subview(info_later, q), vendor);
      int lower = 0;
      for (const Case& c : cases) lower += c.uplo == Uplo::Lower;
      EXPECT_GE(int(scan.pending()), lower) << "every lower vendor potrf recorded, not scanned";
      scan.flush();
      EXPECT_EQ(scan.pending(), 0u);
    }
    auto hn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), info_now);
    auto hl = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), info_later);
    for (int q = 0; q < nc; ++q) {
      const Case& c = cases[q];
      EXPECT_EQ(hl(q), hn(q)) << "case " << q << " n=" << c.n << " uplo=" << kspd::to_char(c.uplo);
      if (c.i < 0) EXPECT_EQ(hn(q), 0) << "case " << q;
      else EXPECT_GT(hn(q), 0) << "case " << q << ": a NaN or negative pivot is reported";
      if (c.i >= 0 && c.i == c.j) EXPECT_LE(hn(q), c.i + 1) << "case " << q << ": at or before the spoiled pivot";
    }
  }
  EXPECT_EQ((kspd::Impl::DeferredNanScan<Exec, T>::active()), nullptr) << "the scan closes with its scope";
}

TYPED_TEST(DenseLapack, PotrsSolvesManyRightHandSides) {
  using T = TypeParam;
  unsigned seed = 500;
  for (auto uplo : all_uplos())
    for (int n : {1, 8, 17, 65, 130})
      for (int nrhs : {1, 3, 40})
        for (const auto& opt : dense_factor_options()) {
          ++seed;
          HostMat A = random_spd(n, seed), B = random_matrix(n, nrhs, seed + 1);
          DevMat<T> dA(triangle_only(A, uplo), Layout::Padded), dB(B, all_layouts()[seed % 3]);
          ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), 0);
          kspd::potrs(Exec(), uplo, dA.view, dB.view, opt);
          HostMat X = dB.to_host();
          const double res = diff_fro(matmul(A, false, X, false), B) / (norm_fro(A) * norm_fro(X) + norm_fro(B));
          EXPECT_LE(res, tolerance<T>(n)) << "potrs n=" << n << " nrhs=" << nrhs;
        }
}

TYPED_TEST(DenseLapack, TrtriInvertsEveryVariant) {
  using T = TypeParam;
  unsigned seed = 700;
  for (auto uplo : all_uplos())
    for (auto diag : all_diags())
      for (int n : kSizes)
        for (const auto& opt : dense_factor_options()) {
          ++seed;
          HostMat A = random_triangular(n, uplo, diag, seed);
          DevMat<T> dA(A, all_layouts()[seed % 3]);
          ASSERT_EQ(kspd::trtri(Exec(), uplo, diag, dA.view, opt), 0);
          HostMat X = dA.to_host();
          HostMat At(n, n), Xt(n, n);
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) {
              At(i, j) = tri_at(A, uplo, diag, i, j);
              Xt(i, j) = tri_at(X, uplo, diag, i, j);
              if (!in_tri(uplo, i, j) || (diag == Diag::Unit && i == j))
                ASSERT_TRUE(std::isnan(X(i, j))) << "trtri touched an entry it must not at " << i << "," << j
                                                 << " uplo=" << kspd::to_char(uplo) << " diag=" << kspd::to_char(diag)
                                                 << " n=" << n << " algo=" << int(opt.algo);
            }
          HostMat I = matmul(At, false, Xt, false);
          for (int i = 0; i < n; ++i) I(i, i) -= 1.0;
          EXPECT_LE(norm_fro(I) / (norm_fro(At) * norm_fro(Xt) + 1e-300), tolerance<T>(n))
              << "trtri uplo=" << kspd::to_char(uplo) << " diag=" << kspd::to_char(diag) << " n=" << n
              << " algo=" << int(opt.algo);
        }
}

TYPED_TEST(DenseLapack, TrtriReportsZeroDiagonal) {
  using T = TypeParam;
  for (const auto& opt : dense_factor_options()) {
    HostMat A = random_triangular(40, Uplo::Lower, Diag::NonUnit, 9);
    A(30, 30) = 0.0;
    DevMat<T> dA(A, Layout::Left);
    EXPECT_EQ(kspd::trtri(Exec(), Uplo::Lower, Diag::NonUnit, dA.view, opt), 31) << int(opt.algo);
  }
}

TYPED_TEST(DenseLapack, LauumMatchesReference) {
  using T = TypeParam;
  unsigned seed = 900;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (const auto& opt : dense_factor_options()) {
        ++seed;
        HostMat A = random_triangular(n, uplo, Diag::NonUnit, seed);
        DevMat<T> dA(A, all_layouts()[seed % 3]);
        kspd::lauum(Exec(), uplo, dA.view, opt);
        HostMat X = dA.to_host();
        HostMat At = as_triangular(A, uplo);
        HostMat R = uplo == Uplo::Lower ? matmul(At, true, At, false) : matmul(At, false, At, true);
        double err = 0;
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            if (!in_tri(uplo, i, j)) {
              ASSERT_TRUE(std::isnan(X(i, j)));
              continue;
            }
            err = std::max(err, std::fabs(X(i, j) - R(i, j)));
          }
        EXPECT_LE(err / (norm_fro(At) * norm_fro(At) + 1e-300), tolerance<T>(n))
            << "lauum uplo=" << kspd::to_char(uplo) << " n=" << n << " algo=" << int(opt.algo);
      }
}

TYPED_TEST(DenseLapack, PotriInvertsSpd) {
  using T = TypeParam;
  unsigned seed = 1100;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (const auto& opt : dense_factor_options()) {
        ++seed;
        HostMat A = random_spd(n, seed);
        DevMat<T> dA(triangle_only(A, uplo), all_layouts()[seed % 3]);
        ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), 0);
        ASSERT_EQ(kspd::potri(Exec(), uplo, dA.view, opt), 0);
        HostMat X = dA.to_host();
        expect_other_triangle_nan(X, uplo, "potri");
        HostMat Xf(n, n);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) Xf(i, j) = in_tri(uplo, i, j) ? X(i, j) : X(j, i);
        HostMat I = matmul(A, false, Xf, false);
        for (int i = 0; i < n; ++i) I(i, i) -= 1.0;
        EXPECT_LE(norm_fro(I) / (norm_fro(A) * norm_fro(Xf) + 1e-300), tolerance<T>(n, 50.0))
            << "potri uplo=" << kspd::to_char(uplo) << " n=" << n << " algo=" << int(opt.algo);
      }
}

TEST(DenseLapackErrors, BadArgumentsThrow) {
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> A("A", 4, 5), S("S", 4, 4), B("B", 3, 2);
  Exec exec;
  EXPECT_THROW((void)kspd::potrf(exec, Uplo::Lower, A), kspd::DimensionMismatch);
  EXPECT_THROW((void)kspd::trtri(exec, Uplo::Lower, Diag::Unit, A), kspd::DimensionMismatch);
  EXPECT_THROW(kspd::potrs(exec, Uplo::Lower, S, B), kspd::DimensionMismatch);
  try {
    (void)kspd::potri(exec, Uplo::Upper, A);
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("kspd::potri: A must be square, got 4 x 5"), std::string::npos) << e.what();
  }
}
}  // namespace
