// perf_sparse_cholmod: kspd's supernodal Cholesky against CHOLMOD (supernodal, Metis, the
// same host BLAS) in the same run: analysis, factorization and solve times, the ratios
// kspd/CHOLMOD (< 1: kspd faster), GFLOP/s, residuals; and the rate of a dense potrf of the
// default execution space (cuSOLVER on CUDA builds) for scale.
//
//   perf_sparse_cholmod [--smoke] [--reps R] [--solve-reps S] [--threads T] [--gpu on|force] [--dense N]
//                       [--kspd-blas-threads N] [--cholmod-blas-threads N] [--max-supernode W]
//                       [--elasticity N ...] [--laplace3d N ...] [FILE.mtx|.rsa ...]
// Without cases: 3-D elasticity 16, 22, 28 and the largest matrices in $KSPD_DATA_DIR.
// Each repetition solves S times (default 5) in both libraries and keeps the fastest: one
// solve takes milliseconds, so a single one mostly measures the load of a shared machine.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_core.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_perf_csv.hpp"
#include "perf_sparse_cases.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

using kspd::sparse::Impl::offload_device_name;

#ifdef KSPD_HAVE_CHOLMOD
#include <cholmod.h>
#endif

// OpenBLAS's thread count, set per library in the same run (weak: other BLAS lack it).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace {

void blas_threads(int n) {
  if (n > 0 && openblas_set_num_threads) openblas_set_num_threads(n);
}

namespace ks = kspd::sparse;
using kspd::size_type;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}

struct Times {
  double analyse = 0, factor = 0, refactor = 0, solve = 0, flops = 0, nnz_l = 0, residual = 0;
  bool ok = false;
};

double residual(const ks::CscMatrix<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax(b.size());
  ks::symv(A, x, ax);
  double rn = 0, xn = 0, bn = 0, an = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    rn += (ax[i] - b[i]) * (ax[i] - b[i]);
    xn += x[i] * x[i];
    bn += b[i] * b[i];
  }
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
      an += (A.rowind[size_t(p)] == j ? 1.0 : 2.0) * A.values[size_t(p)] * A.values[size_t(p)];
  return std::sqrt(rn) / (std::sqrt(an) * std::sqrt(xn) + std::sqrt(bn));
}

int solve_reps = 5;

Times run_kspd(const ks::CscMatrix<double>& A, const ks::Options& opt, int reps, const std::vector<double>& b) {
  Times t;
  std::vector<double> ta, tf, trf, ts;
  std::vector<double> x;
  for (int r = 0; r < reps; ++r) {
    ks::SupernodalCholesky<double> chol(opt);
    double t0 = now();
    chol.analyze(A);
    ta.push_back(now() - t0);
    Kokkos::DefaultExecutionSpace exec;
    t0 = now();
    const int info = chol.factorize(exec, A);
    tf.push_back(now() - t0);
    if (info != 0) chol.require_spd();
    t0 = now();  // the same values again: what an application's refactorization costs
    if (chol.factorize(exec, A) != 0) chol.require_spd();
    trf.push_back(now() - t0);
    double best = 1e300;
    for (int q = 0; q < solve_reps; ++q) {
      x = b;
      t0 = now();
      chol.solve(x);
      best = std::min(best, now() - t0);
    }
    ts.push_back(best);
    t.flops = chol.analysis_stats().flops;
    t.nnz_l = double(chol.analysis_stats().nnz_l);
  }
  t.analyse = median(ta);
  t.factor = median(tf);
  t.refactor = median(trf);
  t.solve = median(ts);
  t.residual = residual(A, x, b);
  t.ok = true;
  return t;
}

