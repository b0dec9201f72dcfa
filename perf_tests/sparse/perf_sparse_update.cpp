// perf_sparse_update: a rank-k update (and the downdate back) of the supernodal factor of
// 3-D elasticity N^3 against refactoring A + W W^T from scratch (numeric factorization on
// the same analysis), in the same run; prints the ratio refactor / update.
//
//   perf_sparse_update [--smoke] [--size N] [--rank K] [--threads T] [--reps R]
//                      [--placement host|resident] [--cpu-time] [--plan-only]
// --plan-only: analyse, print the path's shape and stop (no factorization).
// --update-threads T1,T2,..: then the update and downdate again with each of these host
// thread counts (host placement; the factorizations keep --threads), against the same refactor.
// --cpu-time: the process's CPU time (all its threads) instead of wall-clock time: on a
// loaded machine, with --threads 1 and OPENBLAS_NUM_THREADS=1, the work's own time without
// the other processes' preemption (host placement only: a device's time is not CPU time).
// Default: N = 40 (n = 192,000), K = 16, 2 threads, host placement, median of 3.
// W: K columns, each the 3 degrees of freedom of one random grid node (a point spring:
// W W^T lies in A's pattern, so refactoring reuses the analysis). The resident placement
// keeps the factor in the default execution space's memory (the GPU on CUDA builds).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
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

/// A + s W W^T on A's pattern (W W^T's entries must be in it).
ks::CscMatrix<double> modified(const ks::CscMatrix<double>& A, const ks::SparseColumns<double>& W, double s) {
  ks::CscMatrix<double> B = A;
  for (size_type c = 0; c < W.ncols(); ++c)
    for (size_type p = W.colptr[size_t(c)]; p < W.colptr[size_t(c + 1)]; ++p)
      for (size_type q = W.colptr[size_t(c)]; q <= p; ++q) {
        const size_type i = W.rowind[size_t(p)], j = W.rowind[size_t(q)];
        const auto b = A.rowind.begin() + A.colptr[size_t(j)], e = A.rowind.begin() + A.colptr[size_t(j + 1)];
        const auto it = std::lower_bound(b, e, i);
        if (it == e || *it != i) {
          std::fprintf(stderr, "W W^T outside A's pattern\n");
          std::exit(1);
        }
        B.values[size_t(it - A.rowind.begin())] += s * W.values[size_t(p)] * W.values[size_t(q)];
      }
  return B;
}

