// perf_sparse_selinv: selected inversion (A^-1 on the pattern of L) against the numeric
// factorization of the same matrix, and the mixed-precision solve (fp32 factor + fp64
// refinement, forced with MixedFactor::Fp32, and the default MixedFactor::Auto, with the
// path it chose) against the fp64 factor + solve, end to end after the (shared) analysis,
// with the factorization's flops and nnz(L) (fp32_pays' inputs) and the factors' memory.
// Every timing is the median of --reps runs in this process.
//
//   perf_sparse_selinv [--smoke] [--sizes 30,40] [--data DIR] [--max-n N] [--threads T]
//                      [--reps R] [--placement host|resident|both] [--no-mixed] [--no-selinv] [--cpu-time]
// --cpu-time: the process's CPU time (all its threads) instead of wall-clock time: on a
// loaded machine, with --threads 1 and OPENBLAS_NUM_THREADS=1, the work's own time without
// the other processes' preemption (host placement only: a device's time is not CPU time).
// Default: 3-D elasticity 30^3 and 40^3 (n = 81,000 and 192,000), the host placement on CPU
// builds and the resident one where the default execution space is a device.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <string>
#include <vector>

#include "kspd_sparse.hpp"
#include "kspd_sparse_mixed_cholesky.hpp"
#include "kspd_perf_csv.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using Exec = Kokkos::DefaultExecutionSpace;

