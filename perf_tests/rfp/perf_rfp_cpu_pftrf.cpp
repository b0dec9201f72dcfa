// perf_rfp_cpu_pftrf: kspd::rfp::pftrf against LAPACK's own ?pftrf on the host, real and
// complex (d, z; s, c), every RFP variant, on copies of the same buffer A = X X^H / k + I.
// The calls interleave (LAPACK and each kspd blocking of --blocking x --nb, the starting one
// rotating with the repetition) so that all see the same machine load; medians and
// best-of-reps are reported, each line with the 1-minute load average (/proc/loadavg: the VM
// is shared), and a summary per precision and blocking.
// Usage: perf_rfp_cpu_pftrf [--n 1000,2000,4000] [--prec d,z] [--variants all|NL,NU,TL,TU]
//                           [--reps 7] [--k 256] [--algo auto|vendor|recursive|native] [--leaf 0]
//                           [--blocking auto,split,blocked,lookahead] [--nb 0,256] [--upper auto|off|on] [--smoke]
// ratio = t_LAPACK / t_kspd: kspd's speed relative to LAPACK's (>= 1: kspd at least as fast);
// best = min t_LAPACK / min t_kspd over the repetitions.
#include <cmath>
#include <fstream>
#include <complex>

#include "perf_rfp_common.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

extern "C" {
void spftrf_(const char*, const char*, const int*, float*, int*, size_t, size_t);
void dpftrf_(const char*, const char*, const int*, double*, int*, size_t, size_t);
void cpftrf_(const char*, const char*, const int*, std::complex<float>*, int*, size_t, size_t);
void zpftrf_(const char*, const char*, const int*, std::complex<double>*, int*, size_t, size_t);
}

