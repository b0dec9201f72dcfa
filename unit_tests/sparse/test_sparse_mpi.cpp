// Distributed supernodal Cholesky over MPI (run by CTest under mpiexec at 1, 2, 3, 4 ranks):
// generated and real matrices against the one-process solver and the residual, matrix on
// rank 0 or distributed by columns, many right-hand sides, float, a mapping that puts every
// factor block away from its consumers, collective not-SPD errors, bad arguments (found on
// one rank: every rank throws the same error naming it and the rank; a watchdog turns a hang
// into a failure), errors inside one rank's factorization, every transfer split into small
// pieces (64-bit counts), factorize_info; the device
// offload path (forced for everything, and mixed: only some supernodes on the device), its
// not-SPD report and its memory limit (on host builds the "device" is host memory).
#include <gtest/gtest.h>
#include <mpi.h>

#include <csignal>
#include <cmath>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <functional>
#include <random>
#include <string>
#include <sys/stat.h>
#include <unistd.h>
#include <vector>

#include "kspd_sparse_distributed.hpp"
#include "kspd_test_data.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "sparse_test_helpers.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using kspd::test::sparse::relative_residual;
using kspd::test::sparse::sym_apply;

int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
double sum_all(double x) {
  double y = 0;
  MPI_Allreduce(&x, &y, 1, MPI_DOUBLE, MPI_SUM, MPI_COMM_WORLD);
  return y;
}

/// A hang is a failure: SIGALRM after `seconds` prints the scope's name and ends the rank
/// (mpiexec then ends the job) instead of waiting for CTest's timeout.
class Watchdog {
 public:
  Watchdog(const char* what, unsigned seconds = 60) {
    label() = what;
    struct sigaction sa;
    std::memset(&sa, 0, sizeof sa);
    sa.sa_handler = [](int) {
      const char pre[] = "\n*** watchdog: hang in ";
      (void)!write(2, pre, sizeof pre - 1);
      (void)!write(2, label(), std::strlen(label()));
      (void)!write(2, "\n", 1);
      _exit(124);
    };
    sigaction(SIGALRM, &sa, nullptr);
    alarm(seconds);
  }
  ~Watchdog() { alarm(0); }

 private:
  static const char*& label() {
    static const char* l = "";
    return l;
  }
};

/// Every rank runs f; every rank must throw E with the same message, which names the rank
/// where the problem was found and contains `what`. Returns the message.
template <class E, class F>
std::string expect_collective_error(const char* name, F&& f, int found_on, const std::string& what) {
  Watchdog wd(name);
  std::string msg;
  int threw = 0;
  try {
    f();
    msg = "(no exception)";
  } catch (const E& e) {
    threw = 1;
    msg = e.what();
  } catch (const std::exception& e) {
    msg = std::string("(another exception) ") + e.what();
  }
  EXPECT_EQ(threw, 1) << name << ": " << msg;
  EXPECT_EQ(sum_all(threw), double(world_size())) << name << ": not every rank threw";
  EXPECT_NE(msg.find(what), std::string::npos) << name << ": " << msg;
  EXPECT_NE(msg.find("rank " + std::to_string(found_on)), std::string::npos) << name << ": " << msg;
  const std::uint64_t h = std::hash<std::string>{}(msg);
  std::vector<std::uint64_t> all(static_cast<size_t>(world_size()));
  MPI_Allgather(&h, 1, MPI_UINT64_T, all.data(), 1, MPI_UINT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < world_size(); ++r) EXPECT_EQ(all[size_t(r)], h) << name << ": rank " << r << " has another message";
  return msg;
}

