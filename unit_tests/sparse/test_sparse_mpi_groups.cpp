// Device groups of the distributed solver (kspd_sparse_mpi_groups.hpp): the ranks that share
// one device, from synthetic ids; the block map over the groups (only leaders own
// supernodes; one group: rank 0 owns all; 2 groups: the top-rank map between the leaders);
// and the factorization and solve with "every rank on one device" and "two ranks per
// device" (test ids: on the host build the resident placement runs on the host) against
// the single-process solver, failing pivots, an error on a rank that owns nothing, and
// refactorization, and that a rank that owns nothing makes no Kokkos call while its leader
// factors. Runs under mpiexec at 1-4 ranks (kspd_test_sparse_mpi).

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <sys/stat.h>
#include <vector>

#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_test_data.hpp"
#include "mpi_test_helpers.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using namespace kspd::test::mpi;
using Ids = std::vector<std::int64_t>;

TEST(SparseMpiGroups, GroupsFromNodeAndDeviceIds) {
  struct Case {
    Ids node, dev;
    std::vector<int> group, leaders;
  };
  const Case cases[] = {
      {{0, 0}, {5, 5}, {0, 0}, {0}},                       // 2 ranks, 1 device
      {{0, 0, 0, 0}, {3, 3, 4, 4}, {0, 0, 1, 1}, {0, 2}},  // 4 ranks on 2 devices
      {{0, 0, 0, 0}, {7, 9, 7, 9}, {0, 1, 0, 1}, {0, 1}},  // interleaved
      {{0, 0, 2, 2}, {0, 0, 0, 0}, {0, 0, 1, 1}, {0, 2}},  // device 0 of two nodes: two devices
      {{0, 0}, {-1, -1}, {0, 1}, {0, 1}},                  // no device: every rank alone
      {{0, 0, 0, 0}, {-1, 6, 6, -1}, {0, 1, 1, 2}, {0, 1, 3}},
      {{0, 0, 0}, {1, 2, 3}, {0, 1, 2}, {0, 1, 2}},  // one device each
      {{4}, {0}, {0}, {0}},
  };
  for (const Case& c : cases) {
    const auto g = ks::Impl::group_ranks(c.node, c.dev);
    EXPECT_EQ(g.group, c.group);
    EXPECT_EQ(g.leaders, c.leaders);
    for (size_t r = 0; r < c.group.size(); ++r) {
      EXPECT_EQ(g.leader_of(int(r)), c.leaders[size_t(c.group[r])]);
      EXPECT_EQ(g.leader(int(r)), g.leader_of(int(r)) == int(r));
    }
  }
  EXPECT_THROW(ks::Impl::group_ranks({0, 0}, {1}), kspd::InvalidArgument);
  EXPECT_THROW(ks::Impl::group_ranks({}, {}), kspd::InvalidArgument);
}

// Collective: detected (a host space has no device: every rank alone; a device: the ranks
// with the same device identity on this node together), and the test ids.
TEST(SparseMpiGroups, FindDeviceGroupsOverTheCommunicator) {
  const int P = world_size();
  const Kokkos::DefaultExecutionSpace exec;
  const auto g = ks::Impl::find_device_groups(MPI_COMM_WORLD, exec);
  ASSERT_EQ(int(g.group.size()), P);
  const std::int64_t id = kspd::compat::device_identity(exec);
  if (kspd::compat::is_host_exec_v<Kokkos::DefaultExecutionSpace>) {
    EXPECT_EQ(id, -1);
    EXPECT_EQ(g.size(), P);
  }
  Ids ids(static_cast<size_t>(P));
  MPI_Allgather(&id, 1, MPI_INT64_T, ids.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < P; ++r)  // (one node under ctest)
    EXPECT_EQ(g.leader_of(r), ids[size_t(r)] < 0 ? r : int(std::find(ids.begin(), ids.end(), ids[size_t(r)]) - ids.begin()));
  {
    const ScopedDeviceIds one(Ids(size_t(P), 0));
    EXPECT_EQ(ks::Impl::find_device_groups(MPI_COMM_WORLD, exec).leaders, std::vector<int>{0});
  }
  {
    Ids pairs(static_cast<size_t>(P));
    for (int r = 0; r < P; ++r) pairs[size_t(r)] = r / 2;
    const ScopedDeviceIds two(pairs);
    const auto gp = ks::Impl::find_device_groups(MPI_COMM_WORLD, exec);
    for (int r = 0; r < P; ++r) EXPECT_EQ(gp.leader_of(r), r - r % 2);
  }
  {
    const ScopedDeviceIds wrong(Ids(size_t(P + 1), 0));  // every rank throws
    int threw = 0;
    try {
      ks::Impl::find_device_groups(MPI_COMM_WORLD, exec);
    } catch (const kspd::InvalidArgument& e) {
      threw = std::string(e.what()).find("ids for " + std::to_string(P) + " ranks") != std::string::npos;
    }
    EXPECT_EQ(sum_all(threw), double(P));
  }
}

