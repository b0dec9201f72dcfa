// The distributed solver as the multi-rank case of the one sparse engine: the subtree-to-rank
// map, the distributed factor and solve against the single-process solver (generated
// problems and the real matrices, float and double, host and device placements), and
// failing pivots in a rank's local subtree and in a separator. Runs under mpiexec at 1-4
// ranks (kspd_test_sparse_mpi).

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_test_data.hpp"
#include "mpi_test_helpers.hpp"
#include "sparse_test_helpers.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using namespace kspd::test::mpi;  // (placements, expect_equal_to_engine, expect_same_failing_column)

int rank_of_world() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of_world() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

ks::Impl::Symbolic analyse(const ks::CscMatrix<double>& A, size_type max_supernode = 256) {
  ks::Options o;
  o.max_supernode = max_supernode;
  o.threads = 1;
  return ks::Impl::analyse(ks::Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, o);
}

// Whole subtrees per rank: every child of a local-subtree supernode is in the same rank's
// subtree, the separators are closed upwards (a separator's parent is one), one rank owns
// everything, and with a tree that can be split every rank gets a subtree. The local work is
// balanced to within the largest single subtree's granularity (loose bound: 3x the mean).
TEST(SparseMpiEngine, SubtreeMapGivesEachRankWholeSubtrees) {
  const ks::CscMatrix<double> mats[] = {ks::laplacian_2d<double>(13, 10), ks::laplacian_3d<double>(9, 8, 7),
                                        ks::elasticity_3d<double>(7, 6, 5), kspd::test::sparse::random_spd<double>(301, 3.0, 77)};
  for (const auto& A : mats)
    for (int P = 1; P <= 8; ++P) {
      const auto S = analyse(A, 16);
      const auto home = ks::Impl::subtree_map(S, P);
      const size_type ns = size_type(S.snodes.size());
      ASSERT_EQ(size_type(home.size()), ns);
      std::vector<double> work(size_t(P), 0.0);
      std::vector<int> count(size_t(P), 0);
      for (size_type s = 0; s < ns; ++s) {
        const int h = home[size_t(s)];
        ASSERT_GE(h, -1) << A.name << " P=" << P;
        ASSERT_LT(h, P) << A.name << " P=" << P;
        if (P == 1) EXPECT_EQ(h, 0) << A.name << ": one rank is one local subtree";
        const size_type p = S.snodes[size_t(s)].parent;
        if (h >= 0) {
          // the parent is in the same subtree, or a separator (a subtree root)
          if (p >= 0) EXPECT_TRUE(home[size_t(p)] == h || home[size_t(p)] == -1)
                          << A.name << " P=" << P << ": supernode " << s << " on rank " << h << ", parent on " << home[size_t(p)];
          const auto& sn = S.snodes[size_t(s)];
          const double m = double(sn.nrows()), k = double(sn.ncols);
          work[size_t(h)] += k * m * m;
          ++count[size_t(h)];
        } else if (p >= 0) {
          EXPECT_EQ(home[size_t(p)], -1) << A.name << " P=" << P << ": separator " << s << " below a local subtree";
        }
      }
      // a forest of uneven trees, or more ranks than a small tree has room for: no balance claim
      if (A.name.rfind("random", 0) == 0 || P > 4 || A.n < 1000) continue;
      double tot = 0, mx = 0;
      for (int r = 0; r < P; ++r) {
        EXPECT_GT(count[size_t(r)], 0) << A.name << " P=" << P << ": rank " << r << " has no local subtree";
        tot += work[size_t(r)];
        mx = std::max(mx, work[size_t(r)]);
      }
      EXPECT_LE(mx, 3.0 * tot / P) << A.name << " P=" << P << ": local work unbalanced";
    }
}

