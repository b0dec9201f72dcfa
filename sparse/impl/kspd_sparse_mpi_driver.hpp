#ifndef KSPD_SPARSE_MPI_DRIVER_HPP
#define KSPD_SPARSE_MPI_DRIVER_HPP
/// \file kspd_sparse_mpi_driver.hpp
/// The distributed mode of kspd-solve (`mpiexec -n P kspd-solve ...`) and the per-rank
/// report shared with perf_sparse_mpi. Rank 0 reads or generates the matrix, the
/// factorization and solve run on all ranks, rank 0 checks the residual. One rank per GPU:
/// a rank uses GPU (node-local rank % visible GPUs), chosen before Kokkos starts.

#include <mpi.h>
#include <sys/resource.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_mpi_device_aware.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_device_factor.hpp"

namespace kspd::sparse::Impl {

/// The world size announced by the launcher (Open MPI, MPICH/Hydra, PMIx, Slurm), or 0
/// when the program was not started by mpiexec: lets a driver decide before MPI_Init.
inline int mpi_world_size_from_env() {
  for (const char* v : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE", "MPI_LOCALNRANKS"}) {
    const char* s = std::getenv(v);
    if (s && std::atoi(s) > 0) return std::atoi(s);
  }
  return 0;
}

/// This rank's index among the ranks of its node (MPI_COMM_TYPE_SHARED).
inline int node_local_rank(MPI_Comm comm) {
  MPI_Comm node;
  KSPD_MPI_SAFE_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, 0, MPI_INFO_NULL, &node));
  int r = 0;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(node, &r));
  KSPD_MPI_SAFE_CALL(MPI_Comm_free(&node));
  return r;
}

/// The GPU of this rank, one rank per GPU: node-local rank modulo the visible GPUs; -1
/// (Kokkos' own choice) without CUDA. Call after MPI_Init and before Kokkos::initialize:
///   Kokkos::ScopeGuard guard(kspd::compat::init_settings(device_for_rank(MPI_COMM_WORLD)));
inline int device_for_rank(MPI_Comm comm) {
  const int local = node_local_rank(comm);
#ifdef KOKKOS_ENABLE_CUDA
  int count = 0;
  if (cudaGetDeviceCount(&count) != cudaSuccess || count <= 0) return -1;
  return local % count;
#else
  (void)local;
  return -1;
#endif
}

/// gpu_run_defaults for the distributed drivers (collective): wider supernodes, and a
/// device budget of 85 % of the free GPU memory, unless given; shared by the ranks on that
/// GPU for the top-of-tree placement (every rank uses its GPU), whole for the resident one
/// (the map is over devices: one rank per GPU uses it, kspd_sparse_mpi_groups.hpp).
inline void mpi_gpu_run_defaults(MPI_Comm comm, Options& opt, bool max_supernode_given, bool memory_limit_given) {
  const std::int64_t before = opt.offload.device_memory_limit;
  gpu_run_defaults(opt, max_supernode_given, memory_limit_given);
  int rank = 0;  // the ranks that share this rank's device (its device group; 1 without a device)
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  const DeviceGroups g = find_device_groups(comm, Kokkos::DefaultExecutionSpace());
  const int share = int(std::count(g.group.begin(), g.group.end(), g.group[size_t(rank)]));
  if (opt.offload.device_memory_limit != before && share > 1 && opt.offload.placement != Offload::Placement::Resident)
    opt.offload.device_memory_limit /= share;
}

/// Rank 0 prints the device of every rank (collective), and whether its MPI library says
/// it takes pointers to that device's memory (kspd_sparse_mpi_device_aware.hpp).
inline void print_rank_devices(MPI_Comm comm, const char* prefix = "") {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  char mine[160];
  int dev = -1;
#ifdef KOKKOS_ENABLE_CUDA
  cudaGetDevice(&dev);
#endif
  const bool aware = mpi_library_takes_device_pointers<Kokkos::DefaultExecutionSpace>();
  std::snprintf(mine, sizeof mine, "node rank %d, device %d: %s%s", node_local_rank(comm), dev, offload_device_name().c_str(),
                compat::is_host_exec_v<Kokkos::DefaultExecutionSpace> ? "" : aware ? " (MPI: device-aware)" : " (MPI: host staging)");
  std::vector<char> all(size_t(160 * P));
  KSPD_MPI_SAFE_CALL(MPI_Gather(mine, 160, MPI_CHAR, all.data(), 160, MPI_CHAR, 0, comm));
  if (rank != 0) return;
  for (int r = 0; r < P; ++r) std::printf("%srank %d: %s\n", prefix, r, all.data() + 160 * r);
}