ks::Impl::Symbolic analyse(const ks::CscMatrix<double>& A, size_type max_supernode) {
  ks::Options o;
  o.max_supernode = max_supernode;
  o.threads = 1;
  return ks::Impl::analyse(ks::Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, o);
}

// The map over groups (no MPI: MpiLayout::build alone): 2 ranks on 1 device: rank 0 owns
// everything and rank 1 nothing; 4 ranks on 2 devices (leaders 0 and 2): ranks 1 and 3 own
// nothing, the local subtrees are on 0 and 2 (both have some), every separator on 0.
TEST(SparseMpiGroups, MapOverGroupsGivesOnlyLeadersSupernodes) {
  for (const auto& A : {ks::laplacian_3d<double>(9, 8, 7), ks::elasticity_3d<double>(5, 4, 3)}) {
    const auto S = analyse(A, 16);
    const ks::DistributedOptions opt;
    ks::Impl::MpiLayout L;
    const auto one = ks::Impl::group_ranks({0, 0}, {0, 0});
    L.build(S, opt, 1, 2, true, &one);
    EXPECT_TRUE(L.single());
    EXPECT_FALSE(L.top) << "one group: no top-rank map";
    EXPECT_TRUE(L.idle(1));
    EXPECT_FALSE(L.idle(0));
    for (size_t s = 0; s < S.snodes.size(); ++s) EXPECT_EQ(L.owner[s], 0) << A.name << " supernode " << s;
    const auto two = ks::Impl::group_ranks({0, 0, 0, 0}, {0, 0, 1, 1});
    L.build(S, opt, 3, 4, true, &two);
    EXPECT_FALSE(L.single());
    EXPECT_TRUE(L.top);
    EXPECT_TRUE(L.idle(1) && L.idle(3) && !L.idle(0) && !L.idle(2));
    int on[4] = {0, 0, 0, 0}, seps = 0;
    for (size_t s = 0; s < S.snodes.size(); ++s) {
      ++on[L.owner[s]];
      if (L.home[s] < 0) {
        ++seps;
        EXPECT_EQ(L.owner[s], 0) << A.name << " separator " << s;
      } else {
        EXPECT_EQ(L.owner[s], L.home[s]) << A.name << " supernode " << s;
      }
    }
    EXPECT_EQ(on[1] + on[3], 0) << A.name;
    EXPECT_GT(on[2], 0) << A.name << ": leader 2 has no subtree";
    EXPECT_GT(seps, 0) << A.name;
    // the same as the map over 2 ranks, renamed (group 1 -> rank 2)
    ks::Impl::MpiLayout R;
    R.build(S, opt, 0, 2, true);
    for (size_t s = 0; s < S.snodes.size(); ++s) EXPECT_EQ(L.owner[s], 2 * R.owner[s]) << A.name << " supernode " << s;
    // without the resident map (host workers): every rank its own group
    R.build(S, opt, 0, 4, false);
    EXPECT_EQ(R.leaders, (std::vector<int>{0, 1, 2, 3}));
  }
}

