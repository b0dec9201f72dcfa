// Complex Hermitian backend: gemm, herk, trsm, trmm, potrf, potrs, trtri, lauum, potri on
// Kokkos::complex<float/double>, every uplo / side / trans (N, T, C) / diag, three layouts,
// the vendor, recursive and native paths, against naive complex loops; poisoned triangles
// and padding; info for matrices that are not positive definite.
#include <gtest/gtest.h>

#include "kspd_core.hpp"
#include "dense_test_options.hpp"
#include "kspd_test_complex.hpp"

namespace {
using namespace kspd::test;
using kspd::Algo;
using kspd::Diag;
using kspd::Side;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct DenseComplex : ::testing::Test {};
using ComplexTypes = ::testing::Types<Kokkos::complex<float>, Kokkos::complex<double>>;
TYPED_TEST_SUITE(DenseComplex, ComplexTypes);

bool in_tri(Uplo u, kspd::size_type i, kspd::size_type j) { return u == Uplo::Lower ? i >= j : i <= j; }
std::string tag(const char* op, Uplo u, const kspd::DenseOptions& o, kspd::size_type n, int layout) {
  return std::string(op) + " uplo=" + kspd::to_char(u) + " n=" + std::to_string(n) + " algo=" +
         std::to_string(int(o.algo)) + " leaf=" + std::to_string(o.leaf_size) +
         " upper_via_lower=" + std::to_string(int(o.upper_via_lower)) +
         " blas3_inverse=" + std::to_string(int(o.blas3_inverse)) + " layout=" + std::to_string(layout);
}
CHostMat with_nan_outside(const CHostMat& A, Uplo u) {
  CHostMat B = A;
  for (kspd::size_type j = 0; j < A.n; ++j)
    for (kspd::size_type i = 0; i < A.m; ++i)
      if (!in_tri(u, i, j)) B(i, j) = cd(std::nan(""), std::nan(""));
  return B;
}
CHostMat tri_part(const CHostMat& A, Uplo u, Diag d = Diag::NonUnit) {
  CHostMat B(A.m, A.n);
  for (kspd::size_type j = 0; j < A.n; ++j)
    for (kspd::size_type i = 0; i < A.m; ++i)
      B(i, j) = i == j && d == Diag::Unit ? cd(1.0) : in_tri(u, i, j) ? A(i, j) : cd(0.0);
  return B;
}
void expect_nan_outside(const CHostMat& X, Uplo u, const std::string& where) {
  for (kspd::size_type j = 0; j < X.n; ++j)
    for (kspd::size_type i = 0; i < X.m; ++i)
      if (!in_tri(u, i, j)) ASSERT_TRUE(std::isnan(X(i, j).real())) << where << ": wrote outside at " << i << "," << j;
}
template <class T>
double tol(kspd::size_type n) {
  return tolerance<typename T::value_type>(n, 40.0);
}

TYPED_TEST(DenseComplex, GemmAllOps) {
  using T = TypeParam;
  unsigned seed = 1;
  const cd alpha(0.7, -0.4), beta(-0.3, 0.9);
  for (Trans ta : all_trans())
    for (Trans tb : all_trans())
      for (int shape = 0; shape < 3; ++shape)
        for (auto algo : {Algo::Auto, Algo::Native}) {
          const int m = shape == 0 ? 9 : 33, n = shape == 1 ? 1 : 17, k = shape == 2 ? 0 : 12;
          ++seed;
          CHostMat A = crandom(ta == Trans::NoTranspose ? m : k, ta == Trans::NoTranspose ? k : m, seed);
          CHostMat B = crandom(tb == Trans::NoTranspose ? k : n, tb == Trans::NoTranspose ? n : k, seed + 100);
          CHostMat C = crandom(m, n, seed + 200);
          const bool zero_beta = seed % 4 == 0;
          if (zero_beta) C = CHostMat(m, n, cd(std::nan(""), 0.0));  // beta == 0 must not read C
          CDevMat<T> dA(A, all_layouts()[seed % 3]), dB(B, all_layouts()[(seed + 1) % 3]), dC(C, all_layouts()[(seed + 2) % 3]);
          const cd b = zero_beta ? cd(0.0) : beta;
          CHostMat ref = cmatmul(cop(A, ta), cop(B, tb));
          for (size_t i = 0; i < ref.a.size(); ++i) ref.a[i] = alpha * ref.a[i] + (zero_beta ? cd(0.0) : b * C.a[i]);
          if (algo == Algo::Auto)
            kspd::gemm(Exec(), ta, tb, T(alpha.real(), alpha.imag()), dA.view, dB.view, T(b.real(), b.imag()), dC.view);
          else {  // the native path through the recursion's GEMM
            kspd::Impl::Recursive<Exec, T>{Exec(), false, 8}.gemm(ta, tb, T(alpha.real(), alpha.imag()),
                                                                  kspd::Impl::make_mat(dA.view), kspd::Impl::make_mat(dB.view),
                                                                  T(b.real(), b.imag()), kspd::Impl::make_mat(dC.view));
            Exec().fence();
          }
          const std::string where = std::string("gemm ") + kspd::to_char(ta) + kspd::to_char(tb) + " m=" +
                                    std::to_string(m) + " n=" + std::to_string(n) + " k=" + std::to_string(k) +
                                    " algo=" + std::to_string(int(algo));
          EXPECT_LE(cdiff(dC.to_host(), ref) / (cnorm(ref) + 1e-300), tol<T>(k + 1)) << where;
          EXPECT_TRUE(dC.padding_intact()) << where;
        }
}

TYPED_TEST(DenseComplex, HerkBothTrianglesBothTrans) {
  using T = TypeParam;
  using R = typename T::value_type;
  unsigned seed = 50;
  for (Uplo uplo : all_uplos())
    for (Trans tr : {Trans::NoTranspose, Trans::ConjTranspose})
      for (int n : {0, 1, 7, 17, 40})
        for (const auto& opt : dense_factor_options()) {
          ++seed;
          const int k = seed % 3 == 0 ? 0 : 13;
          CHostMat A = crandom(tr == Trans::NoTranspose ? n : k, tr == Trans::NoTranspose ? k : n, seed);
          CHostMat C = crandom(n, n, seed + 7);
          const bool zero_beta = seed % 5 == 0;
          const double alpha = -0.8, beta = zero_beta ? 0.0 : 0.6;
          CHostMat Cin = with_nan_outside(C, uplo);
          if (zero_beta)
            for (kspd::size_type j = 0; j < n; ++j)
              for (kspd::size_type i = 0; i < n; ++i)
                if (in_tri(uplo, i, j)) Cin(i, j) = cd(std::nan(""), 1.0);
          CDevMat<T> dA(A, all_layouts()[seed % 3]), dC(Cin, all_layouts()[(seed + 1) % 3]);
          kspd::herk(Exec(), uplo, tr, R(alpha), dA.view, R(beta), dC.view, opt);
          CHostMat P = tr == Trans::NoTranspose ? cmatmul(A, cop(A, Trans::ConjTranspose)) : cmatmul(cop(A, Trans::ConjTranspose), A);
          CHostMat X = dC.to_host(), ref(n, n), got(n, n);
          for (kspd::size_type j = 0; j < n; ++j)
            for (kspd::size_type i = 0; i < n; ++i)
              if (in_tri(uplo, i, j)) {
                cd c = i == j ? cd(C(i, j).real()) : C(i, j);
                ref(i, j) = alpha * P(i, j) + (zero_beta ? cd(0.0) : beta * c);
                got(i, j) = X(i, j);
                if (i == j) EXPECT_EQ(X(i, j).imag(), 0.0) << "diagonal imaginary part at " << i;
              }
          const std::string where = tag("herk", uplo, opt, n, int(seed % 3)) + " trans=" + kspd::to_char(tr);
          EXPECT_LE(cdiff(got, ref) / (cnorm(ref) + 1e-300), tol<T>(k + 1)) << where;
          expect_nan_outside(X, uplo, where);
          EXPECT_TRUE(dC.padding_intact()) << where;
        }
}

TYPED_TEST(DenseComplex, TrsmTrmmAllVariants) {
  using T = TypeParam;
  unsigned seed = 500;
  const cd alpha(0.5, 0.25);
  for (bool solve : {true, false})
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Trans tr : all_trans())
          for (Diag diag : all_diags())
            for (const auto& opt : dense_factor_options()) {
              ++seed;
              const int m = seed % 2 ? 37 : 9, n = seed % 3 ? 6 : 20;
              const int ka = side == Side::Left ? m : n;
              CHostMat A = crandom_tri(ka, uplo, seed), B = crandom(m, n, seed + 3);
              CHostMat Ain = with_nan_outside(A, uplo);
              if (diag == Diag::Unit)
                for (int i = 0; i < ka; ++i) Ain(i, i) = cd(std::nan(""), 0.0);  // a unit diagonal is not read
              CDevMat<T> dA(Ain, all_layouts()[seed % 3]), dB(B, all_layouts()[(seed / 3) % 3]);
              const T a(alpha.real(), alpha.imag());
              if (solve) kspd::trsm(Exec(), side, uplo, tr, diag, a, dA.view, dB.view, opt);
              else kspd::trmm(Exec(), side, uplo, tr, diag, a, dA.view, dB.view, opt);
              CHostMat X = dB.to_host(), opA = cop(tri_part(A, uplo, diag), tr);
              // solve: check op(A) X = alpha B (Left) or X op(A) = alpha B; multiply: compare
              CHostMat lhs = solve ? (side == Side::Left ? cmatmul(opA, X) : cmatmul(X, opA)) : X;
              CHostMat rhs = solve ? B : (side == Side::Left ? cmatmul(opA, B) : cmatmul(B, opA));
              for (auto& v : rhs.a) v *= alpha;
              const std::string where = std::string(solve ? "trsm" : "trmm") + " side=" + kspd::to_char(side) +
                                        " uplo=" + kspd::to_char(uplo) + " trans=" + kspd::to_char(tr) +
                                        " diag=" + kspd::to_char(diag) + " algo=" + std::to_string(int(opt.algo)) +
                                        " leaf=" + std::to_string(opt.leaf_size) + " m=" + std::to_string(m) +
                                        " n=" + std::to_string(n);
              EXPECT_LE(cdiff(lhs, rhs) / (cnorm(rhs) + 1e-300), tol<T>(ka)) << where;
              EXPECT_TRUE(dB.padding_intact()) << where;
            }
}