/// Random X (fixed seed), B = A X.
template <class Scalar>
std::vector<Scalar> make_rhs(const ks::CscMatrix<Scalar>& A, size_type nrhs, std::vector<double>& X) {
  std::mt19937_64 gen(1234 + unsigned(A.n));
  std::uniform_real_distribution<double> u(-1, 1);
  X.resize(size_t(A.n * nrhs));
  for (auto& x : X) x = u(gen);
  std::vector<Scalar> B(X.size());
  for (size_type c = 0; c < nrhs; ++c) {
    std::vector<double> xc(X.begin() + c * A.n, X.begin() + (c + 1) * A.n);
    const auto bc = sym_apply(A, xc);
    for (size_type i = 0; i < A.n; ++i) B[size_t(i + c * A.n)] = Scalar(bc[size_t(i)]);
  }
  return B;
}

/// Column-range split of A's lower triangle for this rank (near-equal column counts).
template <class Scalar>
ks::DistributedColumns<Scalar> my_columns(const ks::CscMatrix<Scalar>& A) {
  const int r = world_rank(), P = world_size();
  ks::DistributedColumns<Scalar> D;
  D.n = A.n;
  D.col_begin = A.n * r / P;
  D.col_end = A.n * (r + 1) / P;
  const size_type p0 = A.colptr[size_t(D.col_begin)], p1 = A.colptr[size_t(D.col_end)];
  for (size_type j = D.col_begin; j <= D.col_end; ++j) D.colptr.push_back(A.colptr[size_t(j)] - p0);
  D.rowind.assign(A.rowind.begin() + p0, A.rowind.begin() + p1);
  D.values.assign(A.values.begin() + p0, A.values.begin() + p1);
  return D;
}

struct Check {
  double max_resid = 0, max_diff = 0, bytes = 0;
  double device_tasks = 0, host_tasks = 0, fallbacks = 0;  // all ranks
  double fanin = 0;  // bytes of the local subtrees' updates sent to the separators' owners
  size_type separators = 0;  // separator supernodes (above the local subtrees)
};

