// Gaussian-process helpers in RFP format, all 8 variants, odd/even n, float and double,
// against LAPACK in double: log det from pftrf's factor, diag(A^-1) and trace(A^-1 B)
// through pftri, pftrf with jitter retry (in-place undo and re-fill functor; the factor
// equals LAPACK's factor of A + jitter I from scratch), and the fp32-factor / fp64-refinement
// solve with its fp64 fallback.
#include <cstdio>
#include <cstdlib>

#include "kspd_test_gp.hpp"
#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct RfpGp : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RfpGp, ScalarTypes);

const std::vector<int> kSizes = {0, 1, 2, 3, 7, 8, 16, 17, 64, 65, 129};

template <class T>
double rel_tol(int n) {
  return std::is_same<T, double>::value ? 1e-12 : 2e-4 * (n > 1 ? std::sqrt(double(n)) : 1.0);
}

TYPED_TEST(RfpGp, LogdetMatchesLapack) {
  using T = TypeParam;
  unsigned seed = 4100;
  for (const auto& v : all_variants())
    for (int n : kSizes) {
      ++seed;
      const HostMat A = random_spd(n, seed);
      auto dA = device_rfp<T>(lapack_rfp<T>(A, v), n, v);
      ASSERT_EQ(kspd::rfp::pftrf(Exec(), dA), 0);
      const double ref = n > 0 ? lapack_logdet(A) : 0.0;
      const double got = kspd::rfp::pftrf_logdet(Exec(), dA);
      EXPECT_LE(std::fabs(got - ref), rel_tol<T>(n) * std::max(1.0, std::fabs(ref))) << name(v, n);
      Kokkos::View<double, Mem> r("r");
      Kokkos::deep_copy(r, std::nan(""));
      kspd::rfp::pftrf_logdet(Exec(), dA, r);
      double hr = 0;
      Kokkos::deep_copy(hr, r);
      EXPECT_EQ(hr, got) << name(v, n);
    }
}

TYPED_TEST(RfpGp, InverseDiagonalAndTraceMatchDenseInverse) {
  using T = TypeParam;
  unsigned seed = 5100;
  for (const auto& v : all_variants())
    for (int n : kSizes) {
      ++seed;
      const HostMat A = random_spd(n, seed);
      const HostMat X = lapack_inverse(A);
      const HostMat B = random_matrix(n, n, seed + 1);  // general
      HostMat S = random_matrix(n, n, seed + 2);        // symmetric, for the RFP form of B
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < j; ++i) S(i, j) = S(j, i);
      const auto arf = lapack_rfp<T>(A, v);
      // diag(A^-1), poisoned output with two extra entries.
      {
        auto dA = device_rfp<T>(arf, n, v);
        ASSERT_EQ(kspd::rfp::pftrf(Exec(), dA), 0);
        Kokkos::View<T*, Mem> d("d", size_t(n + 2));
        Kokkos::deep_copy(d, poison<T>());
        ASSERT_EQ(kspd::rfp::pftri_diag(Exec(), dA, d), 0);
        auto hd = Kokkos::create_mirror_view(d);
        Kokkos::deep_copy(hd, d);
        for (int i = 0; i < n; ++i)
          EXPECT_LE(std::fabs(double(hd(i)) - X(i, i)), 10 * rel_tol<T>(n) * X(i, i)) << name(v, n) << " i=" << i;
        EXPECT_TRUE(std::isnan(double(hd(n))) && std::isnan(double(hd(n + 1)))) << name(v, n);
      }
      // trace(A^-1 B), B dense general.
      {
        auto dA = device_rfp<T>(arf, n, v);
        ASSERT_EQ(kspd::rfp::pftrf(Exec(), dA), 0);
        auto dB = device_dense<T>(B);
        double tr = std::nan("");
        ASSERT_EQ(kspd::rfp::pftri_trace(Exec(), dA, dB, tr), 0);
        const double ref = trace_product(X, B);
        EXPECT_LE(std::fabs(tr - ref), 10 * rel_tol<T>(n) * std::max(norm_fro(X) * norm_fro(B), 1e-300)) << name(v, n);
      }
      // trace(A^-1 S), S symmetric in RFP: the same variant and another one.
      for (const auto& vb : {v, all_variants()[(seed + 1) % 4]}) {
        auto dA = device_rfp<T>(arf, n, v);
        ASSERT_EQ(kspd::rfp::pftrf(Exec(), dA), 0);
        auto dS = device_rfp<T>(lapack_rfp<T>(S, vb), n, vb);
        double tr = std::nan("");
        ASSERT_EQ(kspd::rfp::pftri_trace(Exec(), dA, dS, tr), 0);
        const double ref = trace_product(X, S);
        EXPECT_LE(std::fabs(tr - ref), 10 * rel_tol<T>(n) * std::max(norm_fro(X) * norm_fro(S), 1e-300))
            << name(v, n) << " B variant " << name(vb, n);
      }
    }
}

