// Failures that cannot be missed and descriptors that cannot overrun: potrs / posv / trsm
// after potrf / potri / poti leave the failed matrices' outputs untouched (bit for bit), the
// infos summary and require_spd name them; every batch descriptor is checked on the host
// (signs, leading dimensions, bounds) before anything runs; variable-size batches with a
// per-matrix leading dimension and offsets into one array (supernodal panels).
#include "batched_test_utils.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::offset_type;
using kspd::Side;
using kspd::size_type;
using kspd::Trans;
using kspd::Uplo;
using kspd::Diag;

HostMat chol_ref(const HostMat& a, Uplo uplo) {  // the uplo factor (the other triangle zero)
  const size_type n = a.n;
  HostMat s = symmetrize(a, uplo), l(n, n);
  for (size_type j = 0; j < n; ++j) {
    double d = s(j, j);
    for (size_type k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(d);
    for (size_type i = j + 1; i < n; ++i) {
      double v = s(i, j);
      for (size_type k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
      l(i, j) = v / l(j, j);
    }
  }
  if (uplo == Uplo::Lower) return l;
  HostMat u(n, n);
  for (size_type j = 0; j < n; ++j)
    for (size_type i = 0; i < n; ++i) u(i, j) = l(j, i);
  return u;
}
bool same_bits(const HostMat& a, const HostMat& b) {  // NaN == NaN
  for (size_t e = 0; e < a.a.size(); ++e)
    if (!(a.a[e] == b.a[e] || (std::isnan(a.a[e]) && std::isnan(b.a[e])))) return false;
  return true;
}

template <class T>
struct BatchedFailures : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedFailures, ScalarTypes);

/// A batch of 7 with non-SPD matrices 2 and 4 (failing at different columns): every operation
/// that follows the factorization leaves their outputs exactly as they were, the others solved.
template <class T>
void check_failures(size_type n, Uplo uplo, Iface iface, kb::BatchAlgo algo) {
  SCOPED_TRACE(::testing::Message() << "n=" << n << " uplo=" << char(uplo) << " " << name(iface) << " " << name(algo));
  const size_type nb = 7, nrhs = 3;
  const size_type bad1 = 2, bad2 = 4, col1 = (n + 1) / 2, col2 = n;
  std::vector<HostMat> a, bm;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(spd_one_triangle(n, uplo, unsigned(11 * n + b)));
    if (b == bad1) a.back()(col1 - 1, col1 - 1) = -1.0;
    if (b == bad2) a.back()(col2 - 1, col2 - 1) = -2.0;
    bm.push_back(random_matrix(n, nrhs, unsigned(400 + b)));
  }
  const kb::BatchOptions opts = test_options(algo);
  auto run = [&](DevBatch<T>& d, auto strided, auto ptr) {
    if (d.iface == Iface::Left) strided(d.L);
    else if (d.iface == Iface::Right) strided(d.R);
    else ptr();
  };
  auto bad = [&](size_type b) { return b == bad1 || b == bad2; };
  auto expect_infos = [&](const std::vector<int>& inf, const char* what) {
    for (size_type b = 0; b < nb; ++b)
      EXPECT_EQ(inf[b], b == bad1 ? int(col1) : b == bad2 ? int(col2) : 0) << what << " matrix " << b;
  };
  // POTRF, then the factor (with the failed matrices' partial factors) as the reference state.
  DevBatch<T> dA(a, n, n, iface);
  auto infos = poisoned_infos(nb);
  run(dA, [&](auto& v) { kb::potrf(Exec(), uplo, v, infos, opts); },
      [&] { kb::potrf(Exec(), uplo, nb, n, dA.p(), dA.ld, infos, opts); });
  const std::vector<HostMat> F = dA.to_host();
  expect_infos(to_host(infos), "potrf");

  // The summary and require_spd.
  const kb::InfoSummary s = kb::summarize_infos(Exec(), infos);
  EXPECT_EQ(s.failures, 2);
  EXPECT_EQ(s.first, bad1);
  EXPECT_EQ(s.first_info, int(col1));
  try {
    kb::require_spd(Exec(), infos, "my solver");
    ADD_FAILURE() << "expected NotPositiveDefinite";
  } catch (const kspd::NotPositiveDefinite& e) {
    const std::string w = e.what();
    EXPECT_EQ(e.column(), col1);
    for (const char* part : {"my solver", "2 of 7", "matrix 2", "matrix 4"})
      EXPECT_NE(w.find(part), std::string::npos) << w;
  }

  // POTRS and TRSM with potrf's infos.
  for (int which = 0; which < 2; ++which) {
    SCOPED_TRACE(which == 0 ? "potrs" : "trsm");
    DevBatch<T> dB(bm, n, nrhs, iface);
    const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : Trans::Transpose;
    if (iface == Iface::Left) {
      if (which == 0) kb::potrs(Exec(), uplo, dA.L, dB.L, infos, opts);
      else kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, T(1), dA.L, dB.L, infos, opts);
    } else if (iface == Iface::Right) {
      if (which == 0) kb::potrs(Exec(), uplo, dA.R, dB.R, infos, opts);
      else kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, T(1), dA.R, dB.R, infos, opts);
    } else {
      if (which == 0) kb::potrs(Exec(), uplo, nb, n, nrhs, dA.cp(), dA.ld, dB.p(), dB.ld, infos, opts);
      else
        kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, T(1), nb, n, nrhs, dA.cp(), dA.ld, dB.p(), dB.ld,
                 infos, opts);
    }
    const auto x = dB.to_host();
    const std::vector<HostMat> orig = DevBatch<T>(bm, n, nrhs, Iface::Left).to_host();  // B rounded to T
    EXPECT_TRUE(dB.padding_intact());
    for (size_type b = 0; b < nb; ++b) {
      if (bad(b)) {
        EXPECT_TRUE(same_bits(x[b], orig[b])) << "the right-hand side of failed matrix " << b << " was written";
        continue;
      }
      const HostMat As = symmetrize(a[b], uplo);
      const HostMat Lf = triangle(chol_ref(a[b], uplo), uplo);
      const HostMat r = which == 0 ? matmul(As, false, x[b], false) : matmul(Lf, uplo == Uplo::Upper, x[b], false);
      EXPECT_LE(diff_fro(r, bm[b]) / (norm_fro(As) * norm_fro(x[b]) + norm_fro(bm[b])), tolerance<T>(n))
          << "matrix " << b;
    }
    expect_infos(to_host(infos), "after the solve");
  }

  // POSV: the failed right-hand sides untouched.
  {
    DevBatch<T> dA2(a, n, n, iface), dB(bm, n, nrhs, iface);
    auto inf2 = poisoned_infos(nb);
    if (iface == Iface::Left) kb::posv(Exec(), uplo, dA2.L, dB.L, inf2, opts);
    else if (iface == Iface::Right) kb::posv(Exec(), uplo, dA2.R, dB.R, inf2, opts);
    else kb::posv(Exec(), uplo, nb, n, nrhs, dA2.p(), dA2.ld, dB.p(), dB.ld, inf2, opts);
    expect_infos(to_host(inf2), "posv");
    const auto x = dB.to_host();
    const std::vector<HostMat> orig = DevBatch<T>(bm, n, nrhs, Iface::Left).to_host();
    for (size_type b = 0; b < nb; ++b)
      if (bad(b)) EXPECT_TRUE(same_bits(x[b], orig[b])) << "posv wrote the right-hand side of failed matrix " << b;
  }

  // POTRI on the factors with potrf's infos: failed matrices and their infos untouched.
  {
    DevBatch<T> dF(F, n, n, iface);
    run(dF, [&](auto& v) { kb::potri(Exec(), uplo, v, infos, opts); },
        [&] { kb::potri(Exec(), uplo, nb, n, dF.p(), dF.ld, infos, opts); });
    expect_infos(to_host(infos), "potri");
    const auto r = dF.to_host();
    for (size_type b = 0; b < nb; ++b) {
      if (bad(b)) {
        EXPECT_TRUE(same_bits(r[b], F[b])) << "potri wrote failed matrix " << b;
        continue;
      }
      const HostMat As = symmetrize(a[b], uplo), X = symmetrize(r[b], uplo);
      EXPECT_LE(diff_fro(matmul(As, false, X, false), identity(n)) / (norm_fro(As) * norm_fro(X)), tolerance<T>(n))
          << "potri matrix " << b;
    }
  }

  // POTI: a failed matrix keeps potrf's partial factor (not inverted).
  {
    DevBatch<T> dA3(a, n, n, iface);
    auto inf3 = poisoned_infos(nb);
    run(dA3, [&](auto& v) { kb::poti(Exec(), uplo, v, inf3, opts); },
        [&] { kb::poti(Exec(), uplo, nb, n, dA3.p(), dA3.ld, inf3, opts); });
    expect_infos(to_host(inf3), "poti");
    const auto r = dA3.to_host();
    for (size_type b = 0; b < nb; ++b) {
      if (bad(b)) {  // potrf's partial factor (the finished columns; kernels differ in what they leave after)
        const size_type done = (b == bad1 ? col1 : col2) - 1;
        for (size_type j = 0; j < done; ++j)
          for (size_type i = j; i < done; ++i)  // the leading factor L11 (L = U^T); below it kernels differ
              EXPECT_NEAR(r[b](uplo == Uplo::Lower ? i : j, uplo == Uplo::Lower ? j : i),
                          F[b](uplo == Uplo::Lower ? i : j, uplo == Uplo::Lower ? j : i), 100 * tolerance<T>(n))
                  << "poti inverted failed matrix " << b;
        continue;
      }
      const HostMat As = symmetrize(a[b], uplo), X = symmetrize(r[b], uplo);
      EXPECT_LE(diff_fro(matmul(As, false, X, false), identity(n)) / (norm_fro(As) * norm_fro(X)), tolerance<T>(n))
          << "poti matrix " << b;
    }
  }
}