/// The group configurations this run can form: every rank on one device, two ranks per
/// device (with 3 or 4 ranks), and each rank its own (the map over ranks).
std::vector<std::pair<std::string, Ids>> configurations() {
  const int P = world_size();
  std::vector<std::pair<std::string, Ids>> c{{"one device", Ids(size_t(P), 0)}};
  if (P >= 3) {
    Ids pairs(static_cast<size_t>(P));
    for (int r = 0; r < P; ++r) pairs[size_t(r)] = r / 2;
    c.push_back({"two ranks per device", pairs});
  }
  return c;
}

// Factor + solve equal to the single-process solver (expect_equal_to_engine: poisoned X,
// backward error, distance) with the resident placement, the input on rank 0 and by
// columns (run_case), float and double, generated problems (odd and even n) and a
// collection matrix; a rank that owns nothing holds no rows, sends no fan-in and stores no L.
TEST(SparseMpiGroups, FactorAndSolveEqualTheSingleProcessSolver) {
  const int P = world_size();
  std::vector<ks::CscMatrix<double>> mats = {ks::laplacian_2d<double>(13, 10), ks::elasticity_3d<double>(5, 4, 3),
                                             kspd::test::sparse::random_spd<double>(301, 3.0, 77)};
  const std::string dir = kspd::test::data_dir();
  struct stat sb;
  if (!dir.empty() && stat((dir + "/bcsstk08.mtx").c_str(), &sb) == 0)
    mats.push_back(ks::read_matrix_market<double>(dir + "/bcsstk08.mtx"));
  else if (std::getenv("CI"))
    ADD_FAILURE() << "bcsstk08.mtx is not in KSPD_DATA_DIR = " << dir;
  for (const auto& [name, ids] : configurations()) {
    const ScopedDeviceIds given(ids);
    for (const auto& A : mats) {
      expect_equal_to_engine<double>(A, Placement::Resident);
      expect_equal_to_engine<float>(A, Placement::Resident);
    }
    ks::DistributedOptions opt = options_for(Placement::Resident);
    opt.engine.max_supernode = 16;
    const auto Ad = ks::laplacian_3d<double>(9, 8, 7);
    for (bool by_columns : {false, true}) {
      const auto ck = run_case(Ad, 2, opt, by_columns);
      EXPECT_LE(ck.max_resid, 1e-10) << name;
      EXPECT_LE(ck.max_diff, 1e-11) << name;
      EXPECT_EQ(ck.host_tasks, 0) << name;
      const auto cf = run_case(ks::cast_values<float>(ks::elasticity_3d<double>(4, 5, 3)), 1, opt, by_columns);
      EXPECT_LE(cf.max_resid, 1e-5) << name;
      EXPECT_LE(cf.max_diff, 1e-3) << name;
    }
    // the map and what each rank holds
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    dist.factorize(world_rank() == 0 ? Ad : ks::CscMatrix<double>{});
    const auto& L = dist.layout();
    const int me = world_rank(), leader = int(std::find(ids.begin(), ids.end(), ids[size_t(me)]) - ids.begin());
    EXPECT_EQ(L.idle(me), leader != me) << name;
    EXPECT_EQ(L.single(), name == "one device") << name;
    EXPECT_EQ(L.top, !L.single() && P > 1) << name;
    if (leader != me) {
      EXPECT_TRUE(dist.local_rows().empty()) << name;
      EXPECT_EQ(dist.stats().local_values, 0) << name;
      EXPECT_EQ(dist.stats().fanin_bytes, 0) << name;
    }
    if (L.single()) EXPECT_EQ(sum_all(dist.stats().fanin_bytes), 0) << name << ": no fan-in with one group";
    std::vector<double> B(size_t(Ad.n), 1.0), Bd = me == 0 ? B : std::vector<double>{};
    dist.solve(Bd, 1);
    if (me == 0) {
      std::vector<double> x(Bd.begin(), Bd.end());
      EXPECT_LE(kspd::test::sparse::relative_residual(Ad, x, B), 1e-12) << name;
    }
  }
}

