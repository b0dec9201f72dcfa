// sfrk, sfr2k, sfr, sfr2, sfmm, sfmv, tfsm, lansf: every variant and size of the issue, both
// precisions, against LAPACK's ?sfrk/?tfsm/?lansf on the same RFP buffer and dense host
// references; beta = 0 must not read C (NaN-poisoned).
#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;
using kspd::Diag;
using kspd::Side;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct RfpOps : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RfpOps, ScalarTypes);

char tr(const Variant& v) { return kspd::to_char(v.transr); }
char ul(const Variant& v) { return kspd::to_char(v.uplo); }

/// Random symmetric n x n (full).
HostMat random_sym(int n, unsigned seed) {
  HostMat A = random_matrix(n, n, seed);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < j; ++i) A(i, j) = A(j, i);
  return A;
}
HostMat nan_matrix(int n) { return HostMat(n, n, std::nan("")); }

/// The largest |C_rfp - R| over the entries of the stored triangle, relative to scale.
template <class T>
double diff_vs_dense(const std::vector<T>& arf, const HostMat& R, const Variant& v, double scale) {
  const int n = int(R.n);
  const auto L = kspd::rfp::make_layout(n, v.transr, v.uplo);
  double d = 0;
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) {
      const double e = std::fabs(double(arf[size_t(L.index(i, j))]) - R(i, j)) / scale;
      if (!(e <= d)) d = e;
    }
  return d;
}

TYPED_TEST(RfpOps, SfrkMatchesLapackAndDense) {
  using T = TypeParam;
  unsigned seed = 10000;
  const T alpha = T(0.7);
  for (int n : sizes())
    for (const auto& v : all_variants())
      for (auto trans : {Trans::NoTranspose, Trans::Transpose})
        for (int k : {0, 3, 17})
          for (T beta : {T(0), T(1.25)}) {
            const std::string where = name(v, n) + " trans=" + kspd::to_char(trans) + " k=" + std::to_string(k) +
                                      " beta=" + std::to_string(double(beta));
            ++seed;
            HostMat C0 = beta == T(0) ? nan_matrix(n) : random_sym(n, seed);
            HostMat A = trans == Trans::NoTranspose ? random_matrix(n, k, seed + 1) : random_matrix(k, n, seed + 1);
            auto ref = lapack_rfp<T>(C0, v);
            auto C = device_rfp(ref, n, v);
            DevMat<T> dA(A, all_layouts()[seed % 3]);
            kspd::rfp::sfrk(Exec(), trans, alpha, dA.view, beta, C);
            const auto got = host_rfp(C);
            auto a = to_vec<T>(A);
            const int lda = std::max(1, int(A.m));
            lapack_sfrk(tr(v), ul(v), kspd::to_char(trans), n, k, alpha, a.data(), lda, beta, ref.data());
            HostMat R = matmul(A, trans != Trans::NoTranspose, A, trans == Trans::NoTranspose);
            for (size_t i = 0; i < R.a.size(); ++i) R.a[i] = double(alpha) * R.a[i] + (beta == T(0) ? 0.0 : double(beta) * C0.a[i]);
            const double scale = 1.0 + max_abs(R);
            EXPECT_LE(max_rel_diff(got, ref, scale), tolerance<T>(k + 2)) << "vs LAPACK sfrk " << where;
            EXPECT_LE(diff_vs_dense(got, R, v, scale), tolerance<T>(k + 2)) << "vs dense " << where;
          }
}

