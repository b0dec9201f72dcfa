// perf_rfp_krr: kernel ridge regression with the kernel matrix in RFP format.
// Points p_i uniform in [0,1]^d, targets y_i = sin(2 pi p_i0) + cos(pi p_i1) + noise; the
// Gaussian kernel K_ij = exp(-|p_i - p_j|^2 / (2 s^2)) is written straight into the RFP
// buffer by one Kokkos kernel (no dense matrix anywhere); K + lambda I; pftrf with jitter
// retry (kspd::rfp::pftrf_jitter: a numerically indefinite K, e.g. lambda = 0 in fp32, gets
// K + (lambda + jitter) I), then pftrs gives alpha and pftrf_logdet log det(K + ...), the
// marginal likelihood's term. Reports the times (fill, pftrf with its retries, log det,
// pftrs), the attempts and jitter, the solve's relative residual
// |(K + (lambda + jitter) I) alpha - y| / |y| and the fit's training RMSE |K alpha - y| / sqrt(n).
// --jitter fill: a retry re-fills K through the fill kernel (one plain pftrf per attempt);
// undo: the failed attempt is undone in place (no re-fill); off: plain pftrf.
// Usage: perf_rfp_krr [n,n,...] [--d 8] [--sigma 0.5] [--lambda 1e-3] [--prec s|d]
//                     [--jitter fill|undo|off] [--max-retries 3] [--mixed] [--smoke]
// --mixed: the fp64 system by pfsv and by pfsv_mixed (fp32 factor, fp64 refinement), timed.
// --smoke runs n = 300 as given, then in fp32 with d = 2, lambda = 0 (needs jitter: 3 attempts).
#include <cmath>

#include "perf_rfp_common.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