/// Distributed solve vs the one-process solve and the residual; returns the numbers (on
/// every rank: the solution is broadcast from rank 0).
template <class Scalar>
Check run_case(const ks::CscMatrix<Scalar>& A, size_type nrhs, const ks::DistributedOptions& opt, bool by_columns) {
  std::vector<double> X;
  const auto B = make_rhs(A, nrhs, X);
  ks::DistributedCholesky<Scalar> dist(MPI_COMM_WORLD, opt);
  if (by_columns) dist.factorize(my_columns(A));
  else dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<Scalar>{});
  std::vector<Scalar> Xd = world_rank() == 0 ? B : std::vector<Scalar>{};
  std::vector<Scalar> poison(size_t(A.n * nrhs), Scalar(std::nan("")));
  if (world_rank() != 0) Xd = poison;  // ignored off rank 0
  dist.solve(Xd, nrhs);
  Xd.resize(size_t(A.n * nrhs));
  MPI_Bcast(Xd.data(), int(Xd.size()), kspd::sparse::Impl::mpi_type<Scalar>(), 0, MPI_COMM_WORLD);
  // One-process host-only reference with the same options (same ordering).
  ks::Options ref = opt.engine;
  ref.offload = ks::Offload{};
  ks::SupernodalCholesky<Scalar> one(ref);
  if (one.factorize(Kokkos::DefaultExecutionSpace(), A) != 0) one.require_spd();
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> Xo("Xo", size_t(A.n), size_t(nrhs));
  for (size_type c = 0; c < nrhs; ++c)
    for (size_type i = 0; i < A.n; ++i) Xo(size_t(i), size_t(c)) = B[size_t(i + c * A.n)];
  one.solve(Kokkos::DefaultExecutionSpace(), Xo);
  Check ck;
  for (size_type c = 0; c < nrhs; ++c) {
    std::vector<double> xc(size_t(A.n)), bc(size_t(A.n));
    double dmax = 0, xmax = 0;
    for (size_type i = 0; i < A.n; ++i) {
      xc[size_t(i)] = double(Xd[size_t(i + c * A.n)]);
      bc[size_t(i)] = double(B[size_t(i + c * A.n)]);
      dmax = std::max(dmax, std::fabs(xc[size_t(i)] - double(Xo(size_t(i), size_t(c)))));
      xmax = std::max(xmax, std::fabs(double(Xo(size_t(i), size_t(c)))));
    }
    ck.max_resid = std::max(ck.max_resid, relative_residual(A, xc, bc));
    ck.max_diff = std::max(ck.max_diff, xmax > 0 ? dmax / xmax : dmax);
  }
  ck.bytes = sum_all(dist.stats().bytes_get);
  ck.fanin = sum_all(dist.stats().fanin_bytes);
  for (int h : dist.layout().home) ck.separators += h < 0;
  ck.device_tasks = sum_all(double(dist.stats().device_tasks()));
  ck.host_tasks = sum_all(double(dist.stats().host_tasks()));
  ck.fallbacks = sum_all(double(dist.stats().device_fallback));
  const double gets = sum_all(double(dist.stats().gets)), msgs = sum_all(double(dist.stats().messages_sent));
  if (world_rank() == 0)
    std::printf("  [np=%d] %s n=%lld nrhs=%lld %s: residual %.2e, vs one rank %.2e, gets %.0f (%.0f bytes), notices %.0f, "
                "device/host tasks %.0f/%.0f\n",
                world_size(), A.name.c_str(), (long long)A.n, (long long)nrhs, by_columns ? "columns" : "rank 0",
                ck.max_resid, ck.max_diff, gets, ck.bytes, msgs, ck.device_tasks, ck.host_tasks);
  return ck;
}

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
        // Default: local subtrees by the engine, the separators by the fan-out; then every
        // supernode by the fan-out (pure 2D).
        opt.local_subtrees = !by_columns;
        opt.engine.threads = threads;
        opt.one_sided = threads == 1 || by_columns;  // and request/reply pulls with workers
        const Check ck = run_case(c.A, c.nrhs, opt, by_columns);
        EXPECT_LE(ck.max_resid, 1e-10) << c.A.name << " columns=" << by_columns << " threads=" << threads;
        EXPECT_LE(ck.max_diff, 1e-12) << c.A.name << " columns=" << by_columns << " threads=" << threads;
        // (a forest split whole among the ranks has no separators: nothing to move)
        if (world_size() > 1 && ck.separators > 0) EXPECT_GT(ck.bytes + ck.fanin, 0) << c.A.name << ": no data moved between ranks";
        if (world_size() > 1 && ck.separators > 0 && !by_columns) EXPECT_GT(ck.fanin, 0) << c.A.name << ": no fan-in to the separators";
      }
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
  optd.one_sided = false;  // request/reply messages instead of MPI_Get
  const Check ckd = run_case(ks::laplacian_3d<double>(5, 6, 4), 4, optd, true);
  EXPECT_LE(ckd.max_resid, 1e-10);
  EXPECT_LE(ckd.max_diff, 1e-12);
}

