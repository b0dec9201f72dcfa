#ifndef KSPD_SPARSE_MPI_DRIVER_HPP
#define KSPD_SPARSE_MPI_DRIVER_HPP
/// \file kspd_sparse_mpi_driver.hpp
/// The distributed mode of kspd-solve (`mpiexec -n P kspd-solve ...`) and the per-rank
/// report shared with perf_sparse_mpi. Rank 0 reads or generates the matrix, the
/// factorization and solve run on all ranks, rank 0 checks the residual.

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"

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

/// Prints one line per rank on rank 0 (collective): blocks, storage, tasks, data pulled,
/// notices, time waiting, and the totals.
inline void print_rank_stats(MPI_Comm comm, const DistributedStats& st, const char* prefix = "", int scalar_bytes = 8) {
  const double mb = scalar_bytes * 1e-6;
  int rank = 0, P = 1;
  MPI_Comm_rank(comm, &rank);
  MPI_Comm_size(comm, &P);
  const int K = 11;
  const double mine[K] = {double(st.local_blocks), st.local_values, double(st.local_tasks), st.flops, double(st.gets),
                          st.bytes_get,           double(st.messages_sent), st.wait_seconds, st.factor_seconds,
                          double(st.solve_messages_sent), st.solve_wait_seconds};
  std::vector<double> all(size_t(K * P));
  MPI_Gather(mine, K, MPI_DOUBLE, all.data(), K, MPI_DOUBLE, 0, comm);
  if (rank != 0) return;
  std::printf("%s%4s %7s %9s %7s %9s %7s %10s %7s %8s %8s %7s %8s\n", prefix, "rank", "blocks", "L MB", "tasks", "GFLOP",
              "gets", "pulled MB", "notices", "wait s", "factor s", "solvmsg", "swait s");
  double tot[K] = {0};
  for (int r = 0; r < P; ++r) {
    const double* x = all.data() + K * r;
    for (int k = 0; k < K; ++k) tot[k] += x[k];
    std::printf("%s%4d %7.0f %9.2f %7.0f %9.3f %7.0f %10.3f %7.0f %8.4f %8.4f %7.0f %8.4f\n", prefix, r, x[0],
                x[1] * mb, x[2], x[3] * 1e-9, x[4], x[5] * 1e-6, x[6], x[7], x[8], x[9], x[10]);
  }
  std::printf("%s%4s %7.0f %9.2f %7.0f %9.3f %7.0f %10.3f %7.0f %8.4f %8s %7.0f %8.4f\n", prefix, "all", tot[0],
              tot[1] * mb, tot[2], tot[3] * 1e-9, tot[4], tot[5] * 1e-6, tot[6], tot[7], "", tot[9], tot[10]);
}

struct MpiDriverProblem {
  std::string input, generate = "elasticity3d";
  size_type nx = 22, ny = -1, nz = -1, nrhs = 1;
  int refactor = 0;
};

template <class Scalar>
int mpi_driver_run(const MpiDriverProblem& pb, const Options& opt) {
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
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
      std::printf("kspd-solve (distributed, %d ranks, grid %s): %s n = %ld, nnz(A, lower) = %ld, precision %s\n", P,
                  "2D block-cyclic", A.name.c_str(), long(A.n), long(A.nnz()), sizeof(Scalar) == 4 ? "float" : "double");
  }
  MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
  if (bad) return 2;
  DistributedOptions dopt;
  static_cast<Options&>(dopt) = opt;
  dopt.progress = nullptr;
  DistributedCholesky<Scalar> chol(MPI_COMM_WORLD, dopt);
  double t = MPI_Wtime();
  chol.analyze(A);
  const double t_an = MPI_Wtime() - t;
  const auto& as = chol.symbolic().stats;
  if (rank == 0) std::printf("analyse  %8.3f s  %s\n", t_an, as.summary().c_str());
  for (int round = 0; round <= pb.refactor; ++round) {
    MPI_Barrier(MPI_COMM_WORLD);
    t = MPI_Wtime();
    try {
      chol.factorize(A);
    } catch (const NotPositiveDefinite& e) {
      if (rank == 0) std::printf("factor   FAILED: %s\n", e.what());
      return 3;
    }
    double tf = MPI_Wtime() - t, tmax = 0;
    MPI_Allreduce(&tf, &tmax, 1, MPI_DOUBLE, MPI_MAX, MPI_COMM_WORLD);
    if (rank == 0)
      std::printf("%-8s %8.3f s  %.3e flops, %.2f GFLOP/s on %d ranks (distribute %.3f s)\n", round ? "refactor" : "factor",
                  tmax, as.flops, as.flops / tmax * 1e-9, P, chol.stats().distribute_seconds);
  }
  const size_type n = chol.n(), k = pb.nrhs;
  std::vector<Scalar> X, B, W;
  if (rank == 0) {
    X.resize(size_t(n * k));
    for (size_type i = 0; i < n * k; ++i) X[size_t(i)] = Scalar(1.0 + 0.5 * std::sin(double(i)));
    B = known_solution_rhs(A, X, k);
    W = B;
  }
  MPI_Barrier(MPI_COMM_WORLD);
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
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  return rc;
}

/// kspd-solve's distributed mode: MPI and Kokkos set up around mpi_driver_run.
inline int mpi_driver_main(const MpiDriverProblem& pb, const Options& opt, bool use_float) {
  int provided = 0;
  MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
  int rc = 0;
  {
    Kokkos::ScopeGuard guard;
    try {
      rc = use_float ? mpi_driver_run<float>(pb, opt) : mpi_driver_run<double>(pb, opt);
    } catch (const std::exception& e) {
      std::fprintf(stderr, "kspd-solve: %s\n", e.what());
      rc = 1;
    }
  }
  if (rc == 1) MPI_Abort(MPI_COMM_WORLD, 1);  // a local error other ranks cannot know of
  MPI_Finalize();
  return rc;
}

}  // namespace kspd::sparse::Impl
#endif