namespace {
using namespace perf_rfp;

template <class T>
void fill_kernel(const kspd::rfp::Matrix<T, Mem>& K, const Dense<T>& P, T sigma) {
  const auto L = K.layout();
  auto k = K.data();
  const long d = long(P.extent(1));
  const T scale = T(-0.5) / (sigma * sigma);
  Kokkos::parallel_for(
      "perf::krr::fill", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(0, L.size()),
      KOKKOS_LAMBDA(std::int64_t pos) {
        kspd::size_type i, j;
        L.decode(pos, i, j);
        T s = 0;
        for (long l = 0; l < d; ++l) {
          const T diff = P(i, l) - P(j, l);
          s += diff * diff;
        }
        k(pos) = kspd::compat::exp(scale * s);
      });
}

template <class T>
void run(long n, long d, T sigma, T lambda, const std::string& jitter, int max_retries) {
  Exec exec;
  Dense<T> P("P", n, d);
  Kokkos::Random_XorShift64_Pool<Exec> pool(2024);
  Kokkos::fill_random(P, pool, T(0), T(1));
  Kokkos::View<T*, Mem> y("y", n), noise("noise", n), r("r", n);
  Kokkos::fill_random(noise, pool, T(-0.01), T(0.01));
  Kokkos::parallel_for(
      "perf::krr::y", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(long i) {
        y(i) = kspd::compat::sin(T(2 * M_PI) * P(i, 0)) + kspd::compat::cos(T(M_PI) * P(i, 1)) + noise(i);
      });
  kspd::rfp::Matrix<T, Mem> K("K", n, kspd::Trans::NoTranspose, kspd::Uplo::Lower);
  Dense<T> alpha("alpha", n, 1);
  exec.fence();
  const size_t free0 = free_bytes();
  Kokkos::Timer timer;
  fill_kernel(K, P, sigma);
  kspd::rfp::add_to_diagonal(exec, K, lambda);
  exec.fence();
  const double tfill = timer.seconds();
  Kokkos::deep_copy(Kokkos::subview(alpha, Kokkos::ALL(), 0), y);
  exec.fence();
  timer.reset();
  kspd::JitterResult jr;
  kspd::JitterOptions jo;
  jo.max_retries = max_retries;
  if (jitter == "undo") {
    jr = kspd::rfp::pftrf_jitter(exec, K, jo);
  } else if (jitter == "fill") {
    jr = kspd::rfp::pftrf_jitter(
        exec, K,
        [&](const Exec& e, const kspd::rfp::Matrix<T, Mem>& M) {
          fill_kernel(M, P, sigma);
          kspd::rfp::add_to_diagonal(e, M, lambda);
        },
        jo);
  } else {
    jr.info = kspd::rfp::pftrf(exec, K);
    jr.attempts = 1;
  }
  const int info = jr.info;
  const double tf = timer.seconds();
  timer.reset();
  const double logdet = info == 0 ? kspd::rfp::pftrf_logdet(exec, K) : std::nan("");
  const double tl = timer.seconds();
  timer.reset();
  if (info == 0) kspd::rfp::pftrs(exec, K, alpha);
  exec.fence();
  const double ts = timer.seconds();
  const T shift = lambda + T(jr.jitter);  // the diagonal shift of the matrix actually factored
  // Residuals: rebuild K (cheap next to the factorization) and apply it with sfmv.
  fill_kernel(K, P, sigma);
  auto a1 = Kokkos::subview(alpha, Kokkos::ALL(), 0);
  Kokkos::deep_copy(r, y);
  kspd::rfp::sfmv(exec, T(1), K, a1, T(-1), r);  // K alpha - y (the fit's training error)
  double fit2 = 0, y2 = 0, res2 = 0;
  Kokkos::parallel_reduce(
      "perf::krr::norms", Kokkos::RangePolicy<Exec>(0, n),
      KOKKOS_LAMBDA(long i, double& f, double& yy, double& rr) {
        f += double(r(i)) * r(i);
        yy += double(y(i)) * y(i);
        const double s = double(r(i)) + double(shift) * a1(i);  // (K + (lambda + jitter) I) alpha - y
        rr += s * s;
      },
      fit2, y2, res2);
  const double bytes = double(kspd::rfp::packed_size(n)) * sizeof(T);
  std::printf("%s krr n=%7ld d=%ld sigma=%.3g lambda=%.1e | RFP %.3f GiB (dense %.3f) | fill %.3f s, pftrf %.3f s "
              "(%.2f TF; jitter %s: %d attempt%s, jitter %.2e), logdet %.4f s = %.6e, pftrs %.4f s | info %d | "
              "solve residual %.2e | training RMSE %.3e | free before %.2f GiB\n",
              sizeof(T) == 4 ? "s" : "d", n, d, double(sigma), double(lambda), bytes / GiB,
              double(n) * n * sizeof(T) / GiB, tfill, tf, double(n) * n * n / 3.0 / tf * 1e-12, jitter.c_str(),
              jr.attempts, jr.attempts == 1 ? "" : "s", jr.jitter, tl, logdet, ts, info, std::sqrt(res2 / y2),
              std::sqrt(fit2 / double(n)), double(free0) / GiB);
  const char* pr = sizeof(T) == 4 ? "s" : "d";
  kspd::perf::csv_row(pr, "krr fill", "", n, -1, -1, "kspd", tfill * 1e3);
  kspd::perf::csv_row(pr, "krr pftrf", "", n, -1, -1, "kspd", tf * 1e3, double(n) * n * n / 3.0 / tf * 1e-9);
  kspd::perf::csv_row(pr, "krr logdet", "", n, -1, -1, "kspd", tl * 1e3);
  kspd::perf::csv_row(pr, "krr pftrs", "", n, -1, -1, "kspd", ts * 1e3);
  std::fflush(stdout);
}

/// The fp64 KRR system solved twice: pfsv (fp64 factor) and pfsv_mixed (fp32 factor + fp64
/// refinement, K kept): times, the speedup, refinement steps, backward error, fallback.
void run_mixed(long n, long d, double sigma, double lambda) {
  Exec exec;
  Dense<double> P("P", n, d);
  Kokkos::Random_XorShift64_Pool<Exec> pool(2024);
  Kokkos::fill_random(P, pool, 0.0, 1.0);
  Dense<double> Y("Y", n, 1), X("X", n, 1), A1("alpha", n, 1);
  Kokkos::fill_random(Y, pool, -1.0, 1.0);
  kspd::rfp::Matrix<double, Mem> K("K", n, kspd::Trans::NoTranspose, kspd::Uplo::Lower);
  fill_kernel(K, P, sigma);
  kspd::rfp::add_to_diagonal(exec, K, lambda);
  Kokkos::deep_copy(exec, A1, Y);
  exec.fence();
  Kokkos::Timer timer;
  const int info = kspd::rfp::pfsv(exec, K, A1);
  exec.fence();
  const double t64 = timer.seconds();
  fill_kernel(K, P, sigma);  // pfsv overwrote K with its factor
  kspd::rfp::add_to_diagonal(exec, K, lambda);
  exec.fence();
  timer.reset();
  const auto mr = kspd::rfp::pfsv_mixed(exec, K, Y, X);
  exec.fence();
  const double tmx = timer.seconds();
  std::printf("m krr n=%7ld d=%ld sigma=%.3g lambda=%.1e | fp64 pfsv %.3f s (info %d) | mixed pfsv %.3f s = %.2fx | "
              "%d refinement steps, backward error %.2e, fell back %s (fp32 info %d)\n",
              n, d, sigma, lambda, t64, info, tmx, t64 / tmx, mr.iterations, mr.backward_error,
              mr.fell_back ? "yes" : "no", mr.fp32_info);
  std::fflush(stdout);
  kspd::perf::csv_row("d", "krr pfsv", "", n, -1, -1, "kspd fp64", t64 * 1e3);
  kspd::perf::csv_row("m", "krr pfsv", "", n, -1, -1, "kspd mixed", tmx * 1e3);
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<long> ns = {kspd::compat::is_host_exec_v<Exec> ? 2000L : 32768L};
  long d = 8;
  double sigma = 0.5, lambda = 1e-3;
  std::string prec = "d", jitter = "fill";
  int max_retries = 3;
  bool smoke = false, mixed = false;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) {
      ns = {300};
      smoke = true;
    } else if (std::strcmp(argv[i], "--mixed") == 0) mixed = true;
    else if (arg("--jitter")) jitter = argv[++i];
    else if (arg("--max-retries")) max_retries = std::stoi(argv[++i]);
    else if (arg("--n")) ns = parse_list(argv[++i]);
    else if (arg("--d")) d = std::stol(argv[++i]);
    else if (arg("--sigma")) sigma = std::stod(argv[++i]);
    else if (arg("--lambda")) lambda = std::stod(argv[++i]);
    else if (arg("--prec")) prec = argv[++i];
    else if (argv[i][0] >= '0' && argv[i][0] <= '9') ns = parse_list(argv[i]);
    else {
      std::fprintf(stderr, "perf_rfp_krr: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("perf_rfp_krr: device %s, backend %s, kspd git %s\n", device_name().c_str(), Exec::name(), KSPD_GIT_HASH);
  if (jitter != "fill" && jitter != "undo" && jitter != "off") {
    std::fprintf(stderr, "perf_rfp_krr: --jitter must be fill, undo or off\n");
    return 2;
  }
  for (long n : ns) {
    if (mixed) run_mixed(n, d, sigma, lambda);
    else if (prec == "s") run<float>(n, d, float(sigma), float(lambda), jitter, max_retries);
    else run<double>(n, d, sigma, lambda, jitter, max_retries);
  }
  if (smoke) {  // a kernel matrix that needs jitter (fp32, d = 2, lambda = 0: info 19 without), both retry modes
    run<float>(300, 2, float(sigma), 0.0f, "fill", max_retries);
    run<float>(300, 2, float(sigma), 0.0f, "undo", max_retries);
    run_mixed(300, d, sigma, lambda);
  }
  return 0;
}
