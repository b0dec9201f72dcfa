// Batched log det and potrf with jitter retry: batches mixing SPD, indefinite-by-a-hair and
// clearly indefinite matrices, both uplo, LayoutLeft and LayoutRight, odd/even n on both
// sides of the recursion, float and double; the retried factors equal the host factor of
// A + jitter I from scratch; matrices that succeeded first time are left as potrf leaves them.
#include "batched_test_utils.hpp"
#include "kspd_test_gp.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::size_type;
using kspd::Uplo;

template <class T>
struct BatchedGp : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedGp, ScalarTypes);

/// Host Cholesky (double), lower; false when a pivot is not positive.
bool host_chol(const HostMat& A, HostMat& L) {
  const size_type n = A.n;
  L = HostMat(n, n);
  for (size_type j = 0; j < n; ++j) {
    long double d = A(j, j);
    for (size_type k = 0; k < j; ++k) d -= (long double)L(j, k) * L(j, k);
    if (!(d > 0)) return false;
    L(j, j) = double(std::sqrt(d));
    for (size_type i = j + 1; i < n; ++i) {
      long double s = A(i, j);
      for (size_type k = 0; k < j; ++k) s -= (long double)L(i, k) * L(j, k);
      L(i, j) = double(s / L(j, j));
    }
  }
  return true;
}

template <class T, class V>
V device_batch(const std::vector<HostMat>& h) {
  const size_type nb = size_type(h.size()), n = nb > 0 ? h[0].n : 0;
  V d("kspd::test::batch", size_t(nb), size_t(n), size_t(n));
  auto hd = Kokkos::create_mirror_view(d);
  for (size_type b = 0; b < nb; ++b)
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i) hd(b, i, j) = T(h[size_t(b)](i, j));
  Kokkos::deep_copy(d, hd);
  return d;
}
template <class V>
std::vector<HostMat> host_batch(const V& d) {
  auto hd = Kokkos::create_mirror_view(d);
  Kokkos::deep_copy(hd, d);
  std::vector<HostMat> h(d.extent(0), HostMat(size_type(d.extent(1)), size_type(d.extent(2))));
  for (size_t b = 0; b < d.extent(0); ++b)
    for (size_t j = 0; j < d.extent(2); ++j)
      for (size_t i = 0; i < d.extent(1); ++i) h[b](size_type(i), size_type(j)) = double(hd(b, i, j));
  return h;
}

template <class T, class V>
void check_logdet(size_type n, Uplo uplo) {
  const size_type nb = 5;
  std::vector<HostMat> h;
  for (size_type b = 0; b < nb; ++b) h.push_back(random_spd(n, unsigned(300 + 10 * n + b)));
  h[2](n / 2, n / 2) = -1.0;  // fails
  auto A = device_batch<T, V>(h);
  Kokkos::View<int*, Mem> infos("infos", size_t(nb));
  kb::potrf(Exec(), uplo, A, infos);
  Kokkos::View<double*, Mem> ld("ld", size_t(nb + 1));
  Kokkos::deep_copy(ld, 12345.0);
  kb::potrf_logdet(Exec(), A, infos, ld);
  auto hl = Kokkos::create_mirror_view(ld);
  Kokkos::deep_copy(hl, ld);
  const double tol = std::is_same<T, double>::value ? 1e-12 : 2e-4 * std::sqrt(double(n));
  for (size_type b = 0; b < nb; ++b) {
    const std::string where = "n=" + std::to_string(n) + " uplo=" + kspd::to_char(uplo) + " b=" + std::to_string(b);
    if (b == 2) {
      EXPECT_TRUE(std::isnan(hl(b))) << where;
      continue;
    }
    const double ref = lapack_logdet(h[size_t(b)]);
    EXPECT_LE(std::fabs(hl(b) - ref), tol * std::max(1.0, std::fabs(ref))) << where;
  }
  EXPECT_EQ(hl(nb), 12345.0) << "wrote past the batch";
}

TYPED_TEST(BatchedGp, LogdetMatchesLapack) {
  using T = TypeParam;
  for (auto uplo : all_uplos())
    for (size_type n : {1, 2, 7, 8, 16, 33, 64, 65}) {
      check_logdet<T, Kokkos::View<T***, Kokkos::LayoutLeft, Mem>>(n, uplo);
      check_logdet<T, Kokkos::View<T***, Kokkos::LayoutRight, Mem>>(n, uplo);
    }
}

/// A device fill functor: A_b(i,j) from a read-only device copy (what a GP code would
/// compute from its kernel function instead).
template <class V>
struct CopyFill {
  V src;
  KOKKOS_INLINE_FUNCTION typename V::non_const_value_type operator()(size_type b, size_type i, size_type j) const {
    return src(b, i, j);
  }
};

