// Dense BLAS-3 (gemm, syrk, syr2k, symm, trsm, trmm): every variant, both precisions,
// three layouts, all four algorithms, sizes around the recursion cutoffs, against naive
// host loops. Outputs and unread entries are poisoned with NaN.
#include <gtest/gtest.h>

#include <thread>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_test_utils.hpp"

namespace {
using namespace kspd::test;
using kspd::Algo;
using kspd::Diag;
using kspd::Side;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct DenseBlas : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(DenseBlas, ScalarTypes);

// Algorithms with the leaf used for them: a tiny cutoff makes small sizes recurse deeply.
std::vector<kspd::DenseOptions> all_options() {
  return {{Algo::Auto, 0}, {Algo::Vendor, 0}, {Algo::Recursive, 8}, {Algo::Native, 8}, {Algo::Recursive, 0}};
}
const char* algo_name(Algo a) {
  return a == Algo::Auto ? "Auto" : a == Algo::Vendor ? "Vendor" : a == Algo::Recursive ? "Recursive" : "Native";
}

template <class T>
void check_trxm(bool solve, Side side, Uplo uplo, Trans trans, Diag diag, kspd::size_type m, kspd::size_type n,
                Layout la, Layout lb, const kspd::DenseOptions& opt, unsigned seed) {
  const kspd::size_type k = side == Side::Left ? m : n;
  const double alpha = 1.5;
  HostMat A = random_triangular(k, uplo, diag, seed);
  HostMat B = random_matrix(m, n, seed + 1);
  DevMat<T> dA(A, la), dB(B, lb);
  Exec exec;
  if (solve)
    kspd::trsm(exec, side, uplo, trans, diag, T(alpha), dA.view, dB.view, opt);
  else
    kspd::trmm(exec, side, uplo, trans, diag, T(alpha), dA.view, dB.view, opt);
  HostMat X = dB.to_host();
  HostMat At(k, k);
  for (kspd::size_type j = 0; j < k; ++j)
    for (kspd::size_type i = 0; i < k; ++i) At(i, j) = tri_at(A, uplo, diag, i, j);
  const bool t = kspd::is_trans(trans);
  std::string where = std::string(solve ? "trsm" : "trmm") + " side=" + kspd::to_char(side) +
                      " uplo=" + kspd::to_char(uplo) + " trans=" + kspd::to_char(trans) + " diag=" +
                      kspd::to_char(diag) + " m=" + std::to_string(m) + " n=" + std::to_string(n) + " A:" +
                      name(la) + " B:" + name(lb) + " algo=" + algo_name(opt.algo) + " leaf=" +
                      std::to_string(opt.leaf_size);
  for (double v : X.a) ASSERT_TRUE(std::isfinite(v)) << where;
  if (solve) {  // residual of op(A) X = alpha B
    HostMat R = side == Side::Left ? matmul(At, t, X, false) : matmul(X, false, At, t);
    HostMat aB = B;
    for (auto& v : aB.a) v *= alpha;
    const double err = diff_fro(R, aB) / (norm_fro(At) * norm_fro(X) + norm_fro(aB) + 1e-300);
    EXPECT_LE(err, tolerance<T>(k)) << where;
  } else {
    HostMat R = side == Side::Left ? matmul(At, t, B, false) : matmul(B, false, At, t);
    for (auto& v : R.a) v *= alpha;
    const double err = diff_fro(R, X) / (norm_fro(At) * norm_fro(B) + 1e-300);
    EXPECT_LE(err, tolerance<T>(k)) << where;
  }
  EXPECT_TRUE(dB.padding_intact()) << where;
}

const std::vector<std::pair<int, int>> kSizes = {{0, 3}, {1, 1}, {3, 2}, {8, 8}, {17, 5}, {33, 16}, {64, 7}, {65, 65}, {130, 9}};

TYPED_TEST(DenseBlas, TrsmTrmmAllVariantsMatchReference) {
  unsigned seed = 100;
  for (bool solve : {true, false})
    for (auto side : all_sides())
      for (auto uplo : all_uplos())
        for (auto trans : all_trans())
          for (auto diag : all_diags())
            for (auto [m, n] : kSizes)
              for (const auto& opt : all_options()) {
                const Layout la = all_layouts()[seed % 3], lb = all_layouts()[(seed / 3) % 3];
                check_trxm<TypeParam>(solve, side, uplo, trans, diag, m, n, la, lb, opt, ++seed);
              }
}

TYPED_TEST(DenseBlas, TrsmLargeDefaultCutoffs) {
  // Sizes past the native default leaf (64) so the default recursion runs.
  unsigned seed = 7;
  for (auto side : all_sides())
    for (auto uplo : all_uplos())
      for (auto trans : {Trans::NoTranspose, Trans::Transpose})
        for (auto algo : {Algo::Recursive, Algo::Native})
          check_trxm<TypeParam>(true, side, uplo, trans, Diag::NonUnit, 257, 33, Layout::Left, Layout::Padded,
                                {algo, 0}, ++seed);
}

TEST(DenseBlasTall, TrsmTrmmManyRowsFewRightHandSides) {
  // Tall problems (rows >= 2048, few right-hand sides) at the default cutoffs: several levels of
  // recursion on every backend, each side/uplo/trans combination once.
  unsigned seed = 77;
  int k = 0;
  for (bool solve : {true, false})
    for (auto side : all_sides()) {
      // uplo and trans cycle through all four combinations across the four cases
      const Uplo uplo = (k & 1) ? Uplo::Upper : Uplo::Lower;
      const Trans trans = ((k + (k >> 1)) & 1) ? Trans::Transpose : Trans::NoTranspose;
      ++k;
      const int big = 2100, rhs = 130;
      const int m = side == Side::Left ? big : rhs, n = side == Side::Left ? rhs : big;
      check_trxm<double>(solve, side, uplo, trans, Diag::NonUnit, m, n, Layout::Left, Layout::Padded,
                         {Algo::Recursive, 0}, ++seed);
    }
}

template <class T>
void check_gemm(Trans ta, Trans tb, int m, int n, int k, double beta, Layout l, unsigned seed) {
  const bool tA = kspd::is_trans(ta), tB = kspd::is_trans(tb);
  HostMat A = random_matrix(tA ? k : m, tA ? m : k, seed), B = random_matrix(tB ? n : k, tB ? k : n, seed + 1);
  HostMat C = random_matrix(m, n, seed + 2);
  if (beta == 0) for (auto& v : C.a) v = std::nan("");  // beta = 0 must not read C
  DevMat<T> dA(A, l), dB(B, all_layouts()[(seed + 1) % 3]), dC(C, all_layouts()[(seed + 2) % 3]);
  kspd::gemm(Exec(), ta, tb, T(0.75), dA.view, dB.view, T(beta), dC.view);
  HostMat R = matmul(A, tA, B, tB);
  for (size_t i = 0; i < R.a.size(); ++i) R.a[i] = 0.75 * R.a[i] + (beta == 0 ? 0.0 : beta * C.a[i]);
  HostMat X = dC.to_host();
  const double err = diff_fro(R, X) / (norm_fro(A) * norm_fro(B) + norm_fro(R) + 1e-300);
  EXPECT_LE(err, tolerance<T>(k + 1)) << "gemm " << kspd::to_char(ta) << kspd::to_char(tb) << " " << m << "x" << n
                                      << "x" << k << " beta=" << beta;
  EXPECT_TRUE(dC.padding_intact());
}

TYPED_TEST(DenseBlas, GemmAllTransposesAndLayouts) {
  unsigned seed = 1;
  for (auto ta : all_trans())
    for (auto tb : all_trans())
      for (auto l : all_layouts())
        for (double beta : {0.0, 0.5})
          for (auto [m, n, k] : std::vector<std::tuple<int, int, int>>{{0, 2, 3}, {4, 0, 1}, {3, 3, 0}, {1, 1, 1}, {7, 5, 9}, {33, 17, 64}})
            check_gemm<TypeParam>(ta, tb, m, n, k, beta, l, seed++);
}

// syrk/syr2k: the uplo triangle against the reference; the other triangle keeps its poison.
template <class T>
void check_syrk(bool two, Uplo uplo, Trans trans, int n, int k, double beta, const kspd::DenseOptions& opt,
                unsigned seed) {
  const bool t = kspd::is_trans(trans);
  HostMat A = random_matrix(t ? k : n, t ? n : k, seed), B = random_matrix(t ? k : n, t ? n : k, seed + 1);
  HostMat C = random_matrix(n, n, seed + 2);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i)
      if ((uplo == Uplo::Lower ? i < j : i > j) || beta == 0) C(i, j) = std::nan("");
  DevMat<T> dA(A, all_layouts()[seed % 3]), dB(B, all_layouts()[seed % 3]), dC(C, all_layouts()[(seed / 3) % 3]);
  if (two)
    kspd::syr2k(Exec(), uplo, trans, T(0.5), dA.view, dB.view, T(beta), dC.view, opt);
  else
    kspd::syrk(Exec(), uplo, trans, T(0.5), dA.view, T(beta), dC.view, opt);
  HostMat R = matmul(A, t, two ? B : A, !t);
  if (two) {
    HostMat R2 = matmul(B, t, A, !t);
    for (size_t i = 0; i < R.a.size(); ++i) R.a[i] += R2.a[i];
  }
  HostMat X = dC.to_host();
  double num = 0;
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) {
      const bool in = uplo == Uplo::Lower ? i >= j : i <= j;
      if (!in) {
        EXPECT_TRUE(std::isnan(X(i, j))) << "syrk wrote outside its triangle at " << i << "," << j;
        continue;
      }
      const double ref = 0.5 * R(i, j) + (beta == 0 ? 0.0 : beta * C(i, j));
      num = std::max(num, std::fabs(ref - X(i, j)));
    }
  double cnorm = 0;  // the finite (triangle) part of C
  for (double v : C.a) cnorm += std::isfinite(v) ? v * v : 0.0;
  const double scale = norm_fro(A) * norm_fro(two ? B : A) + (beta == 0 ? 0.0 : std::sqrt(cnorm)) + 1e-300;
  EXPECT_LE(num / scale, tolerance<T>(k + 1)) << (two ? "syr2k" : "syrk") << " uplo=" << kspd::to_char(uplo)
                                              << " trans=" << kspd::to_char(trans) << " n=" << n << " k=" << k
                                              << " algo=" << algo_name(opt.algo);
}

