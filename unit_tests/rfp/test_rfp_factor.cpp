// pftrf, pftrs, pfsv, tftri, pftri, pfcon: every variant and size of the issue, both
// precisions, against LAPACK's own ?pftrf/?pftrs/?tftri/?pftri on the same RFP buffer and
// against dense host references (backward errors, residuals); info of non-SPD / singular
// inputs mapped to the global 1-based column.
#include <set>

#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;
using kspd::Diag;
using kspd::Uplo;

template <class T>
struct RfpFactor : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RfpFactor, ScalarTypes);

/// The lower triangle L of the factor in an RFP buffer (U = L^T for uplo Upper).
template <class T>
HostMat lower_from_rfp(const std::vector<T>& arf, int n, const Variant& v) {
  const auto L = kspd::rfp::make_layout(n, v.transr, v.uplo);
  HostMat F(n, n);
  for (int j = 0; j < n; ++j)
    for (int i = j; i < n; ++i) F(i, j) = double(arf[size_t(L.index(i, j))]);
  return F;
}
char tr(const Variant& v) { return kspd::to_char(v.transr); }
char ul(const Variant& v) { return kspd::to_char(v.uplo); }

TYPED_TEST(RfpFactor, PftrfMatchesLapackAndBackwardError) {
  using T = TypeParam;
  unsigned seed = 1000;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      HostMat A = random_spd(n, ++seed);
      auto ref = lapack_rfp<T>(A, v);
      auto R = device_rfp(ref, n, v);
      int linfo = 0;
      lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
      ASSERT_EQ(linfo, 0) << where;
      ASSERT_EQ(kspd::rfp::pftrf(Exec(), R), 0) << where;
      const auto got = host_rfp(R);
      EXPECT_LE(max_rel_diff(got, ref, 1.0 + max_abs(A)), tolerance<T>(n)) << "vs LAPACK pftrf " << where;
      HostMat L = lower_from_rfp(got, n, v);
      HostMat LLt = matmul(L, false, L, true);
      EXPECT_LE(diff_fro(LLt, A) / (norm_fro(A) + 1e-300), tolerance<T>(n)) << "backward error " << where;
    }
}

TYPED_TEST(RfpFactor, PftrfReportsTheGlobalColumn) {
  using T = TypeParam;
  for (int n : {1, 2, 7, 8, 33, 64})
    for (const auto& v : all_variants()) {
      const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
      for (int k : {1, int(lay.n1), int(lay.n1) + 1, n - 1, n}) {
        if (k < 1 || k > n) continue;
        HostMat A = random_spd(n, 77 + k + n);
        A(k - 1, k - 1) = -1.0;  // minors 1..k-1 stay positive definite, minor k fails
        auto ref = lapack_rfp<T>(A, v);
        auto R = device_rfp(ref, n, v);
        int linfo = 0;
        lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
        EXPECT_EQ(linfo, k) << "LAPACK " << name(v, n);
        EXPECT_EQ(kspd::rfp::pftrf(Exec(), R), k) << name(v, n) << " k=" << k;
        // pfsv returns the same info and leaves B alone.
        auto R2 = device_rfp(lapack_rfp<T>(A, v), n, v);
        HostMat B = random_matrix(n, 2, 5);
        auto dB = device_dense<T>(B);
        EXPECT_EQ(kspd::rfp::pfsv(Exec(), R2, dB), k) << name(v, n);
        EXPECT_EQ(diff_fro(host_dense(dB), HostMat(host_dense(device_dense<T>(B)))), 0.0) << name(v, n);
        EXPECT_THROW(kspd::require_spd(k, "pftrf"), kspd::NotPositiveDefinite);
      }
    }
}

