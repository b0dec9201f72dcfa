// kspd-solve: the main job. Reads a sparse SPD matrix (Matrix Market / Rutherford-Boeing)
// or generates one, orders, analyses, factors and solves it with kspd's supernodal
// Cholesky, and prints a phase-by-phase report (times, nnz(L), flops, GFLOP/s, residual and
// forward error against a known solution). Flags follow symPACK's run_sympack2D.
//
//   kspd-solve                                   # 3-D elasticity, a few seconds on 2 cores
//   kspd-solve A.mtx --nrhs 4 --ordering metis        # (or --input A.mtx)
//   kspd-solve --generate laplace3d --size 60 --precision float --threads 4
//   kspd-solve A.mtx --precision mixed                # fp32 factor, fp64 refinement (fp64 if too small)
//   kspd-solve --generate elasticity3d --size 40 --gpu on --gpu-mem-limit 40000
//   mpiexec -n 4 kspd-solve --size 40 --gpu on    # distributed, one rank per GPU

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <new>
#include <string>
#include <thread>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_mixed_cholesky.hpp"
#include "kspd_solve_args.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

// OpenBLAS's thread count (weak: other BLAS libraries lack it).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

using kspd::sparse::Impl::offload_device_name;
#ifdef KSPD_ENABLE_MPI
#include "kspd_sparse_mpi_driver.hpp"  // mpiexec -n P kspd-solve: the distributed solver
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH
#endif

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

using kspd::sparse::driver::Args;

/// The problem: read (--input) or generated; prints the read line.
template <class Scalar>
bool load(const Args& a, ks::CscMatrix<Scalar>& A) {
  std::printf("kspd-solve (kspd %s, host %s, offload device %s, offload %s)\n", KSPD_GIT_HASH,
              Kokkos::DefaultHostExecutionSpace::name(), offload_device_name().c_str(), a.opt.offload.any() ? "on" : "off");
  const double t = now();
  if (!a.input.empty()) {
    A = ks::read_matrix<Scalar>(a.input);
  } else if (a.generate == "laplace2d") {
    A = ks::laplacian_2d<Scalar>(a.nx, a.ny);
  } else if (a.generate == "laplace3d") {
    A = ks::laplacian_3d<Scalar>(a.nx, a.ny, a.nz);
  } else if (a.generate == "elasticity3d") {
    A = ks::elasticity_3d<Scalar>(a.nx, a.ny, a.nz);
  } else {
    std::fprintf(stderr, "kspd-solve: unknown problem '%s'\n", a.generate.c_str());
    return false;
  }
  std::printf("%-8s %8.3f s  %s: n = %ld, nnz(A, lower) = %ld, precision %s\n", a.input.empty() ? "generate" : "read",
              now() - t, A.name.empty() ? a.generate.c_str() : A.name.c_str(), long(A.n), long(A.nnz()), a.precision.c_str());
  return true;
}

