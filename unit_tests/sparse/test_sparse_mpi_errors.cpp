// Errors of the distributed solver (under mpiexec at 1-4 ranks): a matrix that is not
// positive definite (the same column and pivot on every rank), bad arguments found on one
// rank (every rank throws the same error naming it and the rank; a watchdog turns a hang
// into a failure), an exception inside one rank's factorization, factorize_info.
#include "mpi_test_helpers.hpp"

namespace {

using namespace kspd::test::mpi;

TEST(SparseMpi, NotPositiveDefiniteIsTheSameErrorOnEveryRank) {
  for (int variant = 0; variant < 6; ++variant) {
    const size_type bad = variant % 3 == 0 ? 0 : variant % 3 == 1 ? 41 : 95;
    auto A = ks::laplacian_2d<double>(12, 8);
    for (size_type p = A.colptr[size_t(bad)]; p < A.colptr[size_t(bad + 1)]; ++p)
      if (A.rowind[size_t(p)] == bad) A.values[size_t(p)] = -3.0;
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 6;
    opt.engine.threads = variant < 3 ? 1 : 3;  // the failure found by one of several workers
    opt.local_subtrees = variant != 4;          // every supernode cyclic: the failure in a separator
    SCOPED_TRACE(::testing::Message() << "bad column " << bad << ", threads " << opt.engine.threads << ", subtrees "
                                      << opt.local_subtrees);
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    double got[3] = {-1, 0, -1};
    try {
      dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
      ADD_FAILURE() << "no error for column " << bad;
    } catch (const kspd::NotPositiveDefinite& e) {
      got[0] = double(e.column());
      got[1] = e.pivot();
      got[2] = double(std::string(e.what()).find("column " + std::to_string(bad) + " ") != std::string::npos);
      EXPECT_LT(e.pivot(), 0.0) << e.what();
      EXPECT_NE(std::string(e.what()).find("rank"), std::string::npos) << e.what();
    }
    EXPECT_EQ(got[0], double(bad + 1));
    EXPECT_EQ(got[2], 1.0);
    // The same error on every rank.
    std::vector<double> all(size_t(3 * world_size()));
    MPI_Allgather(got, 3, MPI_DOUBLE, all.data(), 3, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < world_size(); ++r) {
      EXPECT_EQ(all[size_t(3 * r)], got[0]) << "rank " << r;
      EXPECT_EQ(all[size_t(3 * r + 1)], got[1]) << "rank " << r;
    }
    std::vector<double> x(size_t(A.n), 1.0);
    EXPECT_THROW(dist.solve(x, 1), kspd::InvalidArgument);  // no factor after a failure
    // The same object factors a good matrix afterwards: no stray messages were left.
    const auto G = ks::laplacian_2d<double>(12, 8);
    dist.factorize(world_rank() == 0 ? G : ks::CscMatrix<double>{});
    std::vector<double> X;
    const auto B = make_rhs(G, 1, X);
    std::vector<double> Xd = B;
    dist.solve(Xd, 1);
    if (world_rank() == 0) {
      std::vector<double> bd(B.begin(), B.end());
      EXPECT_LE(relative_residual(G, Xd, bd), 1e-10);
    }
  }
}

TEST(SparseMpi, BadArgumentsAreNamedOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(5, 4);
  ks::DistributedOptions opt;
  opt.map = [](size_type, int np) { return np; };  // out of range
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  EXPECT_THROW(dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}), kspd::InvalidArgument);
  ks::DistributedCholesky<double> ok(MPI_COMM_WORLD);
  std::vector<double> x(size_t(A.n), 1.0);
  EXPECT_THROW(ok.solve_local(x.data(), 1), kspd::InvalidArgument);  // not analysed
  if (world_size() > 1) {
    // Overlapping column ranges are refused by every rank.
    auto D = my_columns(A);
    if (world_rank() == 1) {
      D = ks::DistributedColumns<double>{};
      D.n = A.n;
      D.col_begin = D.col_end = 0;
      D.colptr = {0};
    }
    EXPECT_THROW(ok.factorize(D), kspd::InvalidArgument);
  }
}

// ---- Collective argument checks (issue 12, row 4): a problem found on one rank makes every
// rank throw the same error naming it and that rank; no rank waits in a collective.