TYPED_TEST(RfpFactor, PftrsAndPfsvSolve) {
  using T = TypeParam;
  unsigned seed = 2000;
  for (int n : sizes())
    for (const auto& v : all_variants())
      for (int nrhs : {1, 5}) {
        const auto lay_b = all_layouts()[seed % 3];
        const std::string where = name(v, n) + " nrhs=" + std::to_string(nrhs) + " B " + kspd::test::name(lay_b);
        HostMat A = random_spd(n, ++seed);
        HostMat B = random_matrix(n, nrhs, seed + 7);
        auto ref = lapack_rfp<T>(A, v);
        int linfo = 0;
        lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
        // Our solve with LAPACK's factor (interoperability) against LAPACK's solve.
        auto F = device_rfp(ref, n, v);
        DevMat<T> dB(B, lay_b);
        kspd::rfp::pftrs(Exec(), F, dB.view);
        HostMat X = dB.to_host();
        auto lb = to_vec<T>(B);
        lapack_pftrs(tr(v), ul(v), n, nrhs, ref.data(), lb.data(), n > 0 ? n : 1, &linfo);
        ASSERT_EQ(linfo, 0);
        double dmax = 0, xmax = 1e-300;
        for (size_t i = 0; i < lb.size(); ++i) {
          dmax = std::max(dmax, std::fabs(X.a[i] - double(lb[i])));
          xmax = std::max(xmax, std::fabs(double(lb[i])));
        }
        EXPECT_LE(dmax / xmax, tolerance<T>(n, 100)) << "pftrs vs LAPACK " << where;
        EXPECT_TRUE(dB.padding_intact()) << where;
        // pfsv from the unfactored matrix: residual ||A X - B|| / (||A|| ||X|| + ||B||).
        auto R = device_rfp(lapack_rfp<T>(A, v), n, v);
        DevMat<T> dB2(B, lay_b);
        ASSERT_EQ(kspd::rfp::pfsv(Exec(), R, dB2.view), 0) << where;
        HostMat X2 = dB2.to_host();
        HostMat AX = matmul(A, false, X2, false);
        EXPECT_LE(diff_fro(AX, B) / (norm_fro(A) * norm_fro(X2) + norm_fro(B) + 1e-300), tolerance<T>(n))
            << "pfsv residual " << where;
      }
}

TYPED_TEST(RfpFactor, TftriMatchesLapack) {
  using T = TypeParam;
  unsigned seed = 3000;
  for (int n : sizes())
    for (const auto& v : all_variants())
      for (auto diag : all_diags()) {
        const std::string where = name(v, n) + " diag=" + kspd::to_char(diag);
        HostMat Tm = random_triangular(n, v.uplo, diag, ++seed);  // NaN outside the triangle
        auto ref = lapack_rfp<T>(Tm, v);
        auto R = device_rfp(ref, n, v);
        int linfo = 0;
        lapack_tftri(tr(v), ul(v), kspd::to_char(diag), n, ref.data(), &linfo);
        ASSERT_EQ(linfo, 0) << where;
        ASSERT_EQ(kspd::rfp::tftri(Exec(), diag, R), 0) << where;
        const auto got = host_rfp(R);
        const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
        double dmax = 0;
        for (int i = 0; i < n; ++i) {
          if (diag == Diag::Unit) ASSERT_TRUE(std::isnan(double(got[size_t(lay.diag(i))]))) << "diagonal read/written " << where;
          for (int j = 0; j < n; ++j) {
            if (i == j && diag == Diag::Unit) continue;
            const auto p = size_t(lay.index(i, j));
            dmax = std::max(dmax, std::fabs(double(got[p]) - double(ref[p])));
          }
        }
        EXPECT_LE(dmax, tolerance<T>(n, 50)) << "tftri vs LAPACK " << where;  // |inv| = O(1) here
        // inv(T) T = I on the host.
        HostMat Tt(n, n), W(n, n);
        for (int j = 0; j < n; ++j)
          for (int i = 0; i < n; ++i) {
            const bool in = v.uplo == Uplo::Lower ? i > j : i < j;
            Tt(i, j) = i == j ? (diag == Diag::Unit ? 1.0 : Tm(i, j)) : in ? Tm(i, j) : 0.0;
            W(i, j) = i == j ? (diag == Diag::Unit ? 1.0 : double(got[size_t(lay.diag(i))]))
                      : in   ? double(got[size_t(lay.index(i, j))])
                             : 0.0;
          }
        HostMat P = matmul(W, false, Tt, false);
        for (int i = 0; i < n; ++i) P(i, i) -= 1.0;
        EXPECT_LE(norm_fro(P), tolerance<T>(n, 50) * std::sqrt(double(n))) << "inv(T) T - I " << where;
      }
}

TYPED_TEST(RfpFactor, TftriReportsZeroDiagonal) {
  using T = TypeParam;
  for (int n : {5, 8})
    for (const auto& v : all_variants())
      for (int k : {1, 3, n}) {
        HostMat Tm = random_triangular(n, v.uplo, Diag::NonUnit, 9 + k);
        Tm(k - 1, k - 1) = 0.0;
        auto R = device_rfp(lapack_rfp<T>(Tm, v), n, v);
        auto ref = lapack_rfp<T>(Tm, v);
        int linfo = 0;
        lapack_tftri(tr(v), ul(v), 'N', n, ref.data(), &linfo);
        EXPECT_EQ(linfo, k);
        EXPECT_EQ(kspd::rfp::tftri(Exec(), Diag::NonUnit, R), k) << name(v, n);
      }
}