/// Prints one line per rank on rank 0 (collective): the supernodes it owns (in local
/// subtrees, separators), its part of L, the engine's tasks and time, the fan-in sent, the
/// solve's messages, and the totals.
inline void print_rank_stats(MPI_Comm comm, const DistributedStats& st, const char* prefix = "", int scalar_bytes = 8) {
  const double mb = scalar_bytes * 1e-6;
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  const int K = 10;
  const double mine[K] = {double(st.local_supernodes), double(st.owned_separators), st.local_values,
                          double(st.host_tasks() + st.device_tasks()), st.local_seconds, st.fanin_bytes,
                          double(st.fanin_messages), double(st.solve_messages_sent), st.solve_wait_seconds,
                          double(st.host_threads)};
  std::vector<double> all(size_t(K * P));
  KSPD_MPI_SAFE_CALL(MPI_Gather(mine, K, MPI_DOUBLE, all.data(), K, MPI_DOUBLE, 0, comm));
  if (rank != 0) return;
  std::printf("%s%4s %8s %8s %9s %8s %8s %9s %7s %8s %8s %7s\n", prefix, "rank", "subtree", "sep", "L MB", "tasks",
              "engine s", "fan-in MB", "fan-in", "solvmsg", "swait s", "threads");
  double tot[K] = {0};
  auto line = [&](const char* who, const double* x) {
    std::printf("%s%4s %8.0f %8.0f %9.2f %8.0f %8.4f %9.3f %7.0f %8.0f %8.4f %7.0f\n", prefix, who, x[0], x[1], x[2] * mb,
                x[3], x[4], x[5] * 1e-6, x[6], x[7], x[8], x[9]);
  };
  for (int r = 0; r < P; ++r) {
    const double* x = all.data() + K * r;
    for (int k = 0; k < K; ++k) tot[k] = (k == 4 || k == 8) ? std::max(tot[k], x[k]) : tot[k] + x[k];
    line(std::to_string(r).c_str(), x);
  }
  line("all", tot);  // engine s, swait s: the slowest rank's
}

/// This process's CPU use so far (getrusage, all its threads): user + system seconds and
/// the voluntary and involuntary context switches.
struct ProcessCpu {
  double seconds = 0, voluntary = 0, involuntary = 0;
  static ProcessCpu now() {
    rusage u{};
    getrusage(RUSAGE_SELF, &u);
    const auto sec = [](const timeval& t) { return double(t.tv_sec) + 1e-6 * double(t.tv_usec); };
    return {sec(u.ru_utime) + sec(u.ru_stime), double(u.ru_nvcsw), double(u.ru_nivcsw)};
  }
};

/// Rank 0 prints every rank's CPU use between `before` and now (collective): whether a rank
/// that only waits (a device group's other ranks) spins on a core while its leader factors.
inline void print_rank_cpu(MPI_Comm comm, const ProcessCpu& before, double wall, const char* what) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  const ProcessCpu c = ProcessCpu::now();
  const double mine[3] = {c.seconds - before.seconds, c.voluntary - before.voluntary, c.involuntary - before.involuntary};
  std::vector<double> all(size_t(3 * P));
  KSPD_MPI_SAFE_CALL(MPI_Gather(mine, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, 0, comm));
  if (rank != 0) return;
  std::printf("  cpu during the %s (%.3f s on rank 0), per rank: CPU s (%% of the wall), context switches voluntary/involuntary:",
              what, wall);
  for (int r = 0; r < P; ++r)
    std::printf("%s %d: %.3f s (%.0f%%) %.0f/%.0f", r ? ";" : "", r, all[size_t(3 * r)],
                wall > 0 ? 100 * all[size_t(3 * r)] / wall : 0.0, all[size_t(3 * r + 1)], all[size_t(3 * r + 2)]);
  std::printf("\n");
}