/// LAPACK's RFP factor (double) of A + j I in variant v.
std::vector<double> lapack_factor(const HostMat& A, double j, const Variant& v) {
  auto arf = lapack_rfp<double>(plus_identity(A, j), v);
  int info = 0;
  lapack_pftrf(kspd::to_char(v.transr), kspd::to_char(v.uplo), int(A.n), arf.data(), &info);
  EXPECT_EQ(info, 0);
  return arf;
}
template <class T>
double max_abs_vec(const std::vector<T>& a) {
  double m = 0;
  for (auto x : a) m = std::max(m, std::fabs(double(x)));
  return m;
}
/// The jitter cases: (smallest eigenvalue, rel_jitter, retries expected) per precision.
/// double: rel 1e-6; -1e-8 needs one retry (1e-6), -5e-6 two (1e-6 fails, 1e-5 works).
/// float: rel 1e-3 (fp32's own rounding is ~1e-6); -1e-4 one retry, -5e-3 two.
struct JitterCase {
  double lmin, rel;
  int attempts;
};
template <class T>
std::vector<JitterCase> jitter_cases() {
  if (std::is_same<T, double>::value) return {{-1e-8, 1e-6, 2}, {-5e-6, 1e-6, 3}, {0.5, 1e-6, 1}};
  return {{-1e-4, 1e-3, 2}, {-5e-3, 1e-3, 3}, {0.5, 1e-3, 1}};
}

TYPED_TEST(RfpGp, JitterRetryFactorsAPlusJitter) {
  using T = TypeParam;
  unsigned seed = 6100;
  for (bool undo : {true, false})
    for (const auto& v : all_variants())
      for (int n : {2, 7, 8, 33, 64, 65})
        for (long long leaf : {0LL, 1LL, 4LL, 7LL})
          for (const auto& c : jitter_cases<T>()) {
            if (!undo && leaf != 0) continue;  // the leaf is the undo path's only
            ++seed;
            const HostMat A = spectrum_matrix(spectrum(n, c.lmin, seed), seed);
            const auto arf = lapack_rfp<T>(A, v);
            auto dA = device_rfp<T>(arf, n, v);
            kspd::JitterOptions jo;
            jo.rel_jitter = c.rel;
            jo.leaf_size = leaf;
            const std::string where = name(v, n) + " lmin=" + std::to_string(c.lmin) + " leaf=" + std::to_string(leaf) +
                                      (undo ? " undo" : " fill");
            int fills = 0;
            kspd::JitterResult res;
            if (undo) {
              res = kspd::rfp::pftrf_jitter(Exec(), dA, jo);
            } else {
              // The caller's re-fill: poison first, so that a partial re-fill would show.
              typename kspd::rfp::Matrix<T, Mem>::view_type src("src", arf.size());
              Kokkos::deep_copy(src, dA.data());
              res = kspd::rfp::pftrf_jitter(
                  Exec(), dA,
                  [&](const Exec& e, const kspd::rfp::Matrix<T, Mem>& M) {
                    ++fills;
                    Kokkos::deep_copy(e, M.data(), poison<T>());
                    Kokkos::deep_copy(e, M.data(), src);
                  },
                  jo);
            }
            ASSERT_EQ(res.info, 0) << where;
            // 1x1 with lmin < 0 needs the same number of attempts as any n; a positive lmin none.
            EXPECT_EQ(res.attempts, c.attempts) << where;
            if (!undo) EXPECT_EQ(fills, c.attempts - 1) << where;
            const double j1 = c.rel * mean_diag(A);
            const double jexp = c.attempts == 1 ? 0.0 : j1 * std::pow(10.0, c.attempts - 2);
            EXPECT_NEAR(res.jitter, jexp, 1e-6 * jexp) << where;  // fp32: the mean diagonal of the fp32 entries
            // The factor equals LAPACK's factor of A + jitter I computed from scratch.
            const auto ref = lapack_factor(A, res.jitter, v);
            const auto got = host_rfp(dA);
            const double tol = std::is_same<T, double>::value ? 1e-7 : 2e-2;
            EXPECT_LE(max_rel_diff(got, std::vector<T>(ref.begin(), ref.end()), max_abs_vec(ref)), tol) << where;
          }
}

