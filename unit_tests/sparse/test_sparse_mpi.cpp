// Distributed supernodal Cholesky over MPI (run by CTest under mpiexec at 1, 2, 3, 4 ranks):
// generated and real matrices against the one-process solver and the residual, matrix on
// rank 0 or distributed by columns, many right-hand sides, float, a map that puts every
// supernode away from its children (almost every update crosses ranks), every transfer
// split into small pieces (64-bit counts), and the offload options (one rank: the engine's
// placements; more: host workers). Errors: test_sparse_mpi_errors.cpp.
#include "mpi_test_helpers.hpp"

namespace {

using namespace kspd::test::mpi;

TEST(SparseMpi, GeneratedProblemsMatchOneRankSolve) {
  ks::DistributedOptions opt;
  struct Case {
    ks::CscMatrix<double> A;
    size_type nrhs;
  };
  const Case cases[] = {{ks::laplacian_2d<double>(13, 10), 1},
                        {ks::laplacian_3d<double>(6, 5, 7), 3},
                        {ks::elasticity_3d<double>(4, 4, 3), 7},
                        {kspd::test::sparse::random_spd<double>(301, 3.0, 77), 2}};
  for (const auto& c : cases)
    for (bool by_columns : {false, true})
      for (int threads : {1, 3}) {  // host workers per rank: none, two
        // Default: local subtrees and separators by the map; then no local subtrees (every
        // supernode a separator, cyclic over the ranks).
        opt.local_subtrees = !by_columns;
        opt.engine.threads = threads;
        const Check ck = run_case(c.A, c.nrhs, opt, by_columns);
        EXPECT_LE(ck.max_resid, 1e-10) << c.A.name << " columns=" << by_columns << " threads=" << threads;
        EXPECT_LE(ck.max_diff, 1e-12) << c.A.name << " columns=" << by_columns << " threads=" << threads;
        // (a forest split whole among the ranks has no separators: nothing to move)
        if (world_size() > 1 && ck.separators > 0) EXPECT_GT(ck.fanin, 0) << c.A.name << ": no fan-in to the separators";
        if (world_size() == 1) EXPECT_EQ(ck.messages, 0) << c.A.name << ": one rank sends nothing";
      }
}

// Refactorization with new values (the same pattern) reuses the rank's engine and its
// storage: the second factor is the new matrix's (residual against it), also after a
// failed factorization in between (not positive definite: the engine is rebuilt).
TEST(SparseMpi, RefactorizationWithNewValues) {
  const auto A = ks::elasticity_3d<double>(4, 4, 3);
  auto A2 = A;  // diagonal + 1: another SPD matrix of the same pattern
  auto Abad = A;  // a negative pivot
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
      if (A.rowind[size_t(p)] == j) {
        A2.values[size_t(p)] += 1.0;
        if (j == 17) Abad.values[size_t(p)] = -3.0;
      }
  const auto on0 = [](const ks::CscMatrix<double>& M) { return world_rank() == 0 ? M : ks::CscMatrix<double>{}; };
  for (bool subtrees : {true, false})
    for (int threads : {1, 3}) {
      SCOPED_TRACE(::testing::Message() << "subtrees " << subtrees << ", threads " << threads);
      ks::DistributedOptions opt;
      opt.local_subtrees = subtrees;
      opt.engine.threads = threads;
      opt.engine.max_supernode = 8;
      ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
      for (int round = 0; round < 4; ++round) {
        const ks::CscMatrix<double>& M = round % 2 == 0 ? A : A2;
        if (round == 2) EXPECT_EQ(dist.factorize_info(on0(Abad)), size_type(18));
        dist.factorize(on0(M));
        std::vector<double> X;
        const auto B = make_rhs(M, 1, X);
        auto Xd = B;
        dist.solve(Xd, 1);
        if (world_rank() == 0) EXPECT_LE(relative_residual(M, std::vector<double>(Xd), std::vector<double>(B)), 1e-10) << "round " << round;
      }
    }
}

/// A distributed by columns: analyze once, then factorizations of new values on the same
/// pattern run no new analysis (the Amesos2 adapter's symbolic/numeric phases); a new
/// pattern is analysed again.
TEST(SparseMpi, ColumnsRefactorizationReusesTheAnalysis) {
  const auto A = ks::elasticity_3d<double>(4, 3, 3);
  auto A2 = A;
  for (size_type j = 0; j < A.n; ++j) A2.values[size_t(A.colptr[size_t(j)])] += 2.0;  // (the diagonal: first per column)
  const auto B = ks::laplacian_3d<double>(5, 4, 3);  // another pattern
  ks::DistributedOptions opt;
  opt.engine.max_supernode = 8;
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  dist.analyze(my_columns(A));
  EXPECT_EQ(dist.stats().analyses, size_type(1));
  for (const ks::CscMatrix<double>* M : std::initializer_list<const ks::CscMatrix<double>*>{&A, &A2, &A, &B, &B}) {
    EXPECT_EQ(dist.factorize_info(my_columns(*M)), size_type(0));
    std::vector<double> X;
    const auto rhs = make_rhs(*M, 1, X);
    auto Xd = rhs;
    dist.solve(Xd, 1);
    if (world_rank() == 0) EXPECT_LE(relative_residual(*M, Xd, rhs), 1e-10);
  }
  EXPECT_EQ(dist.stats().analyses, size_type(2));  // A's, then B's
}

/// Threads = 0: the node's cores shared among its ranks (at least one thread each).
TEST(SparseMpi, AutomaticThreadsPerRank) {
  ks::DistributedOptions opt;
  opt.engine.threads = 0;
  opt.engine.max_supernode = 8;
  const auto A = ks::elasticity_3d<double>(4, 3, 4);
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
  EXPECT_GE(dist.stats().host_threads, 1);
  const Check ck = run_case(A, 2, opt, true);
  EXPECT_LE(ck.max_resid, 1e-10);
  EXPECT_LE(ck.max_diff, 1e-12);
}

TEST(SparseMpi, FloatAndNarrowSupernodes) {
  ks::DistributedOptions opt;
  opt.engine.max_supernode = 4;  // many small blocks and messages
  opt.engine.relax.enabled = false;
  const auto A = ks::elasticity_3d<float>(3, 4, 3);
  const Check ck = run_case(A, 2, opt, false);
  EXPECT_LE(ck.max_resid, 50 * 1.2e-7) << A.name;
  EXPECT_LE(ck.max_diff, 1e-5) << A.name;
  ks::DistributedOptions optd = opt;
  optd.engine.threads = 3;
  const Check ckd = run_case(ks::laplacian_3d<double>(5, 6, 4), 4, optd, true);
  EXPECT_LE(ckd.max_resid, 1e-10);
  EXPECT_LE(ckd.max_diff, 1e-12);
}

// A map that puts every supernode on another rank than the one before it in postorder
// (a chain's child): almost every update crosses ranks, every supernode waits for
// contributions. The fan-in carries exactly one message per (rank, another rank's target).
TEST(SparseMpi, EverySupernodeAwayFromItsChildren) {
  const int P = world_size();
  const auto A = ks::elasticity_3d<double>(4, 3, 4);
  for (int threads : {1, 3})
    for (size_type width : {size_type(8), size_type(3)}) {
      ks::DistributedOptions opt;
      opt.engine.max_supernode = width;
      opt.engine.threads = threads;
      opt.local_subtrees = false;
      opt.map = [](size_type s, int np) { return int((s + 1) % np); };
      SCOPED_TRACE(::testing::Message() << "threads " << threads << ", max_supernode " << width);
      const Check ck = run_case(A, 2, opt, threads == 3);
      EXPECT_LE(ck.max_resid, 1e-10);
      EXPECT_LE(ck.max_diff, 1e-12);
      // the expected number of contributions, from the analysis
      ks::DistributedCholesky<double> probe(MPI_COMM_WORLD, opt);
      probe.analyze(world_rank() == 0 ? A : ks::CscMatrix<double>{});
      const auto& S = probe.symbolic();
      std::vector<std::vector<char>> pair(size_t(P), std::vector<char>(S.snodes.size(), 0));
      double expect = 0;
      for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
        const int h = int((s + 1) % P);
        const auto& sn = S.snodes[size_t(s)];
        for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) {
          const size_type t = S.blocks[size_t(b)].target;
          if (int((t + 1) % P) != h && !pair[size_t(h)][size_t(t)]) {
            pair[size_t(h)][size_t(t)] = 1;
            ++expect;
          }
        }
      }
      EXPECT_EQ(ck.messages, expect);
      if (P > 1) EXPECT_GT(expect, 0);
    }
}