// The model the separator map is scheduled on, written out independently: every rank one
// processor that runs its local subtrees first; a separator starts when its children are done
// (a separator child: after its potrf, trsm and update into the parent) and its rank is free.
// Returns the makespan; `load`: each rank's work.
double model_makespan(const ks::Impl::Symbolic& S, const std::vector<int>& home, const std::vector<int>& owner, int P,
                      std::vector<double>& load) {
  const size_t ns = S.snodes.size();
  std::vector<double> w(ns), crit(ns), local(size_t(P), 0.0), start(ns, -1.0);
  load.assign(size_t(P), 0.0);
  for (size_t s = 0; s < ns; ++s) {
    const auto& sn = S.snodes[s];
    const double m = double(sn.nrows()), k = double(sn.ncols);
    for (double c = m - k + 1; c <= m; ++c) w[s] += c * c;
    double rp = 0;
    for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b)
      if (S.blocks[size_t(b)].target == sn.parent) rp = double(S.blocks[size_t(b)].nrows);
    crit[s] = std::min(w[s], k * k * k / 3 + k * k * (m - k) + k * rp * (m - k));
    load[size_t(owner[s])] += w[s];
    if (home[s] >= 0) local[size_t(home[s])] += w[s];
  }
  // ready times by repeated passes in ready order: each step starts the separator with the
  // earliest ready time whose children have all started
  std::vector<std::vector<size_t>> kids(ns);
  for (size_t c = 0; c < ns; ++c)
    if (S.snodes[c].parent >= 0) kids[size_t(S.snodes[c].parent)].push_back(c);
  std::vector<double> avail(local);
  double makespan = *std::max_element(local.begin(), local.end());
  for (;;) {
    size_t pick = ns;
    double pick_ready = 0;
    for (size_t s = 0; s < ns; ++s) {
      if (home[s] >= 0 || start[s] >= 0) continue;
      double ready = 0;
      bool ok = true;
      for (size_t c : kids[s]) {
        if (!ok) break;
        if (home[c] >= 0) ready = std::max(ready, local[size_t(home[c])]);
        else if (start[c] < 0) ok = false;
        else ready = std::max(ready, start[c] + crit[c]);
      }
      if (ok && (pick == ns || ready < pick_ready)) {
        pick = s;
        pick_ready = ready;
      }
    }
    if (pick == ns) break;
    const int r = owner[pick];
    start[pick] = std::max(avail[size_t(r)], pick_ready);
    avail[size_t(r)] = start[pick] + w[pick];
    makespan = std::max(makespan, avail[size_t(r)]);
  }
  return makespan;
}

// The map (MpiLayout::build): local subtrees whole on their rank (subtree_map); the separators
// scheduled on the flop model, no worse than dealing them cyclically in postorder, and the
// top chain (the chunks of the root separator) spread over every rank; a given map places the
// separators; no local subtrees: every supernode cyclic over all ranks.
TEST(SparseMpiEngine, MapSchedulesTheSeparatorsOverTheRanks) {
  const ks::CscMatrix<double> mats[] = {ks::laplacian_3d<double>(9, 8, 7), ks::elasticity_3d<double>(7, 6, 5),
                                        ks::elasticity_3d<double>(12, 11, 10)};
  for (const auto& A : mats)
    for (int P = 1; P <= 6; ++P) {
      const auto S = analyse(A, 8);  // narrow: the top separator is a chain of many chunks
      ks::DistributedOptions opt;
      ks::Impl::MpiLayout L;
      L.build(S, opt, 0, P);
      const auto home = ks::Impl::subtree_map(S, P);
      ASSERT_EQ(L.home, home);
      const size_type ns = size_type(S.snodes.size());
      std::vector<int> cyclic(home);
      int next = 0;
      for (size_type s = 0; s < ns; ++s) {
        const int o = L.owner[size_t(s)];
        ASSERT_GE(o, 0);
        ASSERT_LT(o, P);
        if (home[size_t(s)] >= 0) EXPECT_EQ(o, home[size_t(s)]) << A.name << " P=" << P << ": local subtree supernode " << s;
        else cyclic[size_t(s)] = next++ % P;
      }
      std::vector<double> load, load_cyclic;
      const double t = model_makespan(S, home, L.owner, P, load), tc = model_makespan(S, home, cyclic, P, load_cyclic);
      EXPECT_LE(t, tc * (1 + 1e-12)) << A.name << " P=" << P << ": the scheduled map is slower on its model than cyclic";
      double tot = 0;
      for (double x : load) tot += x;
      EXPECT_GE(t, tot / P * (1 - 1e-12)) << A.name << " P=" << P;  // (the model itself)
      // the top chain (the root and its single-child ancestors' chain) spreads over the ranks
      std::vector<int> kids(size_t(ns), 0);
      for (size_type s = 0; s < ns; ++s)
        if (S.snodes[size_t(s)].parent >= 0) ++kids[size_t(S.snodes[size_t(s)].parent)];
      std::vector<char> used(size_t(P), 0);
      size_type chain = 0;
      for (size_type s = ns - 1; s >= 0 && home[size_t(s)] < 0; --s) {
        used[size_t(L.owner[size_t(s)])] = 1;
        ++chain;
        if (kids[size_t(s)] != 1) break;
      }
      // (the scheduler may reuse a rank that is free again: at least every other chunk is new)
      const int spread = int(std::count(used.begin(), used.end(), char(1)));
      EXPECT_GE(spread, std::min(P, int((chain + 1) / 2))) << A.name << " P=" << P << ": the top chain of " << chain << " chunks on "
                                                          << spread << " ranks";
      // a given map places the separators only; no local subtrees: every supernode cyclic
      opt.map = [](size_type s, int np) { return int((s * 7) % size_type(np)); };
      L.build(S, opt, 0, P);
      for (size_type s = 0; s < ns; ++s)
        EXPECT_EQ(L.owner[size_t(s)], home[size_t(s)] >= 0 ? home[size_t(s)] : int((s * 7) % size_type(P)));
      opt.map = nullptr;
      opt.local_subtrees = false;
      L.build(S, opt, 0, P);
      for (size_type s = 0; s < ns; ++s) EXPECT_EQ(L.owner[size_t(s)], int(s % size_type(P)));
    }
}

