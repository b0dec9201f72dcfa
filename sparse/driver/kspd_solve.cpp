// kspd-solve: the main job. Reads a sparse SPD matrix (Matrix Market / Rutherford-Boeing)
// or generates one, orders, analyses, factors and solves it with kspd's supernodal
// Cholesky, and prints a phase-by-phase report (times, nnz(L), flops, GFLOP/s, residual and
// forward error against a known solution). Flags follow symPACK's run_sympack2D.
//
//   kspd-solve                                   # 3-D elasticity, a few seconds on 2 cores
//   kspd-solve --input A.mtx --nrhs 4 --ordering metis
//   kspd-solve --generate laplace3d --size 60 --precision float --threads 4
//   kspd-solve --generate elasticity3d --size 40 --gpu on --gpu-mem-limit 40000
//   mpiexec -n 4 kspd-solve --size 40 --gpu on    # distributed, one rank per GPU

#include <Kokkos_Core.hpp>

#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"

#ifdef KOKKOS_ENABLE_CUDA
#include <cuda_runtime.h>
#endif

// OpenBLAS's thread count (weak: other BLAS libraries lack it).
extern "C" void openblas_set_num_threads(int) __attribute__((weak));

using kspd::sparse::Impl::offload_device_name;
#ifdef KSPD_ENABLE_MPI
#include "kspd_sparse_mpi_driver.hpp"  // mpiexec -n P kspd-solve: the distributed solver
#endif

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

struct Args {
  std::string input, generate = "elasticity3d", precision = "double";
  size_type nx = 22, ny = -1, nz = -1;
  size_type nrhs = 1;
  int refactor = 0;
  bool analyse_only = false;  // --analyse-only: stop after the order + analyse report
  int blas_threads = -1;  // -1: 1 when several task workers run, else the BLAS default
  bool gpu_direct = false;  // distributed: DistributedOptions::gpu_direct (reported only)
  bool max_supernode_given = false, memory_limit_given = false;
  ks::Options opt;
};

void usage() {
  std::printf(
      "usage: kspd-solve [--input FILE | --generate laplace2d|laplace3d|elasticity3d --size N [--ny N --nz N]]\n"
      "  [--ordering metis|natural] [--nrhs K] [--precision float|double] [--threads T] [--blas-threads B]\n"
      "  [--relax on|off] [--nrelax a,b,c] [--zrelax x,y,z] [--max-supernode W] [--max-trsm-rows R]\n"
      "  [--gpu on|off|force] [--gpu-threshold-potrf W] [--gpu-threshold-trsm M*W] [--gpu-threshold-update M*N*K]\n"
      "  [--gpu-mem-limit MiB] [--fallback cpu|fail] [--gpu-placement resident|top] [--timeline]\n"
      "  [--gpu-direct on|off] [--refactor K] [--quiet] [--analyse-only]\n"
      "Default: --generate elasticity3d --size 22 (3 dof per node, n = 31944), --threads = all cores as\n"
      "task workers with single-threaded BLAS inside each (--threads 1: one worker, threaded BLAS).\n"
      "--threads also sets the threads of the ordering and the analysis; --analyse-only stops after them.\n"
      "--gpu on|force: the whole factor on the GPU when it fits (--gpu-mem-limit), factored by tree level and\n"
      "kept there for the solve (--gpu-placement resident, the default); else, or with --gpu-placement top,\n"
      "the top of the tree on the GPU (by the thresholds) and the rest on the host workers. --timeline: fence\n"
      "per phase of the resident factorization and print where the time went.\n"
      "Under mpiexec (distributed): one rank per GPU (node-local rank %% GPUs); --gpu on|off|force and the\n"
      "thresholds pick the device supernodes, --gpu-mem-limit is per rank; --gpu-direct is reported only\n"
      "(blocks are staged through host memory); --threads T is per rank (the main thread, which makes the MPI\n"
      "calls and runs the device tasks, and T-1 host task workers; default: the node's cores / its ranks).\n");
}

