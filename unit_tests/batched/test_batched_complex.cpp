// Batched complex Hermitian POTRF / POTRS / POSV / TRSM (Kokkos::complex<float> and <double>)
// against naive complex host references written here: the backward error ||A - L L^H||, the
// residual ||A X - B|| / (||A|| ||X|| + ||B||) and ||op(A) X - alpha B||, every uplo / side /
// trans (N, T, C) / diag, n = 1, 2, 7, 16, 33, 64, strided LayoutLeft / LayoutRight, pointer
// (NaN-padded) and variable-size batches, every kernel family that takes complex scalars
// (Auto = the host LAPACK loop above the crossover, Serial, Team); outputs poisoned first, a
// non-HPD matrix in the middle of a batch.
#include <complex>

#include "batched_test_utils.hpp"
#include "kspd_test_complex.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::size_type;
using kspd::Uplo;
using kspd::Diag;
using kspd::Side;
using kspd::Trans;

std::vector<size_type> sizes() { return {1, 2, 7, 16, 33, 64}; }
std::vector<kb::BatchAlgo> complex_algos() { return {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team}; }
const char* tname(Trans t) { return t == Trans::NoTranspose ? "N" : t == Trans::Transpose ? "T" : "C"; }
const cd kNaN(std::nan(""), std::nan(""));
bool is_nan(cd v) { return std::isnan(v.real()) && std::isnan(v.imag()); }

/// A batch of complex host matrices and its device copy in one of the three interfaces
/// (strided LayoutLeft / LayoutRight, pointers into a buffer with ld = m + 2 and NaN padding).
template <class T>
struct CBatch {
  using R = typename T::value_type;
  Iface iface;
  size_type nb, m, n, ld;
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> L;
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> Rv;
  Kokkos::View<T*, Mem> buf;
  Kokkos::View<std::uintptr_t*, Mem> ptrs;

  static T dev(cd v) { return T(R(v.real()), R(v.imag())); }
  static cd host(T v) { return cd(double(v.real()), double(v.imag())); }
  size_type per() const { return ld * (n > 0 ? n : 1); }
  size_type at(size_type b, size_type i, size_type j) const { return (nb - 1 - b) * per() + i + j * ld; }

  CBatch(const std::vector<CHostMat>& h, size_type m_, size_type n_, Iface i)
      : iface(i), nb(size_type(h.size())), m(m_), n(n_), ld(m_ + 2) {
    if (iface == Iface::Left) {
      L = decltype(L)("kspd::test::cL", size_t(nb), size_t(m), size_t(n));
      auto hl = Kokkos::create_mirror_view(L);
      for (size_type b = 0; b < nb; ++b)
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) hl(b, r, j) = dev(h[size_t(b)](r, j));
      Kokkos::deep_copy(L, hl);
    } else if (iface == Iface::Right) {
      Rv = decltype(Rv)("kspd::test::cR", size_t(nb), size_t(m), size_t(n));
      auto hr = Kokkos::create_mirror_view(Rv);
      for (size_type b = 0; b < nb; ++b)
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) hr(b, r, j) = dev(h[size_t(b)](r, j));
      Kokkos::deep_copy(Rv, hr);
    } else {  // matrices in reverse order inside one buffer, two NaN padding rows each
      buf = decltype(buf)("kspd::test::cbuf", size_t(per() * (nb > 0 ? nb : 1)));
      ptrs = decltype(ptrs)("kspd::test::cptrs", size_t(nb > 0 ? nb : 1));
      auto hb = Kokkos::create_mirror_view(buf);
      auto hp = Kokkos::create_mirror_view(ptrs);
      for (size_t e = 0; e < hb.extent(0); ++e) hb(e) = dev(kNaN);
      for (size_type b = 0; b < nb; ++b) {
        hp(b) = reinterpret_cast<std::uintptr_t>(buf.data() + at(b, 0, 0));
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) hb(size_t(at(b, r, j))) = dev(h[size_t(b)](r, j));
      }
      Kokkos::deep_copy(buf, hb);
      Kokkos::deep_copy(ptrs, hp);
    }
  }
  T* const* p() const { return reinterpret_cast<T* const*>(ptrs.data()); }
  const T* const* cp() const { return reinterpret_cast<const T* const*>(ptrs.data()); }
  std::vector<CHostMat> to_host() const {
    std::vector<CHostMat> h(size_t(nb), CHostMat(m, n));
    if (iface == Iface::Left) {
      auto hl = Kokkos::create_mirror_view(L);
      Kokkos::deep_copy(hl, L);
      for (size_type b = 0; b < nb; ++b)
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) h[size_t(b)](r, j) = host(hl(b, r, j));
    } else if (iface == Iface::Right) {
      auto hr = Kokkos::create_mirror_view(Rv);
      Kokkos::deep_copy(hr, Rv);
      for (size_type b = 0; b < nb; ++b)
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) h[size_t(b)](r, j) = host(hr(b, r, j));
    } else {
      auto hb = Kokkos::create_mirror_view(buf);
      Kokkos::deep_copy(hb, buf);
      for (size_type b = 0; b < nb; ++b)
        for (size_type j = 0; j < n; ++j)
          for (size_type r = 0; r < m; ++r) h[size_t(b)](r, j) = host(hb(size_t(at(b, r, j))));
    }
    return h;
  }
  bool padding_intact() const {
    if (iface != Iface::Pointer) return true;
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    for (size_t e = 0; e < hb.extent(0); ++e)
      if (size_type(e % size_t(ld)) >= m && !is_nan(host(hb(e)))) return false;
    return true;
  }
};