const Placement kPlacements[] = {Placement::Host1, Placement::Host3, Placement::Resident, Placement::TopOfTree};

TEST(SparseMpiEngine, FactorAndSolveEqualTheSingleProcessSolverOnGeneratedProblems) {
  const ks::CscMatrix<double> mats[] = {ks::laplacian_2d<double>(13, 10), ks::laplacian_3d<double>(8, 8, 8),
                                        ks::elasticity_3d<double>(5, 4, 3), kspd::test::sparse::random_spd<double>(301, 3.0, 77)};
  for (const auto& A : mats)  // odd and even sizes: n = 130, 512, 180, 301
    for (Placement pl : kPlacements) {
      expect_equal_to_engine<double>(A, pl);
      expect_equal_to_engine<float>(A, pl);
    }
}

TEST(SparseMpiEngine, FactorAndSolveEqualTheSingleProcessSolverOnRealMatrices) {
  const std::string dir = kspd::test::data_dir();
  if (dir.empty()) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory: no real matrices";
  int found = 0;
  for (const char* name : {"nos4.mtx", "494_bus.mtx", "mesh2em5.mtx", "gr_30_30.mtx", "bcsstk08.mtx", "1138_bus.mtx"}) {
    const std::string path = dir + "/" + name;
    struct stat sb;
    if (stat(path.c_str(), &sb) != 0) continue;
    ++found;
    const auto A = ks::read_matrix_market<double>(path);
    for (Placement pl : kPlacements) {
      expect_equal_to_engine<double>(A, pl);
      if (std::string(name) == "nos4.mtx" || std::string(name) == "gr_30_30.mtx") expect_equal_to_engine<float>(A, pl);
    }
  }
  EXPECT_GT(found, 0) << "none of the listed matrices is in " << dir;
}

// The failing pivot in a local subtree of rank 2 (the last rank with fewer ranks), and in a
// separator supernode owned by that rank (any separator with one rank): the same 1-based
// column on every rank as the single-process solver.
TEST(SparseMpiEngine, NotPositiveDefiniteInALocalSubtreeAndInASeparator) {
  const int P = size_of_world(), target = std::min(2, P - 1);
  const auto Ad = ks::laplacian_3d<double>(9, 8, 7);
  ks::DistributedOptions popt = options_for(Placement::Host1);
  popt.engine.max_supernode = 16;  // as expect_same_failing_column
  ks::DistributedCholesky<double> probe(MPI_COMM_WORLD, popt);
  probe.analyze(rank_of_world() == 0 ? Ad : ks::CscMatrix<double>{});
  const auto& S = probe.symbolic();
  const auto& home = probe.layout().home;
  const auto& owner = probe.layout().owner;
  size_type in_subtree = -1, in_separator = -1;
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
    if (home[size_t(s)] == target && in_subtree < 0) in_subtree = S.perm[size_t(S.snodes[size_t(s)].first_col)];
    if (home[size_t(s)] == -1 && owner[size_t(s)] == target && in_separator < 0)
      in_separator = S.perm[size_t(S.snodes[size_t(s)].first_col)];
  }
  ASSERT_GE(in_subtree, 0) << "rank " << target << " has no local subtree";
  if (P > 1) ASSERT_GE(in_separator, 0) << "no separator on rank " << target << " with " << P << " ranks";
  for (Placement pl : {Placement::Host1, Placement::Host3, Placement::Resident}) {
    expect_same_failing_column(Ad, in_subtree, pl, "local subtree");
    expect_same_failing_column(ks::cast_values<float>(Ad), in_subtree, pl, "local subtree (float)");
    if (in_separator >= 0) {
      expect_same_failing_column(Ad, in_separator, pl, "separator");
      expect_same_failing_column(ks::cast_values<float>(Ad), in_separator, pl, "separator (float)");
    }
  }
}

