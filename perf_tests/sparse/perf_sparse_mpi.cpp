// perf_sparse_mpi: strong scaling of kspd's distributed supernodal Cholesky at the rank
// count it runs with (mpiexec -n P), side by side with MUMPS (same run, same ranks,
// Metis ordering, centralized input on the host, SPD mode).
//
//   mpiexec -n P perf_sparse_mpi [--smoke] [--reps R] [--gen elasticity3d:N[,laplace3d:N]]
//           [--input A.mtx[,B.mtx]] [--nrhs K] [--no-mumps] [--no-t1] [--max-supernode W]
//           [--no-subtrees] (every supernode placed by the cyclic map: most updates cross ranks)
//           [--gpu on|off|force] [--gpu-threshold-potrf W] [--gpu-threshold-trsm M*W]
//           [--gpu-threshold-update M*N*K] [--gpu-mem-limit MiB] [--fallback cpu|fail] [--gpu-direct on|off]
//           [--threads T] (task workers per rank, beside the main thread that drives MPI; 0: the node's cores
//           shared among its ranks; default 1, as MUMPS runs here)
//   run_perf_sparse_mpi.sh loops P = 1 2 4 8 16.
// GPU: one rank per GPU (node-local rank % GPUs); --gpu on = Offload::gpu_defaults(), force =
// every supernode and update on the device (thresholds 0), as kspd-solve's --gpu (with one
// rank; with more, each rank's local subtrees on its GPU, the separators on host workers);
// --gpu-direct is reported only.
// Per case: factor / solve time (median of R, the slowest rank), GFLOP/s from kspd's exact
// flop count, T1 = the same factorization by rank 0 alone in this run, speed-up T1/TP and
// parallel efficiency T1/(P TP), MB of fan-in contributions and their number over all ranks,
// the slowest rank's engine time, the share of tasks run on the GPUs; MUMPS factor/solve
// time and the ratio kspd/MUMPS (< 1: kspd faster). Per rank (last run): the table of
// Impl::print_rank_stats.
#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_mpi_driver.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH
#ifdef KSPD_HAVE_MUMPS
#include <dmumps_c.h>
#endif

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0.0 : v[v.size() / 2];
}
double max_all(double x, MPI_Comm c = MPI_COMM_WORLD) {
  double y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_MAX, c);
  return y;
}
double sum_all(double x) {
  double y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}
std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

struct Times {
  double factor = 0, solve = 0, t1 = 0, resid = 0, flops = 0, nnzl = 0;
  double mb = 0, wait = 0, notices = 0, gpu_share = 0;
  double mumps_factor = -1, mumps_solve = -1, mumps_flops = 0;
};

/// kspd: analysis once, then R factorizations and solves; T1 by rank 0 alone.
Times run_kspd(const ks::CscMatrix<double>& A, const ks::DistributedOptions& opt, int reps, size_type nrhs, bool t1) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  Times t;
  ks::DistributedCholesky<double> chol(MPI_COMM_WORLD, opt);
  chol.analyze(A);
  t.flops = chol.symbolic().stats.flops;
  t.nnzl = double(chol.symbolic().stats.nnz_l);
  std::vector<double> tf, ts;
  std::vector<double> B, X;
  const size_type n = chol.n();
  if (rank == 0) {
    X.assign(size_t(n * nrhs), 0.0);
    for (size_type i = 0; i < n * nrhs; ++i) X[size_t(i)] = 1.0 + 0.5 * std::sin(double(i));
    B = ks::known_solution_rhs(A, X, nrhs);
  }
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    chol.factorize(A);
    tf.push_back(max_all(MPI_Wtime() - t0));
    std::vector<double> W = B;
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    chol.solve(W, nrhs);
    ts.push_back(max_all(MPI_Wtime() - t0));
    if (rank == 0 && r == reps - 1) {
      double rn = 0, bn = 0;
      std::vector<double> x(static_cast<size_t>(n)), ax(static_cast<size_t>(n));
      for (size_type c = 0; c < nrhs; ++c) {
        std::copy(W.begin() + c * n, W.begin() + (c + 1) * n, x.begin());
        ks::symv(A, x, ax);
        for (size_type i = 0; i < n; ++i) {
          rn += std::pow(ax[size_t(i)] - B[size_t(i + c * n)], 2);
          bn += std::pow(B[size_t(i + c * n)], 2);
        }
      }
      t.resid = std::sqrt(rn / bn);
    }
  }
  t.factor = median(tf);
  t.solve = median(ts);
  const auto& st = chol.stats();
  t.mb = sum_all(st.fanin_bytes) * 1e-6;
  t.notices = sum_all(double(st.fanin_messages));
  t.wait = max_all(st.local_seconds);
  const double dev = sum_all(double(st.device_tasks())), all = dev + sum_all(double(st.host_tasks()));
  t.gpu_share = all > 0 ? dev / all : 0;
  ks::Impl::print_rank_stats(MPI_COMM_WORLD, st, "    ");
  int P = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  if (t1 && P > 1) {
    // The one-rank time in the same run: rank 0 alone, the others idle.
    double one = 0;
    if (rank == 0) {
      ks::DistributedCholesky<double> solo(MPI_COMM_SELF, opt);
      solo.analyze(A);
      std::vector<double> v;
      for (int r = 0; r < reps; ++r) {
        const double t0 = MPI_Wtime();
        solo.factorize(A);
        v.push_back(MPI_Wtime() - t0);
      }
      one = median(v);
    }
    MPI_Bcast(&one, 1, MPI_DOUBLE, 0, MPI_COMM_WORLD);
    t.t1 = one;
  } else {
    t.t1 = P == 1 ? t.factor : 0;
  }
  return t;
}