template <class T, class FStrided, class FPtr>
void dispatch(CBatch<T>& d, FStrided strided, FPtr ptr) {
  if (d.iface == Iface::Left) strided(d.L);
  else if (d.iface == Iface::Right) strided(d.Rv);
  else ptr();
}

bool in_tri(Uplo uplo, size_type i, size_type j) { return uplo == Uplo::Lower ? i >= j : i <= j; }
/// An HPD matrix stored in its `uplo` triangle: the other triangle NaN, and a junk imaginary
/// part on the diagonal (LAPACK's ?potrf reads only the real part; so must the kernels).
CHostMat hpd_one_triangle(size_type n, Uplo uplo, unsigned seed) {
  CHostMat a = crandom_hpd(n, seed);
  for (size_type j = 0; j < n; ++j)
    for (size_type i = 0; i < n; ++i) {
      if (!in_tri(uplo, i, j)) a(i, j) = kNaN;
      if (i == j) a(i, i) = cd(a(i, i).real(), 0.37);
    }
  return a;
}
/// The full Hermitian matrix from its `uplo` triangle (real diagonal).
CHostMat hermitian(const CHostMat& a, Uplo uplo) {
  CHostMat s(a.n, a.n);
  for (size_type j = 0; j < a.n; ++j)
    for (size_type i = 0; i < a.n; ++i)
      s(i, j) = i == j ? cd(a(i, i).real(), 0.0) : in_tri(uplo, i, j) ? a(i, j) : std::conj(a(j, i));
  return s;
}
/// The triangle `uplo` of a (zeros elsewhere; ones on the diagonal for Unit).
CHostMat ctriangle(const CHostMat& a, Uplo uplo, Diag diag = Diag::NonUnit) {
  CHostMat t(a.m, a.n);
  for (size_type j = 0; j < a.n; ++j)
    for (size_type i = 0; i < a.m; ++i)
      t(i, j) = i == j && diag == Diag::Unit ? cd(1.0) : in_tri(uplo, i, j) ? a(i, j) : cd(0.0);
  return t;
}
/// Naive Hermitian Cholesky (Lower, in double): the 1-based column of the first pivot that
/// is not positive, or 0.
int ref_chol_info(const CHostMat& s) {
  const size_type n = s.n;
  CHostMat l(n, n);
  for (size_type j = 0; j < n; ++j) {
    double d = s(j, j).real();
    for (size_type k = 0; k < j; ++k) d -= std::norm(l(j, k));
    if (!(d > 0)) return int(j + 1);
    l(j, j) = std::sqrt(d);
    for (size_type i = j + 1; i < n; ++i) {
      cd v = s(i, j);
      for (size_type k = 0; k < j; ++k) v -= l(i, k) * std::conj(l(j, k));
      l(i, j) = v / l(j, j).real();
    }
  }
  return 0;
}
/// The values of `a` as R holds them (so an untouched device copy compares exactly).
template <class R>
CHostMat rounded(CHostMat a) {
  for (auto& v : a.a) v = cd(double(R(v.real())), double(R(v.imag())));
  return a;
}
/// Makes an HPD matrix indefinite at column `col` (1-based): its diagonal entry -> -1.
void break_hpd(CHostMat& a, size_type col) { a(col - 1, col - 1) = cd(-1.0, 0.0); }

