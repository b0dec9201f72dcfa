// kspd-gp-regression: Gaussian-process regression in RFP storage (half the memory of a dense
// kernel matrix). The kernel matrix K(x_i, x_j) is filled on the device straight into the RFP
// array; an RBF kernel on close points is numerically singular, so the Cholesky retries with
// growing jitter (pftrf_jitter re-filling K through the same functor); then the weights
// alpha = (K + jI)^{-1} y, log det(K + jI) and the predictive variance at a few test points.
// Every result is checked against a dense Cholesky on the host (naive loops); non-zero exit
// when any differs.
//
//   kspd-gp-regression [n]   (n training points, default 301)

#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kspd_rfp.hpp"

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
using Mat = kspd::rfp::Matrix<double, Exec::memory_space>;
constexpr double ell = 0.3;  // kernel length scale
KOKKOS_INLINE_FUNCTION double rbf(double a, double b) { return kspd::compat::exp(-(a - b) * (a - b) / (2 * ell * ell)); }

// Fills every stored entry of the RFP array: entry p holds A(i, j) (decode gives i, j).
struct FillKernel {
  Kokkos::View<const double*, Exec::memory_space> x;
  kspd::rfp::Layout lay;
  Kokkos::View<double*, Exec::memory_space> a;
  KOKKOS_INLINE_FUNCTION void operator()(std::int64_t p) const {
    kspd::size_type i, j;
    lay.decode(p, i, j);
    a(p) = rbf(x(i), x(j));
  }
};
struct Fill {  // what pftrf_jitter calls before each retry
  Kokkos::View<const double*, Exec::memory_space> x;
  void operator()(const Exec& exec, const Mat& A) const {
    Kokkos::parallel_for("gp::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, A.layout().size()),
                         FillKernel{x, A.layout(), A.data()});
  }
};

// Dense reference: L L^T = A in place (lower triangle); false when a pivot is not positive.
bool cholesky(std::vector<double>& A, long n) {
  for (long j = 0; j < n; ++j) {
    for (long k = 0; k < j; ++k)
      for (long i = j; i < n; ++i) A[i + j * n] -= A[i + k * n] * A[j + k * n];
    if (!(A[j + j * n] > 0)) return false;
    const double d = std::sqrt(A[j + j * n]);
    for (long i = j; i < n; ++i) A[i + j * n] /= d;
  }
  return true;
}
void solve(const std::vector<double>& L, long n, double* b) {  // b = (L L^T)^{-1} b
  for (long j = 0; j < n; ++j) { b[j] /= L[j + j * n]; for (long i = j + 1; i < n; ++i) b[i] -= L[i + j * n] * b[j]; }
  for (long j = n - 1; j >= 0; --j) { for (long i = j + 1; i < n; ++i) b[j] -= L[i + j * n] * b[i]; b[j] /= L[j + j * n]; }
}
}  // namespace

