// Complex Hermitian RFP (c/z): every operation against LAPACK's own c/z RFP routines on the
// same buffers, all 8 variants (transr N/C x uplo L/U x n odd/even), complex<float> and
// complex<double>: conversions byte-exact (complex diagonals included), pftrf/pftrs/pftri,
// hfrk (poisoned C when beta = 0), tfsm, lanhf, add_to_diagonal; non-HPD info; the vendor
// and the native (recursive, portable leaves) paths.
#include <cstring>

#include "rfp_test_complex.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;
using kspd::Algo;
using kspd::Diag;
using kspd::Side;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct RfpComplex : ::testing::Test {};
using ComplexTypes = ::testing::Types<Kokkos::complex<float>, Kokkos::complex<double>>;
TYPED_TEST_SUITE(RfpComplex, ComplexTypes);

char tr(const Variant& v) { return kspd::to_char(v.transr); }
char ul(const Variant& v) { return kspd::to_char(v.uplo); }
// the vendor and native paths, and pftrf's blockings forced (block sizes that do not divide
// n1 or n2, and 1: every column its own step)
std::vector<kspd::DenseOptions> paths() {
  using B = kspd::Blocking;
  return {{Algo::Auto, 0},          {Algo::Native, 8},         {Algo::Auto, 0, B::Split},
          {Algo::Auto, 0, B::Blocked, 5}, {Algo::Auto, 0, B::LookAhead, 8}, {Algo::Native, 8, B::LookAhead, 1},
          // an upper-stored diagonal block through the transposed copy (W = A^H in 'L')
          {Algo::Auto, 0, B::Split, 0, kspd::Toggle::On}, {Algo::Auto, 0, B::LookAhead, 8, kspd::Toggle::On},
          // pftri's trtri / lauum as one trsm / trmm on a workspace, with the copy and without
          {Algo::Auto, 0, B::Split, 0, kspd::Toggle::Off, kspd::Toggle::On},
          {Algo::Auto, 0, B::Split, 0, kspd::Toggle::On, kspd::Toggle::On},
          // Blocking::Dense: complex falls back to Split (real only for now)
          {Algo::Auto, 0, B::Dense}, {Algo::Native, 8, B::Dense}};
}
const std::vector<int>& csizes() {
  static const std::vector<int> s = {0, 1, 2, 3, 4, 5, 7, 8, 15, 16, 17, 32, 33, 64, 65, 129};
  return s;
}
template <class T>
double tol(int n) {
  return tolerance<typename T::value_type>(n, 40.0);
}
template <class C>
std::vector<C> nan_vec(size_t n) {
  using R = typename C::value_type;
  return std::vector<C>(n, C(std::numeric_limits<R>::quiet_NaN(), std::numeric_limits<R>::quiet_NaN()));
}

TYPED_TEST(RfpComplex, ConversionsAreByteExact) {
  using T = TypeParam;
  using C = HostC<T>;
  unsigned seed = 10;
  for (int n : csizes())
    for (const auto& v : all_complex_variants()) {
      const std::string where = name(v, n);
      CHostMat A = crandom(n, n, ++seed);  // not Hermitian, complex diagonal: every conjugation shows
      auto ref = lapack_crfp<T>(A, v);
      // trttf
      auto dA = device_cdense<T>(to_cvec<T>(A), n, n);
      kspd::rfp::Matrix<T, Mem> R("R", n, v.transr, v.uplo);
      EXPECT_EQ(R.transr(), v.transr) << where;
      kspd::rfp::trttf(Exec(), dA, R);
      EXPECT_TRUE(same_bytes(host_cvec(R.data()), ref)) << "trttf " << where;
      // tfttr into a NaN matrix: the other triangle stays NaN, bytes equal LAPACK's
      auto full_ref = nan_vec<C>(size_t(n) * size_t(n));
      int info = 0;
      lapack_tfttr(tr(v), ul(v), n, ref.data(), full_ref.data(), n > 0 ? n : 1, &info);
      auto dF = device_cdense<T>(nan_vec<C>(size_t(n) * size_t(n)), n, n);
      kspd::rfp::tfttr(Exec(), device_crfp<T>(ref, n, v), dF);
      EXPECT_TRUE(same_bytes(host_cdense<T>(dF), full_ref)) << "tfttr " << where;
      // tpttf / tfttp
      const size_t np = size_t(kspd::rfp::packed_size(n));
      CHostMat P = crandom(kspd::size_type(np), 1, seed + 1000);
      auto ap = to_cvec<T>(P);
      std::vector<C> arf_ref(np + 1), ap_ref(np + 1);
      lapack_tpttf(tr(v), ul(v), n, ap.data(), arf_ref.data(), &info);
      arf_ref.resize(np);
      kspd::rfp::Matrix<T, Mem> R2("R2", n, v.transr, v.uplo);
      kspd::rfp::tpttf(Exec(), device_cvec<T>(ap), R2);
      EXPECT_TRUE(same_bytes(host_cvec(R2.data()), arf_ref)) << "tpttf " << where;
      lapack_tfttp(tr(v), ul(v), n, ref.data(), ap_ref.data(), &info);
      ap_ref.resize(np);
      Kokkos::View<T*, Mem> dap("ap", np);
      kspd::rfp::tfttp(Exec(), device_crfp<T>(ref, n, v), dap);
      EXPECT_TRUE(same_bytes(host_cvec(dap), ap_ref)) << "tfttp " << where;
    }
}