/// The worst ||Ax-b||/(||A|| ||x||+||b||) (Frobenius norm of A) and ||x - x*||/||x*|| over
/// the k columns of W (solutions), B (right-hand sides) and X (known solutions).
template <class Scalar, class WView>
std::pair<double, double> check_solution(const ks::CscMatrix<Scalar>& A, const WView& W, const std::vector<Scalar>& B,
                                         const std::vector<Scalar>& X, size_type k) {
  const size_type n = A.n;
  double anorm = 0;
  for (size_type j = 0; j < n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
      anorm += (A.rowind[size_t(p)] == j ? 1.0 : 2.0) * double(A.values[size_t(p)]) * double(A.values[size_t(p)]);
  anorm = std::sqrt(anorm);
  double worst_res = 0, worst_fwd = 0;
  std::vector<Scalar> x(static_cast<size_t>(n)), ax(static_cast<size_t>(n));
  for (size_type r = 0; r < k; ++r) {
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = W(static_cast<size_t>(i), size_t(r));
    ks::symv(A, x, ax);
    double rn = 0, xn = 0, bn = 0, en = 0, tn = 0;
    for (size_type i = 0; i < n; ++i) {
      const double bi = double(B[size_t(i + r * n)]), xt = double(X[size_t(i + r * n)]);
      rn += (double(ax[size_t(i)]) - bi) * (double(ax[size_t(i)]) - bi);
      xn += double(x[size_t(i)]) * double(x[size_t(i)]);
      bn += bi * bi;
      en += (double(x[size_t(i)]) - xt) * (double(x[size_t(i)]) - xt);
      tn += xt * xt;
    }
    worst_res = std::max(worst_res, std::sqrt(rn) / (anorm * std::sqrt(xn) + std::sqrt(bn)));
    worst_fwd = std::max(worst_fwd, tn > 0 ? std::sqrt(en / tn) : std::sqrt(en));
  }
  return {worst_res, worst_fwd};
}

/// --precision mixed: MixedCholesky (fp32 factor, fp64 refinement, fp64 fallback).
int run_mixed(const Args& a) {
  ks::CscMatrix<double> A;
  if (!load(a, A)) return 2;
  ks::Options opt = a.opt;
  ks::Impl::gpu_run_defaults(opt, a.max_supernode_given, a.memory_limit_given);
  Kokkos::DefaultExecutionSpace exec;
  kspd::MixedOptions mo;
  if (a.precision == "mixed-fp32") mo.factor = kspd::MixedFactor::Fp32;
  ks::MixedCholesky<> mc(opt, mo);
  mc.analyze(A);
  const auto& as = mc.fp32()->analysis_stats();
  std::printf("order    %8.3f s  %s\n", as.order_seconds, ks::to_string(opt.ordering));
  std::printf("analyse  %8.3f s  %s\n", as.analyse_seconds, as.summary().c_str());
  if (a.analyse_only) return 0;
  double t = now();
  if (mc.factorize(exec, A) != 0) {
    std::printf("factor   FAILED: the matrix is not positive definite (fp64 factor too)\n");
    return 3;
  }
  const double t_factor = now() - t;
  const bool fp64 = mc.fell_back() || mc.fp64_chosen();
  const double bytes64 = fp64 ? mc.factor_bytes() : 2 * mc.factor_bytes();  // the stored factor (relaxation zeros too)
  std::printf("factor   %8.3f s  %s factor, %.1f MB (fp64: %.1f MB)%s\n", t_factor, fp64 ? "fp64" : "fp32", mc.factor_bytes() / 1e6,
              bytes64 / 1e6,
              mc.fp64_chosen() ? "; chosen up front: too small a factorization for fp32 + refinement to win (MixedFactor::Auto)"
              : mc.fell_back() ? "; the fp32 factorization failed: fell back to fp64"
                               : (mc.fp32()->resident() ? "; resident on the device" : ""));
  const size_type n = A.n, k = a.nrhs;
  std::vector<double> X(static_cast<size_t>(n * k));
  for (size_type i = 0; i < n * k; ++i) X[size_t(i)] = 1.0 + 0.5 * std::sin(double(i));
  const std::vector<double> B = ks::known_solution_rhs(A, X, k);
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> Bv("kspd-solve::B", size_t(n), size_t(k)),
      W("kspd-solve::X", size_t(n), size_t(k));
  std::copy(B.begin(), B.end(), Bv.data());
  t = now();
  const kspd::MixedResult r = mc.solve(exec, Bv, W);
  const double t_solve = now() - t;
  const auto [worst_res, worst_fwd] = check_solution(A, W, B, X, k);
  std::printf("solve    %8.3f s  %ld rhs; %d refinement steps, backward error %.2e%s; residual %.2e, forward error %.2e\n",
              t_solve, long(k), r.iterations, r.backward_error,
              r.fell_back ? " (refinement stalled or fp32 failed: fp64 factor used)" : "", worst_res, worst_fwd);
  std::printf("summary  n=%ld nnz(L)=%ld order+analyse=%.3fs factor=%.3fs solve=%.3fs residual=%.2e precision=%s iterations=%d "
              "fell_back=%d fp64_chosen=%d\n",
              long(n), long(as.nnz_l), as.order_seconds + as.analyse_seconds, t_factor, t_solve, worst_res, a.precision.c_str(), r.iterations,
              int(r.fell_back), int(r.fp64_chosen));
  return worst_res <= 1e-10 ? 0 : 4;
}

template <class Scalar>
int run(const Args& a) {
  ks::CscMatrix<Scalar> A;
  if (!load(a, A)) return 2;
  double t = 0;
  // order + analyse
  ks::Options opt = a.opt;
  ks::Impl::gpu_run_defaults(opt, a.max_supernode_given, a.memory_limit_given);
  if (!opt.progress)
    opt.progress = [](size_type done, size_type total, double sec) {
      std::printf("  factor: %ld / %ld supernodes, %.1f s\n", long(done), long(total), sec);
      std::fflush(stdout);
    };
  ks::SupernodalCholesky<Scalar> chol(opt);
  chol.analyze(A);
  const auto& as = chol.analysis_stats();
  std::printf("order    %8.3f s  %s\n", as.order_seconds, ks::to_string(opt.ordering));
  std::printf("analyse  %8.3f s  %s\n", as.analyse_seconds, as.summary().c_str());
  if (a.analyse_only) {
    std::printf("summary  n=%ld nnz(L)=%ld flops=%.3e order+analyse=%.3fs threads=%d\n", long(A.n), long(as.nnz_l),
                as.flops, as.order_seconds + as.analyse_seconds, opt.threads);
    return 0;
  }
  // factor (and refactor)
  Kokkos::DefaultExecutionSpace exec;
  for (int round = 0; round <= a.refactor; ++round) {
    if (chol.factorize(exec, A) != 0) {
      try {
        chol.require_spd();
      } catch (const kspd::NotPositiveDefinite& e) {
        std::printf("factor   FAILED: %s\n", e.what());
      }
      return 3;
    }
    const auto& fs = chol.factor_stats();
    if (fs.setup_seconds > 0)
      std::printf("setup    %8.3g s  (once per analysis: the plan, the factor's storage%s)\n", fs.setup_seconds,
                  fs.resident ? ", the device streams and handles" : "");
    std::printf("%-8s %8.3f s  %.3e flops, %.2f GFLOP/s, %d thread(s); host/device ops potrf %ld/%ld trsm %ld/%ld update %ld/%ld",
                round ? "refactor" : "factor", fs.seconds, fs.flops, fs.gflops(), fs.threads, long(fs.host_ops[0]),
                long(fs.device_ops[0]), long(fs.host_ops[1]), long(fs.device_ops[1]), long(fs.host_ops[2]),
                long(fs.device_ops[2]));
    if (fs.device_ops[0] + fs.device_ops[1] + fs.device_ops[2] > 0 || fs.fallbacks > 0)
      std::printf("; device supernodes %ld; to device %.1f MB, from device %.1f MB, device peak %.1f MB, fallbacks %ld",
                  long(fs.device_supernodes), fs.bytes_to_device / 1e6,
                  fs.bytes_from_device / 1e6, double(fs.device_peak_bytes) / 1e6, long(fs.fallbacks));
    std::printf("\n");
    if (fs.resident)
      std::printf("         resident on the device: %ld levels, %ld of %ld supernodes in per-level team kernels%s",
                  long(fs.levels), long(fs.batched_supernodes), long(as.nsupernodes),
                  opt.offload.timeline ? "" : "\n");
    if (fs.resident && opt.offload.timeline)
      std::printf("; timeline: assemble %.3f s, small supernodes %.3f s, large supernodes %.3f s, info %.3f s\n",
                  fs.timeline.assemble, fs.timeline.small, fs.timeline.large, fs.timeline.info);
    if (!fs.resident && opt.offload.timeline)
      std::printf("         timeline (worker seconds): potrf %.3f, trsm %.3f, update products %.3f, scatter %.3f, "
                  "lock wait %.3f; workers busy %.0f%% of %d x %.3f s (idle %.3f worker s); task CPU s: potrf %.3f, "
                  "trsm %.3f, update %.3f, total %.3f; zero + assemble before the tasks %.3f s; process CPU %.3f s;\n"
                  "         task CPU replayed on %d dedicated cores: %.3f s (idle %.1f%%), critical path %.3f s;\n"
                  "         outside the workers' run %.4f s; workers outside tasks (worker s): before the first %.4f, between tasks %.4f, after the last %.4f; "
                  "waits for work: %ld sleeps, %.4f s asleep, %.4f s of wake latency\n",
                  fs.timeline.potrf, fs.timeline.trsm, fs.timeline.product, fs.timeline.scatter, fs.timeline.lock_wait,
                  100 * fs.timeline.busy, fs.threads, fs.seconds, (1 - fs.timeline.busy) * fs.seconds * fs.threads,
                  fs.timeline.potrf_cpu, fs.timeline.trsm_cpu, fs.timeline.update_cpu,
                  fs.timeline.potrf_cpu + fs.timeline.trsm_cpu + fs.timeline.update_cpu, fs.timeline.assemble,
                  fs.timeline.process_cpu, fs.threads, fs.timeline.replay_seconds, 100 * fs.timeline.replay_idle,
                  fs.timeline.critical_path, fs.timeline.outside_run, fs.timeline.worker_start, fs.timeline.between_tasks, fs.timeline.worker_end,
                  long(fs.timeline.sleeps), fs.timeline.sleep_seconds, fs.timeline.wake_latency);
  }
  // solve with a known solution
  const size_type n = A.n, k = a.nrhs;
  if (double(n) * double(k) > double(size_type(1) << 31)) {
    std::fprintf(stderr, "kspd-solve: --nrhs '%ld': n * nrhs = %.3g right-hand-side entries (at most 2^31)\n", long(k),
                 double(n) * double(k));
    return 2;
  }
  std::vector<Scalar> X(static_cast<size_t>(n * k));
  for (size_type i = 0; i < n * k; ++i) X[size_t(i)] = Scalar(1.0 + 0.5 * std::sin(double(i)));
  const std::vector<Scalar> B = ks::known_solution_rhs(A, X, k);
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> W("kspd-solve::X", size_t(n), size_t(k));
  std::copy(B.begin(), B.end(), W.data());
  double t_solve = 0;
  if (chol.resident()) {  // right-hand sides and solution stay on the device: time the solve alone
    using DMat = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::DefaultExecutionSpace::memory_space>;
    DMat Wd("kspd-solve::X_device", size_t(n), size_t(k)), Wb("kspd-solve::B_device", size_t(n), size_t(k));
    Kokkos::deep_copy(Wb, W);
    Kokkos::deep_copy(Wd, Wb);
    chol.solve(exec, Wd);  // warm-up (work arrays, the device permutation, the solve plan)
    t_solve = 1e300;
    for (int rep = 0; rep < 3; ++rep) {  // the best of three
      Kokkos::deep_copy(Wd, Wb);
      Kokkos::fence();
      t = now();
      chol.solve(exec, Wd);
      t_solve = std::min(t_solve, now() - t);
    }
    Kokkos::deep_copy(W, Wd);
    if (a.opt.offload.timeline) {
      const ks::SolveTimeline st = chol.solve_timeline();
      std::printf("solve timeline (fenced per launch): forward diagonal %.2f ms, forward below %.2f ms, backward below %.2f ms, "
                  "backward diagonal %.2f ms; %ld levels, %ld units, widest %d; slowest: %s\n",
                  st.diag_forward * 1e3, st.below_forward * 1e3, st.below_backward * 1e3, st.diag_backward * 1e3,
                  long(st.levels), long(st.units), st.widest, st.top_levels.c_str());
    }
  } else {
    t = now();
    chol.solve(exec, W);
    t_solve = now() - t;
  }
  const auto [worst_res, worst_fwd] = check_solution(A, W, B, X, k);
  std::printf("solve    %8.3f s  %ld rhs; residual ||Ax-b||/(||A|| ||x||+||b||) = %.2e, forward error ||x-x*||/||x*|| = %.2e\n",
              t_solve, long(k), worst_res, worst_fwd);
  std::printf("summary  n=%ld nnz(L)=%ld flops=%.3e order+analyse=%.3fs factor=%.3fs (%.2f GFLOP/s) solve=%.3fs residual=%.2e\n",
              long(n), long(as.nnz_l), as.flops, as.order_seconds + as.analyse_seconds, chol.factor_stats().seconds,
              chol.factor_stats().gflops(), t_solve, worst_res);
  const double tol = std::is_same<Scalar, float>::value ? 1e-4 : 1e-10;
  return worst_res <= tol ? 0 : 4;
}

}  // namespace