// A failing pivot: the same 1-based column on every rank as the single-process solver, in a
// subtree of the last leader and in the top separator.
TEST(SparseMpiGroups, NotPositiveDefiniteGivesTheSameColumnOnEveryRank) {
  const auto Ad = ks::laplacian_3d<double>(9, 8, 7);
  for (const auto& [name, ids] : configurations()) {
    const ScopedDeviceIds given(ids);
    ks::DistributedOptions opt = options_for(Placement::Resident);
    opt.engine.max_supernode = 16;  // as expect_same_failing_column
    ks::DistributedCholesky<double> probe(MPI_COMM_WORLD, opt);
    probe.analyze(world_rank() == 0 ? Ad : ks::CscMatrix<double>{});
    const auto& S = probe.symbolic();
    const auto& L = probe.layout();
    const int last = L.leaders.back();
    size_type in_subtree = -1, top_separator = -1;
    for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
      const size_type c = S.perm[size_t(S.snodes[size_t(s)].first_col)];
      if (L.owner[size_t(s)] == last && L.home[size_t(s)] >= 0 && in_subtree < 0) in_subtree = c;
      if (L.home[size_t(s)] < 0) top_separator = c;
    }
    ASSERT_GE(in_subtree, 0) << name;
    for (size_type c : {in_subtree, top_separator}) {
      if (c < 0) continue;
      expect_same_failing_column(Ad, c, Placement::Resident, name.c_str());
      expect_same_failing_column(ks::cast_values<float>(Ad), c, Placement::Resident, name.c_str());
    }
  }
}

// An error on a rank that owns nothing (fault injection at the start of its factorization)
// reaches every rank as the same exception; the next factorization and the solve work, and
// a refactorization with new values gives the new solution.
TEST(SparseMpiGroups, ErrorOnAnIdleRankAndRefactorization) {
  const int P = world_size();
  const auto A = ks::elasticity_3d<double>(5, 4, 3);
  auto A2 = A;
  for (auto& v : A2.values) v *= 2;  // 2 A: x halves
  for (const auto& [name, ids] : configurations()) {
    const ScopedDeviceIds given(ids);
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, options_for(Placement::Resident));
    dist.analyze(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    if (P > 1) {
      const int idle = dist.layout().leaders.size() > 1 ? 1 : P - 1;
      ASSERT_TRUE(dist.layout().idle(idle)) << name;
      ks::Impl::mpi_fault_injection() = {idle, 0};
      expect_collective_error<kspd::Error>(
          "idle rank", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, idle,
          "owns no supernode");
      ks::Impl::mpi_fault_injection() = {};
    }
    std::vector<double> X;
    const auto B = make_rhs(A, 2, X);
    for (int round = 0; round < 3; ++round) {
      const auto& M = round == 1 ? A2 : A;
      ASSERT_EQ(dist.factorize_info(world_rank() == 0 ? M : ks::CscMatrix<double>{}), 0) << name << " round " << round;
      std::vector<double> Xd = world_rank() == 0 ? B : std::vector<double>(B.size(), std::nan(""));
      dist.solve(Xd, 2);
      if (world_rank() != 0) continue;
      double err = 0;
      for (size_t i = 0; i < X.size(); ++i) err = std::max(err, std::fabs(Xd[i] * (round == 1 ? 2 : 1) - X[i]));
      EXPECT_LE(err, 1e-9) << name << " round " << round;
    }
  }
}

