// RFP layout and conversions: byte-exact agreement with LAPACK's ?trttf, ?tfttr, ?tpttf,
// ?tfttp for all 8 variants and the issue's sizes, both precisions; the layout's index,
// decode and diagonal functions; add_to_diagonal; argument errors.
#include <cstring>

#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;

template <class T>
struct RfpLayout : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RfpLayout, ScalarTypes);

template <class T>
bool bytes_equal(const std::vector<T>& a, const std::vector<T>& b) {
  return a.size() == b.size() && (a.empty() || std::memcmp(a.data(), b.data(), a.size() * sizeof(T)) == 0);
}

TYPED_TEST(RfpLayout, DescriptorMatchesLapackTrttf) {
  using T = TypeParam;
  unsigned seed = 10;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      HostMat A = random_matrix(n, n, ++seed);  // not symmetric: the wrong triangle would show
      const auto ref = lapack_rfp<T>(A, v);
      const auto L = kspd::rfp::make_layout(n, v.transr, v.uplo);
      ASSERT_EQ(L.size(), kspd::rfp::packed_size(n)) << where;
      ASSERT_EQ(L.rows * L.cols, L.size()) << where;
      ASSERT_EQ(L.n1 + L.n2, n) << where;
      std::vector<char> seen(ref.size(), 0);
      for (int j = 0; j < n; ++j)
        for (int i = j; i < n; ++i) {
          const auto p = L.index(i, j);
          ASSERT_EQ(p, L.index(j, i)) << where;
          ASSERT_TRUE(p >= 0 && p < L.size()) << where;
          const double want = v.uplo == kspd::Uplo::Lower ? A(i, j) : A(j, i);
          ASSERT_EQ(ref[size_t(p)], T(want)) << where << " (" << i << "," << j << ")";
          kspd::size_type di, dj;
          L.decode(p, di, dj);
          ASSERT_EQ(di, i) << where;
          ASSERT_EQ(dj, j) << where;
          seen[size_t(p)]++;
        }
      for (char c : seen) ASSERT_EQ(c, 1) << where;
      for (int i = 0; i < n; ++i) ASSERT_EQ(L.diag(i), L.index(i, i)) << where;
      // Blocks: the rectangle and triangles lie inside the array.
      for (const auto& b : {L.t1, L.t2, L.s})
        if (b.rows > 0 && b.cols > 0)
          ASSERT_LT(b.offset + (b.rows - 1) + (b.cols - 1) * b.ld, L.size()) << where;
    }
}

TYPED_TEST(RfpLayout, TrttfTfttrByteExactVsLapack) {
  using T = TypeParam;
  unsigned seed = 100;
  for (int n : sizes())
    for (const auto& v : all_variants())
      for (auto lay : all_layouts()) {
        const std::string where = name(v, n) + " layout=" + kspd::test::name(lay);
        HostMat A = random_matrix(n, n, ++seed);
        const auto ref = lapack_rfp<T>(A, v);
        DevMat<T> dA(A, lay);
        kspd::rfp::Matrix<T, Mem> R("R", n, v.transr, v.uplo);
        Kokkos::deep_copy(R.data(), poison<T>());
        kspd::rfp::trttf(Exec(), dA.view, R);
        ASSERT_TRUE(bytes_equal(host_rfp(R), ref)) << "trttf " << where;
        // tfttr into a NaN-poisoned full matrix: the uplo triangle matches LAPACK's, the
        // other stays NaN.
        HostMat P(n, n, std::nan(""));
        DevMat<T> dB(P, lay);
        kspd::rfp::tfttr(Exec(), R, dB.view);
        HostMat B = dB.to_host();
        std::vector<T> lb(size_t(n) * n, poison<T>());
        int info = 0;
        lapack_tfttr(kspd::to_char(v.transr), kspd::to_char(v.uplo), n, ref.data(), lb.data(), n > 0 ? n : 1, &info);
        ASSERT_EQ(info, 0);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const bool in = v.uplo == kspd::Uplo::Lower ? i >= j : i <= j;
            if (in) ASSERT_EQ(T(B(i, j)), lb[size_t(i + j * n)]) << "tfttr " << where;
            else ASSERT_TRUE(std::isnan(B(i, j))) << "tfttr wrote outside the triangle " << where;
          }
        ASSERT_TRUE(dB.padding_intact()) << where;
      }
}