TYPED_TEST(DenseBlas, SyrkSyr2kAllVariants) {
  unsigned seed = 11;
  for (bool two : {false, true})
    for (auto uplo : all_uplos())
      for (auto trans : {Trans::NoTranspose, Trans::Transpose})
        for (auto [n, k] : std::vector<std::pair<int, int>>{{0, 3}, {1, 1}, {5, 0}, {9, 4}, {17, 33}, {65, 8}, {130, 20}})
          for (double beta : {0.0, -1.0})
            for (const auto& opt : all_options()) check_syrk<TypeParam>(two, uplo, trans, n, k, beta, opt, ++seed);
}

TYPED_TEST(DenseBlas, SymmAllVariants) {
  unsigned seed = 21;
  for (auto side : all_sides())
    for (auto uplo : all_uplos())
      for (auto [m, n] : std::vector<std::pair<int, int>>{{0, 2}, {1, 1}, {7, 3}, {16, 16}, {33, 5}, {65, 31}})
        for (const auto& opt : all_options()) {
          ++seed;
          const int k = side == Side::Left ? m : n;
          HostMat S = random_matrix(k, k, seed);
          HostMat Sfull(k, k);
          for (int j = 0; j < k; ++j)
            for (int i = 0; i < k; ++i) {
              const bool in = uplo == Uplo::Lower ? i >= j : i <= j;
              Sfull(i, j) = in ? S(i, j) : S(j, i);
              if (!in) S(i, j) = std::nan("");  // the other triangle must not be read
            }
          HostMat B = random_matrix(m, n, seed + 1), C = random_matrix(m, n, seed + 2);
          DevMat<TypeParam> dA(S, all_layouts()[seed % 3]), dB(B, all_layouts()[(seed + 1) % 3]),
              dC(C, all_layouts()[(seed + 1) % 3]);
          kspd::symm(Exec(), side, uplo, TypeParam(2), dA.view, dB.view, TypeParam(0.5), dC.view, opt);
          HostMat R = side == Side::Left ? matmul(Sfull, false, B, false) : matmul(B, false, Sfull, false);
          for (size_t i = 0; i < R.a.size(); ++i) R.a[i] = 2 * R.a[i] + 0.5 * C.a[i];
          const double err = diff_fro(R, dC.to_host()) / (norm_fro(Sfull) * norm_fro(B) + norm_fro(C) + 1e-300);
          EXPECT_LE(err, tolerance<TypeParam>(k + 1)) << "symm side=" << kspd::to_char(side) << " uplo="
                                                      << kspd::to_char(uplo) << " " << m << "x" << n
                                                      << " algo=" << algo_name(opt.algo);
        }
}