double residual(const ks::SupernodalCholesky<double>& chol, const ks::CscMatrix<double>& B) {
  std::vector<double> x(size_t(B.n)), b(size_t(B.n));
  for (size_type i = 0; i < B.n; ++i) b[size_t(i)] = std::sin(double(i) + 1.0);
  x = b;
  chol.solve(x);
  std::vector<double> r;
  ks::symv(B, x, r);
  double rn = 0, bn = 0;
  for (size_type i = 0; i < B.n; ++i) rn += (r[size_t(i)] - b[size_t(i)]) * (r[size_t(i)] - b[size_t(i)]), bn += b[size_t(i)] * b[size_t(i)];
  return std::sqrt(rn / bn);
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;  // our flags are not Kokkos's
  size_type size = 40, rank = 16;
  int threads = 2, reps = 3;
  bool plan_only = false;
  std::vector<int> update_threads;
  std::string placement = "host";
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto next = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "perf_sparse_update: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    if (s == "--smoke") size = 8, reps = 1;
    else if (s == "--size") size = std::atoll(next().c_str());
    else if (s == "--rank") rank = std::atoll(next().c_str());
    else if (s == "--threads") threads = std::atoi(next().c_str());
    else if (s == "--reps") reps = std::atoi(next().c_str());
    else if (s == "--placement") placement = next();
    else if (s == "--cpu-time") cpu_time = true;
    else if (s == "--plan-only") plan_only = true;
    else if (s == "--update-threads") {
      const std::string v = next();
      for (size_t b = 0; b < v.size();) {
        const size_t e = std::min(v.find(',', b), v.size());
        update_threads.push_back(std::atoi(v.substr(b, e - b).c_str()));
        b = e + 1;
      }
    }
    else {
      std::fprintf(stderr, "usage: perf_sparse_update [--smoke] [--size N] [--rank K] [--threads T] [--reps R] "
                           "[--placement host|resident] [--cpu-time] [--plan-only] [--update-threads T1,T2,..]\n");
      return s == "--help" ? 0 : 2;
    }
  }
  const bool bad_ut = std::any_of(update_threads.begin(), update_threads.end(), [](int t) { return t < 1; });
  if (size < 2 || rank < 1 || rank > 64 || threads < 1 || reps < 1 || (placement != "host" && placement != "resident") ||
      bad_ut || (!update_threads.empty() && placement != "host")) {
    std::fprintf(stderr, "perf_sparse_update: bad arguments\n");
    return 2;
  }
  const auto A = ks::elasticity_3d<double>(size, size, size);
  std::mt19937_64 gen(2026);
  std::uniform_int_distribution<size_type> node(0, A.n / 3 - 1);
  std::uniform_real_distribution<double> val(-1, 1);
  ks::SparseColumns<double> W;
  W.nrows = A.n;
  for (size_type j = 0; j < rank; ++j) {
    const size_type v = node(gen);
    for (int d = 0; d < 3; ++d) W.rowind.push_back(3 * v + d), W.values.push_back(val(gen));
    W.colptr.push_back(size_type(W.rowind.size()));
  }
  const auto Ap = modified(A, W, 1.0);
  ks::Options opt;
  opt.threads = threads;
  if (placement == "resident") opt.offload.force_all();
  ks::SupernodalCholesky<double> chol(opt);
  Exec exec;
  double t0 = now();
  chol.analyze(A);
  const double t_analyse = now() - t0;
  {  // the work's shape: supernodes on W's paths, their panels (launch-bound on a GPU) and entries;
     // steps: the panels one after the other on the path (per level its widest supernode's)
    const auto& S = chol.symbolic();
    const auto plan = ks::Impl::plan_update(S, W, "perf_sparse_update");
    const bool wide = placement == "resident";
    long long panels = 0, entries = 0, steps = 0;
    std::vector<long long> np(plan.path.size());
    for (size_t q = 0; q < plan.path.size(); ++q) {
      const auto& sn = S.snodes[plan.path[q]];
      const long long nb = ks::Impl::update_panel_width(plan.act_begin[q + 1] - plan.act_begin[q], wide);
      np[q] = (sn.ncols + nb - 1) / nb;
      panels += np[q];
      entries += (long long)sn.nrows() * sn.ncols;
    }
    for (size_type l = 0; l < plan.levels(); ++l) {
      long long w = 0;
      for (size_type i = plan.level_begin[size_t(l)]; i < plan.level_begin[size_t(l + 1)]; ++i)
        w = std::max(w, np[size_t(plan.level_order[size_t(i)])]);
      steps += w;
    }
    std::printf("  path: %zu of %zu supernodes, %lld levels, %lld panels, %lld panel steps, %.1f%% of L's entries\n",
                plan.path.size(), S.snodes.size(), (long long)plan.levels(), panels, steps,
                100.0 * double(entries) / double(chol.analysis_stats().nnz_l_stored));
    if (plan_only) return 0;
  }
  std::vector<double> t_factor, t_refactor, t_up, t_down;
  double res_up = 0, res_down = 0;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    if (chol.factorize(exec, A) != 0) return 1;
    t_factor.push_back(now() - t0);
    t0 = now();
    if (chol.update(exec, W, ks::Sign::Plus) != 0) return 1;
    t_up.push_back(now() - t0);
    res_up = std::max(res_up, residual(chol, Ap));
    t0 = now();
    if (chol.factorize(exec, Ap) != 0) return 1;  // the peer: refactor A + W W^T
    t_refactor.push_back(now() - t0);
    t0 = now();
    if (chol.update(exec, W, ks::Sign::Minus) != 0) return 1;
    t_down.push_back(now() - t0);
    res_down = std::max(res_down, residual(chol, A));
  }
  const auto& as = chol.analysis_stats();
  std::printf("perf_sparse_update: elasticity %lld^3, n = %lld, nnz(L) = %lld, %lld supernodes, rank %lld, %s placement "
              "(%s), %d threads, median of %d, %s\n",
              (long long)size, (long long)A.n, (long long)as.nnz_l_stored, (long long)as.nsupernodes, (long long)rank,
              placement.c_str(), chol.resident() ? "factor resident in the execution space" : "factor on the host", threads,
              reps, cpu_time ? "process CPU time" : "wall-clock time");
  std::printf("  analyse %.3f s, factorize A %.3f s, refactorize A + W W^T %.3f s\n", t_analyse, median(t_factor),
              median(t_refactor));
  std::printf("  update   + W W^T %.4f s  (refactor / update   = %.1fx)  residual %.1e\n", median(t_up),
              median(t_refactor) / median(t_up), res_up);
  std::printf("  downdate - W W^T %.4f s  (refactor / downdate = %.1fx)  residual %.1e\n", median(t_down),
              median(t_refactor) / median(t_down), res_down);
  for (int ut : update_threads) {  // the factor is A's again (the downdate)
    chol.options().threads = ut;
    std::vector<double> u, d;
    for (int r = 0; r < reps; ++r) {
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Plus) != 0) return 1;
      u.push_back(now() - t0);
      res_up = std::max(res_up, residual(chol, Ap));
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Minus) != 0) return 1;
      d.push_back(now() - t0);
      res_down = std::max(res_down, residual(chol, A));
    }
    std::printf("  %2d update threads: update %.4f s (%.1fx), downdate %.4f s (%.1fx)  residuals %.1e %.1e\n", ut,
                median(u), median(t_refactor) / median(u), median(d), median(t_refactor) / median(d), res_up, res_down);
  }
  chol.options().threads = threads;
  {
    namespace kp = kspd::perf;
    const std::string v = "elasticity" + std::to_string((long long)size) + " " + placement;
    kp::csv_row("d", "refactor", v, long(A.n), long(rank), -1, "kspd", median(t_refactor) * 1e3);
    kp::csv_row("d", "update", v, long(A.n), long(rank), -1, "kspd", median(t_up) * 1e3);
    kp::csv_row("d", "downdate", v, long(A.n), long(rank), -1, "kspd", median(t_down) * 1e3);
  }
  return res_up < 1e-10 && res_down < 1e-10 ? 0 : 1;
}