// Offload (resident) with several ranks: the top-rank map. The local subtrees stay whole on
// their rank, every separator is on rank 0; the factor and solution equal the
// single-process solver's with the input on rank 0 and distributed by columns, in double
// and float, with narrow supernodes (a top separator of many chunks); each other rank sends
// at most one message (every rank on a device of its own). A failing pivot in a separator
// (on rank 0) and in rank 2's local subtree (the last rank with fewer ranks) gives the same
// column on every rank.
TEST(SparseMpiEngine, ResidentOffloadFactorsEverySeparatorOnRankZero) {
  const ScopedDeviceIds own(own_devices());  // (a device build whose ranks share a GPU: still the map over ranks)
  const int P = size_of_world(), target = std::min(2, P - 1);
  const auto Ad = ks::laplacian_3d<double>(9, 8, 7);
  ks::DistributedOptions opt = options_for(Placement::Resident);
  opt.engine.max_supernode = 16;  // as expect_same_failing_column
  ks::DistributedCholesky<double> probe(MPI_COMM_WORLD, opt);
  probe.analyze(rank_of_world() == 0 ? Ad : ks::CscMatrix<double>{});
  const auto& S = probe.symbolic();
  const auto& L = probe.layout();
  EXPECT_EQ(L.top, P > 1);
  size_type in_subtree = -1, top_separator = -1, low_separator = -1, separators = 0;
  for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
    if (L.home[size_t(s)] >= 0) {
      EXPECT_EQ(L.owner[size_t(s)], L.home[size_t(s)]) << "supernode " << s;
    } else {
      EXPECT_EQ(L.owner[size_t(s)], 0) << "separator " << s << " not on rank 0";
      ++separators;
      if (low_separator < 0) low_separator = S.perm[size_t(S.snodes[size_t(s)].first_col)];
      top_separator = S.perm[size_t(S.snodes[size_t(s)].first_col)];
    }
    if (L.home[size_t(s)] == target && in_subtree < 0) in_subtree = S.perm[size_t(S.snodes[size_t(s)].first_col)];
  }
  ASSERT_GE(in_subtree, 0) << "rank " << target << " has no local subtree";
  if (P > 1) ASSERT_GT(separators, 1) << "no separator chain with " << P << " ranks";
  for (size_type c : {in_subtree, low_separator, top_separator}) {
    if (c < 0) continue;
    expect_same_failing_column(Ad, c, Placement::Resident, "resident, top-rank map");
    expect_same_failing_column(ks::cast_values<float>(Ad), c, Placement::Resident, "resident, top-rank map (float)");
  }
  // the solution, also with the input distributed by columns (run_case: vs the host solver),
  // the contributions staged through host memory (Off) and handed to MPI in place (On: a
  // device-aware MPI on a device build; host memory here). Auto: in place exactly when the
  // memory is the host's or the MPI library says it takes device pointers.
  using kspd::Toggle;
  using Exec = Kokkos::DefaultExecutionSpace;
  constexpr bool host_memory = Kokkos::SpaceAccessibility<Kokkos::HostSpace, Exec::memory_space>::accessible;
  const bool auto_in_place = ks::Impl::mpi_sends_in_place<Exec>(Toggle::Auto);
  EXPECT_EQ(auto_in_place, host_memory || ks::Impl::mpi_library_takes_device_pointers<Exec>());
  EXPECT_FALSE(ks::Impl::mpi_sends_in_place<Exec>(Toggle::Off));
  EXPECT_TRUE(ks::Impl::mpi_sends_in_place<Exec>(Toggle::On));
  for (Toggle t : {Toggle::Off, Toggle::Auto, host_memory ? Toggle::On : Toggle::Auto})
  for (bool by_columns : {false, true}) {
    opt.device_aware_mpi = t;
    const auto ck = kspd::test::mpi::run_case(Ad, 2, opt, by_columns);
    EXPECT_EQ(ck.in_place, P > 1 && t != Toggle::Off && (t == Toggle::On || auto_in_place) ? double(P) : 0.0)
        << "ranks that sent or received in place";
    EXPECT_LE(ck.max_resid, 1e-10);
    EXPECT_LE(ck.max_diff, 1e-11);
    EXPECT_EQ(ck.host_tasks, 0) << "no host worker";
    EXPECT_LE(ck.messages, double(P - 1)) << "one message per other rank at most";
    if (P > 1) EXPECT_GT(ck.messages, 0) << "the other ranks' contributions";
    const auto cf = kspd::test::mpi::run_case(ks::cast_values<float>(ks::elasticity_3d<double>(5, 4, 3)), 1, opt, by_columns);
    EXPECT_LE(cf.max_resid, 1e-5);
    EXPECT_LE(cf.max_diff, 1e-3);
  }
}

}  // namespace
