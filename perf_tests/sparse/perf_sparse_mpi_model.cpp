// perf_sparse_mpi_model: a scaling model of the distributed fan-out factorization from the
// analysis alone (no values factored, one process). For a problem and rank counts P it
// builds the same block map the solver would use and counts, per rank, the flops of the
// tasks it runs, the factor blocks it pulls (count and bytes) and the notices it sends;
// and the critical path of the task graph (infinite ranks, updates into one block
// serialized). With a per-core rate R (GFLOP/s), a per-message cost alpha (s) and a
// bandwidth beta (GB/s), measured by perf_sparse_mpi, it projects
//   T(P) = max(max_r flops_r / R, critical path / R) + max_r (msgs_r alpha + bytes_r / beta).
//
//   perf_sparse_mpi_model [--smoke] --gen elasticity3d:N | --input A.mtx  --ranks 16,64,1024
//                         [--rate R] [--alpha s] [--beta GB/s] [--pure-2d]
#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <sstream>
#include <string>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_mpi_layout.hpp"
#include "kspd_sparse_symbolic.hpp"
#include "kspd_perf_csv.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using ks::Impl::MpiLayout;
using ks::Impl::Symbolic;

struct Model {
  double max_flops = 0, avg_flops = 0, max_msgs = 0, max_bytes = 0, tot_bytes = 0, tot_msgs = 0, critical = 0;
};

/// Per-rank work and traffic of the fan-out factorization with the layout L.
Model model(const Symbolic& S, const MpiLayout& L) {
  const int P = L.nranks;
  std::vector<double> flops(size_t(P), 0), msgs(size_t(P), 0), bytes(size_t(P), 0);
  const size_type nb = size_type(S.blocks.size());
  std::vector<double> ready(size_t(nb), 0.0), done(size_t(nb), 0.0);  // critical path, in flops
  std::vector<int> mark(size_t(P), -1);
  int stamp = 0;
  Model m;
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
    const auto& sn = S.snodes[size_t(s)];
    const double k = double(sn.ncols);
    const size_type d = sn.block_begin;
    flops[size_t(L.owner[size_t(d)])] += k * k * k / 3;
    done[size_t(d)] = ready[size_t(d)] + k * k * k / 3;
    // The diagonal block goes to the owners of the off-diagonal blocks (once per rank).
    ++stamp;
    for (size_type c = d + 1; c < sn.block_end; ++c) {
      const int r = L.owner[size_t(c)];
      if (r != L.owner[size_t(d)] && mark[size_t(r)] != stamp) {
        mark[size_t(r)] = stamp;
        msgs[size_t(L.owner[size_t(d)])] += 1;
        bytes[size_t(r)] += 8 * k * k;
      }
      const double m1 = double(S.blocks[size_t(c)].nrows);
      flops[size_t(r)] += m1 * k * k;
      done[size_t(c)] = std::max(ready[size_t(c)], done[size_t(d)]) + m1 * k * k;
    }
    for (size_type b1 = d + 1; b1 < sn.block_end; ++b1) {
      ++stamp;
      const double m1 = double(S.blocks[size_t(b1)].nrows);
      for (size_type c = d + 1; c < sn.block_end; ++c) {
        const size_type lo = std::min(b1, c), hi = std::max(b1, c);
        const size_type tb = MpiLayout::find_block(S, S.blocks[size_t(lo)].target, S.blocks[size_t(hi)].target);
        const int r = L.owner[size_t(tb)];
        if (r != L.owner[size_t(b1)] && mark[size_t(r)] != stamp) {
          mark[size_t(r)] = stamp;
          msgs[size_t(L.owner[size_t(b1)])] += 1;
          bytes[size_t(r)] += 8 * m1 * k;
        }
        if (c < b1) continue;  // each update once: (b1, c), c >= b1
        const double m2 = double(S.blocks[size_t(c)].nrows);
        const double f = c == b1 ? m1 * m1 * k : 2 * m1 * m2 * k;
        flops[size_t(r)] += f;
        ready[size_t(tb)] = std::max(ready[size_t(tb)], std::max(done[size_t(b1)], done[size_t(c)])) + f;
      }
    }
  }
  for (size_type b = 0; b < nb; ++b) m.critical = std::max(m.critical, done[size_t(b)]);
  for (int r = 0; r < P; ++r) {
    m.max_flops = std::max(m.max_flops, flops[size_t(r)]);
    m.avg_flops += flops[size_t(r)] / P;
    m.max_msgs = std::max(m.max_msgs, msgs[size_t(r)]);
    m.max_bytes = std::max(m.max_bytes, bytes[size_t(r)]);
    m.tot_bytes += bytes[size_t(r)];
    m.tot_msgs += msgs[size_t(r)];
  }
  return m;
}

