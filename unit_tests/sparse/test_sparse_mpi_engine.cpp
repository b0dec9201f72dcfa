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

// The map (MpiLayout::build): local subtrees whole on their rank; every separator on a rank
// of the range proportional mapping gave it; the column chunks of a big separator (a chain
// of supernodes of at most max_supernode columns) on consecutive ranks of that range, so the
// top chain spreads over every rank; a given map places the separators; no local subtrees:
// every supernode cyclic over all ranks.
TEST(SparseMpiEngine, MapSpreadsTheTopChainsChunksOverTheRanks) {
  const ks::CscMatrix<double> mats[] = {ks::laplacian_3d<double>(9, 8, 7), ks::elasticity_3d<double>(7, 6, 5)};
  for (const auto& A : mats)
    for (int P = 1; P <= 6; ++P) {
      const auto S = analyse(A, 8);  // narrow: the top separator is a chain of many chunks
      ks::DistributedOptions opt;
      ks::Impl::MpiLayout L;
      L.build(S, opt, 0, P);
      std::vector<std::pair<int, int>> range;
      const auto home = ks::Impl::subtree_map(S, P, &range);
      ASSERT_EQ(L.home, home);
      const size_type ns = size_type(S.snodes.size());
      for (size_type s = 0; s < ns; ++s) {
        const int o = L.owner[size_t(s)];
        if (home[size_t(s)] >= 0) {
          EXPECT_EQ(o, home[size_t(s)]) << A.name << " P=" << P << ": local subtree supernode " << s;
          continue;
        }
        const auto rg = range[size_t(s)];
        EXPECT_GE(o, rg.first) << A.name << " P=" << P << ": separator " << s;
        EXPECT_LT(o, rg.first + rg.second) << A.name << " P=" << P << ": separator " << s;
        // a chunk whose parent is the next chunk of the same separator range: another rank
        const size_type p = S.snodes[size_t(s)].parent;
        if (p == s + 1 && home[size_t(p)] < 0 && range[size_t(p)] == rg && rg.second > 1)
          EXPECT_NE(L.owner[size_t(p)], o) << A.name << " P=" << P << ": consecutive chunks " << s << ", " << p << " on one rank";
      }
      // the top chain (the root and its single-child ancestors' chain) spreads over every rank
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
      if (P > 1 && chain >= size_type(P))
        for (int r = 0; r < P; ++r) EXPECT_TRUE(used[size_t(r)]) << A.name << " P=" << P << ": rank " << r << " owns no chunk of the top chain of " << chain;
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

/// The engine placements a rank's local subtrees run on: host workers (1 and 3 threads),
/// resident on the offload space (every supernode, thresholds 0), and the top of the tree on
/// it beside host workers.
enum class Placement { Host1, Host3, Resident, TopOfTree };
const char* name_of(Placement p) {
  return p == Placement::Host1 ? "host x1" : p == Placement::Host3 ? "host x3" : p == Placement::Resident ? "resident" : "top-of-tree";
}
ks::DistributedOptions options_for(Placement p) {
  ks::DistributedOptions o;
  o.engine.threads = p == Placement::Host3 ? 3 : 1;
  if (p == Placement::Resident) o.engine.offload.force_all();
  if (p == Placement::TopOfTree) {
    o.engine.offload.potrf_threshold = 16;
    o.engine.offload.update_threshold = 4096;
    o.engine.offload.placement = ks::Offload::Placement::TopOfTree;
    o.engine.threads = 3;
  }
  return o;
}

template <class Scalar>
ks::CscMatrix<Scalar> cast(const ks::CscMatrix<double>& A) {
  ks::CscMatrix<Scalar> B;
  B.n = A.n;
  B.colptr = A.colptr;
  B.rowind = A.rowind;
  B.values.assign(A.values.begin(), A.values.end());
  B.name = A.name;
  return B;
}

/// Distributed factor + solve of A (nrhs right-hand sides from a fixed-seed X) against the
/// single-process solver with the same engine options, and the backward error of both.
/// The distributed solution arrives poisoned off rank 0 (ignored there) and is broadcast.
template <class Scalar>
void expect_equal_to_engine(const ks::CscMatrix<double>& Ad, Placement pl) {
  const ks::CscMatrix<Scalar> A = cast<Scalar>(Ad);
  const size_type n = A.n, nrhs = 2;
  const ks::DistributedOptions opt = options_for(pl);
  std::mt19937_64 gen(4321 + unsigned(n));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Scalar> B(size_t(n * nrhs));
  for (auto& b : B) b = Scalar(u(gen));
  std::vector<Scalar> Xd = rank_of_world() == 0 ? B : std::vector<Scalar>(B.size(), Scalar(std::nan("")));
  ks::DistributedCholesky<Scalar> dist(MPI_COMM_WORLD, opt);
  ASSERT_EQ(dist.factorize_info(rank_of_world() == 0 ? A : ks::CscMatrix<Scalar>{}), 0) << A.name;
  dist.solve(Xd, nrhs);
  Xd.resize(B.size());
  MPI_Bcast(Xd.data(), int(Xd.size()), ks::Impl::mpi_type<Scalar>(), 0, MPI_COMM_WORLD);
  ks::SupernodalCholesky<Scalar> one(opt.engine);
  ASSERT_EQ(one.factorize(Kokkos::DefaultExecutionSpace(), A), 0) << A.name;
  const double eps = std::numeric_limits<Scalar>::epsilon();
  for (size_type c = 0; c < nrhs; ++c) {
    std::vector<double> xd(static_cast<size_t>(n)), xo(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    std::vector<Scalar> bc(B.begin() + c * n, B.begin() + (c + 1) * n);
    one.solve(bc);  // one right-hand side at a time
    double dmax = 0, xmax = 0;
    for (size_type i = 0; i < n; ++i) {
      xd[size_t(i)] = double(Xd[size_t(i + c * n)]);
      xo[size_t(i)] = double(bc[size_t(i)]);
      b[size_t(i)] = double(B[size_t(i + c * n)]);
      ASSERT_TRUE(std::isfinite(xd[size_t(i)])) << A.name << " " << name_of(pl) << ": x(" << i << ") not written";
      dmax = std::max(dmax, std::fabs(xd[size_t(i)] - xo[size_t(i)]));
      xmax = std::max(xmax, std::fabs(xo[size_t(i)]));
    }
    const double rd = kspd::test::sparse::relative_residual(A, xd, b), ro = kspd::test::sparse::relative_residual(A, xo, b);
    // backward error at the level of n * eps, and no worse than the single-process solve's
    EXPECT_LE(rd, 10.0 * double(n) * eps) << A.name << " " << name_of(pl) << " rhs " << c;
    EXPECT_LE(rd, 10.0 * ro + double(n) * eps) << A.name << " " << name_of(pl) << " rhs " << c;
    // the same factor up to the order of the update sums (observed relative differences up
    // to 4e-13 in double on 494_bus and 1e-5 in float on nos4, np 1-4): margins 25x and 100x
    const double tol = sizeof(Scalar) == 4 ? 1e-3 : 1e-11;
    EXPECT_LE(dmax, tol * xmax) << A.name << " " << name_of(pl) << " rhs " << c;
    if (rank_of_world() == 0 && c == 0)
      std::printf("  [np=%d] %s %s %s: backward error %.1e (one process %.1e), |x_dist - x_one| %.1e (|x| %.1e)\n",
                  size_of_world(), A.name.c_str(), sizeof(Scalar) == 4 ? "float" : "double", name_of(pl), rd, ro, dmax, xmax);
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

/// A copy of A whose diagonal entry (c, c) is -3: the first failing pivot is column c in
/// any elimination order (the principal submatrix without c is unchanged, so SPD).
template <class Scalar>
ks::CscMatrix<Scalar> break_column(ks::CscMatrix<Scalar> A, size_type c) {
  for (size_type p = A.colptr[size_t(c)]; p < A.colptr[size_t(c + 1)]; ++p)
    if (A.rowind[size_t(p)] == c) A.values[size_t(p)] = Scalar(-3);
  return A;
}

/// info of the distributed solver (every rank's, gathered) and of the single-process one
/// for the failing column c.
template <class Scalar>
void expect_same_failing_column(const ks::CscMatrix<Scalar>& A, size_type c, Placement pl, const char* where) {
  ks::DistributedOptions opt = options_for(pl);
  opt.engine.max_supernode = 16;  // the top separator in chunks on several ranks
  const auto bad = break_column(A, c);
  ks::DistributedCholesky<Scalar> dist(MPI_COMM_WORLD, opt);
  const std::int64_t info = dist.factorize_info(rank_of_world() == 0 ? bad : ks::CscMatrix<Scalar>{});
  ks::SupernodalCholesky<Scalar> one(opt.engine);
  const int info1 = one.factorize(Kokkos::DefaultExecutionSpace(), bad);
  EXPECT_EQ(info1, c + 1) << where << " " << name_of(pl);
  EXPECT_EQ(info, std::int64_t(info1)) << where << " " << name_of(pl) << ": " << dist.failure_message();
  EXPECT_LT(dist.failure_pivot(), 0.0) << where;
  std::vector<std::int64_t> all(static_cast<size_t>(size_of_world()));
  MPI_Allgather(&info, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < size_of_world(); ++r) EXPECT_EQ(all[size_t(r)], info) << where << ": rank " << r << " disagrees";
  // The same object factors the good matrix afterwards (no stray messages, no stale state).
  EXPECT_EQ(dist.factorize_info(rank_of_world() == 0 ? A : ks::CscMatrix<Scalar>{}), 0) << where;
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
    expect_same_failing_column(cast<float>(Ad), in_subtree, pl, "local subtree (float)");
    if (in_separator >= 0) {
      expect_same_failing_column(Ad, in_separator, pl, "separator");
      expect_same_failing_column(cast<float>(Ad), in_separator, pl, "separator (float)");
    }
  }
}

// Offload (resident) with several ranks: the top-rank map. The local subtrees stay whole on
// their rank, every separator is on rank 0; the factor and solution equal the
// single-process solver's with the input on rank 0 and distributed by columns, in double
// and float, with narrow supernodes (a top separator of many chunks); each other rank sends
// at most one message. A failing pivot in a separator (on rank 0) and in rank 2's local
// subtree (the last rank with fewer ranks) gives the same column on every rank.
TEST(SparseMpiEngine, ResidentOffloadFactorsEverySeparatorOnRankZero) {
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
    expect_same_failing_column(cast<float>(Ad), c, Placement::Resident, "resident, top-rank map (float)");
  }
  // the solution, also with the input distributed by columns (run_case: vs the host solver)
  for (bool by_columns : {false, true}) {
    const auto ck = kspd::test::mpi::run_case(Ad, 2, opt, by_columns);
    EXPECT_LE(ck.max_resid, 1e-10);
    EXPECT_LE(ck.max_diff, 1e-11);
    EXPECT_EQ(ck.host_tasks, 0) << "no host worker";
    EXPECT_LE(ck.messages, double(P - 1)) << "one message per other rank at most";
    if (P > 1) EXPECT_GT(ck.messages, 0) << "the other ranks' contributions";
    const auto cf = kspd::test::mpi::run_case(cast<float>(ks::elasticity_3d<double>(5, 4, 3)), 1, opt, by_columns);
    EXPECT_LE(cf.max_resid, 1e-5);
    EXPECT_LE(cf.max_diff, 1e-3);
  }
}

}  // namespace