TEST(DenseBlasErrors, DimensionMismatchNamesTheShapes) {
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> A("A", 4, 4), B("B", 5, 3), C("C", 4, 3), R("R", 4, 5);
  Exec exec;
  EXPECT_THROW(kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, A, B),
               kspd::DimensionMismatch);
  EXPECT_THROW(kspd::trmm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, R, C),
               kspd::DimensionMismatch);
  EXPECT_THROW(kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A, B, 0.0, C), kspd::DimensionMismatch);
  EXPECT_THROW(kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, 1.0, B, 0.0, A), kspd::DimensionMismatch);
  try {
    kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A, B, 0.0, C);
  } catch (const kspd::Error& e) {
    EXPECT_NE(std::string(e.what()).find("op(B) is 5 x 3"), std::string::npos) << e.what();
  }
}

TEST(DenseBlasTypes, LayoutLeftAndRightViewsWork) {
  // The same call with plain LayoutLeft and LayoutRight View types (not only LayoutStride).
  const int n = 40, r = 7;
  HostMat A = random_triangular(n, Uplo::Upper, Diag::NonUnit, 5), B = random_matrix(n, r, 6);
  Kokkos::View<double**, Kokkos::LayoutLeft, Mem> Al("Al", n, n), Bl("Bl", n, r);
  Kokkos::View<double**, Kokkos::LayoutRight, Mem> Ar("Ar", n, n), Br("Br", n, r);
  auto hAl = Kokkos::create_mirror_view(Al);
  auto hBl = Kokkos::create_mirror_view(Bl);
  auto hAr = Kokkos::create_mirror_view(Ar);
  auto hBr = Kokkos::create_mirror_view(Br);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) hAl(i, j) = hAr(i, j) = A(i, j);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < n; ++i) hBl(i, j) = hBr(i, j) = B(i, j);
  Kokkos::deep_copy(Al, hAl);
  Kokkos::deep_copy(Bl, hBl);
  Kokkos::deep_copy(Ar, hAr);
  Kokkos::deep_copy(Br, hBr);
  Exec exec;
  kspd::trsm(exec, Side::Left, Uplo::Upper, Trans::Transpose, Diag::NonUnit, 1.0, Al, Bl);
  kspd::trsm(exec, Side::Left, Uplo::Upper, Trans::Transpose, Diag::NonUnit, 1.0, Ar, Br);
  Kokkos::deep_copy(hBl, Bl);
  Kokkos::deep_copy(hBr, Br);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < n; ++i) EXPECT_NEAR(hBl(i, j), hBr(i, j), 1e-12);
  HostMat X(n, r);
  for (int j = 0; j < r; ++j)
    for (int i = 0; i < n; ++i) X(i, j) = hBl(i, j);
  HostMat At(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) At(i, j) = tri_at(A, Uplo::Upper, Diag::NonUnit, i, j);
  EXPECT_LE(diff_fro(matmul(At, true, X, false), B) / norm_fro(B), 1e-12);
}
TEST(DenseBlasThreads, CallsFromThreadsThatExitBeforeFinalize) {
  // The sparse solver's workers call the backend from their own threads and exit before
  // Kokkos::finalize; on CUDA builds each thread gets its own cuBLAS/cuSOLVER handles, which
  // must be released at thread exit (a dangling registry entry crashed finalize once).
  const int n = 37;
  HostMat A = random_matrix(n, n, 11), B = random_matrix(n, n, 12);
  const HostMat ref = matmul(A, false, B, true);
  std::vector<HostMat> out(3, HostMat(n, n));
  for (int t = 0; t < 3; ++t) {  // one at a time: a Serial instance is not for concurrent use
    std::thread worker([&, t] {
      DevMat<double> dA(A, Layout::Left), dB(B, Layout::Padded), dC(random_matrix(n, n, 13 + t), Layout::Left);
      Exec exec;
      kspd::gemm(exec, Trans::NoTranspose, Trans::Transpose, 1.0, dA.view, dB.view, 0.0, dC.view);
      out[size_t(t)] = dC.to_host();
    });
    worker.join();
  }
  for (int t = 0; t < 3; ++t) EXPECT_LE(diff_fro(out[size_t(t)], ref) / norm_fro(ref), 1e-13) << "thread " << t;
  // and the main thread's handles still work afterwards
  DevMat<double> dA(A, Layout::Left), dB(B, Layout::Left), dC(random_matrix(n, n, 20), Layout::Left);
  kspd::gemm(Exec(), Trans::NoTranspose, Trans::Transpose, 1.0, dA.view, dB.view, 0.0, dC.view);
  EXPECT_LE(diff_fro(dC.to_host(), ref) / norm_fro(ref), 1e-13);
}
}  // namespace