TEST(SparseMpi, EveryBlockAwayFromItsConsumers) {
  const int P = world_size();
  ks::DistributedOptions opt;
  opt.engine.max_supernode = 8;
  // Diagonal blocks on s % P, off-diagonal blocks on (s + 1) % P: every TRSM pulls its
  // diagonal block from another rank; and the brief's (source + 1) % P for everything.
  const ks::BlockMap maps[] = {[](size_type s, size_type t, int np) { return int((s + (t != s ? 1 : 0)) % np); },
                               [](size_type s, size_type, int np) { return int((s + 1) % np); }};
  const auto A = ks::elasticity_3d<double>(4, 3, 4);
  opt.local_subtrees = false;  // the maps place every block (a test of the fan-out)
  for (int m = 0; m < 4; ++m) {
    opt.map = maps[m % 2];
    opt.one_sided = m % 2 == 0;  // the second map pulls with request/reply messages
    opt.engine.threads = m < 2 ? 1 : 3;  // then again with two host workers per rank
    std::vector<double> X;
    const auto B = make_rhs(A, 2, X);
    ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
    dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    // With map 0 every supernode with an off-diagonal block here has its diagonal block
    // elsewhere: this rank pulls at least that many blocks.
    const auto& S = dist.symbolic();
    size_type need = 0;
    for (const auto& sn : S.snodes) {
      bool here = false;
      for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) here = here || dist.layout().owner[size_t(b)] == world_rank();
      need += here;
    }
    if (P > 1 && m % 2 == 0) EXPECT_GE(dist.stats().gets, need);
    if (P > 1) EXPECT_GT(sum_all(dist.stats().bytes_get), 0);
    std::vector<double> Xd = world_rank() == 0 ? B : std::vector<double>{};
    dist.solve(Xd, 2);
    if (world_rank() == 0)
      for (size_type c = 0; c < 2; ++c) {
        std::vector<double> xc(Xd.begin() + c * A.n, Xd.begin() + (c + 1) * A.n), bc(B.begin() + c * A.n, B.begin() + (c + 1) * A.n);
        EXPECT_LE(relative_residual(A, xc, bc), 1e-10) << "map " << m;
      }
  }
}