TYPED_TEST(RfpFactor, PftriMatchesLapackAndInverts) {
  using T = TypeParam;
  unsigned seed = 4000;
  for (int n : sizes())
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      HostMat A = random_spd(n, ++seed);
      auto ref = lapack_rfp<T>(A, v);
      int linfo = 0;
      lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
      auto R = device_rfp(ref, n, v);
      lapack_pftri(tr(v), ul(v), n, ref.data(), &linfo);
      ASSERT_EQ(linfo, 0) << where;
      ASSERT_EQ(kspd::rfp::pftri(Exec(), R), 0) << where;
      const auto got = host_rfp(R);
      HostMat Ainv = full_from_rfp(got, n, v);
      EXPECT_LE(max_rel_diff(got, ref, 1.0 + max_abs(Ainv)), tolerance<T>(n, 50)) << "vs LAPACK pftri " << where;
      HostMat P = matmul(A, false, Ainv, false);
      for (int i = 0; i < n; ++i) P(i, i) -= 1.0;
      EXPECT_LE(norm_fro(P) / (norm_fro(A) * norm_fro(Ainv) + 1e-300), tolerance<T>(n)) << "A inv(A) - I " << where;
    }
}

TYPED_TEST(RfpFactor, PfconMatchesPoconAndBoundsTheTruth) {
  using T = TypeParam;
  unsigned seed = 5000;
  for (int n : {1, 2, 3, 8, 17, 33, 64, 129})
    for (const auto& v : all_variants()) {
      const std::string where = name(v, n);
      HostMat A = random_spd(n, ++seed);
      for (int i = 0; i < n; ++i) A(i, i) += 0.01 * i;  // spread the spectrum a little
      auto R = device_rfp(lapack_rfp<T>(A, v), n, v);
      const T anorm = kspd::rfp::lansf(Exec(), kspd::Norm::One, R);
      ASSERT_EQ(kspd::rfp::pftrf(Exec(), R), 0) << where;
      const T rc = kspd::rfp::pfcon(Exec(), R, anorm);
      // LAPACK's ?pocon on the dense factor runs the same estimator.
      int info = 0;
      char u = 'L';
      HostMat Fd = lower_from_rfp(host_rfp(R), n, v);
      auto f = to_vec<T>(Fd);
      std::vector<T> work(size_t(3 * n));
      std::vector<int> iwork(static_cast<size_t>(n));
      T rc_lapack = 0;
      const T an = anorm;
      if constexpr (std::is_same<T, double>::value)
        dpocon_(&u, &n, f.data(), &n, &an, &rc_lapack, work.data(), iwork.data(), &info, 1);
      else
        spocon_(&u, &n, f.data(), &n, &an, &rc_lapack, work.data(), iwork.data(), &info, 1);
      ASSERT_EQ(info, 0);
      EXPECT_NEAR(double(rc), double(rc_lapack), 1e-2 * double(rc_lapack)) << where;
      // The estimate of ||inv(A)||_1 is a lower bound: rcond_est >= rcond_true, and close.
      HostMat I(n, n);
      for (int i = 0; i < n; ++i) I(i, i) = 1.0;
      auto Ad = device_rfp(lapack_rfp<T>(A, v), n, v);
      auto dI = device_dense<T>(I);
      ASSERT_EQ(kspd::rfp::pfsv(Exec(), Ad, dI), 0);
      HostMat Ainv = host_dense(dI);
      double inv1 = 0, a1 = 0;
      for (int j = 0; j < n; ++j) {
        double s = 0, t = 0;
        for (int i = 0; i < n; ++i) {
          s += std::fabs(Ainv(i, j));
          t += std::fabs(A(i, j));
        }
        inv1 = std::max(inv1, s);
        a1 = std::max(a1, t);
      }
      const double truth = 1.0 / (a1 * inv1);
      EXPECT_GE(double(rc), truth * (1 - 1e-3)) << where;
      EXPECT_LE(double(rc), 3.0 * truth) << where;
    }
}