int main(int argc, char** argv) {
  Args a;
  const auto parsed = kspd::sparse::driver::parse_args(argc, argv, a);
  if (parsed.status == kspd::sparse::driver::ParseStatus::Help) return std::fputs(kspd::sparse::driver::usage_text(), stdout), 0;
  if (parsed.status == kspd::sparse::driver::ParseStatus::Error) {
    std::fprintf(stderr, "%s\n", parsed.message.c_str());
    return 2;
  }
  const int workers = a.opt.threads > 0 ? a.opt.threads : int(std::thread::hardware_concurrency());
  const int blas = a.blas_threads >= 0 ? a.blas_threads : (workers > 1 ? 1 : 0);
  if (blas > 0 && openblas_set_num_threads) openblas_set_num_threads(blas);
#ifdef KSPD_ENABLE_MPI
  if (ks::Impl::mpi_world_size_from_env() > 1 || a.distributed) {
    if (a.precision == "mixed" || a.precision == "mixed-fp32") {
      std::fprintf(stderr, "kspd-solve: --precision '%s': the distributed solver has no mixed precision; run one process\n", a.precision.c_str());
      return 2;
    }
    return ks::Impl::mpi_driver_main({a.input, a.generate, a.nx, a.ny, a.nz, a.nrhs, a.refactor, a.max_supernode_given,
                                      a.memory_limit_given, a.device_aware_mpi}, a.opt, a.precision == "float");
  }
#endif
  Kokkos::ScopeGuard guard;  // not argv: Kokkos would claim --threads
  try {
    return a.precision == "mixed" || a.precision == "mixed-fp32" ? run_mixed(a) : a.precision == "float" ? run<float>(a) : run<double>(a);
  } catch (const std::bad_alloc&) {
    std::fprintf(stderr, "kspd-solve: out of memory (the problem does not fit in this machine's memory)\n");
    return 1;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kspd-solve: %s\n", e.what());
    return 1;
  }
}