TYPED_TEST(RfpComplex, PftrfPftrsPftriMatchLapack) {
  using T = TypeParam;
  using C = HostC<T>;
  unsigned seed = 2000;
  for (int n : csizes())
    for (const auto& v : all_complex_variants())
      for (const auto& opt : paths()) {
        const std::string where = name(v, n) + " algo=" + std::to_string(int(opt.algo)) +
                                  " blocking=" + std::to_string(int(opt.blocking)) + "/" + std::to_string(opt.block_size);
        CHostMat A = crandom_hpd(n, ++seed);
        const double scale = 1.0 + cnorm(A);
        auto ref = lapack_crfp<T>(A, v);
        auto R = device_crfp<T>(ref, n, v);
        int linfo = 0;
        lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
        ASSERT_EQ(linfo, 0) << where;
        ASSERT_EQ(kspd::rfp::pftrf(Exec(), R, opt), 0) << where;
        EXPECT_LE(cmax_rel_diff(host_cvec(R.data()), ref, scale), tol<T>(n)) << "vs LAPACK pftrf " << where;
        // pftrs, 3 right-hand sides
        const int nrhs = 3;
        auto B = to_cvec<T>(crandom(n, nrhs, seed + 1));
        auto Bref = B;
        lapack_pftrs(tr(v), ul(v), n, nrhs, ref.data(), Bref.data(), n > 0 ? n : 1, &linfo);
        auto dB = device_cdense<T>(B, n, nrhs);
        kspd::rfp::pftrs(Exec(), R, dB, opt);
        EXPECT_LE(cmax_rel_diff(host_cdense<T>(dB), Bref, 1.0), 10 * tol<T>(n)) << "vs LAPACK pftrs " << where;
        // pftri
        lapack_pftri(tr(v), ul(v), n, ref.data(), &linfo);
        ASSERT_EQ(linfo, 0) << where;
        ASSERT_EQ(kspd::rfp::pftri(Exec(), R, opt), 0) << where;
        EXPECT_LE(cmax_rel_diff(host_cvec(R.data()), ref, 1.0 + scale), 10 * tol<T>(n)) << "vs LAPACK pftri " << where;
        (void)sizeof(C);
      }
}

TYPED_TEST(RfpComplex, PftrfReportsTheGlobalColumn) {
  using T = TypeParam;
  for (int n : {1, 2, 7, 8, 33, 64})
    for (const auto& v : all_complex_variants())
      for (const auto& opt : paths()) {
        const auto lay = kspd::rfp::make_layout(n, v.transr, v.uplo);
        for (int k : {1, int(lay.n1), int(lay.n1) + 1, 6, 9, n}) {
          if (k < 1 || k > n) continue;
          CHostMat A = crandom_hpd(n, 77 + k + n);
          A(k - 1, k - 1) = -1.0;  // minors 1..k-1 stay positive definite, minor k fails
          auto ref = lapack_crfp<T>(A, v);
          auto R = device_crfp<T>(ref, n, v);
          int linfo = 0;
          lapack_pftrf(tr(v), ul(v), n, ref.data(), &linfo);
          EXPECT_EQ(linfo, k) << name(v, n);
          EXPECT_EQ(kspd::rfp::pftrf(Exec(), R, opt), k) << name(v, n) << " k=" << k << " algo=" << int(opt.algo)
                                                         << " blocking=" << int(opt.blocking) << "/" << opt.block_size;
        }
      }
}