TEST(SparseMpi, RealMatricesMatchOneRankSolve) {
  // Every rank sees the same directory: all skip (a failure under CI) or none.
  const std::string dir = kspd::test::data_dir();
  if (dir.empty()) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory: no real matrices";
  const char* d = dir.c_str();
  struct stat sb;
  for (const char* name : {"nos4.mtx", "mesh2em5.mtx", "bcsstk14.mtx"}) {
    const std::string path = std::string(d) + "/" + name;
    if (stat(path.c_str(), &sb) != 0) continue;
    const auto A = ks::read_matrix_market<double>(path);
    ks::DistributedOptions opt;
    const Check ck = run_case(A, 2, opt, std::string(name) == "mesh2em5.mtx");
    EXPECT_LE(ck.max_resid, 1e-10) << name;
    // The factor differs from the one-process one only in the order of the update sums.
    EXPECT_LE(ck.max_diff, 1e-12) << name;
  }
}

// ---- 64-bit counts (issue 12 row 9 / item 2): with a tiny piece size every transfer whose
// size depends on the problem is split, on every path (rank 0's matrix and columns, the
// fan-in's contributions, host workers, solve messages), and the answer is unchanged.
TEST(SparseMpi, ChunkedTransfersAtSmallChunkSizes) {
  namespace KI = kspd::sparse::Impl;
  Watchdog wd("chunked transfers", 200);
  const std::int64_t saved = KI::mpi_chunk_elements();
  const int P = world_size();
  auto& stats = KI::mpi_chunk_stats();
  struct Case {
    std::int64_t chunk;
    bool by_columns, subtrees;
    int threads;
    size_type nrhs;
  };
  const Case cases[] = {{1000, false, true, 1, 3},   // fan-in pieces, scatter/gather
                        {1000, true, false, 3, 3},   // every supernode cyclic, workers, all-gather, all-to-all
                        {97, true, true, 1, 2},
                        {97, false, false, 1, 1}};
  const auto A = ks::laplacian_3d<double>(12, 11, 10);  // n = 1320: colptr and rowind are split too
  for (const Case& c : cases) {
    stats.reset();
    KI::mpi_chunk_elements() = c.chunk;
    ks::DistributedOptions opt;
    opt.engine.threads = c.threads;
    opt.local_subtrees = c.subtrees;
    const Check ck = run_case(A, c.nrhs, opt, c.by_columns);
    KI::mpi_chunk_elements() = saved;
    SCOPED_TRACE(::testing::Message() << "chunk " << c.chunk << ", columns " << c.by_columns << ", subtrees "
                                      << c.subtrees << ", threads " << c.threads);
    EXPECT_LE(ck.max_resid, 1e-10);
    EXPECT_LE(ck.max_diff, 1e-12);
    double split[KI::MpiChunkStats::Count];
    for (int k = 0; k < KI::MpiChunkStats::Count; ++k) split[k] = sum_all(double(stats.split[k].load()));
    if (world_rank() == 0)
      std::printf("  [np=%d] chunk %lld: split bcast %.0f send %.0f recv %.0f scatter %.0f gather %.0f "
                  "allgather %.0f alltoall %.0f\n",
                  P, (long long)c.chunk, split[0], split[1], split[2], split[3], split[4], split[5], split[6]);
    EXPECT_GT(split[KI::MpiChunkStats::Bcast], 0);
    if (P == 1) continue;
    EXPECT_GT(split[KI::MpiChunkStats::Send], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Recv], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Scatter], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Gather], 0);
    if (c.by_columns) EXPECT_GT(split[KI::MpiChunkStats::Allgather], 0);
    if (c.by_columns && c.chunk < 1000) EXPECT_GT(split[KI::MpiChunkStats::Alltoall], 0);
  }
  // Pieces smaller than a solve message's header (the header itself arrives in pieces).
  stats.reset();
  KI::mpi_chunk_elements() = 5;
  ks::DistributedOptions opt;
  opt.local_subtrees = false;
  const Check ck = run_case(ks::laplacian_2d<double>(7, 6), 2, opt, true);
  KI::mpi_chunk_elements() = saved;
  EXPECT_LE(ck.max_resid, 1e-10);
  EXPECT_LE(ck.max_diff, 1e-12);
}