TEST(SparseMpi, InconsistentMatrixOnRankZeroFailsOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(6, 5);
  const auto on_rank0 = [&](ks::CscMatrix<double> M) { return world_rank() == 0 ? M : ks::CscMatrix<double>{}; };
  {
    auto M = A;
    M.values.pop_back();  // values shorter than rowind
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    expect_collective_error<kspd::InvalidArgument>("values size", [&] { dist.factorize(on_rank0(M)); }, 0, "values");
  }
  {
    auto M = A;
    M.colptr.push_back(M.colptr.back());  // colptr of n + 2 entries
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    expect_collective_error<kspd::InvalidArgument>("colptr size", [&] { dist.analyze(on_rank0(M)); }, 0, "colptr");
  }
  {
    auto M = A;
    M.colptr[3] = M.colptr[4] + 1;  // not ascending
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    expect_collective_error<kspd::InvalidArgument>("colptr order", [&] { dist.analyze(on_rank0(M)); }, 0, "colptr");
  }
  {
    auto M = A;
    M.rowind.back() = M.n;  // a row out of range
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    expect_collective_error<kspd::InvalidArgument>("row range", [&] { dist.factorize(on_rank0(M)); }, 0, "row");
  }
  {
    // Analysed with A, factored with another pattern (found on rank 0 only).
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    dist.analyze(on_rank0(A));
    const auto G = ks::laplacian_2d<double>(5, 6);
    expect_collective_error<kspd::InvalidArgument>("pattern", [&] { dist.factorize(on_rank0(G)); }, 0, "pattern");
    // The object is usable afterwards.
    dist.factorize(on_rank0(A));
    std::vector<double> X;
    auto B = make_rhs(A, 1, X);
    dist.solve(B, 1);
    if (world_rank() == 0) EXPECT_LE(relative_residual(A, std::vector<double>(B), make_rhs(A, 1, X)), 1e-10);
  }
}

TEST(SparseMpi, WrongUserPermutationFailsOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(6, 5);
  ks::DistributedOptions opt;
  opt.engine.ordering = ks::Ordering::User;
  opt.engine.user_permutation.resize(size_t(A.n - 1));  // one entry short
  for (size_type i = 0; i + 1 < A.n; ++i) opt.engine.user_permutation[size_t(i)] = i;
  {
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    expect_collective_error<kspd::InvalidArgument>(
        "short permutation", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, 0,
        "user_permutation");
  }
  opt.engine.user_permutation.push_back(0);  // n entries, 0 twice
  {
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    expect_collective_error<kspd::InvalidArgument>(
        "not a permutation", [&] { dist.factorize(my_columns(A)); }, 0, "user_permutation");
  }
}

TEST(SparseMpi, InconsistentColumnsOnOneRankFailOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(7, 6);
  const int bad = world_size() - 1;  // the last rank's columns are wrong
  struct Variant {
    const char* name;
    const char* what;
    std::function<void(ks::DistributedColumns<double>&)> spoil;
  };
  const Variant variants[] = {
      {"colptr size", "colptr", [](auto& D) { D.colptr.push_back(D.colptr.back()); }},
      {"values size", "values", [](auto& D) { D.values.push_back(1.0); }},
      {"row out of range", "row", [&](auto& D) { D.rowind.back() = A.n + 5; }},
      {"row above the diagonal", "row", [](auto& D) { D.rowind[size_t(D.colptr[1] - 1)] = D.col_begin - 1; }},
      {"gap in the ranges", "column range", [](auto& D) {  // drop this rank's first column
         const size_type p = D.colptr[1];
         D.col_begin += 1;
         D.rowind.erase(D.rowind.begin(), D.rowind.begin() + p);
         D.values.erase(D.values.begin(), D.values.begin() + p);
         D.colptr.erase(D.colptr.begin());
         for (auto& c : D.colptr) c -= p;
       }},
      {"n differs", "n", [](auto& D) { D.n += 1; }},
      {"empty colptr", "colptr", [](auto& D) { D.colptr.clear(); }},
  };
  for (const auto& v : variants) {
    auto D = my_columns(A);
    if (world_rank() == bad) v.spoil(D);
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
    const std::string msg = expect_collective_error<kspd::InvalidArgument>(v.name, [&] { dist.factorize(D); }, bad, v.what);
    if (world_rank() == 0) std::printf("  [np=%d] %s: %s\n", world_size(), v.name, msg.c_str());
  }
  // After all of that, the same columns factor and solve.
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
  dist.factorize(my_columns(A));
  std::vector<double> X;
  const auto B = make_rhs(A, 2, X);
  auto Xd = B;
  dist.solve(Xd, 2);
  if (world_rank() == 0)
    for (size_type c = 0; c < 2; ++c) {
      std::vector<double> xc(Xd.begin() + c * A.n, Xd.begin() + (c + 1) * A.n), bc(B.begin() + c * A.n, B.begin() + (c + 1) * A.n);
      EXPECT_LE(relative_residual(A, xc, bc), 1e-10);
    }
}