/// Checks matrix b's factor: other triangle untouched (NaN), real diagonal, and
/// ||A - L L^H|| / ||A|| (or U^H U) within the bound.
template <class T>
void expect_factor(const CHostMat& out, const CHostMat& in, Uplo uplo, const std::string& where) {
  using R = typename T::value_type;
  const size_type n = in.n;
  bool other_nan = true, real_diag = true;
  for (size_type j = 0; j < n; ++j)
    for (size_type i = 0; i < n; ++i) {
      if (!in_tri(uplo, i, j) && !is_nan(out(i, j))) other_nan = false;
      if (i == j && (out(i, i).imag() != 0.0 || !(out(i, i).real() > 0.0))) real_diag = false;
    }
  EXPECT_TRUE(other_nan) << where << ": the other triangle was written";
  EXPECT_TRUE(real_diag) << where << ": the factor's diagonal is not real and positive";
  const CHostMat F = ctriangle(out, uplo), A = hermitian(in, uplo);
  const CHostMat P = uplo == Uplo::Lower ? cmatmul(F, cop(F, Trans::ConjTranspose)) : cmatmul(cop(F, Trans::ConjTranspose), F);
  EXPECT_LE(cdiff(P, A) / cnorm(A), tolerance<R>(n)) << where;
}

template <class T>
void check_potrf_potrs(size_type n, size_type nrhs, Uplo uplo, Iface iface, kb::BatchAlgo algo, size_type bad) {
  using R = typename T::value_type;
  const size_type nb = 5;
  const std::string where = std::string("n=") + std::to_string(n) + " nrhs=" + std::to_string(nrhs) +
                            (uplo == Uplo::Lower ? " Lower " : " Upper ") + name(iface) + " " + name(algo) +
                            " bad=" + std::to_string(bad);
  std::vector<CHostMat> a, rhs;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(hpd_one_triangle(n, uplo, unsigned(1000 * n + 17 * b + (uplo == Uplo::Upper))));
    if (b == bad) break_hpd(a.back(), n / 2 + 1);
    rhs.push_back(rounded<R>(crandom(n, nrhs, unsigned(50 + b))));
  }
  const int bad_info = bad >= 0 ? ref_chol_info(hermitian(a[size_t(bad)], uplo)) : 0;
  if (bad >= 0) ASSERT_EQ(bad_info, int(n / 2 + 1)) << where;
  CBatch<T> A(a, n, n, iface), B(rhs, n, nrhs, iface), Y(rhs, n, nrhs, iface);
  CBatch<T> A2(a, n, n, iface), X2(rhs, n, nrhs, iface);  // POSV's own copies
  auto infos = poisoned_infos(nb), infos2 = poisoned_infos(nb);
  const kb::BatchOptions opts = test_options(algo);
  // The first sweep of the solve, as a TRSM that takes potrf's infos: L Y = B, or U^H Y = B.
  const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : Trans::ConjTranspose;
  const T one(R(1), R(0));
  if (iface == Iface::Pointer) {
    kb::potrf(Exec(), uplo, nb, n, A.p(), A.ld, infos, opts);
    kb::potrs(Exec(), uplo, nb, n, nrhs, A.cp(), A.ld, B.p(), B.ld, infos, opts);
    kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, one, nb, n, nrhs, A.cp(), A.ld, Y.p(), Y.ld, infos, opts);
    kb::posv(Exec(), uplo, nb, n, nrhs, A2.p(), A2.ld, X2.p(), X2.ld, infos2, opts);
  } else if (iface == Iface::Left) {
    kb::potrf(Exec(), uplo, A.L, infos, opts);
    kb::potrs(Exec(), uplo, A.L, B.L, infos, opts);
    kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, one, A.L, Y.L, infos, opts);
    kb::posv(Exec(), uplo, A2.L, X2.L, infos2, opts);
  } else {
    kb::potrf(Exec(), uplo, A.Rv, infos, opts);
    kb::potrs(Exec(), uplo, A.Rv, B.Rv, infos, opts);
    kb::trsm(Exec(), Side::Left, uplo, first, Diag::NonUnit, one, A.Rv, Y.Rv, infos, opts);
    kb::posv(Exec(), uplo, A2.Rv, X2.Rv, infos2, opts);
  }
  const auto inf = to_host(infos), inf2 = to_host(infos2);
  const auto fa = A.to_host();
  const auto x = B.to_host(), y = Y.to_host(), x2 = X2.to_host();
  EXPECT_TRUE(A.padding_intact() && B.padding_intact() && Y.padding_intact() && X2.padding_intact()) << where;
  for (size_type b = 0; b < nb; ++b) {
    const std::string wb = where + " matrix " + std::to_string(b);
    if (b == bad) {
      EXPECT_EQ(inf[size_t(b)], bad_info) << wb;
      EXPECT_EQ(inf2[size_t(b)], bad_info) << wb << " (posv)";
      EXPECT_EQ(cdiff(x[size_t(b)], rhs[size_t(b)]), 0.0) << wb << ": the failed matrix's right-hand side was written";
      EXPECT_EQ(cdiff(y[size_t(b)], rhs[size_t(b)]), 0.0) << wb << ": TRSM wrote the failed matrix's right-hand side";
      EXPECT_EQ(cdiff(x2[size_t(b)], rhs[size_t(b)]), 0.0) << wb << ": POSV wrote the failed matrix's right-hand side";
      continue;
    }
    EXPECT_EQ(inf[size_t(b)], 0) << wb;
    EXPECT_EQ(inf2[size_t(b)], 0) << wb << " (posv)";
    expect_factor<T>(fa[size_t(b)], a[size_t(b)], uplo, wb);
    const CHostMat S = hermitian(a[size_t(b)], uplo);
    for (const auto* sol : {&x[size_t(b)], &x2[size_t(b)]}) {
      const double res = cdiff(cmatmul(S, *sol), rhs[size_t(b)]) / (cnorm(S) * cnorm(*sol) + cnorm(rhs[size_t(b)]));
      EXPECT_LE(res, tolerance<R>(n)) << wb << (sol == &x[size_t(b)] ? " POTRS" : " POSV") << " residual";
    }
    const CHostMat F = cop(ctriangle(fa[size_t(b)], uplo), first);
    const double rt = cdiff(cmatmul(F, y[size_t(b)]), rhs[size_t(b)]) / (cnorm(F) * cnorm(y[size_t(b)]) + cnorm(rhs[size_t(b)]));
    EXPECT_LE(rt, tolerance<R>(n)) << wb << " TRSM after POTRF residual";
  }
}