namespace {
using namespace perf_rfp;

template <class T>
int lapack_pftrf(const kspd::rfp::Matrix<T, Mem>& A) {
  const char t = kspd::is_trans(A.transr()) ? (kspd::is_complex_v<T> ? 'C' : 'T') : 'N', u = kspd::to_char(A.uplo());
  const int n = int(A.n());
  int info = 0;
  T* p = A.data().data();
  if constexpr (std::is_same<T, float>::value) spftrf_(&t, &u, &n, p, &info, 1, 1);
  else if constexpr (std::is_same<T, double>::value) dpftrf_(&t, &u, &n, p, &info, 1, 1);
  else if constexpr (std::is_same<T, Kokkos::complex<float>>::value)
    cpftrf_(&t, &u, &n, reinterpret_cast<std::complex<float>*>(p), &info, 1, 1);
  else zpftrf_(&t, &u, &n, reinterpret_cast<std::complex<double>*>(p), &info, 1, 1);
  return info;
}

template <class T>
double mag(const T& v) {
  if constexpr (kspd::is_complex_v<T>) return std::hypot(double(v.real()), double(v.imag()));
  else return std::fabs(double(v));
}

double load_average() {
  std::ifstream f("/proc/loadavg");
  double l = -1;
  f >> l;
  return l;
}

/// Geometric means of the ratios of one precision (median and best).
struct Summary {
  double log_med = 0, log_best = 0, lo = 1e30, hi = 0;
  int count = 0, at_least_one = 0;
  void add(double med, double best) {
    log_med += std::log(med);
    log_best += std::log(best);
    lo = std::min(lo, med);
    hi = std::max(hi, med);
    ++count;
    at_least_one += med >= 1.0;
  }
};

struct Config {
  std::vector<long> ns = {1000, 2000, 4000};
  std::vector<std::string> precs = {"d", "z"}, variants = {"NL", "NU", "TL", "TU"};
  int reps = 7;
  long k = 256;
  kspd::DenseOptions opt;  // --algo / --leaf: what kspd's block operations run
  std::vector<std::string> blockings = {"auto"};
  std::vector<long> nbs = {0};
  /// opt at every blocking (split and auto once, the others at every nb)
  std::vector<kspd::DenseOptions> options() const {
    std::vector<kspd::DenseOptions> v;
    for (const auto& b : blockings) {
      kspd::DenseOptions o = opt;
      o.blocking = parse_blocking(b);
      if (o.blocking == kspd::Blocking::Split || o.blocking == kspd::Blocking::Auto) {
        o.block_size = 0;
        v.push_back(o);
      } else {
        for (long nb : nbs) {
          o.block_size = nb;
          v.push_back(o);
        }
      }
    }
    return v;
  }
};

std::string option_name(const kspd::DenseOptions& o) {
  std::string s = blocking_name(o.blocking);
  if (o.block_size > 0) s += "/" + std::to_string(o.block_size);
  return s;
}

template <class T>
void run(const Config& c, const char* prec) {
  using R = kspd::real_t<T>;
  Exec exec;
  const auto opts = c.options();
  const size_t K = opts.size();
  std::vector<Summary> sum(K);
  for (long n : c.ns)
    for (const auto& var : c.variants) {
      const kspd::Trans transr = var[0] == 'N' ? kspd::Trans::NoTranspose : kspd::Trans::Transpose;
      const kspd::Uplo uplo = var[1] == 'L' ? kspd::Uplo::Lower : kspd::Uplo::Upper;
      kspd::rfp::Matrix<T, Mem> A0("A0", n, transr, uplo), W("W", n, transr, uplo), W2("W2", n, transr, uplo);
      Dense<T> X("X", n, c.k);
      Kokkos::Random_XorShift64_Pool<Exec> pool(1234 + unsigned(n));
      Kokkos::fill_random(X, pool, T(-1), T(1));  // complex: real and imaginary parts in (-1, 1)
      kspd::rfp::hfrk(exec, kspd::Trans::NoTranspose, R(1) / R(c.k), X, R(0), A0);
      kspd::rfp::add_to_diagonal(exec, A0, R(1));
      exec.fence();
      std::vector<std::vector<double>> tk(K);
      std::vector<double> tl, diff(K, 0.0);
      std::vector<int> ik(K, 0);
      int il = 0;
      double amax = 0;
      // call j of a repetition: LAPACK for j == K, kspd's options[j] otherwise
      auto time_one = [&](size_t j) {
        auto& M = j == K ? W2 : W;
        Kokkos::deep_copy(exec, M.data(), A0.data());
        exec.fence();
        Kokkos::Timer t;
        if (j == K) il = lapack_pftrf(W2);
        else ik[j] = kspd::rfp::pftrf(exec, W, opts[j]);
        (j == K ? tl : tk[j]).push_back(t.seconds());
      };
      for (int r = 0; r < c.reps; ++r)
        for (size_t i = 0; i <= K; ++i) {
          const size_t j = (i + size_t(r)) % (K + 1);
          time_one(j);
          // the factors agree: kspd's last run of each option against LAPACK's (run first on r = 0)
          if (r == c.reps - 1 && j != K) {
            if (tl.empty()) time_one(K);
            auto w = W.data(), w2 = W2.data();
            for (size_t p = 0; p < w.extent(0); ++p) {
              diff[j] = std::max(diff[j], mag(w(p) - w2(p)));
              amax = std::max(amax, mag(w2(p)));
            }
          }
        }
      std::sort(tl.begin(), tl.end());
      const double ml = tl[tl.size() / 2];
      const double flops = (kspd::is_complex_v<T> ? 4.0 : 1.0) * double(n) * n * n / 3.0;
      for (size_t j = 0; j < K; ++j) {
        std::sort(tk[j].begin(), tk[j].end());
        const double mk = tk[j][tk[j].size() / 2];
        const double best = tl.front() / tk[j].front();
        sum[j].add(ml / mk, best);
        std::printf("%s %s n=%5ld %-14s | kspd %9.2f ms %6.1f GF/s | LAPACK %cpftrf %9.2f ms %6.1f GF/s | ratio %.3f | "
                    "min %.2f/%.2f ms best %.3f | info %d/%d | factor rel diff %.1e | load %.1f\n",
                    prec, var.c_str(), n, option_name(opts[j]).c_str(), mk * 1e3, flops / mk * 1e-9, prec[0], ml * 1e3,
                    flops / ml * 1e-9, ml / mk, tk[j].front() * 1e3, tl.front() * 1e3, best, ik[j], il,
                    diff[j] / (amax > 0 ? amax : 1), load_average());
        kspd::perf::csv_row(prec, "pftrf", var, n, -1, -1, "kspd " + option_name(opts[j]), mk * 1e3, flops / mk * 1e-9);
      }
      std::fflush(stdout);
      kspd::perf::csv_row(prec, "pftrf", var, n, -1, -1, "LAPACK", ml * 1e3, flops / ml * 1e-9);
    }
  for (size_t j = 0; j < K; ++j)
    if (sum[j].count > 0)
      std::printf("%s summary %-14s: %d cases, median ratio geomean %.3f (%.3f-%.3f, %d of %d >= 1.0), best-of-%d "
                  "ratio geomean %.3f\n",
                  prec, option_name(opts[j]).c_str(), sum[j].count, std::exp(sum[j].log_med / sum[j].count), sum[j].lo,
                  sum[j].hi, sum[j].at_least_one, sum[j].count, c.reps, std::exp(sum[j].log_best / sum[j].count));
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  Config c;
  if (!kspd::compat::is_host_exec_v<Exec>) {
    std::printf("perf_rfp_cpu_pftrf: host builds only (LAPACK's ?pftrf is the peer)\n");
    return 0;
  }
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) {
      c.ns = {97, 128};
      c.k = 16;
      c.reps = 1;
      c.precs = {"s", "d", "c", "z"};
      c.blockings = {"auto", "blocked"};
      c.nbs = {16};
    } else if (arg("--n")) c.ns = parse_list(argv[++i]);
    else if (arg("--prec")) c.precs = parse_words(argv[++i]);
    else if (arg("--variants")) {
      const std::string v = argv[++i];
      if (v != "all") c.variants = parse_words(v);
    } else if (arg("--reps")) c.reps = std::stoi(argv[++i]);
    else if (arg("--k")) c.k = std::stol(argv[++i]);
    else if (arg("--algo")) {
      const std::string a = argv[++i];
      c.opt.algo = a == "vendor" ? kspd::Algo::Vendor : a == "recursive" ? kspd::Algo::Recursive
                   : a == "native"  ? kspd::Algo::Native : kspd::Algo::Auto;
    } else if (arg("--leaf")) c.opt.leaf_size = std::stol(argv[++i]);
    else if (arg("--blocking")) c.blockings = parse_words(argv[++i]);
    else if (arg("--nb")) c.nbs = parse_list(argv[++i]);
    else if (arg("--upper")) c.opt.upper_via_lower = parse_toggle(argv[++i]);
    else {
      std::fprintf(stderr, "perf_rfp_cpu_pftrf: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  const char* nt = std::getenv("OPENBLAS_NUM_THREADS");
  std::printf("perf_rfp_cpu_pftrf: backend %s, kspd %d.%d (git %s), OPENBLAS_NUM_THREADS=%s, k %ld, reps %d "
              "(median), algo %d leaf %lld upper_via_lower %s; ratio = t_LAPACK / t_kspd\n",
              Exec::name(), KSPD_VERSION_MAJOR, KSPD_VERSION_MINOR, KSPD_GIT_HASH, nt ? nt : "(unset)", c.k, c.reps,
              int(c.opt.algo), c.opt.leaf_size, toggle_name(c.opt.upper_via_lower));
  for (const auto& p : c.precs) {
    if (p == "s") run<float>(c, "s");
    if (p == "d") run<double>(c, "d");
    if (p == "c") run<Kokkos::complex<float>>(c, "c");
    if (p == "z") run<Kokkos::complex<double>>(c, "z");
  }
  return 0;
}
