// kspd-dense-demo: factors and solves a generated SPD system with the recursive kernels and
// prints the residual ||Ax - b|| / (||A|| ||x|| + ||b||) and the timings.
//   kspd-dense-demo [n] [nrhs]
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>

#include "kspd_core.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int n = argc > 1 ? std::atoi(argv[1]) : 2000;
  const int nrhs = argc > 2 ? std::atoi(argv[2]) : 4;
  using Exec = Kokkos::DefaultExecutionSpace;
  using Mat = Kokkos::View<double**, Kokkos::LayoutLeft, Exec::memory_space>;
  Exec exec;
  Mat A0("A0", n, n), A("A", n, n), B("B", n, nrhs), X("X", n, nrhs), R("R", n, nrhs);
  // A = G G^T / n + I from a random G: SPD and well conditioned.
  {
    Mat G("G", n, n);
    Kokkos::Random_XorShift64_Pool<Exec> pool(2026);
    Kokkos::fill_random(G, pool, -1.0, 1.0);
    Kokkos::fill_random(B, pool, -1.0, 1.0);
    kspd::gemm(exec, kspd::Trans::NoTranspose, kspd::Trans::Transpose, 1.0 / n, G, G, 0.0, A0);
    Kokkos::parallel_for("kspd::demo::shift", Kokkos::RangePolicy<Exec>(exec, 0, n),
                         KOKKOS_LAMBDA(int i) { A0(i, i) += 1.0; });
  }
  Kokkos::deep_copy(exec, A, A0);
  Kokkos::deep_copy(exec, X, B);
  exec.fence();
  const kspd::DenseOptions rec{kspd::Algo::Recursive, 0};
  Kokkos::Timer timer;
  const int info = kspd::potrf(exec, kspd::Uplo::Lower, A, rec);
  const double t_factor = timer.seconds();
  kspd::require_spd(info, "kspd-dense-demo");
  timer.reset();
  kspd::potrs(exec, kspd::Uplo::Lower, A, X, rec);
  exec.fence();
  const double t_solve = timer.seconds();
  // residual
  Kokkos::deep_copy(exec, R, B);
  kspd::gemm(exec, kspd::Trans::NoTranspose, kspd::Trans::NoTranspose, 1.0, A0, X, -1.0, R);
  double nr = 0, na = 0, nx = 0, nb = 0;
  Kokkos::parallel_reduce("kspd::demo::norms", Kokkos::RangePolicy<Exec>(exec, 0, n),
    KOKKOS_LAMBDA(int i, double& a) { for (int j = 0; j < nrhs; ++j) a += R(i, j) * R(i, j); }, nr);
  Kokkos::parallel_reduce("kspd::demo::norms", Kokkos::RangePolicy<Exec>(exec, 0, n),
    KOKKOS_LAMBDA(int i, double& a) { for (int j = 0; j < n; ++j) a += A0(i, j) * A0(i, j); }, na);
  Kokkos::parallel_reduce("kspd::demo::norms", Kokkos::RangePolicy<Exec>(exec, 0, n),
    KOKKOS_LAMBDA(int i, double& a) { for (int j = 0; j < nrhs; ++j) a += X(i, j) * X(i, j); }, nx);
  Kokkos::parallel_reduce("kspd::demo::norms", Kokkos::RangePolicy<Exec>(exec, 0, n),
    KOKKOS_LAMBDA(int i, double& a) { for (int j = 0; j < nrhs; ++j) a += B(i, j) * B(i, j); }, nb);
  const double rel = std::sqrt(nr) / (std::sqrt(na) * std::sqrt(nx) + std::sqrt(nb));
  const double gflops = (double(n) * n * n / 3.0) / t_factor * 1e-9;
  std::printf("kspd-dense-demo: n=%d nrhs=%d backend=%s\n", n, nrhs, Exec::name());
  std::printf("  potrf (recursive) %.3f s  %.1f GFLOP/s\n", t_factor, gflops);
  std::printf("  potrs             %.3f s\n", t_solve);
  std::printf("  residual ||Ax-b||/(||A||||x||+||b||) = %.3e  (n*eps = %.3e)\n", rel, n * 2.22e-16);
  return rel < 100 * n * 2.22e-16 ? 0 : 1;
}