// The recursive and native (no TPL) paths of the core layer on the strided, transposed block
// views: what CUDA runs for large blocks (recursive TRSM/TRMM/LAUUM) and what non-CUDA
// GPUs run everywhere (native).
TYPED_TEST(RfpFactor, RecursiveAndNativePathsMatchLapack) {
  using T = TypeParam;
  unsigned seed = 6000;
  // the last four: the upper-stored diagonal block through the transposed copy in 'L'
  const kspd::Toggle on = kspd::Toggle::On;
  for (const kspd::DenseOptions opt :
       {kspd::DenseOptions{kspd::Algo::Recursive, 8}, kspd::DenseOptions{kspd::Algo::Native, 8},
        kspd::DenseOptions{kspd::Algo::Auto, 0, kspd::Blocking::Auto, 0, on},
        kspd::DenseOptions{kspd::Algo::Recursive, 8, kspd::Blocking::Auto, 0, on},
        // and pftri's trtri / lauum as one trsm / trmm on a workspace
        kspd::DenseOptions{kspd::Algo::Auto, 0, kspd::Blocking::Auto, 0, kspd::Toggle::Off, on},
        kspd::DenseOptions{kspd::Algo::Auto, 0, kspd::Blocking::Auto, 0, on, on}})
    for (int n : {1, 2, 17, 33, 64, 65, 129})
      for (const auto& v : all_variants()) {
        const std::string where = name(v, n) + " algo=" + std::to_string(int(opt.algo)) +
                                  " upper_via_lower=" + std::to_string(int(opt.upper_via_lower)) +
                                  " blas3_inverse=" + std::to_string(int(opt.blas3_inverse));
        HostMat A = random_spd(n, ++seed);
        auto ref = lapack_rfp<T>(A, v);
        auto R = device_rfp(ref, n, v);
        int linfo = 0;
        lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
        ASSERT_EQ(kspd::rfp::pftrf(Exec(), R, opt), 0) << where;
        EXPECT_LE(max_rel_diff(host_rfp(R), ref, 1.0 + max_abs(A)), tolerance<T>(n)) << "pftrf " << where;
        HostMat B = random_matrix(n, 3, seed);
        auto dB = device_dense<T>(B);
        kspd::rfp::pftrs(Exec(), R, dB, opt);
        HostMat X = host_dense(dB);
        EXPECT_LE(diff_fro(matmul(A, false, X, false), B) / (norm_fro(A) * norm_fro(X) + norm_fro(B) + 1e-300),
                  tolerance<T>(n))
            << "pftrs " << where;
        // tfsm, right side with the transposed triangle, against LAPACK on the same factor.
        HostMat C = random_matrix(2, n, seed + 1);
        auto dC = device_dense<T>(C);
        kspd::rfp::tfsm(Exec(), kspd::Side::Right, kspd::Trans::Transpose, Diag::NonUnit, T(0.5), R, dC, opt);
        auto c = to_vec<T>(C);
        lapack_tfsm(tr(v), 'R', ul(v), 'T', 'N', 2, n, T(0.5), ref.data(), c.data(), 2);
        HostMat Cx = host_dense(dC);
        double d = 0, m = 1e-300;
        for (size_t i = 0; i < c.size(); ++i) {
          d = std::max(d, std::fabs(Cx.a[i] - double(c[i])));
          m = std::max(m, std::fabs(double(c[i])));
        }
        EXPECT_LE(d / m, tolerance<T>(n, 100)) << "tfsm " << where;
        lapack_pftri(tr(v), ul(v), n, ref.data(), &linfo);
        ASSERT_EQ(kspd::rfp::pftri(Exec(), R, opt), 0) << where;
        HostMat Ainv = full_from_rfp(ref, n, v);
        EXPECT_LE(max_rel_diff(host_rfp(R), ref, 1.0 + max_abs(Ainv)), tolerance<T>(n, 50)) << "pftri " << where;
        // sfrk through the same paths.
        HostMat Xk = random_matrix(n, 5, seed + 2);
        auto dX = device_dense<T>(Xk);
        auto sref = lapack_rfp<T>(A, v);
        auto S = device_rfp(sref, n, v);
        kspd::rfp::sfrk(Exec(), kspd::Trans::NoTranspose, T(0.3), dX, T(0.5), S, opt);
        auto xk = to_vec<T>(Xk);
        lapack_sfrk(tr(v), ul(v), 'N', n, 5, T(0.3), xk.data(), n, T(0.5), sref.data());
        EXPECT_LE(max_rel_diff(host_rfp(S), sref, 1.0 + max_abs(A)), tolerance<T>(8)) << "sfrk " << where;
      }
}