TEST(SparseMpi, DifferentOptionsOnOneRankFailOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const auto A = ks::laplacian_2d<double>(6, 5);
  const int bad = world_size() - 1;
  for (int v = 0; v < 3; ++v) {
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 8;
    if (world_rank() == bad) {
      if (v == 0) opt.engine.max_supernode = 7;  // another analysis: other blocks, other messages
      if (v == 1) opt.engine.relax.enabled = false;
      if (v == 2) opt.local_subtrees = false;  // another block map
    }
    const char* what = v == 0 ? "max_supernode" : v == 1 ? "relax.enabled" : "local_subtrees";
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    expect_collective_error<kspd::InvalidArgument>(
        what, [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, bad, what);
  }
}

TEST(SparseMpi, MapDependingOnTheRankFailsOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const auto A = ks::laplacian_2d<double>(6, 5);
  ks::DistributedOptions opt;
  const int me = world_rank();
  opt.map = [me](size_type s, int np) { return int((s + size_type(me)) % np); };  // every rank its own map
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  expect_collective_error<kspd::InvalidArgument>(
      "rank-dependent map", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, 1, "supernode map");
}

TEST(SparseMpi, WrongRightHandSideOnRankZeroFailsOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(6, 5);
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD);
  dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
  std::vector<double> B(size_t(A.n * 2 - 1), 1.0);  // n * 2 expected on rank 0
  expect_collective_error<kspd::DimensionMismatch>("B size", [&] { dist.solve(B, 2); }, 0, "B has");
  expect_collective_error<kspd::InvalidArgument>("nrhs < 0", [&] { dist.solve(B, world_rank() == 0 ? -1 : 1); }, 0,
                                                 "nrhs");
  // A good solve afterwards: nothing was left in flight.
  std::vector<double> X;
  const auto G = make_rhs(A, 1, X);
  auto Xd = G;
  dist.solve(Xd, 1);
  if (world_rank() == 0) EXPECT_LE(relative_residual(A, Xd, std::vector<double>(G)), 1e-10);
}

// ---- An error inside the factorization on one rank (here injected) ends every rank's
// factorization with the same error; the object factors afterwards.
TEST(SparseMpi, ErrorInsideTheFactorizationIsThrownOnEveryRank) {
  namespace KI = kspd::sparse::Impl;
  // (one rank has no transport, where the fault is injected: nothing to reach)
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const auto A = ks::laplacian_3d<double>(6, 5, 7);
  const int bad = world_size() - 1;
  for (int variant = 0; variant < 3; ++variant) {
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 8;
    opt.engine.threads = variant == 1 ? 3 : 1;
    opt.local_subtrees = variant == 2;
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    KI::mpi_fault_injection() = {bad, size_type(1 + variant)};
    const std::string msg = expect_collective_error<kspd::Error>(
        "injected", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, bad, "injected failure");
    if (world_rank() == 0 && variant == 0) std::printf("  [np=%d] every rank: %s\n", world_size(), msg.c_str());
    KI::mpi_fault_injection() = {};
    std::vector<double> x(size_t(A.n), 1.0);
    EXPECT_THROW(dist.solve(x, 1), kspd::InvalidArgument);  // no factor after a failure
    dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    std::vector<double> X;
    const auto B = make_rhs(A, 1, X);
    auto Xd = B;
    dist.solve(Xd, 1);
    if (world_rank() == 0) EXPECT_LE(relative_residual(A, Xd, std::vector<double>(B)), 1e-10) << "variant " << variant;
  }
}