int main(int argc, char** argv) {
  const int n = argc > 1 ? std::atoi(argv[1]) : 301, m = 7;  // training and test points
  Kokkos::ScopeGuard guard(argc, argv);
  Exec exec;
  Kokkos::View<double*, Exec::memory_space> x("x", n), y("y", n), xs("xs", m);
  Kokkos::parallel_for("gp::data", Kokkos::RangePolicy<Exec>(exec, 0, n), KOKKOS_LAMBDA(int i) {
    x(i) = double(i) / n;                      // dense points: K is numerically singular
    y(i) = kspd::compat::sin(6 * x(i)) + 0.1 * kspd::compat::cos(40 * x(i));
  });
  Kokkos::parallel_for("gp::test_points", Kokkos::RangePolicy<Exec>(exec, 0, m), KOKKOS_LAMBDA(int k) { xs(k) = (k + 0.5) / m; });

  // Factor K + jI with the smallest jitter of {0, 1e-6, 1e-5, ...} x mean(diag K) that works.
  Mat K("gp::K", n, kspd::Trans::NoTranspose, kspd::Uplo::Lower);
  Fill fill{x};
  fill(exec, K);
  kspd::JitterOptions jopt;
  jopt.rel_jitter = 1e-6;
  jopt.max_retries = 4;
  const kspd::JitterResult r = kspd::rfp::pftrf_jitter(exec, K, fill, jopt);
  if (r.info != 0) { std::printf("no jitter made K positive definite (info %d)\n", r.info); return 1; }
  Kokkos::View<double**, Kokkos::LayoutLeft, Exec::memory_space> alpha("alpha", n, 1), V("V", n, m);
  Kokkos::deep_copy(exec, Kokkos::subview(alpha, Kokkos::ALL, 0), y);
  kspd::rfp::pftrs(exec, K, alpha);                          // alpha = (K + jI)^{-1} y
  const double logdet = kspd::rfp::pftrf_logdet(exec, K);    // log det(K + jI)
  Kokkos::parallel_for("gp::cross", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {n, m}),
                       KOKKOS_LAMBDA(int i, int k) { V(i, k) = rbf(x(i), xs(k)); });
  auto ks = Kokkos::create_mirror(Kokkos::HostSpace(), V);  // k_* (a copy: pftrs overwrites V)
  Kokkos::deep_copy(exec, ks, V);
  kspd::rfp::pftrs(exec, K, V);                              // V = (K + jI)^{-1} k_*
  auto hv = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), V);
  auto ha = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), alpha);
  auto hx = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), x);
  auto hy = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), y);
  std::printf("n = %d: %d attempt(s), jitter %.3g, log det %.6f\n", n, r.attempts, r.jitter, logdet);

  // The reference: dense K + jI on the host, naive Cholesky.
  std::vector<double> L(size_t(n) * n);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) L[i + size_t(j) * n] = rbf(hx(i), hx(j)) + (i == j ? r.jitter : 0.0);
  std::vector<double> A = L, a(hy.data(), hy.data() + n);
  if (!cholesky(L, n)) { std::printf("reference Cholesky failed\n"); return 1; }
  solve(L, n, a.data());
  double ld = 0, da = 0, na = 0, res = 0, nb = 0, nA = 0, dv = 0;
  for (int i = 0; i < n; ++i) {
    ld += 2 * std::log(L[i + size_t(i) * n]);
    da = std::max(da, std::fabs(ha(i, 0) - a[i])), na = std::max(na, std::fabs(a[i]));
    double s = 0, rs = 0;
    for (int j = 0; j < n; ++j) s += A[i + size_t(j) * n] * ha(j, 0), rs += std::fabs(A[i + size_t(j) * n]);
    res = std::max(res, std::fabs(s - hy(i))), nb = std::max(nb, std::fabs(hy(i))), nA = std::max(nA, rs);
  }
  for (int k = 0; k < m; ++k) {
    std::vector<double> v(n);
    for (int i = 0; i < n; ++i) v[i] = ks(i, k);
    solve(L, n, v.data());
    double var = 1, var_ref = 1;  // k(x*, x*) - k_*^T (K + jI)^{-1} k_*
    for (int i = 0; i < n; ++i) var -= ks(i, k) * hv(i, k), var_ref -= ks(i, k) * v[i];
    dv = std::max(dv, std::fabs(var - var_ref));
    std::printf("  x* = %.3f: variance %.3e (reference %.3e)\n", 0.5 / m + double(k) / m, var, var_ref);
  }
  const double eps = 2.2e-16, berr = res / (nA * na + nb);
  std::printf("residual %.2e (n eps = %.2e), |alpha - ref| / |ref| %.2e, log det - ref %.2e, variance - ref %.2e\n", berr,
              n * eps, da / na, logdet - ld, dv);
  // cond(K + jI) is about 1/j = 1e6: alpha and the variances (about 1e-8) agree to cond * eps.
  const bool ok = berr < n * eps && std::fabs(logdet - ld) < 1e-10 * std::max(1.0, std::fabs(ld)) && dv < 1e-12 && da / na < 1e-6;
  std::printf("%s\n", ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