struct MpiDriverProblem {
  std::string input, generate = "elasticity3d";
  size_type nx = 22, ny = -1, nz = -1, nrhs = 1;
  int refactor = 0;
  bool max_supernode_given = false, memory_limit_given = false;  ///< for gpu_run_defaults
  Toggle device_aware_mpi = Toggle::Auto;                        ///< DistributedOptions::device_aware_mpi
};

template <class Scalar>
int mpi_driver_run(const MpiDriverProblem& pb, const Options& opt) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(MPI_COMM_WORLD, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(MPI_COMM_WORLD, &P));
  CscMatrix<Scalar> A;
  int bad = 0;
  if (rank == 0) {
    try {  // rank 0's read errors must not leave the others waiting
      if (!pb.input.empty()) A = read_matrix<Scalar>(pb.input);
      else if (pb.generate == "laplace2d") A = laplacian_2d<Scalar>(pb.nx, pb.ny);
      else if (pb.generate == "laplace3d") A = laplacian_3d<Scalar>(pb.nx, pb.ny, pb.nz);
      else if (pb.generate == "elasticity3d") A = elasticity_3d<Scalar>(pb.nx, pb.ny, pb.nz);
      else bad = 1;
      if (bad) std::fprintf(stderr, "kspd-solve: unknown problem '%s'\n", pb.generate.c_str());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kspd-solve: %s\n", e.what());
      bad = 1;
    }
    if (!bad)
      std::printf("kspd-solve (distributed, %d ranks): %s n = %ld, nnz(A, lower) = %ld, precision %s, offload %s\n",
                  P, A.name.c_str(), long(A.n), long(A.nnz()), sizeof(Scalar) == 4 ? "float" : "double",
                  opt.offload.any() ? "on" : "off");
  }
  KSPD_MPI_SAFE_CALL(MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD));
  if (bad) return 2;
  print_rank_devices(MPI_COMM_WORLD, "  ");
  DistributedOptions dopt;
  dopt.engine = opt;
  dopt.device_aware_mpi = pb.device_aware_mpi;
  mpi_gpu_run_defaults(MPI_COMM_WORLD, dopt.engine, pb.max_supernode_given, pb.memory_limit_given);
  dopt.engine.progress = nullptr;
  DistributedCholesky<Scalar> chol(MPI_COMM_WORLD, dopt);
  double t = MPI_Wtime();
  chol.analyze(A);
  const double t_an = MPI_Wtime() - t;
  const auto& as = chol.symbolic().stats;
  if (rank == 0) {
    const Impl::MpiLayout& L = chol.layout();
    std::printf("analyse  %8.3f s  %s\n", t_an, as.summary().c_str());
    std::printf("map      %s; %d of %d ranks own supernodes\n",
                L.single() ? "one device group: rank 0 runs the one-rank engine"
                : L.top    ? "top-rank map over the device groups' leaders"
                           : "fan-in over the ranks",
                int(L.leaders.size()), P);
  }
  for (int round = 0; round <= pb.refactor; ++round) {
    KSPD_MPI_SAFE_CALL(MPI_Barrier(MPI_COMM_WORLD));
    const ProcessCpu cpu0 = ProcessCpu::now();
    t = MPI_Wtime();
    try {
      chol.factorize(A);
    } catch (const NotPositiveDefinite& e) {
      if (rank == 0) std::printf("factor   FAILED: %s\n", e.what());
      return 3;
    } catch (const OutOfDeviceMemory& e) {  // thrown by every rank
      if (rank == 0) std::printf("factor   FAILED: %s\n", e.what());
      return 5;
    }
    double tf = MPI_Wtime() - t, tmax = 0;
    KSPD_MPI_SAFE_CALL(MPI_Allreduce(&tf, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD));
    if (rank == 0)
      std::printf("%-8s %8.3f s  %.3e flops, %.2f GFLOP/s on %d ranks x %d threads (distribute %.3f s; rank 0: engine "
                  "%.3f s, rest of factor %.3f s)\n",
                  round ? "refactor" : "factor", tmax, as.flops, as.flops / tmax * 1e-9, P, chol.stats().host_threads,
                  chol.stats().distribute_seconds, chol.stats().local_seconds,
                  chol.stats().factor_seconds - chol.stats().local_seconds);
    const auto& tl = chol.stats().timeline;
    if (rank == 0 && opt.offload.timeline && chol.stats().local_resident)
      std::printf("  rank 0 timeline (fenced per phase): assemble %.3f s, small supernodes %.3f s, large supernodes %.3f s, "
                  "info %.3f s\n",
                  tl.assemble, tl.small, tl.large, tl.info);
    print_rank_cpu(MPI_COMM_WORLD, cpu0, tf, round ? "refactorization" : "factorization");
  }
  const size_type n = chol.n(), k = pb.nrhs;
  std::vector<Scalar> X, B, W;
  if (rank == 0) {
    X.resize(size_t(n * k));
    for (size_type i = 0; i < n * k; ++i) X[size_t(i)] = Scalar(1.0 + 0.5 * std::sin(double(i)));
    B = known_solution_rhs(A, X, k);
    W = B;
  }
  KSPD_MPI_SAFE_CALL(MPI_Barrier(MPI_COMM_WORLD));
  t = MPI_Wtime();
  chol.solve(W, k);
  const double t_solve = MPI_Wtime() - t;
  print_rank_stats(MPI_COMM_WORLD, chol.stats(), "  ", int(sizeof(Scalar)));
  int rc = 0;
  if (rank == 0) {
    double anorm = 0, worst = 0;
    for (size_type j = 0; j < n; ++j)
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
        anorm += (A.rowind[size_t(p)] == j ? 1.0 : 2.0) * double(A.values[size_t(p)]) * double(A.values[size_t(p)]);
    anorm = std::sqrt(anorm);
    std::vector<Scalar> x(static_cast<size_t>(n)), ax(static_cast<size_t>(n));
    for (size_type r = 0; r < k; ++r) {
      std::copy(W.begin() + r * n, W.begin() + (r + 1) * n, x.begin());
      symv(A, x, ax);
      double rn = 0, xn = 0, bn = 0;
      for (size_type i = 0; i < n; ++i) {
        const double d = double(ax[size_t(i)]) - double(B[size_t(i + r * n)]);
        rn += d * d;
        xn += double(x[size_t(i)]) * double(x[size_t(i)]);
        bn += double(B[size_t(i + r * n)]) * double(B[size_t(i + r * n)]);
      }
      worst = std::max(worst, std::sqrt(rn) / (anorm * std::sqrt(xn) + std::sqrt(bn)));
    }
    std::printf("solve    %8.3f s  %ld rhs; residual ||Ax-b||/(||A|| ||x||+||b||) = %.2e\n", t_solve, long(k), worst);
    rc = worst <= (sizeof(Scalar) == 4 ? 1e-4 : 1e-10) ? 0 : 4;
  }
  KSPD_MPI_SAFE_CALL(MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD));
  return rc;
}

/// kspd-solve's distributed mode: MPI and Kokkos set up around mpi_driver_run.
inline int mpi_driver_main(const MpiDriverProblem& pb, const Options& opt, bool use_float) {
  int provided = 0;
  KSPD_MPI_SAFE_CALL(MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided));
  int rc = 0;
  {
    Kokkos::ScopeGuard guard(kspd::compat::init_settings(device_for_rank(MPI_COMM_WORLD)));
    try {
      rc = use_float ? mpi_driver_run<float>(pb, opt) : mpi_driver_run<double>(pb, opt);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kspd-solve: %s\n", e.what());
      rc = 1;
    }
  }
  if (rc == 1) (void)MPI_Abort(MPI_COMM_WORLD, 1);  // a local error other ranks cannot know of (does not return)
  if (MPI_Finalize() != MPI_SUCCESS) {
    std::fprintf(stderr, "kspd-solve: MPI_Finalize failed\n");
    if (rc == 0) rc = 1;
  }
  return rc;
}

}  // namespace kspd::sparse::Impl
#endif
