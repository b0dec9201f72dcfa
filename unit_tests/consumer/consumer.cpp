// Factors and solves a small SPD system through the installed kspd package.
#include <Kokkos_Core.hpp>
#include <cmath>
#include <cstdio>

#include "kspd_core.hpp"

int main(int argc, char* argv[]) {
  Kokkos::ScopeGuard guard(argc, argv);
  const int n = 50;
  Kokkos::View<double**, Kokkos::LayoutLeft> A("A", n, n), B("B", n, 1);
  auto hA = Kokkos::create_mirror_view(A);
  auto hB = Kokkos::create_mirror_view(B);
  for (int j = 0; j < n; ++j) {
    for (int i = 0; i < n; ++i) hA(i, j) = (i == j) ? 4.0 : (std::abs(i - j) == 1 ? -1.0 : 0.0);
    hB(j, 0) = 1.0;
  }
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(B, hB);
  Kokkos::DefaultExecutionSpace exec;
  kspd::require_spd(kspd::potrf(exec, kspd::Uplo::Lower, A), "consumer");
  kspd::potrs(exec, kspd::Uplo::Lower, A, B);
  Kokkos::deep_copy(hB, B);
  // check row 0 of the tridiagonal system: 4 x0 - x1 = 1
  const double r = std::fabs(4 * hB(0, 0) - hB(1, 0) - 1.0);
  std::printf("kspd consumer: residual of row 0 = %.3e\n", r);
  return r < 1e-12 ? 0 : 1;
}