bool cpu_time = false;  // --cpu-time
double now() {
  if (cpu_time) return double(std::clock()) / CLOCKS_PER_SEC;
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Config {
  int threads = 2, reps = 3;
  bool host = true, resident = false, mixed = true, selinv = true;
};

ks::Options options(const Config& c, bool resident) {
  ks::Options o;
  o.threads = c.threads;
  if (resident) {
#ifdef KOKKOS_ENABLE_CUDA
    o.offload.gpu_defaults();
    o.max_supernode = ks::Offload::kGpuMaxSupernode;
#else
    o.offload.force_all();
#endif
    o.offload.device_memory_limit = std::int64_t(60) << 30;
  }
  return o;
}

void bench_selinv(const ks::CscMatrix<double>& A, const Config& c, bool resident) {
  Exec exec;
  ks::SupernodalCholesky<double> chol(options(c, resident));
  chol.analyze(A);
  std::vector<double> tf, ts;
  double tr = 0;
  for (int r = 0; r < c.reps; ++r) {
    double t = now();
    if (chol.factorize(exec, A) != 0) {
      std::printf("  %s: not SPD\n", A.name.c_str());
      return;
    }
    tf.push_back(now() - t);
    t = now();
    const auto Z = chol.selected_inverse(exec);
    ts.push_back(now() - t);
    if (r == 0) {  // a sanity value: trace(A^-1 A) = n
      tr = Z.trace_product(exec, A);
    }
  }
  const double f = median(tf), s = median(ts);
  std::printf("selinv  %-22s n=%8ld nnz(L)=%6.1fM %-8s factor %8.3f s  selinv %8.3f s  ratio %5.2f  (target <= 3)  "
              "trace(A^-1 A)/n-1 = %.1e\n",
              A.name.c_str(), long(A.n), double(chol.analysis_stats().nnz_l_stored) * 1e-6, chol.resident() ? "resident" : "host",
              f, s, s / f, A.n > 0 ? tr / double(A.n) - 1 : 0.0);
  std::fflush(stdout);
  kspd::perf::csv_row("d", "factor", A.name, long(A.n), -1, -1, "kspd", f * 1e3);
  kspd::perf::csv_row("d", "selinv", A.name, long(A.n), -1, -1, "kspd", s * 1e3);
}

void bench_mixed(const ks::CscMatrix<double>& A, const Config& c, bool resident) {
  Exec exec;
  const size_type n = A.n;
  std::vector<double> x(static_cast<size_t>(n));
  for (size_type i = 0; i < n; ++i) x[size_t(i)] = 1.0 + 0.5 * std::sin(double(i));
  std::vector<double> bh(static_cast<size_t>(n));
  ks::symv(A, x, bh);
  using V = Kokkos::View<double*, Exec::memory_space>;
  V b("b", size_t(n)), X("x", size_t(n));
  Kokkos::deep_copy(b, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(bh.data(), bh.size()));
  ks::SupernodalCholesky<double> d(options(c, resident));
  d.analyze(A);
  // the fp32 path forced (MixedFactor::Fp32) and the default (Auto), against fp64
  kspd::MixedOptions fp32, autom;
  fp32.factor = kspd::MixedFactor::Fp32;
  ks::MixedCholesky<Exec> m(options(c, resident), fp32), ma(options(c, resident), autom);
  m.analyze(A);
  ma.analyze(A);
  std::vector<double> td, tm, ta;
  kspd::MixedResult res, resa;
  for (int r = 0; r < c.reps; ++r) {
    double t = now();
    if (d.factorize(exec, A) != 0) return;
    d.solve(exec, b, X);
    td.push_back(now() - t);
    t = now();
    if (m.factorize(exec, A) != 0) return;
    res = m.solve(exec, b, X);
    tm.push_back(now() - t);
    t = now();
    if (ma.factorize(exec, A) != 0) return;
    resa = ma.solve(exec, b, X);
    ta.push_back(now() - t);
  }
  const double t64 = median(td), t32 = median(tm), tau = median(ta);
  const auto& as = d.analysis_stats();
  const double b64 = double(d.symbolic().nvalues) * 8;
  std::printf("mixed   %-22s n=%8ld %-8s flops %.2e nnz(L) %.2e flops/nnz(L) %6.0f  fp64 %8.4f s  fp32+refine %8.4f s "
              "(%5.2fx, %d it%s)  auto %8.4f s (%5.2fx, %s)  backward error %.1e  factor memory %.1f MB -> %.1f MB\n",
              A.name.c_str(), long(n), d.resident() ? "resident" : "host", as.flops_stored, double(as.nnz_l_stored),
              as.flops_stored / std::max(1.0, double(as.nnz_l_stored)), t64, t32, t64 / t32, res.iterations,
              res.fell_back ? ", FELL BACK" : "", tau, t64 / tau, resa.fp64_chosen ? "fp64 chosen" : resa.fell_back ? "fell back" : "fp32",
              resa.backward_error, b64 * 1e-6, m.factor_bytes() * 1e-6);
  std::fflush(stdout);
  kspd::perf::csv_row("d", "factor+solve", A.name, long(n), 1, -1, "kspd fp64", t64 * 1e3);
  kspd::perf::csv_row("m", "factor+solve", A.name, long(n), 1, -1, "kspd mixed", t32 * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;  // our flags are not Kokkos's
  Config c;
#ifdef KOKKOS_ENABLE_CUDA
  c.host = false, c.resident = true;
#endif
  std::vector<long> sizes = {30, 40};
  std::string data;
  long max_n = 20000;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--smoke") sizes = {6}, c.reps = 1, c.host = c.resident = true;
    else if (s == "--sizes" && a + 1 < argc) {
      sizes.clear();
      for (char* p = argv[++a]; *p;) {
        sizes.push_back(std::strtol(p, &p, 10));
        if (*p == ',') ++p;
        else if (*p) break;
      }
    } else if (s == "--data" && a + 1 < argc) data = argv[++a];
    else if (s == "--max-n" && a + 1 < argc) max_n = std::atol(argv[++a]);
    else if (s == "--threads" && a + 1 < argc) c.threads = std::atoi(argv[++a]);
    else if (s == "--reps" && a + 1 < argc) c.reps = std::max(1, std::atoi(argv[++a]));
    else if (s == "--placement" && a + 1 < argc) {
      const std::string p = argv[++a];
      c.host = p == "host" || p == "both";
      c.resident = p == "resident" || p == "both";
    } else if (s == "--no-mixed") c.mixed = false;
    else if (s == "--no-selinv") c.selinv = false;
    else if (s == "--cpu-time") cpu_time = true;
    else {
      std::fprintf(stderr,
                   "usage: perf_sparse_selinv [--smoke] [--sizes 30,40] [--data DIR] [--max-n N] [--threads T] [--reps R]\n"
                   "                          [--placement host|resident|both] [--no-mixed] [--no-selinv] [--cpu-time]\n");
      return 2;
    }
  }
  std::printf("perf_sparse_selinv: exec %s, host %s, threads %d, median of %d, %s\n", Exec::name(),
              Kokkos::DefaultHostExecutionSpace::name(), c.threads, c.reps, cpu_time ? "process CPU time" : "wall-clock time");
  std::vector<ks::CscMatrix<double>> probs;
  for (long s : sizes) probs.push_back(ks::elasticity_3d<double>(s, s, s));
  if (!data.empty()) {
    std::vector<std::string> files;
    for (const auto& e : std::filesystem::directory_iterator(data)) {
      const std::string f = e.path().string();
      if (f.find(".mtx") != std::string::npos || f.find(".rsa") != std::string::npos || f.find(".rb") != std::string::npos)
        files.push_back(f);
    }
    std::sort(files.begin(), files.end());
    for (const auto& f : files) {
      auto A = ks::read_matrix<double>(f);
      if (A.n <= max_n) probs.push_back(std::move(A));
    }
  }
  for (const auto& A : probs)
    for (bool resident : {false, true}) {
      if (resident ? !c.resident : !c.host) continue;
      if (c.selinv) bench_selinv(A, c, resident);
      if (c.mixed) bench_mixed(A, c, resident);
    }
  return 0;
}
