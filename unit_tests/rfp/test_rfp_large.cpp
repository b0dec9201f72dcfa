// Device builds only (CMake adds this file when Kokkos has CUDA): n = 65,537 > 65,536, where
// n(n+1)/2 passes 2^31, so every offset of trttf, lansf, add_to_diagonal and pftrf must be
// 64-bit. Cheap inputs: a Hankel matrix A(i,j) = h[i+j] seen through a strided View of 2n
// entries (symmetric, no n^2 buffer), and A = 2 I + (1/n) 1 1^T for pftrf (float: 8.6 GB).
#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;
constexpr kspd::size_type kN = 65537;

// A free function: CUDA device lambdas cannot live in gtest's private TestBody().
void check_large(const Variant& v) {
  using T = float;
  const kspd::size_type n = kN;
  ASSERT_GT(kspd::rfp::packed_size(n), (kspd::offset_type(1) << 31));
  {
    const std::string where = name(v, int(n));
    kspd::rfp::Matrix<T, Mem> R("R", n, v.transr, v.uplo);
    // Hankel: h[m] = ((m * 7919) % 1001) / 1000 - 0.5, exact in float.
    Kokkos::View<T*, Mem> h("h", size_t(2 * n));
    Kokkos::parallel_for(
        "h", Kokkos::RangePolicy<Exec>(0, 2 * n), KOKKOS_LAMBDA(long m) { h(m) = T((m * 7919) % 1001) / T(1000) - T(0.5); });
    Kokkos::View<T**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> H(
        h.data(), Kokkos::LayoutStride(size_t(n), 1, size_t(n), 1));
    kspd::rfp::trttf(Exec(), H, R);
    // Every RFP entry holds h[i+j] for the (i,j) it stands for.
    const auto L = R.layout();
    auto a = R.data();
    long long bad = 0;
    Kokkos::parallel_reduce(
        "check", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, L.size()),
        KOKKOS_LAMBDA(std::int64_t p, long long& b) {
          kspd::size_type i, j;
          L.decode(p, i, j);
          if (a(p) != h(i + j) || L.index(i, j) != p) ++b;
        },
        bad);
    EXPECT_EQ(bad, 0) << where;
    // Max and Frobenius norms in closed form: pair count of i+j = m is min(m, 2n-2-m) + 1.
    std::vector<double> hh(size_t(2 * n));
    for (kspd::size_type m = 0; m < 2 * n; ++m) hh[size_t(m)] = double(T((m * 7919) % 1001) / T(1000) - T(0.5));
    double mx = 0, fro = 0;
    for (kspd::size_type m = 0; m <= 2 * n - 2; ++m) {
      mx = std::max(mx, std::fabs(hh[size_t(m)]));
      fro += double(std::min(m, 2 * n - 2 - m) + 1) * hh[size_t(m)] * hh[size_t(m)];
    }
    EXPECT_EQ(double(kspd::rfp::lansf(Exec(), kspd::Norm::Max, R)), mx) << where;
    EXPECT_NEAR(double(kspd::rfp::lansf(Exec(), kspd::Norm::Frobenius, R)), std::sqrt(fro), 1e-4 * std::sqrt(fro)) << where;
    // The 1-norm is at least the sums of columns 0, n/2 and n-1 (computed on the host).
    double best = 0;
    for (kspd::size_type j : {kspd::size_type(0), n / 2, n - 1}) {
      double s = 0;
      for (kspd::size_type i = 0; i < n; ++i) s += std::fabs(hh[size_t(i + j)]);
      best = std::max(best, s);
    }
    EXPECT_GE(double(kspd::rfp::lansf(Exec(), kspd::Norm::One, R)), best * (1 - 1e-4)) << where;

    // pftrf of A = 2 I + (1/n) 1 1^T: L(0,0) = sqrt(2 + 1/n); sampled entries of L L^T = A.
    Kokkos::deep_copy(R.data(), T(1) / T(n));
    kspd::rfp::add_to_diagonal(Exec(), R, T(2));
    ASSERT_EQ(kspd::rfp::pftrf(Exec(), R), 0) << where;
    const kspd::size_type pts[][2] = {{0, 0}, {n - 1, n - 1}, {n - 1, 0}, {n / 2, n / 2}, {n / 2 + 1, n / 2}, {n - 2, 3}, {40000, 39999}};
    Kokkos::View<double*, Mem> err("err", 7);
    Kokkos::View<kspd::size_type* [2], Kokkos::HostSpace> hp("hp", 7);
    for (int s = 0; s < 7; ++s) {
      hp(s, 0) = pts[s][0];
      hp(s, 1) = pts[s][1];
    }
    auto dp = Kokkos::create_mirror_view_and_copy(Mem(), hp);
    Kokkos::parallel_for(
        "llt", Kokkos::RangePolicy<Exec>(0, 7), KOKKOS_LAMBDA(int s) {
          const kspd::size_type i = dp(s, 0), j = dp(s, 1);
          double sum = 0;
          for (kspd::size_type k = 0; k <= j; ++k) sum += double(a(L.index(i, k))) * double(a(L.index(j, k)));
          const double want = (i == j ? 2.0 : 0.0) + 1.0 / double(L.n);
          err(s) = (sum - want) / want;
        });
    auto he = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), err);
    for (int s = 0; s < 7; ++s) EXPECT_LE(std::fabs(he(s)), 1e-4) << where << " sample " << s;  // relative
    // Not positive definite in the last column: info = n, mapped from the second block.
    Kokkos::deep_copy(R.data(), T(0));
    kspd::rfp::add_to_diagonal(Exec(), R, T(1));
    Kokkos::View<kspd::offset_type*, Mem> idx("idx", size_t(n));
    kspd::rfp::diagonal_indices(Exec(), R, idx);
    Kokkos::parallel_for(
        "neg", Kokkos::RangePolicy<Exec>(0, 1), KOKKOS_LAMBDA(int) { a(idx(L.n - 1)) = T(-1); });
    EXPECT_EQ(kspd::rfp::pftrf(Exec(), R), int(n)) << where;
  }
}

TEST(RfpLarge, TrttfLansfPftrfPast32BitOffsetsNL) { check_large(Variant{kspd::Trans::NoTranspose, kspd::Uplo::Lower}); }
TEST(RfpLarge, TrttfLansfPftrfPast32BitOffsetsTU) { check_large(Variant{kspd::Trans::Transpose, kspd::Uplo::Upper}); }

}  // namespace