TYPED_TEST(BatchedFailures, FailedMatricesAreNeverSolved) {
  for (size_type n : {2, 3, 8, 13, 32, 40})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : algos_for(n)) check_failures<TypeParam>(n, uplo, iface, algo);
  const ForceRecursion force(16);  // the recursive paths (one batched GEMM per level)
  for (size_type n : {33, 40})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces()) check_failures<TypeParam>(n, uplo, iface, kb::BatchAlgo::Serial);
}

TEST(BatchedFailures, SummaryOfAHealthyBatch) {
  Kokkos::View<int*, Mem> infos("infos", 7);
  const kb::InfoSummary s = kb::summarize_infos(Exec(), infos);
  EXPECT_TRUE(s.ok());
  EXPECT_EQ(s.first, -1);
  EXPECT_NO_THROW(kb::require_spd(Exec(), infos, "x"));
  Kokkos::deep_copy(infos, 3);
  try {
    kb::require_spd(Exec(), infos, "x");
    FAIL();
  } catch (const kspd::NotPositiveDefinite& e) {
    EXPECT_NE(std::string(e.what()).find("7 of 7"), std::string::npos) << e.what();
    EXPECT_NE(std::string(e.what()).find("..."), std::string::npos) << e.what();  // only the first few listed
  }
}