std::vector<std::string> split(const std::string& s) {
  std::vector<std::string> out;
  std::stringstream ss(s);
  std::string x;
  while (std::getline(ss, x, ','))
    if (!x.empty()) out.push_back(x);
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;
  std::string gen = "elasticity3d:30", input;
  std::vector<int> ranks = {1, 16, 64, 256, 1024, 4096};
  double rate = 15, alpha = 5e-6, beta = 5;
  bool subtrees = true;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string("0"); };
    if (a == "--smoke") {
      gen = "elasticity3d:6";
      ranks = {1, 2, 4, 16};
    } else if (a == "--gen") gen = val();
    else if (a == "--input") input = val();
    else if (a == "--ranks") {
      ranks.clear();
      for (auto& r : split(val())) ranks.push_back(std::atoi(r.c_str()));
    } else if (a == "--rate") rate = std::atof(val().c_str());
    else if (a == "--alpha") alpha = std::atof(val().c_str());
    else if (a == "--beta") beta = std::atof(val().c_str());
    else if (a == "--pure-2d") subtrees = false;
    else return std::fprintf(stderr, "perf_sparse_mpi_model: unknown argument '%s'\n", a.c_str()), 2;
  }
  auto t0 = std::chrono::steady_clock::now();
  ks::CscMatrix<double> A;
  if (!input.empty()) A = ks::read_matrix<double>(input);
  else {
    const size_type N = std::atoll(gen.substr(gen.find(':') + 1).c_str());
    A = gen.rfind("laplace3d", 0) == 0 ? ks::laplacian_3d<double>(N, N, N) : ks::elasticity_3d<double>(N, N, N);
  }
  ks::Options opt;
  Symbolic S = ks::Impl::analyse(ks::Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, opt);
  const double t_an = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("perf_sparse_mpi_model: %s n = %ld, nnz(A, lower) = %ld (generate + analyse %.1f s)\n  %s\n",
              input.empty() ? gen.c_str() : input.c_str(), long(A.n), long(A.nnz()), t_an, S.stats.summary().c_str());
  std::printf("  rate %.1f GFLOP/s per rank, alpha %.1e s per notice+get, beta %.1f GB/s per rank, local subtrees %s\n",
              rate, alpha, beta, subtrees ? "on" : "off");
  std::printf("%6s %10s %10s %6s %10s %10s %10s %10s | %9s %9s %9s %9s %6s\n", "P", "GF max", "GF avg", "imbal", "msgs max",
              "MB max", "GB total", "CP GF", "T comp", "T comm", "T proj", "speedup", "eff");
  double t1 = 0;
  for (int P : ranks) {
    ks::DistributedOptions dopt;
    dopt.local_subtrees = subtrees;
    MpiLayout L;
    L.build(S, dopt, 0, P);
    const Model m = model(S, L);
    const double tcomp = std::max(m.max_flops, m.critical) / (rate * 1e9);
    const double tcomm = P > 1 ? m.max_msgs * alpha + m.max_bytes / (beta * 1e9) : 0;
    const double t = tcomp + tcomm;
    if (P == ranks.front()) t1 = t * P;  // the first P as the reference (P = 1 preferred)
    std::printf("%6d %10.1f %10.1f %6.2f %10.0f %10.1f %10.2f %10.1f | %9.3f %9.3f %9.3f %9.1f %6.2f\n", P, m.max_flops * 1e-9,
                m.avg_flops * 1e-9, m.avg_flops > 0 ? m.max_flops / m.avg_flops : 0, m.max_msgs, m.max_bytes * 1e-6,
                m.tot_bytes * 1e-9, m.critical * 1e-9, tcomp, tcomm, t, t1 / t, t1 / t / P);
    std::fflush(stdout);
    // The projected time at P ranks (batch = P: the sweep runs over the rank count).
    kspd::perf::csv_row("d", "factor (model)", input.empty() ? gen : input, long(A.n), -1, P, "kspd model", t * 1e3);
  }
  return 0;
}
