// kspd-batched-kalman: the measurement update of many independent Kalman filters (one per
// tracked object), each a tiny SPD solve with its innovation covariance S_b = H P_b H^T + R
// (m x m, m = 6): S_b x_b = r_b for the innovation r_b. One sensor in the middle of the batch
// reports a negative variance, so its S_b is indefinite: the batched Cholesky reports it in
// infos(b) without disturbing the others, potrs skips it, summarize_infos finds it and
// require_spd turns it into a kspd::NotPositiveDefinite naming the matrix. Each solve is
// checked against its own residual; non-zero exit when anything is off. float and double.
//
//   kspd-batched-kalman [batch]   (default 20001)

#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>

#include "kspd_batched.hpp"
#include "kspd_error.hpp"

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
constexpr int m = 6;
KOKKOS_INLINE_FUNCTION double dmax(double a, double b) { return a > b ? a : b; }

template <class T>
bool run(int batch) {
  Exec exec;
  const int bad = batch / 2;  // the faulty sensor
  Kokkos::View<T***, Kokkos::LayoutRight, Exec::memory_space> S("S", batch, m, m), F("F", batch, m, m);
  Kokkos::View<T***, Kokkos::LayoutRight, Exec::memory_space> r("r", batch, m, 1), x("x", batch, m, 1);
  Kokkos::View<int*, Exec::memory_space> infos("infos", batch);
  Kokkos::Random_XorShift64_Pool<Exec> pool(20261124);
  Kokkos::parallel_for("kalman::innovation", Kokkos::RangePolicy<Exec>(exec, 0, batch), KOKKOS_LAMBDA(int b) {
    auto g = pool.get_state();
    T M[m][m];  // S = M M^T + R with R = 0.1 I: H P H^T + sensor noise
    for (int i = 0; i < m; ++i)
      for (int j = 0; j < m; ++j) M[i][j] = T(g.drand(-1, 1));
    for (int i = 0; i < m; ++i) {
      for (int j = 0; j < m; ++j) {
        T s = i == j ? T(0.1) : T(0);
        for (int k = 0; k < m; ++k) s += M[i][k] * M[j][k];
        S(b, i, j) = s;
      }
      r(b, i, 0) = T(g.drand(-1, 1));
    }
    if (b == bad) S(b, 3, 3) = -S(b, 3, 3);  // a negative variance: leading minor 4 fails
    pool.free_state(g);
  });
  Kokkos::deep_copy(exec, F, S);
  Kokkos::deep_copy(exec, x, r);
  kspd::batched::potrf(exec, kspd::Uplo::Lower, F, infos);  // F_b = L_b L_b^T; infos(b) = 0 or the column
  kspd::batched::potrs(exec, kspd::Uplo::Lower, F, x, infos);  // x_b = S_b^{-1} r_b where infos(b) == 0
  const kspd::batched::InfoSummary sum = kspd::batched::summarize_infos(exec, infos);
  bool threw = false;
  try {
    kspd::batched::require_spd(exec, infos, "kalman update");
  } catch (const kspd::NotPositiveDefinite& e) {
    threw = true;
    std::printf("  require_spd: %s\n", e.what());
  }
  // Check: ||S_b x_b - r_b|| / (||S_b|| ||x_b|| + ||r_b||) < 8 m eps for every good b; the bad
  // b's right-hand side untouched.
  double worst = 0;
  Kokkos::parallel_reduce("kalman::check", Kokkos::RangePolicy<Exec>(exec, 0, batch), KOKKOS_LAMBDA(int b, double& w) {
    double res = 0, ns = 0, nx = 0, nr = 0;
    for (int i = 0; i < m; ++i) {
      double s = 0, rs = 0;
      for (int j = 0; j < m; ++j) s += double(S(b, i, j)) * double(x(b, j, 0)), rs += kspd::compat::fabs(double(S(b, i, j)));
      res = dmax(res, kspd::compat::fabs(s - double(r(b, i, 0))));
      ns = dmax(ns, rs), nx = dmax(nx, kspd::compat::fabs(double(x(b, i, 0)))), nr = dmax(nr, kspd::compat::fabs(double(r(b, i, 0))));
    }
    double e = res / (ns * nx + nr);
    if (b == bad) {
      e = 0;
      for (int i = 0; i < m; ++i) e += x(b, i, 0) != r(b, i, 0) ? 1.0 : 0.0;  // must be untouched
    }
    w = dmax(w, e);
  }, Kokkos::Max<double>(worst));
  const double tol = 8.0 * m * double(std::numeric_limits<T>::epsilon());
  const bool ok = sum.failures == 1 && sum.first == bad && sum.first_info == 4 && threw && worst < tol;
  std::printf("%s: batch %d, %lld failed (first %lld, info %d), worst backward error %.2e (tol %.2e): %s\n",
              sizeof(T) == 4 ? "float" : "double", batch, (long long)sum.failures, (long long)sum.first, sum.first_info,
              worst, tol, ok ? "OK" : "FAILED");
  return ok;
}
}  // namespace

int main(int argc, char** argv) {
  const int batch = argc > 1 ? std::atoi(argv[1]) : 20001;
  Kokkos::ScopeGuard guard(argc, argv);
  const bool ok = run<float>(batch) & run<double>(batch);
  return ok ? 0 : 1;
}