/// Counts this process's Kokkos events (launches, fences, deep copies, allocations) inside
/// the profiling region of DistributedCholesky::factorize through Kokkos Tools callbacks,
/// restoring the previous callbacks on destruction.
class ScopedFactorizeEvents {
 public:
  ScopedFactorizeEvents() : saved_(Kokkos::Tools::Experimental::get_callbacks()) {
    namespace T = Kokkos::Tools::Experimental;
    depth() = 0;
    stack().clear();
    windows() = events() = 0;
    first().clear();
    T::set_push_region_callback([](const char* name) {
      stack().push_back(std::string(name) == "kspd::sparse::DistributedCholesky::factorize");
      if (stack().back()) ++depth(), ++windows();
    });
    T::set_pop_region_callback([] {
      if (stack().empty()) return;
      if (stack().back()) --depth();
      stack().pop_back();
    });
    T::set_begin_parallel_for_callback([](const char* n, uint32_t, uint64_t*) { note("kernel", n); });
    T::set_begin_parallel_reduce_callback([](const char* n, uint32_t, uint64_t*) { note("kernel", n); });
    T::set_begin_parallel_scan_callback([](const char* n, uint32_t, uint64_t*) { note("kernel", n); });
    T::set_begin_fence_callback([](const char* n, uint32_t, uint64_t*) { note("fence", n); });
    T::set_begin_deep_copy_callback([](Kokkos_Profiling_SpaceHandle, const char* n, const void*, Kokkos_Profiling_SpaceHandle,
                                       const char*, const void*, uint64_t) { note("deep copy", n); });
    T::set_allocate_data_callback(
        [](Kokkos_Profiling_SpaceHandle, const char* n, const void*, uint64_t) { note("allocation", n); });
  }
  ~ScopedFactorizeEvents() { Kokkos::Tools::Experimental::set_callbacks(saved_); }
  ScopedFactorizeEvents(const ScopedFactorizeEvents&) = delete;
  ScopedFactorizeEvents& operator=(const ScopedFactorizeEvents&) = delete;

  static long& windows() {
    static long w = 0;
    return w;
  }
  static long& events() {
    static long e = 0;
    return e;
  }
  static std::string& first() {  // the first event inside a window
    static std::string f;
    return f;
  }

 private:
  static int& depth() {
    static int d = 0;
    return d;
  }
  static std::vector<bool>& stack() {
    static std::vector<bool> s;
    return s;
  }
  static void note(const char* kind, const char* name) {
    // Kokkos fences around every callback of in-process tools (their global-fence
    // requirement): that fence is this counter's own, not the solver's
    if (depth() == 0 || (name && std::strstr(name, "Kokkos Profile Tool Fence"))) return;
    if (events()++ == 0) first() = std::string(kind) + " " + (name ? name : "");
  }
  Kokkos::Tools::Experimental::EventSet saved_;
};

// Issue #17 target C: a rank that shares its leader's device makes no Kokkos call (launch,
// fence, deep copy, allocation) inside factorize, the first factorization or a
// refactorization: any would make the GPU switch contexts while the leader factors. The
// leaders' counts show the counter sees the engine's work.
TEST(SparseMpiGroups, AnIdleRankMakesNoKokkosCallWhileTheLeaderFactors) {
  const auto A = ks::laplacian_3d<double>(9, 8, 7);
  for (const auto& [name, ids] : configurations()) {
    const ScopedDeviceIds given(ids);
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, options_for(Placement::Resident));
    dist.analyze(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    long windows = 0, events = 0;
    std::string first;
    {
      const ScopedFactorizeEvents count;
      for (int round = 0; round < 2; ++round)
        ASSERT_EQ(dist.factorize_info(world_rank() == 0 ? A : ks::CscMatrix<double>{}), 0) << name << " round " << round;
      windows = count.windows();
      events = count.events();
      first = count.first();
    }
    EXPECT_EQ(windows, 2) << name;
    if (dist.layout().idle(world_rank()))
      EXPECT_EQ(events, 0) << name << ": rank " << world_rank() << " (idle) made Kokkos calls inside factorize, the first: "
                           << first;
    else
      EXPECT_GT(events, 0) << name << ": rank " << world_rank() << " (a leader) shows none: the counter sees nothing";
  }
}

}  // namespace