/// Device offload settings: everything on the device (thresholds 0: resident), or mixed:
/// supernodes of >= 16 columns or with an update of >= 4096 multiply-adds on the device
/// beside host workers (top-of-tree placement). One rank: the engine runs in that placement;
/// more: resident, the map over device groups (ranks sharing one GPU: rank 0's one-rank
/// engine; else the top-rank map: local subtrees on each rank's device, every separator on
/// rank 0's); the top of the tree, host workers on every rank.
ks::DistributedOptions offload_options(bool force) {
  ks::DistributedOptions opt;
  if (force) {
    opt.engine.offload.force_all();
  } else {
    opt.engine.offload.potrf_threshold = 16;
    opt.engine.offload.update_threshold = 4096;
    opt.engine.offload.placement = ks::Offload::Placement::TopOfTree;
  }
  return opt;
}

TEST(SparseMpi, DeviceOffloadMatchesOneRankHostSolve) {
  const bool one = world_size() == 1;
  for (bool force : {true, false}) {
    const char* mode = force ? "forced" : "mixed";
    ks::DistributedOptions opt = offload_options(force);
    opt.engine.threads = force ? 1 : 3;
    Check ck = run_case(ks::elasticity_3d<double>(4, 4, 3), 2, opt, false);
    EXPECT_LE(ck.max_resid, 1e-10) << mode;
    EXPECT_LE(ck.max_diff, 1e-11) << mode;
    // resident: one rank, or the top-rank map (every separator on rank 0's device); the
    // top of the tree with more ranks: host workers with the fan-in transport
    EXPECT_EQ(ck.device_tasks > 0, force || one) << mode;
    if (force) EXPECT_EQ(ck.host_tasks, 0) << mode;
    else EXPECT_GT(ck.host_tasks, 0) << mode;
    // the top-rank map: one message per other rank at most (its contributions, sent once)
    if (force) EXPECT_LE(ck.messages, double(world_size() - 1)) << mode;
    opt.local_subtrees = false;
    ck = run_case(ks::laplacian_3d<double>(6, 5, 7), 3, opt, true);
    EXPECT_LE(ck.max_resid, 1e-10) << mode;
    EXPECT_LE(ck.max_diff, 1e-11) << mode;
    ks::DistributedOptions optf = offload_options(force);
    optf.engine.max_supernode = 16;
    const Check cf = run_case(ks::elasticity_3d<float>(3, 4, 3), 2, optf, false);
    EXPECT_LE(cf.max_resid, 50 * 1.2e-7) << mode;
    EXPECT_LE(cf.max_diff, 1e-4) << mode;
  }
}