// ---------------------------------------------------------------------------------------------
// Descriptor checks.

template <class V>
Kokkos::View<typename V::non_const_value_type*, Mem> dev(const std::vector<typename V::non_const_value_type>& h) {
  Kokkos::View<typename V::non_const_value_type*, Mem> d("d", h.size());
  Kokkos::deep_copy(d, Kokkos::View<const typename V::non_const_value_type*, Kokkos::HostSpace>(h.data(), h.size()));
  return d;
}
using IntV = Kokkos::View<int*, Mem>;
using OffV = Kokkos::View<offset_type*, Mem>;

/// Runs f, expects InvalidArgument whose message holds every part, and returns the message.
template <class F>
void expect_invalid(F f, std::initializer_list<const char*> parts) {
  try {
    f();
    ADD_FAILURE() << "expected kspd::InvalidArgument naming " << *parts.begin();
  } catch (const kspd::InvalidArgument& e) {
    const std::string w = e.what();
    for (const char* p : parts) EXPECT_NE(w.find(p), std::string::npos) << "'" << p << "' not in: " << w;
  }
}

TEST(BatchedDescriptor, VariableSizeSignsLeadingDimensionsAndBounds) {
  // Three matrices 2 x 2, 3 x 3 (ld 4), 2 x 2 packed exactly into 4 + 12 + 4 = 20 elements.
  Kokkos::View<double*, Mem> A("A", 20);
  Kokkos::deep_copy(A, 7.0);
  auto ns = dev<IntV>({2, 3, 2});
  auto lds = dev<IntV>({2, 4, 2});
  auto off = dev<OffV>({0, 4, 16});
  IntV infos("infos", 3);
  auto potrf = [&](IntV n, OffV o, IntV l) {
    return [=] { kb::potrf_vbatched(Exec(), Uplo::Lower, n, kb::var_mats(A, o, l), infos); };
  };
  // The exact fit passes the checks (the matrices are not SPD: info 1 each, nothing thrown).
  EXPECT_NO_THROW(potrf(ns, off, lds)());
  Kokkos::deep_copy(A, 7.0);
  expect_invalid(potrf(dev<IntV>({2, -3, 2}), off, lds), {"matrix 1", "ns(1) = -3"});
  expect_invalid(potrf(ns, dev<OffV>({0, -1, 16}), lds), {"matrix 1", "offsets(1) = -1"});
  expect_invalid(potrf(ns, dev<OffV>({0, 4, 17}), lds), {"matrix 2", "offset 17", "past the 20 elements"});
  expect_invalid(potrf(ns, off, dev<IntV>({2, 4, 3})), {"matrix 2", "offset 16", "ld 3", "past the 20"});
  expect_invalid(potrf(ns, off, dev<IntV>({1, 4, 2})), {"matrix 0", "lds(0) = 1", "2 rows"});
  expect_invalid(potrf(ns, dev<OffV>({0, 10, 16}), lds), {"matrix 1", "3 x 3", "offset 10", "ld 4", "ends at element 21"});
  // Without lds (ld = n) the middle matrix (3 x 3 = 9 elements at 4) fits; at 12 it does not.
  EXPECT_NO_THROW(kb::potrf_vbatched(Exec(), Uplo::Lower, ns, kb::var_mats(A, dev<OffV>({0, 4, 13})), infos));
  expect_invalid([&] { kb::potrf_vbatched(Exec(), Uplo::Lower, ns, kb::var_mats(A, dev<OffV>({0, 12, 16})), infos); },
                 {"matrix 1", "offset 12", "ends at element 21"});
  // A rejected call writes nothing.
  Kokkos::deep_copy(A, 7.0);
  EXPECT_THROW(potrf(dev<IntV>({2, 3, -1}), off, lds)(), kspd::InvalidArgument);
  auto hA = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), A);
  for (size_t e = 0; e < hA.extent(0); ++e) EXPECT_EQ(hA(e), 7.0);

  // Pointer arrays with per-matrix ld.
  Kokkos::View<double*, Mem> P("P", 16);
  Kokkos::View<std::uintptr_t*, Mem> ptrs("ptrs", 2);
  auto hp = Kokkos::create_mirror_view(ptrs);
  hp(0) = reinterpret_cast<std::uintptr_t>(P.data());
  hp(1) = reinterpret_cast<std::uintptr_t>(P.data() + 4);
  Kokkos::deep_copy(ptrs, hp);
  auto pp = reinterpret_cast<double* const*>(ptrs.data());
  IntV inf2("inf2", 2);
  expect_invalid([&] { kb::potrf_vbatched(Exec(), Uplo::Lower, dev<IntV>({2, 3}), pp, dev<IntV>({2, 2}), inf2); },
                 {"matrix 1", "lds(1) = 2", "3 rows"});
  expect_invalid([&] { kb::potrf_vbatched(Exec(), Uplo::Lower, dev<IntV>({-2, 3}), pp, dev<IntV>({2, 3}), inf2); },
                 {"matrix 0", "ns(0) = -2"});
  hp(1) = 0;
  Kokkos::deep_copy(ptrs, hp);
  expect_invalid([&] { kb::potrf_vbatched(Exec(), Uplo::Lower, dev<IntV>({2, 3}), pp, dev<IntV>({2, 3}), inf2); },
                 {"matrix 1", "null"});

  // The other variable-size operations check every operand.
  Kokkos::View<double*, Mem> B("B", 10), C("C", 10);
  auto ms = dev<IntV>({2, 3}), nn = dev<IntV>({2, 2}), ks = dev<IntV>({1, 2});
  auto o2 = dev<OffV>({0, 4});   // A: 2x2 at 0, 3x3 at 4 would need 13 > 10
  auto ob = dev<OffV>({0, 4});   // B: 2x2 at 0, 3x2 at 4: fits (10)
  expect_invalid([&] {
    kb::trsm_vbatched(Exec(), Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, ms, nn,
                      kb::var_mats(C, o2), kb::var_mats(B, ob));
  }, {"trsm_vbatched", "matrix 1", "A offset 4", "past the 10 elements of A.data"});
  expect_invalid([&] {
    kb::trsm_vbatched(Exec(), Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, dev<IntV>({2, -1}), nn,
                      kb::var_mats(C, o2), kb::var_mats(B, ob));
  }, {"matrix 1", "ms(1) = -1"});
  expect_invalid([&] {
    kb::potrs_vbatched(Exec(), Uplo::Lower, nn, dev<IntV>({1, 5}), kb::var_mats(C, o2), kb::var_mats(B, ob), inf2);
  }, {"potrs_vbatched", "matrix 1", "B offset 4", "past the 10"});
  expect_invalid([&] {
    kb::gemm_vbatched(Exec(), Trans::NoTranspose, Trans::NoTranspose, 1.0, ms, nn, ks, kb::var_mats(B, ob),
                      kb::var_mats(B, dev<OffV>({0, -2})), 0.0, kb::var_mats(C, dev<OffV>({0, 4})));
  }, {"gemm_vbatched", "matrix 1", "B.offsets(1) = -2"});
  expect_invalid([&] {
    kb::gemm_vbatched(Exec(), Trans::NoTranspose, Trans::NoTranspose, 1.0, ms, nn, dev<IntV>({1, -4}),
                      kb::var_mats(B, ob), kb::var_mats(B, ob), 0.0, kb::var_mats(C, ob));
  }, {"matrix 1", "ks(1) = -4"});
  expect_invalid([&] {
    kb::syrk_vbatched(Exec(), Uplo::Lower, Trans::NoTranspose, 1.0, ms, ks, kb::var_mats(B, ob), 0.0,
                      kb::var_mats(C, dev<OffV>({0, 2})));
  }, {"syrk_vbatched", "matrix 1", "C offset 2", "past the 10"});

  // Fixed-size pointer arrays: signs and leading dimensions.
  IntV inf4("inf4", 4);
  expect_invalid([&] { kb::potrf(Exec(), Uplo::Lower, size_type(2), size_type(-5), pp, 4, inf4); }, {"negative size", "-5"});
  expect_invalid([&] { kb::potrf(Exec(), Uplo::Lower, size_type(-2), size_type(5), pp, 5, inf4); }, {"nbatch -2"});
  expect_invalid([&] { kb::potrf(Exec(), Uplo::Lower, size_type(2), size_type(5), pp, 4, inf4); }, {"ld = 4", "5 rows"});
  expect_invalid([&] {
    kb::trsm(Exec(), Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, size_type(2), size_type(3),
             size_type(2), const_cast<const double* const*>(pp), 3, pp, 2);
  }, {"Bptrs", "ld = 2", "3 rows"});
  expect_invalid([&] {
    kb::gemm(Exec(), Trans::Transpose, Trans::NoTranspose, size_type(2), size_type(3), size_type(2), size_type(4), 1.0,
             const_cast<const double* const*>(pp), 3, const_cast<const double* const*>(pp), 4, 0.0, pp, 3);
  }, {"Aptrs", "ld = 3", "4 rows"});
}