/// pftrf of the SPD matrix A (variant v, options opt) against LAPACK's pftrf on the same RFP
/// buffer, and its backward error ||L L^T - A|| / ||A||.
template <class T>
void check_pftrf(const HostMat& A, int n, const Variant& v, const kspd::DenseOptions& opt, const std::string& where) {
  auto ref = lapack_rfp<T>(A, v);
  auto R = device_rfp(ref, n, v);
  int linfo = 0;
  lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
  ASSERT_EQ(linfo, 0) << where;
  ASSERT_EQ(kspd::rfp::pftrf(Exec(), R, opt), 0) << where;
  const auto got = host_rfp(R);
  EXPECT_LE(max_rel_diff(got, ref, 1.0 + max_abs(A)), tolerance<T>(n)) << "vs LAPACK pftrf " << where;
  HostMat L = lower_from_rfp(got, n, v);
  EXPECT_LE(diff_fro(matmul(L, false, L, true), A) / (norm_fro(A) + 1e-300), tolerance<T>(n))
      << "backward error " << where;
}
/// A with its k-th pivot made negative: LAPACK's pftrf and kspd's both report info k.
template <class T>
void check_pftrf_fails_at(HostMat A, int n, const Variant& v, const kspd::DenseOptions& opt, int k,
                          const std::string& where) {
  A(k - 1, k - 1) = -1.0;
  auto ref = lapack_rfp<T>(A, v);
  auto R = device_rfp(ref, n, v);
  int linfo = 0;
  lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
  ASSERT_EQ(linfo, k) << "LAPACK " << where;
  EXPECT_EQ(kspd::rfp::pftrf(Exec(), R, opt), k) << where << " k=" << k;
}

// pftrf's blockings forced: LAPACK's four calls, the blocked Cholesky across the RFP blocks
// and its look-ahead (a second instance on CUDA), block sizes that divide neither half, 1 (a
// step per column) and one larger than both halves; the vendor and native leaves.
TYPED_TEST(RfpFactor, BlockedPftrfMatchesLapack) {
  using T = TypeParam;
  using B = kspd::Blocking;
  unsigned seed = 7000;
  std::vector<kspd::DenseOptions> opts;
  for (B b : {B::Split, B::Blocked, B::LookAhead})
    for (long long nb : {1, 3, 8, 16, 1000})
      if (b != B::Split || nb == 1000) opts.push_back({kspd::Algo::Auto, 0, b, nb});
  opts.push_back({kspd::Algo::Native, 8, B::LookAhead, 8});
  // the dense workspace: unpacked (upper ones transposed), one potrf 'L', packed back
  opts.push_back({kspd::Algo::Auto, 0, B::Dense, 0});
  opts.push_back({kspd::Algo::Native, 8, B::Dense, 0});
  // every diagonal block (and panel potrf) of an upper-stored half through the transposed copy
  opts.push_back({kspd::Algo::Auto, 0, B::Split, 0, kspd::Toggle::On});
  opts.push_back({kspd::Algo::Auto, 0, B::LookAhead, 16, kspd::Toggle::On});
  for (const auto& opt : opts)
    for (int n : {1, 2, 7, 8, 17, 33, 64, 65, 129})
      for (const auto& v : all_variants()) {
        const std::string where = name(v, n) + " algo=" + std::to_string(int(opt.algo)) +
                                  " blocking=" + std::to_string(int(opt.blocking)) + "/" + std::to_string(opt.block_size);
        check_pftrf<T>(random_spd(n, ++seed), n, v, opt, where);
      }
  // non-SPD: the failing minor in the first block, at a block edge, in the second half
  for (const auto& opt : opts)
    for (int n : {7, 8, 33, 64})
      for (const auto& v : all_variants()) {
        const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
        for (int k : {1, 3, 4, 9, int(lay.n1), int(lay.n1) + 1, int(lay.n1) + 4, n}) {
          if (k < 1 || k > n) continue;
          check_pftrf_fails_at<T>(random_spd(n, 91 + k + n), n, v, opt, k,
                                  name(v, n) + " blocking=" + std::to_string(int(opt.blocking)) + "/" +
                                      std::to_string(opt.block_size));
        }
      }
}

