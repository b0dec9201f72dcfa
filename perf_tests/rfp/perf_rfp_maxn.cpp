// perf_rfp_maxn: the largest SPD matrix that fits, factored in RFP format. Picks the largest
// n whose RFP buffer fits in the free device memory (less a reserve for workspaces), builds
// A = X X^T / k + I in place (sfrk, k = 32), and times one pftrf.
// Usage: perf_rfp_maxn [--n N] [--prec s|d] [--reserve-gib 1.0] [--smoke]
// Prints n, the buffer's GiB, what dense storage would need, time, TFLOP/s (n^3/3), info and
// the peak device memory above the buffer during pftrf (its workspace).
#include <cmath>

#include "perf_rfp_common.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

namespace {
using namespace perf_rfp;

template <class T>
int run(long n, double reserve_gib) {
  Exec exec;
  const size_t free0 = free_bytes();
  if (n <= 0) {
    if (free0 == 0) {
      std::printf("perf_rfp_maxn: no device memory to measure on this backend; give --n\n");
      return 1;
    }
    // n(n+1)/2 * sizeof(T) <= free - reserve
    const double usable = double(free0) - reserve_gib * GiB - 64.0 * 1024 * 1024;
    n = long((std::sqrt(1.0 + 8.0 * usable / sizeof(T)) - 1.0) / 2.0);
  }
  const double bytes = double(kspd::rfp::packed_size(n)) * sizeof(T);
  std::printf("%s n=%ld: RFP buffer %.2f GiB (dense would need %.2f GiB), free before %.2f GiB, reserve %.2f GiB\n",
              sizeof(T) == 4 ? "s" : "d", n, bytes / GiB, double(n) * n * sizeof(T) / GiB, double(free0) / GiB,
              reserve_gib);
  std::fflush(stdout);
  kspd::rfp::Matrix<T, Mem> A("A", n, kspd::Trans::NoTranspose, kspd::Uplo::Lower);
  Kokkos::Timer tg;
  {
    Dense<T> X("X", n, 32);
    make_spd(A, X, 99);
  }
  const double tgen = tg.seconds();
  const size_t free1 = free_bytes();
  int info = 0;
  double t = 0, peak = 0;
  {
    PeakTracker pt;
    exec.fence();
    Kokkos::Timer timer;
    info = kspd::rfp::pftrf(exec, A);
    exec.fence();
    t = timer.seconds();
    peak = pt.finish();
  }
  // The factor's diagonal must be finite and positive.
  const auto L = A.layout();
  auto a = A.data();
  double dmin = 0, dmax = 0;
  Kokkos::parallel_reduce(
      "perf::diag_min", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(long i, double& m) {
        const double v = double(a(L.diag(i)));
        if (!(v >= m)) m = v;
      },
      Kokkos::Min<double>(dmin));
  Kokkos::parallel_reduce(
      "perf::diag_max", Kokkos::RangePolicy<Exec>(exec, 0, n),
      KOKKOS_LAMBDA(long i, double& m) {
        const double v = double(a(L.diag(i)));
        if (!(v <= m)) m = v;
      },
      Kokkos::Max<double>(dmax));
  const double flops = double(n) * n * n / 3.0;
  std::printf("%s pftrf maxn n=%ld | %.2f GiB RFP | %.3f s | %.2f TFLOP/s | info %d | workspace peak %.3f GiB | "
              "free after build %.2f GiB | diag(L) in [%.3g, %.3g] | build (sfrk) %.2f s\n",
              sizeof(T) == 4 ? "s" : "d", n, bytes / GiB, t, flops / t * 1e-12, info, peak / GiB,
              double(free1) / GiB, dmin, dmax, tgen);
  std::fflush(stdout);
  kspd::perf::csv_row(sizeof(T) == 4 ? "s" : "d", "pftrf maxn", "", n, -1, -1, "kspd", t * 1e3, flops / t * 1e-9);
  return info == 0 ? 0 : 1;
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  long n = 0;
  std::string prec = "s";
  double reserve = 1.0;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) n = 1000;
    else if (arg("--n")) n = std::stol(argv[++i]);
    else if (arg("--prec")) prec = argv[++i];
    else if (arg("--reserve-gib")) reserve = std::stod(argv[++i]);
    else {
      std::fprintf(stderr, "perf_rfp_maxn: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  if (n <= 0 && free_bytes() == 0) n = 4096;  // host builds: a fixed size
  std::printf("perf_rfp_maxn: device %s, backend %s, kspd git %s\n", device_name().c_str(), Exec::name(), KSPD_GIT_HASH);
  return prec == "d" ? run<double>(n, reserve) : run<float>(n, reserve);
}