/// Variable-size batch (VarMats offsets, and pointer arrays with their leading dimensions):
/// sizes 0..40 with one non-HPD matrix; POTRF, then POTRS with potrf's infos.
template <class T>
void check_vbatched(Uplo uplo, kb::BatchAlgo algo, bool pointers) {
  using R = typename T::value_type;
  const size_type nb = 9, bad = 4;
  std::vector<int> ns(nb), nrhs(nb);
  std::vector<kspd::offset_type> aoff(nb), boff(nb);
  kspd::offset_type atot = 0, btot = 0;
  for (size_type b = 0; b < nb; ++b) {
    ns[size_t(b)] = int((b * 11) % 41);  // 0, 11, 22, 33, 3 (bad), 14, 25, 36, 6
    nrhs[size_t(b)] = int(1 + b % 3);
    aoff[size_t(b)] = atot;
    boff[size_t(b)] = btot;
    atot += ns[size_t(b)] * ns[size_t(b)] + 1;  // one NaN gap between matrices
    btot += ns[size_t(b)] * nrhs[size_t(b)] + 1;
  }
  std::vector<CHostMat> a, rhs;
  Kokkos::View<T*, Mem> A("A", size_t(atot)), B("B", size_t(btot));
  auto hA = Kokkos::create_mirror_view(A);
  auto hB = Kokkos::create_mirror_view(B);
  Kokkos::deep_copy(hA, CBatch<T>::dev(kNaN));
  Kokkos::deep_copy(hB, CBatch<T>::dev(kNaN));
  for (size_type b = 0; b < nb; ++b) {
    const int n = ns[size_t(b)];
    a.push_back(hpd_one_triangle(n, uplo, unsigned(77 + b)));
    if (b == bad) break_hpd(a.back(), 2);
    rhs.push_back(rounded<R>(crandom(n, nrhs[size_t(b)], unsigned(300 + b))));
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) hA(size_t(aoff[size_t(b)] + i + j * n)) = CBatch<T>::dev(a[size_t(b)](i, j));
      for (int i = 0; i < n && j < nrhs[size_t(b)]; ++i)
        hB(size_t(boff[size_t(b)] + i + j * n)) = CBatch<T>::dev(rhs[size_t(b)](i, j));
    }
  }
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(B, hB);
  Kokkos::View<int*, Mem> dns("ns", nb), dnrhs("nrhs", nb);
  Kokkos::View<kspd::offset_type*, Mem> daoff("aoff", nb), dboff("boff", nb);
  Kokkos::deep_copy(dns, Kokkos::View<int*, Kokkos::HostSpace>(ns.data(), nb));
  Kokkos::deep_copy(dnrhs, Kokkos::View<int*, Kokkos::HostSpace>(nrhs.data(), nb));
  Kokkos::deep_copy(daoff, Kokkos::View<kspd::offset_type*, Kokkos::HostSpace>(aoff.data(), nb));
  Kokkos::deep_copy(dboff, Kokkos::View<kspd::offset_type*, Kokkos::HostSpace>(boff.data(), nb));
  auto infos = poisoned_infos(nb);
  const kb::BatchOptions opts = test_options(algo);
  if (pointers) {
    Kokkos::View<std::uintptr_t*, Mem> ptrs("ptrs", nb);
    auto hp = Kokkos::create_mirror_view(ptrs);
    for (size_type b = 0; b < nb; ++b) hp(b) = reinterpret_cast<std::uintptr_t>(A.data() + aoff[size_t(b)]);
    Kokkos::deep_copy(ptrs, hp);
    kb::potrf_vbatched(Exec(), uplo, dns, reinterpret_cast<T* const*>(ptrs.data()), dns, infos, opts);
  } else {
    kb::potrf_vbatched(Exec(), uplo, dns, kb::var_mats(A, daoff), infos, opts);
  }
  kb::potrs_vbatched(Exec(), uplo, dns, dnrhs, kb::var_mats(A, daoff), kb::var_mats(B, dboff), infos, opts);
  Kokkos::deep_copy(hA, A);
  Kokkos::deep_copy(hB, B);
  const auto inf = to_host(infos);
  for (size_type b = 0; b < nb; ++b) {
    const int n = ns[size_t(b)];
    const std::string wb = std::string("vbatched ") + (pointers ? "pointers " : "offsets ") + name(algo) + " matrix " +
                           std::to_string(b) + " n=" + std::to_string(n);
    CHostMat F(n, n), X(n, nrhs[size_t(b)]);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) F(i, j) = CBatch<T>::host(hA(size_t(aoff[size_t(b)] + i + j * n)));
      for (int i = 0; i < n && j < nrhs[size_t(b)]; ++i) X(i, j) = CBatch<T>::host(hB(size_t(boff[size_t(b)] + i + j * n)));
    }
    if (b == bad) {
      EXPECT_EQ(inf[size_t(b)], 2) << wb;
      EXPECT_EQ(cdiff(X, rhs[size_t(b)]), 0.0) << wb << ": the failed matrix's right-hand side was written";
      continue;
    }
    EXPECT_EQ(inf[size_t(b)], 0) << wb;
    if (n == 0) continue;
    expect_factor<T>(F, a[size_t(b)], uplo, wb);
    const CHostMat S = hermitian(a[size_t(b)], uplo);
    EXPECT_LE(cdiff(cmatmul(S, X), rhs[size_t(b)]) / (cnorm(S) * cnorm(X) + cnorm(rhs[size_t(b)])), tolerance<R>(n)) << wb;
  }
  for (size_type b = 0; b < nb; ++b) {  // the gaps between matrices stay NaN
    EXPECT_TRUE(is_nan(CBatch<T>::host(hA(size_t(aoff[size_t(b)] + ns[size_t(b)] * ns[size_t(b)])))));
    EXPECT_TRUE(is_nan(CBatch<T>::host(hB(size_t(boff[size_t(b)] + ns[size_t(b)] * nrhs[size_t(b)])))));
  }
}