bool parse(int argc, char** argv, Args& a) {
  auto need = [&](int& i) -> const char* {
    if (i + 1 >= argc) {
      std::fprintf(stderr, "kspd-solve: %s needs a value\n", argv[i]);
      std::exit(2);
    }
    return argv[++i];
  };
  for (int i = 1; i < argc; ++i) {
    const std::string f = argv[i];
    if (f == "--help" || f == "-h") return usage(), false;
    else if (f == "--input") a.input = need(i);
    else if (f == "--generate") a.generate = need(i);
    else if (f == "--size") a.nx = std::atoll(need(i));
    else if (f == "--ny") a.ny = std::atoll(need(i));
    else if (f == "--nz") a.nz = std::atoll(need(i));
    else if (f == "--nrhs") a.nrhs = std::atoll(need(i));
    else if (f == "--precision") a.precision = need(i);
    else if (f == "--threads") a.opt.threads = std::atoi(need(i));
    else if (f == "--blas-threads") a.blas_threads = std::atoi(need(i));
    else if (f == "--refactor") a.refactor = std::atoi(need(i));
    else if (f == "--quiet") a.opt.progress_interval = 1e30;
    else if (f == "--analyse-only") a.analyse_only = true;
    else if (f == "--ordering") {
      const std::string o = need(i);
      if (o == "metis") a.opt.ordering = ks::Ordering::Metis;
      else if (o == "natural") a.opt.ordering = ks::Ordering::Natural;
      else return std::fprintf(stderr, "kspd-solve: unknown ordering '%s'\n", o.c_str()), false;
    } else if (f == "--relax") a.opt.relax.enabled = std::string(need(i)) != "off";
    else if (f == "--nrelax") std::sscanf(need(i), "%ld,%ld,%ld", &a.opt.relax.nrelax[0], &a.opt.relax.nrelax[1], &a.opt.relax.nrelax[2]);
    else if (f == "--zrelax") std::sscanf(need(i), "%lf,%lf,%lf", &a.opt.relax.zrelax[0], &a.opt.relax.zrelax[1], &a.opt.relax.zrelax[2]);
    else if (f == "--max-supernode") a.opt.max_supernode = std::atoll(need(i)), a.max_supernode_given = true;
    else if (f == "--max-trsm-rows") a.opt.max_trsm_rows = std::atoll(need(i));
    else if (f == "--gpu") {
      const std::string g = need(i);
      if (g == "on") a.opt.offload.gpu_defaults();
      else if (g == "force") a.opt.offload.force_all();
      else a.opt.offload.potrf_threshold = a.opt.offload.trsm_threshold = a.opt.offload.update_threshold = -1;
    } else if (f == "--gpu-placement") {
      const std::string g = need(i);
      a.opt.offload.placement = g == "top" ? ks::Offload::Placement::TopOfTree : ks::Offload::Placement::Resident;
    } else if (f == "--timeline") a.opt.offload.timeline = true;
    else if (f == "--gpu-threshold-potrf") a.opt.offload.potrf_threshold = std::atoll(need(i));
    else if (f == "--gpu-threshold-trsm") a.opt.offload.trsm_threshold = std::atoll(need(i));
    else if (f == "--gpu-threshold-update") a.opt.offload.update_threshold = std::atoll(need(i));
    else if (f == "--gpu-mem-limit")
      a.opt.offload.device_memory_limit = std::int64_t(std::atof(need(i)) * 1048576.0), a.memory_limit_given = true;
    else if (f == "--gpu-direct") a.gpu_direct = std::string(need(i)) == "on";
    else if (f == "--fallback") a.opt.offload.fallback = std::string(need(i)) == "fail" ? ks::OffloadFallback::Fail : ks::OffloadFallback::Cpu;
    else return std::fprintf(stderr, "kspd-solve: unknown flag '%s' (--help lists them)\n", f.c_str()), false;
  }
  if (a.ny < 0) a.ny = a.nx;
  if (a.nz < 0) a.nz = a.nx;
  return true;
}

template <class Scalar>
int run(const Args& a) {
  std::printf("kspd-solve (kspd %s, host %s, offload device %s, offload %s)\n", KSPD_GIT_HASH,
              Kokkos::DefaultHostExecutionSpace::name(), offload_device_name().c_str(), a.opt.offload.any() ? "on" : "off");
  // read / generate
  double t = now();
  ks::CscMatrix<Scalar> A;
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
    return 2;
  }
  const double t_read = now() - t;
  std::printf("%-8s %8.3f s  %s: n = %ld, nnz(A, lower) = %ld, precision %s\n", a.input.empty() ? "generate" : "read",
              t_read, A.name.empty() ? a.generate.c_str() : A.name.c_str(), long(A.n), long(A.nnz()), a.precision.c_str());
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
  }
  // solve with a known solution
  const size_type n = A.n, k = a.nrhs;
  std::vector<Scalar> X(static_cast<size_t>(n * k));
  for (size_type i = 0; i < n * k; ++i) X[size_t(i)] = Scalar(1.0 + 0.5 * std::sin(double(i)));
  const std::vector<Scalar> B = ks::known_solution_rhs(A, X, k);
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> W("kspd-solve::X", size_t(n), size_t(k));
  std::copy(B.begin(), B.end(), W.data());
  double t_solve = 0;
  if (chol.resident()) {  // right-hand sides and solution stay on the device: time the solve alone
    using DMat = Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::DefaultExecutionSpace::memory_space>;
    DMat Wd("kspd-solve::X_device", size_t(n), size_t(k)), W0("kspd-solve::warmup", size_t(n), size_t(k));
    Kokkos::deep_copy(Wd, W);
    Kokkos::deep_copy(W0, W);
    chol.solve(exec, W0);  // warm-up (work arrays, the device permutation)
    t = now();
    chol.solve(exec, Wd);
    t_solve = now() - t;
    Kokkos::deep_copy(W, Wd);
  } else {
    t = now();
    chol.solve(exec, W);
    t_solve = now() - t;
  }
  // ||A x - b|| / (||A|| ||x|| + ||b||) (Frobenius norm of A), and ||x - x_true|| / ||x_true||
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
  a.opt.threads = 0;  // all cores
  if (!parse(argc, argv, a)) return 2;
  const int workers = a.opt.threads > 0 ? a.opt.threads : int(std::thread::hardware_concurrency());
  const int blas = a.blas_threads >= 0 ? a.blas_threads : (workers > 1 ? 1 : 0);
  if (blas > 0 && openblas_set_num_threads) openblas_set_num_threads(blas);
#ifdef KSPD_ENABLE_MPI
  if (ks::Impl::mpi_world_size_from_env() > 1)
    return ks::Impl::mpi_driver_main({a.input, a.generate, a.nx, a.ny, a.nz, a.nrhs, a.refactor, a.gpu_direct, a.max_supernode_given,
                                      a.memory_limit_given}, a.opt, a.precision == "float");
#endif
  Kokkos::ScopeGuard guard;  // not argv: Kokkos would claim --threads
  try {
    return a.precision == "float" ? run<float>(a) : run<double>(a);
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kspd-solve: %s\n", e.what());
    return 1;
  }
}