TEST(SparseMpi, DeviceOffloadNotPositiveDefiniteIsTheSameOnEveryRank) {
  for (size_type bad : {size_type(0), size_type(41), size_type(95)}) {
    auto A = ks::laplacian_2d<double>(12, 8);
    for (size_type p = A.colptr[size_t(bad)]; p < A.colptr[size_t(bad + 1)]; ++p)
      if (A.rowind[size_t(p)] == bad) A.values[size_t(p)] = -3.0;
    double got[2][2] = {{-1, 0}, {-1, 0}};  // offload forced, off
    for (int off = 0; off < 2; ++off) {
      ks::DistributedOptions opt;
      opt.engine.max_supernode = 6;
      if (off == 0) opt.engine.offload.force_all();
      ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
      try {
        dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
        ADD_FAILURE() << "no error for column " << bad;
      } catch (const kspd::NotPositiveDefinite& e) {
        got[off][0] = double(e.column());
        got[off][1] = e.pivot();
        EXPECT_LT(e.pivot(), 0.0) << e.what();
      }
    }
    EXPECT_EQ(got[0][0], double(bad + 1));
    EXPECT_EQ(got[0][0], got[1][0]);
    EXPECT_NEAR(got[0][1], got[1][1], 1e-12 * std::fabs(got[1][1]));
    std::vector<double> all(size_t(2 * world_size()));
    MPI_Allgather(got[0], 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < world_size(); ++r) {
      EXPECT_EQ(all[size_t(2 * r)], got[0][0]) << "rank " << r;
      EXPECT_EQ(all[size_t(2 * r + 1)], got[0][1]) << "rank " << r;
    }
  }
}

// A resident factor over the device budget (one rank: the whole tree; more: each rank's
// local subtrees) throws OutOfDeviceMemory on every rank with fallback fail, and falls back
// to the host with fallback cpu.
TEST(SparseMpi, DeviceMemoryLimitFailsOnEveryRankOrFallsBack) {
  const auto A = ks::elasticity_3d<double>(4, 4, 3);
  ks::DistributedOptions opt = offload_options(true);
  opt.engine.offload.device_memory_limit = 1024;
  opt.engine.offload.fallback = ks::OffloadFallback::Fail;
  {
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    int threw = 0;
    try {
      dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    } catch (const kspd::OutOfDeviceMemory& e) {
      threw = 1;
      EXPECT_NE(std::string(e.what()).find("bytes of device memory"), std::string::npos) << e.what();
    }
    EXPECT_EQ(sum_all(threw), double(world_size()));
  }
  opt.engine.offload.fallback = ks::OffloadFallback::Cpu;
  const Check ck = run_case(A, 2, opt, false);
  EXPECT_LE(ck.max_resid, 1e-10);
  EXPECT_LE(ck.max_diff, 1e-11);
  EXPECT_EQ(ck.device_tasks, 0);
  EXPECT_GT(ck.fallbacks, 0);
}

}  // namespace