TYPED_TEST(RfpOps, Sfr2kSfrSfr2MatchDense) {
  using T = TypeParam;
  unsigned seed = 11000;
  const T alpha = T(-0.6);
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      ++seed;
      const std::string where = name(v, n);
      for (auto trans : {Trans::NoTranspose, Trans::Transpose})
        for (T beta : {T(0), T(0.5)}) {
          const int k = 4;
          HostMat C0 = beta == T(0) ? nan_matrix(n) : random_sym(n, seed);
          const bool nt = trans == Trans::NoTranspose;
          HostMat A = nt ? random_matrix(n, k, seed + 2) : random_matrix(k, n, seed + 2);
          HostMat B = nt ? random_matrix(n, k, seed + 3) : random_matrix(k, n, seed + 3);
          auto C = device_rfp(lapack_rfp<T>(C0, v), n, v);
          auto dA = device_dense<T>(A);
          auto dB = device_dense<T>(B);
          kspd::rfp::sfr2k(Exec(), trans, alpha, dA, dB, beta, C);
          HostMat AB = matmul(A, !nt, B, nt), BA = matmul(B, !nt, A, nt);
          HostMat R(n, n);
          for (size_t i = 0; i < R.a.size(); ++i)
            R.a[i] = double(alpha) * (AB.a[i] + BA.a[i]) + (beta == T(0) ? 0.0 : double(beta) * C0.a[i]);
          EXPECT_LE(diff_vs_dense(host_rfp(C), R, v, 1.0 + max_abs(R)), tolerance<T>(k + 2))
              << "sfr2k trans=" << kspd::to_char(trans) << " beta=" << double(beta) << " " << where;
        }
      // sfr: C += alpha x x^T; sfr2: C += alpha (x y^T + y x^T)
      HostMat C0 = random_sym(n, seed + 5), x = random_matrix(n, 1, seed + 6), y = random_matrix(n, 1, seed + 7);
      Kokkos::View<T*, Mem> dx("x", size_t(n)), dy("y", size_t(n));
      auto hx = Kokkos::create_mirror_view(dx);
      auto hy = Kokkos::create_mirror_view(dy);
      for (int i = 0; i < n; ++i) {
        hx(i) = T(x(i, 0));
        hy(i) = T(y(i, 0));
      }
      Kokkos::deep_copy(dx, hx);
      Kokkos::deep_copy(dy, hy);
      auto C = device_rfp(lapack_rfp<T>(C0, v), n, v);
      kspd::rfp::sfr(Exec(), alpha, dx, C);
      HostMat R = C0;
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i) R(i, j) += double(alpha) * double(T(x(i, 0))) * double(T(x(j, 0)));
      EXPECT_LE(diff_vs_dense(host_rfp(C), R, v, 1.0 + max_abs(R)), tolerance<T>(2)) << "sfr " << where;
      kspd::rfp::sfr2(Exec(), alpha, dx, dy, C);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < n; ++i)
          R(i, j) += double(alpha) * (double(T(x(i, 0))) * double(T(y(j, 0))) + double(T(y(i, 0))) * double(T(x(j, 0))));
      EXPECT_LE(diff_vs_dense(host_rfp(C), R, v, 1.0 + max_abs(R)), tolerance<T>(4)) << "sfr2 " << where;
    }
}

TYPED_TEST(RfpOps, SfmmAndSfmvMatchDense) {
  using T = TypeParam;
  unsigned seed = 12000;
  const T alpha = T(1.5);
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      ++seed;
      HostMat A = random_sym(n, seed);
      auto dAr = device_rfp(lapack_rfp<T>(A, v), n, v);
      for (auto side : all_sides())
        for (T beta : {T(0), T(-0.5)}) {
          const std::string where = name(v, n) + " side=" + kspd::to_char(side) + " beta=" + std::to_string(double(beta));
          const int m = 3;
          const bool left = side == Side::Left;
          HostMat B = left ? random_matrix(n, m, seed + 1) : random_matrix(m, n, seed + 1);
          HostMat C0 = beta == T(0) ? HostMat(B.m, B.n, std::nan("")) : random_matrix(B.m, B.n, seed + 2);
          DevMat<T> dB(B, all_layouts()[seed % 3]);
          DevMat<T> dC(C0, all_layouts()[(seed + 1) % 3]);
          kspd::rfp::sfmm(Exec(), side, alpha, dAr, dB.view, beta, dC.view);
          HostMat R = left ? matmul(A, false, B, false) : matmul(B, false, A, false);
          for (size_t i = 0; i < R.a.size(); ++i) R.a[i] = double(alpha) * R.a[i] + (beta == T(0) ? 0.0 : double(beta) * C0.a[i]);
          HostMat got = dC.to_host();
          EXPECT_LE(diff_fro(got, R) / (1.0 + norm_fro(R)), tolerance<T>(n)) << "sfmm " << where;
          EXPECT_TRUE(dC.padding_intact()) << where;
        }
      // sfmv
      HostMat x = random_matrix(n, 1, seed + 3), y0 = random_matrix(n, 1, seed + 4);
      Kokkos::View<T*, Mem> dx("x", size_t(n)), dy("y", size_t(n));
      auto hx = Kokkos::create_mirror_view(dx);
      auto hy = Kokkos::create_mirror_view(dy);
      for (int i = 0; i < n; ++i) {
        hx(i) = T(x(i, 0));
        hy(i) = T(y0(i, 0));
      }
      Kokkos::deep_copy(dx, hx);
      Kokkos::deep_copy(dy, hy);
      kspd::rfp::sfmv(Exec(), alpha, dAr, dx, T(0.25), dy);
      Kokkos::deep_copy(hy, dy);
      HostMat R = matmul(A, false, x, false);
      double d = 0;
      for (int i = 0; i < n; ++i) d = std::max(d, std::fabs(double(hy(i)) - (double(alpha) * R(i, 0) + 0.25 * y0(i, 0))));
      EXPECT_LE(d / (1.0 + max_abs(R)), tolerance<T>(n)) << "sfmv " << name(v, n);
    }
}