// ---- The same with device offload on (the top-rank map: local subtrees resident on each
// rank's device, every separator on rank 0's): the fault before level k of one rank's
// device run. The last rank failing before it sends anything (rank 0 must not wait for
// its contributions forever), rank 0 failing before and after receiving some. No hang
// (watchdog), the same error everywhere, and the object factors afterwards.
TEST(SparseMpi, ErrorInsideTheOffloadedFactorizationIsThrownOnEveryRank) {
  namespace KI = kspd::sparse::Impl;
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const ScopedDeviceIds own(own_devices());  // (ranks sharing a GPU: still the top-rank map over the ranks)
  const auto A = ks::laplacian_3d<double>(6, 5, 7);
  struct Case {
    int rank;
    size_type level;
  };
  const int last = world_size() - 1;
  for (const Case c : {Case{last, 0}, Case{last, 2}, Case{0, 0}, Case{0, 3}, Case{0, 1000}}) {
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 8;
    opt.engine.threads = 1;
    opt.engine.offload.force_all();
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    dist.analyze(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    ASSERT_TRUE(dist.layout().top) << "offload with several ranks: the top-rank map";
    KI::mpi_fault_injection() = {c.rank, c.level};
    if (c.level == 1000) {  // past the last level: no fault, a normal run
      dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    } else {
      const std::string msg = expect_collective_error<kspd::Error>(
          "injected (offload)", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, c.rank,
          "injected failure");
      if (world_rank() == 0 && c.level == 0) std::printf("  [np=%d] every rank: %s\n", world_size(), msg.c_str());
      std::vector<double> x(size_t(A.n), 1.0);
      EXPECT_THROW(dist.solve(x, 1), kspd::InvalidArgument);  // no factor after a failure
    }
    KI::mpi_fault_injection() = {};
    dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    std::vector<double> X;
    const auto B = make_rhs(A, 1, X);
    auto Xd = B;
    dist.solve(Xd, 1);
    if (world_rank() == 0)
      EXPECT_LE(relative_residual(A, Xd, std::vector<double>(B)), 1e-10) << "rank " << c.rank << " level " << c.level;
  }
}

// ---- factorize_info: the failing column as LAPACK's info, the same on every rank.
TEST(SparseMpi, FactorizeInfoIsAgreedOnEveryRank) {
  for (size_type bad : {size_type(0), size_type(41), size_type(95)}) {
    auto A = ks::laplacian_2d<double>(12, 8);
    for (size_type p = A.colptr[size_t(bad)]; p < A.colptr[size_t(bad + 1)]; ++p)
      if (A.rowind[size_t(p)] == bad) A.values[size_t(p)] = -3.0;
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 6;
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    const size_type info = dist.factorize_info(my_columns(A));
    EXPECT_EQ(info, bad + 1);
    EXPECT_LT(dist.failure_pivot(), 0.0);
    EXPECT_NE(dist.failure_message().find("column " + std::to_string(bad) + " "), std::string::npos) << dist.failure_message();
    const double got[2] = {double(info), dist.failure_pivot()};
    std::vector<double> all(size_t(2 * world_size()));
    MPI_Allgather(got, 2, MPI_DOUBLE, all.data(), 2, MPI_DOUBLE, MPI_COMM_WORLD);
    for (int r = 0; r < world_size(); ++r) {
      EXPECT_EQ(all[size_t(2 * r)], got[0]) << "rank " << r;
      EXPECT_EQ(all[size_t(2 * r + 1)], got[1]) << "rank " << r;
    }
    std::vector<double> x(size_t(A.n), 1.0);
    EXPECT_THROW(dist.solve(x, 1), kspd::InvalidArgument);
    // require_spd turns it into the usual exception.
    EXPECT_THROW(kspd::require_spd(info, "test"), kspd::NotPositiveDefinite);
    EXPECT_EQ(dist.factorize_info(my_columns(ks::laplacian_2d<double>(12, 8))), 0);
  }
}

}  // namespace