TEST(SparseMpi, NotPositiveDefiniteIsTheSameErrorOnEveryRank) {
  for (int variant = 0; variant < 6; ++variant) {
    const size_type bad = variant % 3 == 0 ? 0 : variant % 3 == 1 ? 41 : 95;
    auto A = ks::laplacian_2d<double>(12, 8);
    for (size_type p = A.colptr[size_t(bad)]; p < A.colptr[size_t(bad + 1)]; ++p)
      if (A.rowind[size_t(p)] == bad) A.values[size_t(p)] = -3.0;
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 6;
    opt.engine.threads = variant < 3 ? 1 : 3;  // the failure found by a host worker
    opt.one_sided = variant != 4;
    SCOPED_TRACE(::testing::Message() << "bad column " << bad << ", threads " << opt.engine.threads << ", one-sided "
                                      << opt.one_sided);
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

TEST(SparseMpi, BadArgumentsAreNamedOnEveryRank) {
  const auto A = ks::laplacian_2d<double>(5, 4);
  ks::DistributedOptions opt;
  opt.map = [](size_type, size_type, int np) { return np; };  // out of range
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

TEST(SparseMpi, BlockMapDependingOnTheRankFailsOnEveryRank) {
  if (world_size() < 2) GTEST_SKIP() << "needs two ranks";
  const auto A = ks::laplacian_2d<double>(6, 5);
  ks::DistributedOptions opt;
  const int me = world_rank();
  opt.map = [me](size_type s, size_type, int np) { return int((s + size_type(me)) % np); };  // every rank its own map
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  expect_collective_error<kspd::InvalidArgument>(
      "rank-dependent map", [&] { dist.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{}); }, 1, "block map");
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

// ---- 64-bit counts (issue 12 row 9 / item 2): with a tiny piece size every transfer whose
// size depends on the problem is split, on every path (rank 0's matrix and columns, MPI_Get
// and request/reply pulls, host workers, solve messages), and the answer is unchanged.
TEST(SparseMpi, ChunkedTransfersAtSmallChunkSizes) {
  namespace KI = kspd::sparse::Impl;
  Watchdog wd("chunked transfers", 200);
  const std::int64_t saved = KI::mpi_chunk_elements();
  const int P = world_size();
  auto& stats = KI::mpi_chunk_stats();
  struct Case {
    std::int64_t chunk;
    bool by_columns, one_sided;
    int threads;
    size_type nrhs;
  };
  const Case cases[] = {{1000, false, true, 1, 3},   // MPI_Get pieces, scatter/gather
                        {1000, true, false, 3, 3},   // request/reply pieces with workers, all-gather, all-to-all
                        {97, true, true, 1, 2},
                        {97, false, false, 1, 1}};
  const auto A = ks::laplacian_3d<double>(12, 11, 10);  // n = 1320: colptr and rowind are split too
  for (const Case& c : cases) {
    stats.reset();
    KI::mpi_chunk_elements() = c.chunk;
    ks::DistributedOptions opt;
    opt.one_sided = c.one_sided;
    opt.engine.threads = c.threads;
    opt.local_subtrees = false;  // pure 2D: many blocks move
    const Check ck = run_case(A, c.nrhs, opt, c.by_columns);
    KI::mpi_chunk_elements() = saved;
    SCOPED_TRACE(::testing::Message() << "chunk " << c.chunk << ", columns " << c.by_columns << ", one-sided "
                                      << c.one_sided << ", threads " << c.threads);
    EXPECT_LE(ck.max_resid, 1e-10);
    EXPECT_LE(ck.max_diff, 1e-12);
    double split[KI::MpiChunkStats::Count];
    for (int k = 0; k < KI::MpiChunkStats::Count; ++k) split[k] = sum_all(double(stats.split[k].load()));
    if (world_rank() == 0)
      std::printf("  [np=%d] chunk %lld: split bcast %.0f send %.0f recv %.0f get %.0f scatter %.0f gather %.0f "
                  "allgather %.0f alltoall %.0f\n",
                  P, (long long)c.chunk, split[0], split[1], split[2], split[3], split[4], split[5], split[6], split[7]);
    EXPECT_GT(split[KI::MpiChunkStats::Bcast], 0);
    if (P == 1) continue;
    EXPECT_GT(split[KI::MpiChunkStats::Send], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Recv], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Scatter], 0);
    EXPECT_GT(split[KI::MpiChunkStats::Gather], 0);
    if (c.one_sided) EXPECT_GT(split[KI::MpiChunkStats::Get], 0);
    if (c.by_columns) EXPECT_GT(split[KI::MpiChunkStats::Allgather], 0);
    if (c.by_columns && c.chunk < 1000) EXPECT_GT(split[KI::MpiChunkStats::Alltoall], 0);
  }
  // Pieces smaller than a solve message's header (the header itself arrives in pieces).
  stats.reset();
  KI::mpi_chunk_elements() = 5;
  ks::DistributedOptions opt;
  opt.one_sided = false;
  const Check ck = run_case(ks::laplacian_2d<double>(7, 6), 2, opt, true);
  KI::mpi_chunk_elements() = saved;
  EXPECT_LE(ck.max_resid, 1e-10);
  EXPECT_LE(ck.max_diff, 1e-12);
}

// ---- An error inside the factorization on one rank (here injected) ends every rank's
// factorization with the same error; the object factors afterwards.
TEST(SparseMpi, ErrorInsideTheFactorizationIsThrownOnEveryRank) {
  namespace KI = kspd::sparse::Impl;
  const auto A = ks::laplacian_3d<double>(6, 5, 7);
  const int bad = world_size() - 1;
  for (int variant = 0; variant < 3; ++variant) {
    ks::DistributedOptions opt;
    opt.engine.max_supernode = 8;
    opt.engine.threads = variant == 1 ? 3 : 1;
    opt.one_sided = variant != 2;
    opt.local_subtrees = false;
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

/// Device offload settings: everything on the device (thresholds 0; the local subtrees
/// resident), or mixed: supernodes of >= 16 columns or with an update of >= 4096
/// multiply-adds (and the supernodes they update) on the device, and the fan-out's updates
/// into them of >= 4096 multiply-adds (the local subtrees with the engine's top-of-tree
/// placement: host workers and the device).
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
  for (bool force : {true, false}) {
    const char* mode = force ? "forced" : "mixed";
    ks::DistributedOptions opt = offload_options(force);
    opt.engine.threads = force ? 1 : 3;  // mixed: device tasks on the main thread beside two host workers
    Check ck = run_case(ks::elasticity_3d<double>(4, 4, 3), 2, opt, false);
    EXPECT_LE(ck.max_resid, 1e-10) << mode;
    EXPECT_LE(ck.max_diff, 1e-11) << mode;
    EXPECT_GT(ck.device_tasks, 0) << mode;
    if (force) EXPECT_EQ(ck.host_tasks, 0) << mode;
    else EXPECT_GT(ck.host_tasks, 0) << mode;
    // Pure 2D and request/reply: remote sources go through the device cache.
    opt.local_subtrees = false;
    opt.one_sided = !force;
    ck = run_case(ks::laplacian_3d<double>(6, 5, 7), 3, opt, true);
    EXPECT_LE(ck.max_resid, 1e-10) << mode;
    EXPECT_LE(ck.max_diff, 1e-11) << mode;
    EXPECT_GT(ck.device_tasks, 0) << mode;
    // Every diagonal block away from its TRSM tasks: cached diagonal blocks on the device.
    opt.map = [](size_type s, size_type t, int np) { return int((s + (t != s ? 1 : 0)) % np); };
    ck = run_case(kspd::test::sparse::random_spd<double>(201, 3.0, 5), 1, opt, false);
    EXPECT_LE(ck.max_resid, 1e-10) << mode;
    EXPECT_LE(ck.max_diff, 1e-11) << mode;
    ks::DistributedOptions optf = offload_options(force);
    optf.engine.max_supernode = 16;
    const Check cf = run_case(ks::elasticity_3d<float>(3, 4, 3), 2, optf, false);
    EXPECT_LE(cf.max_resid, 50 * 1.2e-7) << mode;
    EXPECT_LE(cf.max_diff, 1e-4) << mode;
    EXPECT_GT(cf.device_tasks, 0) << mode;
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
    // The same object factors afterwards: the error left no messages behind.
    opt.engine.offload.fallback = ks::OffloadFallback::Cpu;
  }
  const Check ck = run_case(A, 2, opt, false);  // fallback cpu: every rank on the host
  EXPECT_LE(ck.max_resid, 1e-10);
  EXPECT_LE(ck.max_diff, 1e-11);
  EXPECT_EQ(ck.device_tasks, 0);
  EXPECT_GT(ck.fallbacks, 0);
  // A limit that just fits the largest rank's need: no fallback, the fan-out's cache evicts
  // blocks (every block away from the diagonal block's rank: many remote sources; no local
  // subtrees, so every supernode goes through the fan-out).
  opt.engine.offload.device_memory_limit = std::int64_t(1) << 40;
  opt.local_subtrees = false;
  opt.map = [](size_type s, size_type t, int np) { return int((s + (t != s ? 1 : 0)) % np); };
  std::int64_t need = 0;
  {
    ks::DistributedCholesky<double> probe(MPI_COMM_WORLD, opt);
    probe.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
    const std::int64_t mine = probe.stats().device_need_bytes;
    MPI_Allreduce(&mine, &need, 1, MPI_INT64_T, MPI_MAX, MPI_COMM_WORLD);
  }
  opt.engine.offload.device_memory_limit = need;
  opt.engine.offload.fallback = ks::OffloadFallback::Fail;
  ks::DistributedCholesky<double> tight(MPI_COMM_WORLD, opt);
  tight.factorize(world_rank() == 0 ? A : ks::CscMatrix<double>{});
  EXPECT_LE(std::int64_t(tight.stats().device_peak_bytes), need);
  const double evictions = sum_all(double(tight.stats().device_evictions));
  if (world_rank() == 0) std::printf("  [np=%d] device limit %lld bytes: %.0f evictions\n", world_size(), (long long)need, evictions);
  const Check ct = run_case(A, 1, opt, false);
  EXPECT_LE(ct.max_resid, 1e-10);
  EXPECT_LE(ct.max_diff, 1e-11);
  EXPECT_EQ(ct.fallbacks, 0);
}

}  // namespace