TYPED_TEST(RfpOps, TfsmMatchesLapackAndSolves) {
  using T = TypeParam;
  unsigned seed = 13000;
  const T alpha = T(0.8);
  for (int n : sizes())
    for (const auto& v : all_variants())
      for (auto diag : all_diags()) {
        ++seed;
        HostMat Tm = random_triangular(n, v.uplo, diag, seed);  // NaN outside the triangle (and on a unit diagonal)
        const auto tri = lapack_rfp<T>(Tm, v);
        auto dT = device_rfp(tri, n, v);
        HostMat Tt(n, n);  // the triangular matrix meant
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) Tt(i, j) = tri_at(Tm, v.uplo, diag, i, j);
        for (auto side : all_sides())
          for (auto trans : {Trans::NoTranspose, Trans::Transpose}) {
            const std::string where = name(v, n) + " side=" + kspd::to_char(side) + " trans=" + kspd::to_char(trans) +
                                      " diag=" + kspd::to_char(diag);
            const bool left = side == Side::Left;
            const int m = 4;
            HostMat B = left ? random_matrix(n, m, seed + 1) : random_matrix(m, n, seed + 1);
            DevMat<T> dB(B, all_layouts()[(seed + int(side == Side::Left) + 2 * int(trans == Trans::Transpose)) % 3]);
            kspd::rfp::tfsm(Exec(), side, trans, diag, alpha, dT, dB.view);
            HostMat X = dB.to_host();
            auto b = to_vec<T>(B);
            lapack_tfsm(tr(v), kspd::to_char(side), ul(v), kspd::to_char(trans), kspd::to_char(diag), int(B.m), int(B.n),
                        alpha, tri.data(), b.data(), std::max(1, int(B.m)));
            double d = 0, xm = 1e-300;
            for (size_t i = 0; i < b.size(); ++i) {
              d = std::max(d, std::fabs(X.a[i] - double(b[i])));
              xm = std::max(xm, std::fabs(double(b[i])));
            }
            EXPECT_LE(d / xm, tolerance<T>(n, 50)) << "vs LAPACK tfsm " << where;
            const bool t = trans == Trans::Transpose;
            HostMat R = left ? matmul(Tt, t, X, false) : matmul(X, false, Tt, t);
            for (size_t i = 0; i < R.a.size(); ++i) R.a[i] -= double(alpha) * B.a[i];
            EXPECT_LE(norm_fro(R) / (norm_fro(Tt) * norm_fro(X) + norm_fro(B) + 1e-300), tolerance<T>(n))
                << "residual " << where;
            EXPECT_TRUE(dB.padding_intact()) << where;
          }
      }
}

TYPED_TEST(RfpOps, LansfMatchesLapack) {
  using T = TypeParam;
  unsigned seed = 14000;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      HostMat A = random_sym(n, ++seed);
      if (n > 2) A(n - 1, 1) = A(1, n - 1) = -3.0;  // the max sits off the diagonal
      const auto arf = lapack_rfp<T>(A, v);
      auto R = device_rfp(arf, n, v);
      for (auto norm : {kspd::Norm::Max, kspd::Norm::One, kspd::Norm::Inf, kspd::Norm::Frobenius}) {
        const double ref = lapack_lansf(kspd::to_char(norm), tr(v), ul(v), n, arf.data());
        const double got = double(kspd::rfp::lansf(Exec(), norm, R));
        EXPECT_NEAR(got, ref, tolerance<T>(n) * (1.0 + ref)) << name(v, n) << " norm=" << kspd::to_char(norm);
      }
      // Independent check of the 1-norm and Frobenius norm on the dense matrix.
      double one = 0, fro = 0;
      for (int j = 0; j < n; ++j) {
        double s = 0;
        for (int i = 0; i < n; ++i) {
          s += std::fabs(double(T(A(i, j))));
          fro += double(T(A(i, j))) * double(T(A(i, j)));
        }
        one = std::max(one, s);
      }
      EXPECT_NEAR(double(kspd::rfp::lansf(Exec(), kspd::Norm::One, R)), one, tolerance<T>(n) * (1.0 + one));
      EXPECT_NEAR(double(kspd::rfp::lansf(Exec(), kspd::Norm::Frobenius, R)), std::sqrt(fro),
                  tolerance<T>(n) * (1.0 + std::sqrt(fro)));
    }
}

TYPED_TEST(RfpOps, BadArgumentsNameTheArgument) {
  using T = TypeParam;
  kspd::rfp::Matrix<T, Mem> C("C", 6, Trans::Transpose, Uplo::Upper);
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> A("A", 5, 3), B("B", 6, 2), Cd("Cd", 6, 3);
  try {
    kspd::rfp::sfrk(Exec(), Trans::NoTranspose, T(1), A, T(0), C);
    ADD_FAILURE() << "sfrk accepted A with 5 rows for n = 6";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("op(A) has 5 rows"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kspd::rfp::sfmm(Exec(), Side::Left, T(1), C, B, T(0), Cd), kspd::DimensionMismatch);
  Kokkos::View<T*, Mem> x("x", 5);
  EXPECT_THROW(kspd::rfp::sfr(Exec(), T(1), x, C), kspd::DimensionMismatch);
  EXPECT_THROW(kspd::rfp::sfmv(Exec(), T(1), C, x, T(0), x), kspd::DimensionMismatch);
}

}  // namespace