TYPED_TEST(RfpGp, JitterRetryExhaustsOnIndefinite) {
  using T = TypeParam;
  unsigned seed = 7100;
  for (bool undo : {true, false})
    for (const auto& v : all_variants())
      for (int n : {1, 8, 33, 65})
        for (long long leaf : {0LL, 4LL}) {
          ++seed;
          const HostMat A = spectrum_matrix(spectrum(n, -1.0, seed), seed);
          const auto arf = lapack_rfp<T>(A, v);
          auto dA = device_rfp<T>(arf, n, v);
          kspd::JitterOptions jo;
          jo.max_retries = 2;
          jo.leaf_size = leaf;
          const std::string where = name(v, n) + " leaf=" + std::to_string(leaf) + (undo ? " undo" : " fill");
          typename kspd::rfp::Matrix<T, Mem>::view_type src("src", arf.size());
          Kokkos::deep_copy(src, dA.data());
          const auto res = undo ? kspd::rfp::pftrf_jitter(Exec(), dA, jo)
                                : kspd::rfp::pftrf_jitter(
                                      Exec(), dA,
                                      [&](const Exec& e, const kspd::rfp::Matrix<T, Mem>& M) {
                                        Kokkos::deep_copy(e, M.data(), src);
                                      },
                                      jo);
          EXPECT_GT(res.info, 0) << where;
          EXPECT_LE(res.info, n) << where;
          EXPECT_EQ(res.attempts, 3) << where;
          EXPECT_NEAR(res.jitter, 1e-5 * std::fabs(mean_diag(A)), 1e-11 * std::fabs(mean_diag(A))) << where;
          if (undo) {  // A is restored (up to the rounding of L L^T)
            const auto got = host_rfp(dA);
            EXPECT_LE(max_rel_diff(got, arf, max_abs(A)), 50 * tolerance<T>(n)) << where;
          }
        }
}

// The undo of a failure deep in the recursion (failing column in every leaf position).
TYPED_TEST(RfpGp, UndoRestoresAtEveryFailingColumn) {
  using T = TypeParam;
  const int n = 37;
  for (const auto& v : all_variants())
    for (int col : {1, 2, 5, 18, 19, 20, 36, 37}) {
      HostMat A = random_spd(n, 800 + col);
      A(col - 1, col - 1) = -1.0;
      const auto arf = lapack_rfp<T>(A, v);
      auto dA = device_rfp<T>(arf, n, v);
      kspd::JitterOptions jo;
      jo.max_retries = 0;
      jo.leaf_size = 3;
      const auto res = kspd::rfp::pftrf_jitter(Exec(), dA, jo);
      EXPECT_EQ(res.info, col) << name(v, n);
      EXPECT_EQ(res.attempts, 1);
      EXPECT_LE(max_rel_diff(host_rfp(dA), arf, max_abs(A)), 50 * tolerance<T>(n)) << name(v, n) << " col " << col;
    }
}