#ifdef KSPD_HAVE_MUMPS
/// MUMPS on the same ranks: SPD (SYM=1), host participates (PAR=1), centralized lower
/// triangle on rank 0, Metis ordering (ICNTL(7)=5); JOB=-1, 1, then R times 2 and 3.
void run_mumps(const ks::CscMatrix<double>& A, int reps, size_type nrhs, Times& t) {
  int rank = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  DMUMPS_STRUC_C id{};
  id.comm_fortran = MUMPS_INT(MPI_Comm_c2f(MPI_COMM_WORLD));
  id.par = 1;
  id.sym = 1;
  id.job = -1;
  dmumps_c(&id);
  id.icntl[0] = id.icntl[1] = id.icntl[2] = -1;  // quiet
  id.icntl[3] = 0;
  id.icntl[6] = 5;  // ICNTL(7) = 5: Metis
  std::vector<MUMPS_INT> irn, jcn;
  std::vector<double> a, rhs;
  if (rank == 0) {
    id.n = MUMPS_INT(A.n);
    for (size_type j = 0; j < A.n; ++j)
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
        irn.push_back(MUMPS_INT(A.rowind[size_t(p)] + 1));
        jcn.push_back(MUMPS_INT(j + 1));
        a.push_back(A.values[size_t(p)]);
      }
    id.nnz = MUMPS_INT8(a.size());
    id.nz = MUMPS_INT(a.size());
    id.irn = irn.data();
    id.jcn = jcn.data();
    id.a = a.data();
  }
  id.job = 1;
  dmumps_c(&id);
  if (id.infog[0] < 0) {
    if (rank == 0) std::printf("    MUMPS analysis failed: INFOG(1) = %d, INFOG(2) = %d\n", id.infog[0], id.infog[1]);
    id.job = -2;
    dmumps_c(&id);
    return;
  }
  std::vector<double> tf, ts;
  for (int r = 0; r < reps; ++r) {
    MPI_Barrier(MPI_COMM_WORLD);
    double t0 = MPI_Wtime();
    id.job = 2;
    dmumps_c(&id);
    tf.push_back(max_all(MPI_Wtime() - t0));
    if (id.infog[0] < 0) {
      if (rank == 0) std::printf("    MUMPS factorization failed: INFOG(1) = %d\n", id.infog[0]);
      break;
    }
    if (rank == 0) {
      rhs.assign(size_t(A.n * nrhs), 1.0);
      id.rhs = rhs.data();
      id.nrhs = MUMPS_INT(nrhs);
      id.lrhs = MUMPS_INT(A.n);
    }
    MPI_Barrier(MPI_COMM_WORLD);
    t0 = MPI_Wtime();
    id.job = 3;
    dmumps_c(&id);
    ts.push_back(max_all(MPI_Wtime() - t0));
  }
  t.mumps_factor = tf.size() == size_t(reps) ? median(tf) : -1;
  t.mumps_solve = ts.empty() ? -1 : median(ts);
  t.mumps_flops = id.rinfog[2];  // RINFOG(3): flops of the elimination
  id.job = -2;
  dmumps_c(&id);
}
#endif