template <class T, class V>
void check_jitter(size_type n, Uplo uplo, bool functor, kb::BatchRecursion rec) {
  const bool dbl = std::is_same<T, double>::value;
  const double rel = dbl ? 1e-6 : 1e-3;
  // b: 0 SPD, 1 one retry, 2 clearly indefinite, 3 two retries, 4 SPD, 5 one retry.
  const std::vector<double> lmin = dbl ? std::vector<double>{0.5, -1e-8, -1.0, -5e-6, 0.7, -1e-8}
                                       : std::vector<double>{0.5, -1e-4, -1.0, -5e-3, 0.7, -1e-4};
  const std::vector<int> retries = {0, 1, -1, 2, 0, 1};
  std::vector<HostMat> h;
  for (size_t b = 0; b < lmin.size(); ++b) h.push_back(spectrum_matrix(spectrum(n, lmin[b], unsigned(50 + b + n)), unsigned(70 + b)));
  const size_type nb = size_type(h.size());
  auto A = device_batch<T, V>(h);
  auto src = device_batch<T, V>(h);
  auto A0 = device_batch<T, V>(h);  // for the plain potrf comparison
  Kokkos::View<int*, Mem> infos("infos", size_t(nb)), infos0("infos0", size_t(nb));
  Kokkos::View<double*, Mem> jit("jit", size_t(nb));
  Kokkos::deep_copy(infos, -99);
  Kokkos::deep_copy(jit, std::nan(""));
  kspd::JitterOptions jo;
  jo.rel_jitter = rel;
  jo.max_retries = 3;
  kb::BatchOptions bo;
  bo.recursion = rec;
  bo.leaf_size = 8;
  const auto sum = functor ? kb::potrf_jitter(Exec(), uplo, A, infos, jit, CopyFill<V>{src}, jo, bo)
                           : kb::potrf_jitter(Exec(), uplo, A, infos, jit, jo, bo);
  kb::potrf(Exec(), uplo, A0, infos0, bo);
  const auto hi = to_host(infos);
  auto hj = Kokkos::create_mirror_view(jit);
  Kokkos::deep_copy(hj, jit);
  const auto got = host_batch(A), plain = host_batch(A0);
  const std::string what = "n=" + std::to_string(n) + " uplo=" + kspd::to_char(uplo) + (functor ? " functor" : " mirror") +
                           " rec=" + std::to_string(int(rec));
  EXPECT_EQ(sum.failed, 1) << what;
  EXPECT_EQ(sum.retried, 4) << what;
  EXPECT_EQ(sum.attempts, 4) << what;
  for (size_type b = 0; b < nb; ++b) {
    const std::string where = what + " b=" + std::to_string(b);
    const HostMat& Ab = h[size_t(b)];
    const double j1 = rel * mean_diag(Ab);
    if (retries[size_t(b)] < 0) {
      EXPECT_GT(hi[size_t(b)], 0) << where;
      EXPECT_NEAR(hj(b), j1 * 100, 1e-6 * j1 * 100) << where;
      continue;
    }
    EXPECT_EQ(hi[size_t(b)], 0) << where;
    const double jexp = retries[size_t(b)] == 0 ? 0.0 : j1 * std::pow(10.0, retries[size_t(b)] - 1);
    EXPECT_NEAR(hj(b), jexp, 1e-6 * jexp) << where;
    HostMat L;
    ASSERT_TRUE(host_chol(plus_identity(Ab, jexp), L)) << where;
    double err = 0, scale = 0;
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i) {
        const bool in = uplo == Uplo::Lower ? i >= j : i <= j;
        const double r = uplo == Uplo::Lower ? L(i, j) : L(j, i);
        if (in) {
          err = std::max(err, std::fabs(got[size_t(b)](i, j) - r));
          scale = std::max(scale, std::fabs(r));
        } else {  // the other triangle is never written
          EXPECT_EQ(got[size_t(b)](i, j), double(T(Ab(i, j)))) << where << " (" << i << "," << j << ")";
        }
      }
    EXPECT_LE(err / scale, dbl ? 1e-7 : 2e-2) << where;
    if (retries[size_t(b)] == 0) {  // untouched after potrf: bit for bit what potrf gives
      for (size_t e = 0; e < got[size_t(b)].a.size(); ++e) ASSERT_EQ(got[size_t(b)].a[e], plain[size_t(b)].a[e]) << where;
    }
  }
}

TYPED_TEST(BatchedGp, JitterRetryPerMatrix) {
  using T = TypeParam;
  for (auto uplo : all_uplos())
    for (size_type n : {2, 5, 8, 16, 17, 33, 40})
      for (bool functor : {true, false})
        for (auto rec : {kb::BatchRecursion::Auto, kb::BatchRecursion::Always}) {
          check_jitter<T, Kokkos::View<T***, Kokkos::LayoutLeft, Mem>>(n, uplo, functor, rec);
          check_jitter<T, Kokkos::View<T***, Kokkos::LayoutRight, Mem>>(n, uplo, functor, rec);
        }
}

}  // namespace