#ifdef KSPD_HAVE_CHOLMOD
Times run_cholmod(const ks::CscMatrix<double>& A, int reps, const std::vector<double>& b) {
  Times t;
  cholmod_common c;
  cholmod_l_start(&c);
  c.supernodal = CHOLMOD_SUPERNODAL;
  c.nmethods = 1;
  c.method[0].ordering = CHOLMOD_METIS;
  c.postorder = 1;
  cholmod_sparse* S = cholmod_l_allocate_sparse(size_t(A.n), size_t(A.n), size_t(A.nnz()), 1, 1, -1, CHOLMOD_REAL, &c);
  std::copy(A.colptr.begin(), A.colptr.end(), static_cast<SuiteSparse_long*>(S->p));
  std::copy(A.rowind.begin(), A.rowind.end(), static_cast<SuiteSparse_long*>(S->i));
  std::copy(A.values.begin(), A.values.end(), static_cast<double*>(S->x));
  cholmod_dense* B = cholmod_l_allocate_dense(size_t(A.n), 1, size_t(A.n), CHOLMOD_REAL, &c);
  std::copy(b.begin(), b.end(), static_cast<double*>(B->x));
  std::vector<double> ta, tf, ts, x(b.size());
  for (int r = 0; r < reps; ++r) {
    double t0 = now();
    cholmod_factor* L = cholmod_l_analyze(S, &c);
    ta.push_back(now() - t0);
    t0 = now();
    cholmod_l_factorize(S, L, &c);
    tf.push_back(now() - t0);
    if (c.status != CHOLMOD_OK) {
      std::printf("  cholmod: factorize status %d\n", c.status);
      cholmod_l_free_factor(&L, &c);
      break;
    }
    cholmod_dense* X = nullptr;
    double best = 1e300;
    for (int q = 0; q < solve_reps; ++q) {
      if (X) cholmod_l_free_dense(&X, &c);
      t0 = now();
      X = cholmod_l_solve(CHOLMOD_A, L, B, &c);
      best = std::min(best, now() - t0);
    }
    ts.push_back(best);
    std::copy(static_cast<double*>(X->x), static_cast<double*>(X->x) + A.n, x.begin());
    t.flops = c.fl;
    t.nnz_l = c.lnz;
    cholmod_l_free_dense(&X, &c);
    cholmod_l_free_factor(&L, &c);
    t.ok = true;
  }
  cholmod_l_free_dense(&B, &c);
  cholmod_l_free_sparse(&S, &c);
  cholmod_l_finish(&c);
  t.analyse = median(ta);
  t.factor = median(tf);
  t.solve = median(ts);
  if (t.ok) t.residual = residual(A, x, b);
  return t;
}
#endif

/// GFLOP/s of a dense potrf of order n on the default execution space (kspd::potrf:
/// cuSOLVER on CUDA builds, host LAPACK otherwise).
double dense_potrf_rate(size_type n) {
  using Exec = Kokkos::DefaultExecutionSpace;
  Exec exec;
  Kokkos::View<double**, Kokkos::LayoutLeft, Exec::memory_space> M("M", size_t(n), size_t(n));
  std::vector<double> times;
  for (int r = 0; r < 3; ++r) {
    Kokkos::parallel_for(
        "perf_sparse_cholmod::spd", Kokkos::MDRangePolicy<Exec, Kokkos::Rank<2>>(exec, {0, 0}, {n, n}),
        KOKKOS_LAMBDA(const size_type i, const size_type j) {
          M(i, j) = i == j ? double(n) : 1.0 / double(1 + (i > j ? i - j : j - i));
        });
    exec.fence();
    const double t0 = now();
    const int info = kspd::potrf(exec, kspd::Uplo::Lower, M);
    times.push_back(now() - t0);
    if (info != 0) std::printf("dense potrf info %d\n", info);
  }
  return double(n) * double(n) * double(n) / 3.0 / median(times) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;
  bool smoke = false;
  int reps = 3;
  size_type dense_n = 4096;
  int kspd_blas = 0, cholmod_blas = 0;  // 0: leave OpenBLAS's setting
  ks::Options opt;
  bool cap_given = false, limit_given = false;
  std::vector<kspd::perf::SparseCase> cases;  // ("elasticity"|"laplace3d"|file, size)
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string("0"); };
    if (a == "--smoke") smoke = true;
    else if (a == "--reps") reps = std::atoi(val().c_str());
    else if (a == "--solve-reps") solve_reps = std::max(1, std::atoi(val().c_str()));
    else if (a == "--threads") opt.threads = std::atoi(val().c_str());
    else if (a == "--kspd-blas-threads") kspd_blas = std::atoi(val().c_str());
    else if (a == "--cholmod-blas-threads") cholmod_blas = std::atoi(val().c_str());
    else if (a == "--dense") dense_n = std::atoll(val().c_str());
    else if (a == "--max-supernode") opt.max_supernode = std::atoll(val().c_str()), cap_given = true;
    else if (a == "--gpu") {
      const std::string g = val();
      if (g == "on") opt.offload.gpu_defaults();
      if (g == "force") opt.offload.force_all();
    } else if (a == "--gpu-threshold-potrf") opt.offload.potrf_threshold = std::atoll(val().c_str());
    else if (a == "--gpu-threshold-trsm") opt.offload.trsm_threshold = std::atoll(val().c_str());
    else if (a == "--gpu-threshold-update") opt.offload.update_threshold = std::atoll(val().c_str());
    else if (a == "--gpu-mem-limit")
      opt.offload.device_memory_limit = std::int64_t(std::atof(val().c_str()) * 1048576.0), limit_given = true;
    else if (a == "--elasticity") cases.push_back({"elasticity", std::atoll(val().c_str())});
    else if (a == "--laplace3d") cases.push_back({"laplace3d", std::atoll(val().c_str())});
    else cases.push_back({a, 0});
  }
  kspd::sparse::Impl::gpu_run_defaults(opt, cap_given, limit_given);
  if (smoke) {
    reps = 1;
    solve_reps = 1;
    dense_n = 256;
    if (cases.empty()) cases = {{"elasticity", 6}, {"laplace3d", 10}};
  }
  if (cases.empty()) {
    cases = {{"elasticity", 16}, {"elasticity", 22}, {"elasticity", 28}};
    kspd::perf::add_collection_cases(cases);
  }
  std::printf("perf_sparse_cholmod: kspd %s, host %s, default space %s, kspd workers %d, kspd BLAS threads %d, "
              "CHOLMOD BLAS threads %d (0: OPENBLAS_NUM_THREADS), offload %s, max supernode %ld\n",
              KSPD_GIT_HASH, Kokkos::DefaultHostExecutionSpace::name(), Kokkos::DefaultExecutionSpace::name(), opt.threads,
              kspd_blas, cholmod_blas, opt.offload.any() ? "on" : "off", long(opt.max_supernode));