TYPED_TEST(DenseComplex, PotrfPotrsBackwardError) {
  using T = TypeParam;
  unsigned seed = 900;
  for (Uplo uplo : all_uplos())
    for (int n : {0, 1, 2, 7, 8, 17, 33, 70})
      for (const auto& opt : dense_factor_options()) {
        ++seed;
        CHostMat A = crandom_hpd(n, seed);
        const int lay = int(seed % 3);
        CDevMat<T> dA(with_nan_outside(A, uplo), all_layouts()[lay]);
        const std::string where = tag("potrf", uplo, opt, n, lay);
        ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), 0) << where;
        CHostMat F = dA.to_host();
        expect_nan_outside(F, uplo, where);
        CHostMat L = tri_part(F, uplo);
        CHostMat P = uplo == Uplo::Lower ? cmatmul(L, cop(L, Trans::ConjTranspose)) : cmatmul(cop(L, Trans::ConjTranspose), L);
        EXPECT_LE(cdiff(P, A) / (cnorm(A) + 1e-300), tol<T>(n)) << where;
        for (int i = 0; i < n; ++i) EXPECT_EQ(F(i, i).imag(), 0.0) << where;
        // potrs: A X = B
        CHostMat B = crandom(n, 3, seed + 1);
        CDevMat<T> dB(B, all_layouts()[(lay + 1) % 3]);
        kspd::potrs(Exec(), uplo, dA.view, dB.view, opt);
        CHostMat AX = cmatmul(A, dB.to_host());
        EXPECT_LE(cdiff(AX, B) / (cnorm(B) + 1e-300), 10 * tol<T>(n)) << where << " (potrs)";
      }
}