ks::CscMatrix<double> make_case(const std::string& c, const std::string& dir) {
  const auto colon = c.find(':');
  if (colon == std::string::npos) {
    const std::string path = c.find('/') == std::string::npos && !dir.empty() ? dir + "/" + c : c;
    return ks::read_matrix<double>(path);
  }
  const std::string kind = c.substr(0, colon);
  const size_type N = std::atoll(c.c_str() + colon + 1);
  if (kind == "laplace3d") return ks::laplacian_3d<double>(N, N, N);
  if (kind == "laplace2d") return ks::laplacian_2d<double>(N, N);
  return ks::elasticity_3d<double>(N, N, N);
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int rank = 0, P = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &P);
  int rc = 0;
  {
    Kokkos::ScopeGuard guard(kspd::compat::init_settings(ks::Impl::device_for_rank(MPI_COMM_WORLD)));
    bool smoke = false, mumps = true, t1 = true;
    int reps = 3;
    size_type nrhs = 1;
    std::vector<std::string> cases;
    ks::DistributedOptions opt;
    bool max_supernode_given = false, memory_limit_given = false;
    for (int i = 1; i < argc; ++i) {
      const std::string a = argv[i];
      auto val = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string("0"); };
      if (a == "--smoke") smoke = true;
      else if (a == "--reps") reps = std::max(1, std::atoi(val().c_str()));
      else if (a == "--gen" || a == "--input")
        for (auto& c : split(val())) cases.push_back(c);
      else if (a == "--nrhs") nrhs = std::atoll(val().c_str());
      else if (a == "--no-mumps") mumps = false;
      else if (a == "--no-t1") t1 = false;
      else if (a == "--threads") opt.engine.threads = std::atoi(val().c_str());
      else if (a == "--no-subtrees") opt.local_subtrees = false;
      else if (a == "--max-supernode") opt.engine.max_supernode = std::atoll(val().c_str()), max_supernode_given = true;
      else if (a == "--gpu") {
        const std::string g = val();
        if (g == "on") opt.engine.offload.gpu_defaults();
        else if (g == "force") opt.engine.offload.force_all();
        else if (g == "off") opt.engine.offload.potrf_threshold = opt.engine.offload.trsm_threshold = opt.engine.offload.update_threshold = -1;
        else {
          if (rank == 0) std::fprintf(stderr, "perf_sparse_mpi: --gpu on|off|force, not '%s'\n", g.c_str());
          rc = 2;
        }
      } else if (a == "--gpu-threshold-potrf") opt.engine.offload.potrf_threshold = std::atoll(val().c_str());
      else if (a == "--gpu-threshold-trsm") opt.engine.offload.trsm_threshold = std::atoll(val().c_str());
      else if (a == "--gpu-threshold-update") opt.engine.offload.update_threshold = std::atoll(val().c_str());
      else if (a == "--gpu-mem-limit")
        opt.engine.offload.device_memory_limit = std::int64_t(std::atof(val().c_str()) * 1048576.0), memory_limit_given = true;
      else if (a == "--fallback") opt.engine.offload.fallback = val() == "fail" ? ks::OffloadFallback::Fail : ks::OffloadFallback::Cpu;
      else {
        if (rank == 0) std::fprintf(stderr, "perf_sparse_mpi: unknown argument '%s'\n", a.c_str());
        rc = 2;
      }
    }
    ks::Impl::mpi_gpu_run_defaults(MPI_COMM_WORLD, opt.engine, max_supernode_given, memory_limit_given);
    const char* d = std::getenv("KSPD_DATA_DIR");
    const std::string dir = d ? d : "";
    if (smoke) {
      reps = 1;
      cases = {"elasticity3d:5", "laplace3d:8"};
    } else if (cases.empty()) {
      cases = {"elasticity3d:20", "elasticity3d:30", "elasticity3d:40"};
      if (!dir.empty())
        for (const char* m : {"bcsstk13.mtx", "bodyy5.mtx.gz", "cvxbqp1.mtx.gz"}) cases.push_back(m);
    }
    if (rc == 0) {
      if (rank == 0) {
        std::printf("perf_sparse_mpi: kspd %s, %d ranks (fan-in), threads per rank %d%s, host %s, offload %s, reps %d, "
                    "nrhs %ld, MUMPS %s\n",
                    KSPD_GIT_HASH, P, opt.engine.threads, opt.engine.threads == 0 ? " (node cores / ranks)" : "",
                    Kokkos::DefaultHostExecutionSpace::name(), opt.engine.offload.any() ? "on" : "off", reps, long(nrhs),
#ifdef KSPD_HAVE_MUMPS
                    mumps ? MUMPS_VERSION : "off"
#else
                    "not built"
#endif
        );
        std::fflush(stdout);
      }
      ks::Impl::print_rank_devices(MPI_COMM_WORLD, "  ");
      std::vector<std::string> lines;
      for (const auto& c : cases) {
        ks::CscMatrix<double> A;
        int bad = 0;
        if (rank == 0) {
          try {
            A = make_case(c, dir);
            std::printf("  case %s: n = %ld, nnz(A, lower) = %ld\n", c.c_str(), long(A.n), long(A.nnz()));
          } catch (const std::exception& e) {
            std::printf("  case %s skipped: %s\n", c.c_str(), e.what());
            bad = 1;
          }
          std::fflush(stdout);
        }
        MPI_Bcast(&bad, 1, MPI_INT, 0, MPI_COMM_WORLD);
        if (bad) continue;
        Times t;
        try {
          t = run_kspd(A, opt, reps, nrhs, t1);
        } catch (const std::exception& e) {  // print it: an abort's backtrace says nothing
          std::fprintf(stderr, "perf_sparse_mpi: rank %d: %s\n", rank, e.what());
          MPI_Abort(MPI_COMM_WORLD, 1);
        }
#ifdef KSPD_HAVE_MUMPS
        if (mumps) run_mumps(A, reps, nrhs, t);
#endif
        if (rank == 0) {
          char buf[512];
          const double sp = t.t1 > 0 ? t.t1 / t.factor : 0;
          std::snprintf(buf, sizeof buf,
                        "%-20s %3d %9ld %11.0f %8.3f %7.2f %8.3f %6.2f %5.2f %8.4f %8.2e %9.2f %8.0f %7.3f %5.1f | %8.3f %8.4f %7.2f",
                        c.c_str(), P, long(A.n), t.nnzl, t.factor, t.flops / t.factor * 1e-9, t.t1, sp, sp / P, t.solve,
                        t.resid, t.mb, t.notices, t.wait, 100 * t.gpu_share, t.mumps_factor, t.mumps_solve,
                        t.mumps_factor > 0 ? t.factor / t.mumps_factor : 0.0);
          lines.push_back(buf);
          if (t.resid > 1e-8) rc = 4;
          const std::string who = "kspd P=" + std::to_string(P);
          kspd::perf::csv_row("d", "factor", c, long(A.n), -1, -1, who, t.factor * 1e3, t.flops / t.factor * 1e-9);
          kspd::perf::csv_row("d", "solve", c, long(A.n), long(nrhs), -1, who, t.solve * 1e3);
          if (t.mumps_factor > 0) {
            kspd::perf::csv_row("d", "factor", c, long(A.n), -1, -1, "MUMPS P=" + std::to_string(P), t.mumps_factor * 1e3,
                                t.flops / t.mumps_factor * 1e-9);
            kspd::perf::csv_row("d", "solve", c, long(A.n), long(nrhs), -1, "MUMPS P=" + std::to_string(P), t.mumps_solve * 1e3);
          }
        }
      }
      if (rank == 0) {
        std::printf("\n%-20s %3s %9s %11s %8s %7s %8s %6s %5s %8s %8s %9s %8s %7s %5s | %8s %8s %7s\n", "case", "P", "n",
                    "nnz(L)", "factor s", "GF/s", "T1 s", "speedup", "eff", "solve s", "resid", "fan-in MB", "msgs",
                    "engine s", "gpu%", "MUMPS f", "MUMPS s", "ratio");
        for (auto& l : lines) std::printf("%s\n", l.c_str());
        std::printf("ratio = kspd factor / MUMPS factor (< 1: kspd faster); fan-in MB, msgs: contributions sent, all ranks; "
                    "gpu%% = factorization tasks run on the GPUs\n");
      }
    }
  }
  MPI_Bcast(&rc, 1, MPI_INT, 0, MPI_COMM_WORLD);
  MPI_Finalize();
  return rc;
}