template <class T>
void check_trsm(size_type n, Side side, Uplo uplo, Trans trans, Diag diag, Iface iface, kb::BatchAlgo algo) {
  using R = typename T::value_type;
  const size_type nb = 3, m = side == Side::Left ? n : n / 2 + 3, cols = side == Side::Left ? n / 2 + 3 : n;
  const size_type k = n;  // the order of A
  const std::string where = std::string("n=") + std::to_string(n) + (side == Side::Left ? " Left " : " Right ") +
                            (uplo == Uplo::Lower ? "Lower " : "Upper ") + tname(trans) +
                            (diag == Diag::Unit ? " Unit " : " NonUnit ") + name(iface) + " " + name(algo);
  std::vector<CHostMat> a, rhs;
  for (size_type b = 0; b < nb; ++b) {
    CHostMat t = crandom_tri(k, uplo, unsigned(7 * n + b + 100 * int(uplo == Uplo::Upper)));
    for (size_type j = 0; j < k; ++j)  // the kernels read neither the other triangle nor a unit diagonal
      for (size_type i = 0; i < k; ++i)
        if (!in_tri(uplo, i, j) || (i == j && diag == Diag::Unit)) t(i, j) = kNaN;
    a.push_back(t);
    rhs.push_back(crandom(m, cols, unsigned(900 + 3 * n + b)));
  }
  const cd alpha(0.75, -0.5);
  const T talpha(R(alpha.real()), R(alpha.imag()));
  CBatch<T> A(a, k, k, iface), B(rhs, m, cols, iface);
  const kb::BatchOptions opts = test_options(algo);
  if (iface == Iface::Pointer) kb::trsm(Exec(), side, uplo, trans, diag, talpha, nb, m, cols, A.cp(), A.ld, B.p(), B.ld, opts);
  else if (iface == Iface::Left) kb::trsm(Exec(), side, uplo, trans, diag, talpha, A.L, B.L, opts);
  else kb::trsm(Exec(), side, uplo, trans, diag, talpha, A.Rv, B.Rv, opts);
  const auto x = B.to_host();
  EXPECT_TRUE(A.padding_intact() && B.padding_intact()) << where;
  for (size_type b = 0; b < nb; ++b) {
    const CHostMat opA = cop(ctriangle(a[size_t(b)], uplo, diag), trans);
    const CHostMat lhs = side == Side::Left ? cmatmul(opA, x[size_t(b)]) : cmatmul(x[size_t(b)], opA);
    CHostMat ab = rhs[size_t(b)];
    for (auto& v : ab.a) v *= alpha;
    const double res = cdiff(lhs, ab) / (cnorm(opA) * cnorm(x[size_t(b)]) + cnorm(ab));
    EXPECT_LE(res, tolerance<R>(k)) << where << " matrix " << b;
  }
}