TEST(RfpGpMixed, RefinementReachesFp64BackwardError) {
  unsigned seed = 8100;
  for (const auto& v : all_variants())
    for (int n : {1, 2, 7, 64, 65, 257})
      for (int nrhs : {1, 3})
        for (double cond : {10.0, 1e4, 1e6, 1e8}) {
          ++seed;
          const HostMat A = spectrum_matrix(log_spectrum(n, cond), seed);
          const HostMat B = random_matrix(n, nrhs, seed + 3);
          const auto arf = lapack_rfp<double>(A, v);
          auto dA = device_rfp<double>(arf, n, v);
          auto dB = device_dense<double>(B);
          auto dX = device_dense<double>(HostMat(n, nrhs, std::nan("")));
          const std::string where = name(v, n) + " nrhs=" + std::to_string(nrhs) + " cond=" + std::to_string(cond);
          {  // the default stopping test (dsposv's: sqrt(n) eps), no iteration bound
            auto dX0 = device_dense<double>(HostMat(n, nrhs, std::nan("")));
            const auto r0 = kspd::rfp::pfsv_mixed(Exec(), dA, dB, dX0);
            ASSERT_EQ(r0.info, 0) << where;
            EXPECT_LE(r0.backward_error, std::sqrt(double(n)) * eps<double>()) << where;
            if (std::getenv("KSPD_TEST_VERBOSE"))
              std::printf("%s: default tol: %d iterations, be %.2e, fell back %d\n", where.c_str(), r0.iterations,
                          r0.backward_error, int(r0.fell_back));
          }
          kspd::rfp::MixedOptions mo;
          mo.tolerance = 1e-14;  // the target
          const auto res = kspd::rfp::pfsv_mixed(Exec(), dA, dB, dX, mo);
          if (std::getenv("KSPD_TEST_VERBOSE"))
            std::printf("%s: tol 1e-14: %d iterations, be %.2e, fell back %d\n", where.c_str(), res.iterations,
                        res.backward_error, int(res.fell_back));
          ASSERT_EQ(res.info, 0) << where;
          // fp32 refinement contracts by about cond * eps(fp32): up to cond 1e6 it must converge
          // in <= 5 steps; at 1e8 (cond * eps32 > 1) it may fall back; the answer meets 1e-14 either way.
          if (cond <= 1e6) {
            EXPECT_FALSE(res.fell_back) << where;
            EXPECT_LE(res.iterations, 5) << where;
          }
          EXPECT_LE(res.backward_error, 1e-14) << where;
          EXPECT_EQ(host_rfp(dA), arf) << where << ": A must not change";
          // Independent check of the backward error on the host.
          const HostMat X = host_dense(dX);
          const HostMat R = matmul(A, false, X, false);
          double anrm = 0;
          for (int i = 0; i < n; ++i) {
            double s = 0;
            for (int j = 0; j < n; ++j) s += std::fabs(A(i, j));
            anrm = std::max(anrm, s);
          }
          for (int c = 0; c < nrhs; ++c) {
            double r = 0, x = 0, b = 0;
            for (int i = 0; i < n; ++i) {
              r = std::max(r, std::fabs(B(i, c) - R(i, c)));
              x = std::max(x, std::fabs(X(i, c)));
              b = std::max(b, std::fabs(B(i, c)));
            }
            EXPECT_LE(r / (anrm * x + b), 2e-14) << where << " column " << c;
          }
        }
}

TEST(RfpGpMixed, IllConditionedFallsBackToFp64) {
  unsigned seed = 9100;
  for (const auto& v : all_variants())
    for (int n : {64, 65})
      for (bool copy : {true, false}) {
        ++seed;
        const HostMat A = spectrum_matrix(log_spectrum(n, 1e12), seed);
        const HostMat B = random_matrix(n, 2, seed + 3);
        const auto arf = lapack_rfp<double>(A, v);
        auto dA = device_rfp<double>(arf, n, v);
        auto dB = device_dense<double>(B);
        auto dX = device_dense<double>(HostMat(n, 2, std::nan("")));
        kspd::rfp::MixedOptions mo;
        mo.fallback_copy = copy;
        const auto res = kspd::rfp::pfsv_mixed(Exec(), dA, dB, dX, mo);
        const std::string where = name(v, n) + (copy ? " copy" : " in place");
        ASSERT_EQ(res.info, 0) << where;
        EXPECT_TRUE(res.fell_back) << where;
        const HostMat X = host_dense(dX);
        const HostMat R = matmul(A, false, X, false);
        double r = 0, x = 0;
        for (int c = 0; c < 2; ++c)
          for (int i = 0; i < n; ++i) {
            r = std::max(r, std::fabs(B(i, c) - R(i, c)));
            x = std::max(x, std::fabs(X(i, c)));
          }
        EXPECT_LE(r / (max_abs(A) * n * x), 1e-14) << where;
        if (copy) {
          EXPECT_LE(res.backward_error, 1e-14) << where;
          EXPECT_EQ(host_rfp(dA), arf) << where;
        } else {
          EXPECT_EQ(res.backward_error, -1) << where;
          const auto ref = lapack_factor(A, 0.0, v);  // A holds the fp64 factor, as dsposv leaves it
          EXPECT_LE(max_rel_diff(host_rfp(dA), ref, max_abs_vec(ref)), 1e-8) << where;
        }
      }
}

}  // namespace