TYPED_TEST(DenseComplex, PotrfReportsTheFailingColumn) {
  using T = TypeParam;
  for (Uplo uplo : all_uplos())
    for (const auto& opt : dense_factor_options())
      for (int k : {1, 9, 33, 40}) {
        const int n = 40;
        CHostMat A = crandom_hpd(n, 17 + k);
        A(k - 1, k - 1) = -1.0;
        CDevMat<T> dA(with_nan_outside(A, uplo), Layout::Left);
        EXPECT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), k) << tag("potrf-info", uplo, opt, n, 0);
      }
}

TYPED_TEST(DenseComplex, TrtriLauumPotri) {
  using T = TypeParam;
  unsigned seed = 1300;
  for (Uplo uplo : all_uplos())
    for (int n : {0, 1, 5, 17, 40})
      for (const auto& opt : dense_factor_options()) {
        ++seed;
        const int lay = int(seed % 3);
        // trtri
        for (Diag diag : all_diags()) {
          CHostMat A = crandom_tri(n, uplo, seed);
          CDevMat<T> dA(with_nan_outside(A, uplo), all_layouts()[lay]);
          const std::string where = tag("trtri", uplo, opt, n, lay) + " diag=" + kspd::to_char(diag);
          ASSERT_EQ(kspd::trtri(Exec(), uplo, diag, dA.view, opt), 0) << where;
          CHostMat W = dA.to_host();
          expect_nan_outside(W, uplo, where);
          CHostMat P = cmatmul(tri_part(W, uplo, diag), tri_part(A, uplo, diag));
          for (int i = 0; i < n; ++i) P(i, i) -= 1.0;
          EXPECT_LE(cnorm(P) / std::sqrt(double(n > 0 ? n : 1)), tol<T>(n)) << where;
        }
        // lauum: L^H L (Lower) or U U^H (Upper); as in LAPACK the diagonal is real (a
        // Cholesky factor's): ?lauum reads only its real part
        {
          CHostMat A = crandom_tri(n, uplo, seed + 5);
          for (int i = 0; i < n; ++i) A(i, i) = std::abs(A(i, i));
          CDevMat<T> dA(with_nan_outside(A, uplo), all_layouts()[lay]);
          kspd::lauum(Exec(), uplo, dA.view, opt);
          CHostMat L = tri_part(A, uplo);
          CHostMat P = uplo == Uplo::Lower ? cmatmul(cop(L, Trans::ConjTranspose), L) : cmatmul(L, cop(L, Trans::ConjTranspose));
          CHostMat X = dA.to_host();
          const std::string where = tag("lauum", uplo, opt, n, lay);
          expect_nan_outside(X, uplo, where);
          EXPECT_LE(cdiff(tri_part(X, uplo), tri_part(P, uplo)) / (cnorm(P) + 1e-300), tol<T>(n)) << where;
        }
        // potri after potrf: inv(A) A = I
        {
          CHostMat A = crandom_hpd(n, seed + 9);
          CDevMat<T> dA(with_nan_outside(A, uplo), all_layouts()[lay]);
          const std::string where = tag("potri", uplo, opt, n, lay);
          ASSERT_EQ(kspd::potrf(Exec(), uplo, dA.view, opt), 0) << where;
          ASSERT_EQ(kspd::potri(Exec(), uplo, dA.view, opt), 0) << where;
          CHostMat X = dA.to_host(), Inv(n, n);
          expect_nan_outside(X, uplo, where);
          for (int j = 0; j < n; ++j)
            for (int i = 0; i < n; ++i) Inv(i, j) = in_tri(uplo, i, j) ? X(i, j) : std::conj(X(j, i));
          CHostMat P = cmatmul(Inv, A);
          for (int i = 0; i < n; ++i) P(i, i) -= 1.0;
          EXPECT_LE(cnorm(P) / std::sqrt(double(n > 0 ? n : 1)), 10 * tol<T>(n)) << where;
        }
      }
}

TYPED_TEST(DenseComplex, HerkRejectsPlainTranspose) {
  using T = TypeParam;
  CDevMat<T> dA(crandom(4, 3, 1), Layout::Left), dC(crandom(3, 3, 2), Layout::Left);
  EXPECT_THROW(kspd::herk(Exec(), Uplo::Lower, Trans::Transpose, 1.0f, dA.view, 0.0f, dC.view), kspd::InvalidArgument);
}

}  // namespace