#ifndef KSPD_HAVE_CHOLMOD
  std::printf("(built without CHOLMOD: kspd times only)\n");
#endif
  std::printf("dense potrf n=%ld on %s: %.1f GFLOP/s\n", long(dense_n), offload_device_name().c_str(),
              dense_potrf_rate(dense_n));
  std::printf("%-24s %9s %10s %9s | %8s %8s %8s %7s %8s | %8s %8s %8s %7s %8s | %6s %6s %6s\n", "case", "n", "nnz(L)",
              "Gflop", "k.anal", "k.fact", "k.solve", "k.GF/s", "k.res", "c.anal", "c.fact", "c.solve", "c.GF/s",
              "c.res", "r.anal", "r.fact", "r.solv");
  int bad = 0;
  for (const auto& cs : cases) {
    ks::CscMatrix<double> A;
    std::string name;
    if (!kspd::perf::load_case(cs, A, name, 24)) continue;
    std::vector<double> xs(size_t(A.n), 1.0), b(size_t(A.n));
    for (size_type i = 0; i < A.n; ++i) xs[size_t(i)] = 1.0 + 0.5 * std::sin(double(i));
    ks::symv(A, xs, b);
    blas_threads(kspd_blas);
    const Times k = run_kspd(A, opt, reps, b);
    Times c;
#ifdef KSPD_HAVE_CHOLMOD
    blas_threads(cholmod_blas);
    c = run_cholmod(A, reps, b);
#endif
    auto ratio = [](double a, double b2) { return b2 > 0 ? a / b2 : 0.0; };
    std::printf("%-24s %9ld %10.0f %9.2f | %8.3f %8.3f %8.4f %7.1f %8.1e | %8.3f %8.3f %8.4f %7.1f %8.1e | %6.2f %6.2f %6.2f\n",
                name.c_str(), long(A.n), k.nnz_l, k.flops * 1e-9, k.analyse, k.factor, k.solve, k.flops / k.factor * 1e-9,
                k.residual, c.analyse, c.factor, c.solve, c.ok ? c.flops / c.factor * 1e-9 : 0.0, c.residual,
                ratio(k.analyse, c.analyse), ratio(k.factor, c.factor), ratio(k.solve, c.solve));
    std::printf("%-24s kspd refactorization (analysis and device setup reused) %.3f s, %.1f GF/s; %.2fx CHOLMOD's factor time\n",
                name.c_str(), k.refactor, k.flops / k.refactor * 1e-9, ratio(k.refactor, c.factor));
    namespace kp = kspd::perf;
    kp::csv_row("d", "analyse", name, long(A.n), -1, -1, "kspd", k.analyse * 1e3);
    kp::csv_row("d", "factor", name, long(A.n), -1, -1, "kspd", k.factor * 1e3, k.flops / k.factor * 1e-9);
    kp::csv_row("d", "refactor", name, long(A.n), -1, -1, "kspd", k.refactor * 1e3, k.flops / k.refactor * 1e-9);
    kp::csv_row("d", "solve", name, long(A.n), 1, -1, "kspd", k.solve * 1e3);
    if (c.ok) {
      kp::csv_row("d", "analyse", name, long(A.n), -1, -1, "CHOLMOD", c.analyse * 1e3);
      kp::csv_row("d", "factor", name, long(A.n), -1, -1, "CHOLMOD", c.factor * 1e3, c.flops / c.factor * 1e-9);
      kp::csv_row("d", "solve", name, long(A.n), 1, -1, "CHOLMOD", c.solve * 1e3);
    }
    if (!(k.residual <= 1e-10)) ++bad;
  }
  std::printf("ratios are kspd time / CHOLMOD time (< 1: kspd faster); GF/s from each library's own flop count\n");
  return bad ? 1 : 0;
}