TYPED_TEST(RfpLayout, TpttfTfttpByteExactVsLapack) {
  using T = TypeParam;
  unsigned seed = 200;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      const size_t np = size_t(kspd::rfp::packed_size(n));
      HostMat X = random_matrix(kspd::size_type(np), 1, ++seed);
      std::vector<T> ap(np), ref(np + 1), back(np + 1);
      for (size_t i = 0; i < np; ++i) ap[i] = T(X.a[i]);
      int info = 0;
      lapack_tpttf(kspd::to_char(v.transr), kspd::to_char(v.uplo), n, ap.data(), ref.data(), &info);
      ref.resize(np);
      typename kspd::rfp::Matrix<T, Mem>::view_type dap("ap", np);
      auto hap = Kokkos::create_mirror_view(dap);
      for (size_t i = 0; i < np; ++i) hap(i) = ap[i];
      Kokkos::deep_copy(dap, hap);
      kspd::rfp::Matrix<T, Mem> R("R", n, v.transr, v.uplo);
      Kokkos::deep_copy(R.data(), poison<T>());
      kspd::rfp::tpttf(Exec(), dap, R);
      ASSERT_TRUE(bytes_equal(host_rfp(R), ref)) << "tpttf " << where;
      // tfttp of LAPACK's RFP buffer gives AP back, as LAPACK's ?tfttp does.
      auto R2 = device_rfp(ref, n, v);
      Kokkos::deep_copy(dap, poison<T>());
      kspd::rfp::tfttp(Exec(), R2, dap);
      Kokkos::deep_copy(hap, dap);
      lapack_tfttp(kspd::to_char(v.transr), kspd::to_char(v.uplo), n, ref.data(), back.data(), &info);
      back.resize(np);
      std::vector<T> got(np);
      for (size_t i = 0; i < np; ++i) got[i] = hap(i);
      ASSERT_TRUE(bytes_equal(got, back)) << "tfttp vs LAPACK " << where;
      ASSERT_TRUE(bytes_equal(got, ap)) << "tfttp round trip " << where;
    }
}

TYPED_TEST(RfpLayout, DiagonalIndicesAndAddToDiagonal) {
  using T = TypeParam;
  unsigned seed = 300;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      HostMat A = random_matrix(n, n, ++seed);
      const auto ref = lapack_rfp<T>(A, v);
      auto R = device_rfp(ref, n, v);
      Kokkos::View<kspd::offset_type*, Mem> idx("idx", size_t(n));
      kspd::rfp::diagonal_indices(Exec(), R, idx);
      auto hidx = Kokkos::create_mirror_view(idx);
      Kokkos::deep_copy(hidx, idx);
      for (int i = 0; i < n; ++i) ASSERT_EQ(ref[size_t(hidx(i))], T(A(i, i))) << where << " i=" << i;
      kspd::rfp::add_to_diagonal(Exec(), R, T(0.5));
      // The same shift applied on the host before packing gives the same bytes.
      HostMat S = A;
      for (int i = 0; i < n; ++i) S(i, i) = double(T(T(A(i, i)) + T(0.5)));
      ASSERT_TRUE(bytes_equal(host_rfp(R), lapack_rfp<T>(S, v))) << where;
    }
}

TYPED_TEST(RfpLayout, BadArgumentsNameTheArgument) {
  using T = TypeParam;
  typename kspd::rfp::Matrix<T, Mem>::view_type d("d", 10);
  auto expect_msg = [](auto fn, const char* what) {
    try {
      fn();
      ADD_FAILURE() << "no exception, expected one naming " << what;
    } catch (const kspd::Error& e) {
      EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << e.what();
    }
  };
  EXPECT_THROW((kspd::rfp::Matrix<T, Mem>(5, kspd::Trans::NoTranspose, kspd::Uplo::Lower, d)), kspd::DimensionMismatch);
  expect_msg([&] { kspd::rfp::Matrix<T, Mem>(5, kspd::Trans::NoTranspose, kspd::Uplo::Lower, d); }, "data");
  EXPECT_THROW((kspd::rfp::Matrix<T, Mem>(-1, kspd::Trans::NoTranspose, kspd::Uplo::Lower, d)), kspd::InvalidArgument);
  expect_msg([&] { kspd::rfp::Matrix<T, Mem>(-1, kspd::Trans::NoTranspose, kspd::Uplo::Lower, d); }, "n must be");
  kspd::rfp::Matrix<T, Mem> R(4, kspd::Trans::Transpose, kspd::Uplo::Upper, d);  // 4*5/2 = 10
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> A("A", 5, 5);
  EXPECT_THROW(kspd::rfp::trttf(Exec(), A, R), kspd::DimensionMismatch);
  expect_msg([&] { kspd::rfp::tfttr(Exec(), R, A); }, "A is 5 x 5");
  Kokkos::View<T*, Mem> ap("ap", 9);
  expect_msg([&] { kspd::rfp::tpttf(Exec(), ap, R); }, "AP has 9");
}

TEST(RfpLayout, SixtyFourBitOffsets) {
  // n(n+1)/2 passes 2^31 at n = 65,536: the descriptor's arithmetic must not wrap (checked
  // without allocating: index, decode and diag on the layout of n = 100,001 and 65,536).
  for (kspd::size_type n : {kspd::size_type(65536), kspd::size_type(100001)})
    for (const auto& v : all_variants()) {
      const auto L = kspd::rfp::make_layout(n, v.transr, v.uplo);
      ASSERT_EQ(L.size(), n * (n + 1) / 2);
      ASSERT_GT(L.size(), kspd::offset_type(1) << 31);
      const kspd::size_type pts[][2] = {{n - 1, n - 1}, {n - 1, 0}, {n / 2, n / 2 - 1}, {n - 2, n / 3}, {n / 2 + 1, 7}};
      for (const auto& ij : pts) {
        const auto p = L.index(ij[0], ij[1]);
        ASSERT_TRUE(p >= 0 && p < L.size()) << name(v, int(n));
        kspd::size_type i, j;
        L.decode(p, i, j);
        ASSERT_EQ(i, ij[0]);
        ASSERT_EQ(j, ij[1]);
      }
      ASSERT_EQ(L.diag(n - 1), L.index(n - 1, n - 1));
    }
}

}  // namespace