TYPED_TEST(RfpComplex, HfrkMatchesLapack) {
  using T = TypeParam;
  using C = HostC<T>;
  using R = typename T::value_type;
  unsigned seed = 3000;
  for (int n : {0, 1, 2, 7, 8, 17, 32, 33, 65})
    for (const auto& v : all_complex_variants())
      for (Trans t : {Trans::NoTranspose, Trans::ConjTranspose})
        for (int bcase = 0; bcase < 3; ++bcase)
          for (const auto& opt : paths()) {
            const int k = bcase == 2 ? 0 : 11;
            const double alpha = -0.75, beta = bcase == 1 ? 0.0 : 0.5;
            const std::string where = name(v, n) + " trans=" + kspd::to_char(t) + " beta=" + std::to_string(beta) +
                                      " k=" + std::to_string(k) + " algo=" + std::to_string(int(opt.algo));
            const int am = t == Trans::NoTranspose ? n : k, an = t == Trans::NoTranspose ? k : n;
            auto A = to_cvec<T>(crandom(am, an, ++seed));
            // beta = 0: C is poisoned, it must not be read
            auto cref = beta == 0.0 ? nan_vec<C>(size_t(kspd::rfp::packed_size(n)))
                                    : lapack_crfp<T>(crandom_hpd(n, seed + 5), v);
            auto Cm = device_crfp<T>(cref, n, v);
            lapack_hfrk(tr(v), ul(v), kspd::to_char(t), n, k, R(alpha), A.data(), am > 0 ? am : 1, R(beta), cref.data());
            auto dA = device_cdense<T>(A, am, an);
            kspd::rfp::hfrk(Exec(), t, R(alpha), dA, R(beta), Cm, opt);
            EXPECT_LE(cmax_rel_diff(host_cvec(Cm.data()), cref, 1.0 + k), tol<T>(k + 1)) << "vs LAPACK hfrk " << where;
          }
}

TYPED_TEST(RfpComplex, TfsmMatchesLapack) {
  using T = TypeParam;
  using C = HostC<T>;
  unsigned seed = 4000;
  const C alpha(0.6, -0.3);
  for (int n : {1, 2, 7, 8, 17, 33, 64})
    for (const auto& v : all_complex_variants())
      for (Side side : all_sides())
        for (Trans t : {Trans::NoTranspose, Trans::ConjTranspose})
          for (Diag d : all_diags())
            for (const auto& opt : paths()) {
              const int m = side == Side::Left ? n : 5, nb = side == Side::Left ? 4 : n;
              CHostMat Tm = crandom_tri(n, v.uplo, ++seed);
              auto arf = lapack_crfp<T>(Tm, v);
              auto B = to_cvec<T>(crandom(m, nb, seed + 3));
              auto Bref = B;
              lapack_tfsm(tr(v), kspd::to_char(side), ul(v), kspd::to_char(t), kspd::to_char(d), m, nb, alpha,
                          arf.data(), Bref.data(), m);
              auto dB = device_cdense<T>(B, m, nb);
              kspd::rfp::tfsm(Exec(), side, t, d, T(alpha.real(), alpha.imag()), device_crfp<T>(arf, n, v), dB, opt);
              const std::string where = name(v, n) + " side=" + kspd::to_char(side) + " trans=" + kspd::to_char(t) +
                                        " diag=" + kspd::to_char(d) + " algo=" + std::to_string(int(opt.algo));
              EXPECT_LE(cmax_rel_diff(host_cdense<T>(dB), Bref, 1.0), 10 * tol<T>(n)) << "vs LAPACK tfsm " << where;
            }
}

TYPED_TEST(RfpComplex, LanhfMatchesLapack) {
  using T = TypeParam;
  unsigned seed = 5000;
  for (int n : csizes())
    for (const auto& v : all_complex_variants()) {
      CHostMat A = crandom(n, n, ++seed);  // complex diagonal: lanhf reads only its real part
      auto arf = lapack_crfp<T>(A, v);
      auto R = device_crfp<T>(arf, n, v);
      for (auto norm : {kspd::Norm::Max, kspd::Norm::One, kspd::Norm::Inf, kspd::Norm::Frobenius}) {
        const double ref = lapack_lanhf(kspd::to_char(norm), tr(v), ul(v), n, arf.data());
        const double got = double(kspd::rfp::lanhf(Exec(), norm, R));
        EXPECT_LE(std::fabs(got - ref), tol<T>(n) * (1.0 + ref)) << name(v, n) << " norm=" << kspd::to_char(norm);
      }
    }
}

TYPED_TEST(RfpComplex, AddToDiagonalThenFactor) {
  using T = TypeParam;
  unsigned seed = 6000;
  for (int n : {1, 8, 33})
    for (const auto& v : all_complex_variants()) {
      CHostMat A = crandom_hpd(n, ++seed), B = A;
      for (int i = 0; i < n; ++i) B(i, i) += 2.5;
      auto R = device_crfp<T>(lapack_crfp<T>(A, v), n, v);
      kspd::rfp::add_to_diagonal(Exec(), R, 2.5);
      EXPECT_LE(cmax_rel_diff(host_cvec(R.data()), lapack_crfp<T>(B, v), 1.0), tol<T>(1)) << name(v, n);
    }
}

}  // namespace
