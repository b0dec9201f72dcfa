// Gaussian-process helpers of core: log det from the potrf factor, diag(A^-1) and
// trace(A^-1 B) from it through the in-place potri; both uplo, three layouts, odd/even n,
// float and double, against LAPACK (dpotrf / dpotri in double on the host).
#include <gtest/gtest.h>

#include "kspd_core.hpp"
#include "kspd_test_gp.hpp"

namespace {
using namespace kspd::test;
using kspd::Uplo;

template <class T>
struct DenseGp : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseGp, ScalarTypes);

const std::vector<int> kSizes = {0, 1, 2, 7, 8, 33, 64, 65, 130};

HostMat triangle_with_nan(const HostMat& A, Uplo u) {
  HostMat B = A;
  for (kspd::size_type j = 0; j < A.n; ++j)
    for (kspd::size_type i = 0; i < A.m; ++i)
      if (u == Uplo::Lower ? i < j : i > j) B(i, j) = std::nan("");
  return B;
}
/// Relative tolerance of a quantity computed from an fp32 / fp64 factor.
template <class T>
double rel_tol(int n) {
  return std::is_same<T, double>::value ? 1e-12 : 2e-4 * (n > 1 ? std::sqrt(double(n)) : 1.0);
}

TYPED_TEST(DenseGp, LogdetMatchesLapack) {
  using T = TypeParam;
  unsigned seed = 900;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (auto lay : all_layouts()) {
        ++seed;
        const HostMat A = random_spd(n, seed);
        DevMat<T> dA(triangle_with_nan(A, uplo), lay);
        ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view), 0);
        const std::string where = std::string("uplo=") + kspd::to_char(uplo) + " n=" + std::to_string(n) + " " + name(lay);
        const double ref = n > 0 ? lapack_logdet(A) : 0.0;
        const double got = kspd::potrf_logdet(Exec(), dA.view);
        EXPECT_LE(std::fabs(got - ref), rel_tol<T>(n) * std::max(1.0, std::fabs(ref))) << where << " got " << got << " ref " << ref;
        // Non-blocking form into a poisoned rank-0 View.
        Kokkos::View<double, Mem> r("r");
        Kokkos::deep_copy(r, std::nan(""));
        kspd::potrf_logdet(Exec(), dA.view, r);
        double hr = 0;
        Kokkos::deep_copy(hr, r);
        EXPECT_EQ(hr, got) << where;
        EXPECT_TRUE(dA.padding_intact()) << where;
      }
}

TYPED_TEST(DenseGp, LogdetOfFailedFactorIsNotFinite) {
  using T = TypeParam;
  for (auto uplo : all_uplos()) {
    HostMat A = random_spd(33, 77);
    A(20, 20) = -1.0;
    DevMat<T> dA(triangle_with_nan(A, uplo), Layout::Left);
    ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view), 21);
    EXPECT_FALSE(std::isfinite(kspd::potrf_logdet(Exec(), dA.view)));
  }
}

TYPED_TEST(DenseGp, InverseDiagonalMatchesDenseInverse) {
  using T = TypeParam;
  unsigned seed = 1900;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (auto lay : all_layouts()) {
        ++seed;
        const HostMat A = random_spd(n, seed);
        const HostMat X = lapack_inverse(A);
        DevMat<T> dA(triangle_with_nan(A, uplo), lay);
        ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view), 0);
        Kokkos::View<T*, Mem> d("d", size_t(n + 2));
        Kokkos::deep_copy(d, poison<T>());
        ASSERT_EQ(kspd::potri_diag(Exec(), uplo, dA.view, d), 0);
        auto hd = Kokkos::create_mirror_view(d);
        Kokkos::deep_copy(hd, d);
        const std::string where = std::string("uplo=") + kspd::to_char(uplo) + " n=" + std::to_string(n) + " " + name(lay);
        for (int i = 0; i < n; ++i)
          EXPECT_LE(std::fabs(double(hd(i)) - X(i, i)), 10 * rel_tol<T>(n) * std::fabs(X(i, i))) << where << " i=" << i;
        EXPECT_TRUE(std::isnan(double(hd(n))) && std::isnan(double(hd(n + 1)))) << where << ": wrote past n";
        EXPECT_TRUE(dA.padding_intact()) << where;
      }
}

TYPED_TEST(DenseGp, TraceOfInverseTimesBMatchesDenseInverse) {
  using T = TypeParam;
  unsigned seed = 2900;
  for (auto uplo : all_uplos())
    for (int n : kSizes)
      for (auto lay : all_layouts()) {
        ++seed;
        const HostMat A = random_spd(n, seed);
        const HostMat B = random_matrix(n, n, seed + 5000);  // general, not symmetric
        const double ref = trace_product(lapack_inverse(A), B);
        DevMat<T> dA(triangle_with_nan(A, uplo), lay);
        DevMat<T> dB(B, all_layouts()[seed % 3]);
        ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view), 0);
        double tr = std::nan("");
        ASSERT_EQ(kspd::potri_trace(Exec(), uplo, dA.view, dB.view, tr), 0);
        const std::string where = std::string("uplo=") + kspd::to_char(uplo) + " n=" + std::to_string(n) + " " + name(lay);
        // |sum S_ij B_ji| can cancel: the scale is sum |S_ij B_ji| <= |S|_F |B|_F.
        double scale = 0;
        HostMat X = lapack_inverse(A);
        scale = norm_fro(X) * norm_fro(B);
        EXPECT_LE(std::fabs(tr - ref), 10 * rel_tol<T>(n) * std::max(scale, 1e-300)) << where << " got " << tr << " ref " << ref;
      }
}

TYPED_TEST(DenseGp, BadArgumentsThrow) {
  using T = TypeParam;
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> A("A", 4, 3), B("B", 4, 4);
  EXPECT_THROW((void)kspd::potrf_logdet(Exec(), A), kspd::DimensionMismatch);
  Kokkos::View<T*, Mem> d("d", 3);
  EXPECT_THROW((void)kspd::potri_diag(Exec(), Uplo::Lower, B, d), kspd::DimensionMismatch);
  double tr = 0;
  EXPECT_THROW((void)kspd::potri_trace(Exec(), Uplo::Lower, B, A, tr), kspd::DimensionMismatch);
}

}  // namespace