template <class T>
struct BatchedComplex : ::testing::Test {};
using ComplexTypes = ::testing::Types<Kokkos::complex<float>, Kokkos::complex<double>>;
TYPED_TEST_SUITE(BatchedComplex, ComplexTypes);

TYPED_TEST(BatchedComplex, PotrfPotrsEveryUploInterfaceAlgo) {
  for (size_type n : sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : complex_algos()) check_potrf_potrs<TypeParam>(n, n % 2 ? 1 : 3, uplo, iface, algo, -1);
}
TYPED_TEST(BatchedComplex, NonHpdInTheMiddleReportsItsColumnAndKeepsItsRhs) {
  for (size_type n : sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : complex_algos()) check_potrf_potrs<TypeParam>(n, 2, uplo, iface, algo, 2);
}
TYPED_TEST(BatchedComplex, TrsmEveryVariant) {
  for (size_type n : sizes())
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Trans trans : all_trans())
          for (Diag diag : all_diags())
            for (Iface iface : all_ifaces())
              for (auto algo : complex_algos()) check_trsm<TypeParam>(n, side, uplo, trans, diag, iface, algo);
}

TYPED_TEST(BatchedComplex, VariableSizePotrfPotrs) {
  for (Uplo uplo : all_uplos())
    for (auto algo : complex_algos())
      for (bool ptr : {false, true}) check_vbatched<TypeParam>(uplo, algo, ptr);
}
TYPED_TEST(BatchedComplex, InfiniteDiagonalIsReportedOnEveryPath) {
  // info = the first pivot that is not positive and finite, also where Auto runs LAPACK's
  // loop (n = 33), whose ?potrf would pass an infinite pivot.
  using T = TypeParam;
  for (size_type n : {7, 33})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : complex_algos()) {
          std::vector<CHostMat> a;
          for (unsigned b = 0; b < 3; ++b) a.push_back(hpd_one_triangle(n, uplo, 40 + b));
          a[1](2, 2) = cd(std::numeric_limits<double>::infinity(), 0.0);
          CBatch<T> A(a, n, n, iface);
          auto infos = poisoned_infos(3);
          const kb::BatchOptions opts = test_options(algo);
          dispatch(A, [&](auto& v) { kb::potrf(Exec(), uplo, v, infos, opts); },
                   [&] { kb::potrf(Exec(), uplo, 3, n, A.p(), A.ld, infos, opts); });
          const auto inf = to_host(infos);
          EXPECT_EQ(inf, (std::vector<int>{0, 3, 0})) << "n=" << n << " " << name(iface) << " " << name(algo);
        }
}
TYPED_TEST(BatchedComplex, RegisterKernelsAreRealOnlyAndSayIt) {
  using T = TypeParam;
  using R = typename T::value_type;
  const size_type n = 4, nb = 2;
  std::vector<CHostMat> a{rounded<R>(crandom_hpd(n, 1)), rounded<R>(crandom_hpd(n, 2))};
  CBatch<T> A(a, n, n, Iface::Left), B(a, n, n, Iface::Left);
  auto infos = poisoned_infos(nb);
  kb::BatchOptions reg;
  reg.algo = kb::BatchAlgo::Register;
  EXPECT_THROW(kb::potrf(Exec(), Uplo::Lower, A.L, infos, reg), kspd::InvalidArgument);
  EXPECT_THROW(kb::potrs(Exec(), Uplo::Lower, A.L, B.L, infos, reg), kspd::InvalidArgument);
  EXPECT_THROW(kb::posv(Exec(), Uplo::Lower, A.L, B.L, infos, reg), kspd::InvalidArgument);
  EXPECT_THROW(kb::trsm(Exec(), Side::Left, Uplo::Lower, Trans::ConjTranspose, Diag::NonUnit, T(R(1), R(0)), A.L, B.L, reg),
               kspd::InvalidArgument);
  try {
    kb::potrf(Exec(), Uplo::Lower, A.L, infos, reg);
  } catch (const kspd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("BatchAlgo::Register has no complex kernels"), std::string::npos) << e.what();
  }
  // Nothing ran: the inputs are untouched.
  EXPECT_EQ(cdiff(A.to_host()[0], a[0]), 0.0);
  EXPECT_EQ(to_host(infos)[0], -12345);
}

}  // namespace