// The nb-column steps at the panel edges (issue #14): n and each RFP half at nb - 1, nb,
// nb + 1 and 2 nb + 1 columns, blocked and with look-ahead (the urgent second lane on CUDA),
// upper-stored panels in 'U' and through the kept transposed copy (Auto is the copy on CUDA),
// and a non-SPD minor at each panel's first and last column.
TYPED_TEST(RfpFactor, BlockedPftrfAtPanelBoundaries) {
  using T = TypeParam;
  using B = kspd::Blocking;
  unsigned seed = 9000;
  for (long long nb : {8, 16})
    for (B b : {B::Blocked, B::LookAhead})
      for (kspd::Toggle up : {kspd::Toggle::Auto, kspd::Toggle::On}) {  // On: upper panels via the kept copy
      const kspd::DenseOptions opt{kspd::Algo::Auto, 0, b, nb, up};
      std::set<int> ns;
      for (int m : {int(nb) - 1, int(nb), int(nb) + 1, 2 * int(nb) + 1}) {
        ns.insert(m);          // n itself
        ns.insert(2 * m);      // both halves m
        ns.insert(2 * m - 1);  // halves m and m - 1 (Lower) / m - 1 and m (Upper)
        ns.insert(2 * m + 1);
      }
      for (int n : ns)
        for (const auto& v : all_variants()) {
          const std::string where = name(v, n) + (b == B::Blocked ? " blocked" : " lookahead") + " nb=" +
                                    std::to_string(nb) + (up == kspd::Toggle::On ? " panel copy" : "");
          const HostMat A = random_spd(n, ++seed);
          check_pftrf<T>(A, n, v, opt, where);
          // the failing minor at the first and last column of each half's panels
          const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
          std::set<int> ks;
          for (int h0 : {0, int(lay.n1)}) {
            const int hn = h0 == 0 ? int(lay.n1) : int(lay.n2);
            for (int o = 0; o < hn; o += int(nb)) {
              ks.insert(h0 + o + 1);
              ks.insert(h0 + std::min(o + int(nb), hn));
            }
          }
          for (int k : ks) check_pftrf_fails_at<T>(A, n, v, opt, k, where);
        }
    }
}

// The panel leaf of the nb-column steps (kspd_rfp_panel_potrf_impl.hpp): on CUDA a real
// panel of order <= 128 is factored by one thread block in shared memory, wider ones by
// core's potrf. nb at that limit and one past it (the widest panels of each
// leaf), n odd and even with halves of one or two panels (a short last one), all 4
// RFP variants, blocked and with look-ahead; a non-SPD minor in each RFP block (A11, A22 and
// the last column): info is the first failing column, 1-based, in RFP's logical numbering.
TYPED_TEST(RfpFactor, BlockedPftrfSharedMemoryPanels) {
  using T = TypeParam;
  using B = kspd::Blocking;
  const int lim = 128;  // rfp::Impl::panel_smem_max on CUDA
  unsigned seed = 12000;
  for (int nb : {lim, lim + 1})
    for (B b : {B::Blocked, B::LookAhead}) {
      const kspd::DenseOptions opt{kspd::Algo::Auto, 0, b, nb};
      for (int n : {nb + 3, 2 * nb, 3 * nb + 1}) {
        for (const auto& v : all_variants()) {
          const std::string where = name(v, n) + (b == B::Blocked ? " blocked" : " lookahead") + " nb=" + std::to_string(nb);
          const HostMat A = random_spd(n, ++seed);
          check_pftrf<T>(A, n, v, opt, where);
          const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
          for (int k : {1, nb, int(lay.n1), int(lay.n1) + 1, int(lay.n1) + nb + 1, n})
            if (k >= 1 && k <= n) check_pftrf_fails_at<T>(A, n, v, opt, k, where);
        }
      }
    }
}

TYPED_TEST(RfpFactor, BadArgumentsNameTheArgument) {
  using T = TypeParam;
  kspd::rfp::Matrix<T, Mem> R("R", 6, kspd::Trans::NoTranspose, Uplo::Lower);
  Kokkos::View<T**, Kokkos::LayoutLeft, Mem> B("B", 5, 2);
  try {
    kspd::rfp::pftrs(Exec(), R, B);
    ADD_FAILURE() << "pftrs accepted B with 5 rows for n = 6";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("B has 5 rows"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)kspd::rfp::pfsv(Exec(), R, B), kspd::DimensionMismatch);
  EXPECT_THROW(kspd::rfp::tfsm(Exec(), kspd::Side::Right, kspd::Trans::NoTranspose, Diag::NonUnit, T(1), R, B),
               kspd::DimensionMismatch);
  EXPECT_THROW((void)kspd::rfp::pfcon(Exec(), R, T(-1)), kspd::InvalidArgument);
}

}  // namespace