/// The sparse engine's use: supernodal panels (nrows x ncols, column-major, ld >= nrows) at
/// offsets in one array; potrf on the diagonal blocks, TRSM of the blocks below (with potrf's
/// infos: a failed panel is left alone), SYRK / GEMM of the updates, each against a reference;
/// the rows between nrows and ld stay NaN.
template <class T>
void check_panels(kb::BatchAlgo algo) {
  SCOPED_TRACE(name(algo));
  const std::vector<int> nc{1, 3, 5, 8, 13, 20, 4, 9}, extra{0, 2, 7, 1, 0, 11, 3, 6}, pad{0, 1, 0, 3, 2, 0, 1, 5};
  const size_type nb = nc.size(), bad = 3;
  std::vector<int> nr(nb), ld(nb), m2(nb);
  std::vector<offset_type> off(nb), off21(nb), coff(nb);
  offset_type tot = 0, ctot = 0;
  for (size_type b = 0; b < nb; ++b) {
    nr[b] = nc[b] + extra[b];
    m2[b] = extra[b];
    ld[b] = nr[b] + pad[b];
    off[b] = tot + 2;  // a gap before each panel
    off21[b] = off[b] + nc[b];
    tot = off[b] + offset_type(ld[b]) * nc[b];
    coff[b] = ctot;
    ctot += offset_type(m2[b]) * m2[b];
  }
  std::vector<HostMat> panel;
  Kokkos::View<T*, Mem> L("L", size_t(tot)), C("C", size_t(ctot + 1)), G("G", size_t(ctot + 1));
  auto hL = Kokkos::create_mirror_view(L);
  Kokkos::deep_copy(hL, poison<T>());
  for (size_type b = 0; b < nb; ++b) {
    HostMat p = random_matrix(nr[b], nc[b], unsigned(700 + b));
    const HostMat d = random_spd(nc[b], unsigned(800 + b));
    for (int j = 0; j < nc[b]; ++j)
      for (int i = 0; i < nc[b]; ++i) p(i, j) = i >= j ? d(i, j) : std::nan("");
    if (b == bad) p(1, 1) = -1.0;
    panel.push_back(p);
    for (int j = 0; j < nc[b]; ++j)
      for (int i = 0; i < nr[b]; ++i) hL(size_t(off[b] + i + offset_type(j) * ld[b])) = T(p(i, j));
  }
  Kokkos::deep_copy(L, hL);
  Kokkos::deep_copy(C, T(0.5));
  Kokkos::deep_copy(G, T(0.5));
  auto dnc = dev<IntV>(nc), dm2 = dev<IntV>(m2), dld = dev<IntV>(ld);
  auto doff = dev<OffV>(off), doff21 = dev<OffV>(off21), dcoff = dev<OffV>(coff);
  auto infos = poisoned_infos(nb);
  const kb::BatchOptions opts{algo};
  kb::VarMats<T, Mem> diag{L, doff, dld}, below{L, doff21, dld};
  kb::potrf_vbatched(Exec(), Uplo::Lower, dnc, diag, infos, opts);
  kb::trsm_vbatched(Exec(), Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), dm2, dnc,
                    kb::VarMats<const T, Mem>{L, doff, dld}, below, infos, opts);
  const kb::VarMats<const T, Mem> cbelow{L, doff21, dld};
  kb::syrk_vbatched(Exec(), Uplo::Lower, Trans::NoTranspose, T(-1), dm2, dnc, cbelow, T(1), kb::var_mats(C, dcoff), opts);
  kb::gemm_vbatched(Exec(), Trans::NoTranspose, Trans::Transpose, T(-1), dm2, dm2, dnc, cbelow, cbelow, T(1),
                    kb::var_mats(G, dcoff), opts);
  const auto inf = to_host(infos);
  Kokkos::deep_copy(hL, L);
  auto hC = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), C);
  auto hG = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), G);
  for (size_type b = 0; b < nb; ++b) {
    const int n = nc[b], m = m2[b];
    auto at = [&](int i, int j) { return double(hL(size_t(off[b] + i + offset_type(j) * ld[b]))); };
    for (int j = 0; j < n; ++j)
      for (int i = nr[b]; i < ld[b]; ++i) EXPECT_TRUE(std::isnan(at(i, j))) << "panel " << b << " padding written";
    if (b == bad) {
      EXPECT_EQ(inf[b], 2);
      for (int j = 0; j < n; ++j)
        for (int i = 0; i < m; ++i) EXPECT_EQ(at(n + i, j), double(T(panel[b](n + i, j)))) << "failed panel's block written";
      continue;
    }
    EXPECT_EQ(inf[b], 0) << "panel " << b;
    HostMat d(n, n), l21(m, n), a21(m, n);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) d(i, j) = panel[b](i, j);
      for (int i = 0; i < m; ++i) {
        l21(i, j) = at(n + i, j);
        a21(i, j) = panel[b](n + i, j);
      }
    }
    const HostMat Lr = chol_ref(d, Uplo::Lower);
    HostMat Lk(n, n);
    for (int j = 0; j < n; ++j)
      for (int i = j; i < n; ++i) Lk(i, j) = at(i, j);
    EXPECT_LE(diff_fro(Lk, Lr) / norm_fro(Lr), tolerance<T>(n)) << "potrf panel " << b;
    if (m == 0) continue;
    const HostMat r = matmul(l21, false, Lr, true);  // L21 L11^T = A21
    EXPECT_LE(diff_fro(r, a21) / (norm_fro(a21) + 1e-300), 4 * tolerance<T>(n)) << "trsm panel " << b;
    const HostMat up = matmul(l21, false, l21, true);
    double es = 0, eg = 0;
    for (int j = 0; j < m; ++j)
      for (int i = 0; i < m; ++i) {
        const double ref = 0.5 - up(i, j);
        const double g = double(hG(size_t(coff[b] + i + offset_type(j) * m)));
        eg += (g - ref) * (g - ref);
        const double c = double(hC(size_t(coff[b] + i + offset_type(j) * m)));
        if (i >= j) es += (c - ref) * (c - ref);
        else EXPECT_EQ(c, 0.5) << "syrk wrote the upper triangle of panel " << b;
      }
    EXPECT_LE(std::sqrt(es), tolerance<T>(n) * (norm_fro(up) + 1)) << "syrk panel " << b;
    EXPECT_LE(std::sqrt(eg), tolerance<T>(n) * (norm_fro(up) + 1)) << "gemm panel " << b;
  }
}
TYPED_TEST(BatchedFailures, SupernodalPanelsWithLeadingDimensions) {
  for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team}) check_panels<TypeParam>(algo);
}

// Bad arguments to the fixed-size entry points throw before anything runs, naming the argument.
TEST(BatchedFactorErrors, BadArgumentsThrowNamingTheArgument) {
  Kokkos::View<double***, Kokkos::LayoutLeft, Mem> A("A", 4, 3, 2), B("B", 3, 3, 3);
  Kokkos::View<int*, Mem> infos("infos", 2);
  try {
    kb::potrf(Exec(), Uplo::Lower, A, infos);
    FAIL() << "expected DimensionMismatch";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("square"), std::string::npos) << e.what();
  }
  Kokkos::View<double***, Kokkos::LayoutLeft, Mem> S("S", 4, 3, 3);
  try {
    kb::potrf(Exec(), Uplo::Lower, S, infos);
    FAIL() << "expected DimensionMismatch";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("infos"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kb::potrs(Exec(), Uplo::Lower, S, B, infos), kspd::DimensionMismatch);
  try {
    kb::potrf(Exec(), Uplo::Lower, size_type(2), size_type(5), static_cast<double* const*>(nullptr), 4, infos);
    FAIL() << "expected InvalidArgument";
  } catch (const kspd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("ld = 4"), std::string::npos) << e.what();
  }
}

}  // namespace
