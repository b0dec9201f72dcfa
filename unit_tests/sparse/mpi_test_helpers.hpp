// Helpers of the distributed solver's tests (test_sparse_mpi*.cpp, run under mpiexec at
// 1-4 ranks): ranks, a watchdog that turns a hang into a failure, collective-error checks,
// right-hand sides, a column split, run_case: the distributed solve against the
// one-process solver and the residual, the engine placements, expect_equal_to_engine and
// expect_same_failing_column.
#ifndef KSPD_MPI_TEST_HELPERS_HPP
#define KSPD_MPI_TEST_HELPERS_HPP
#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <csignal>
#include <limits>
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

namespace kspd::test::mpi {

namespace ks = kspd::sparse;
using kspd::size_type;
using kspd::test::sparse::relative_residual;
using kspd::test::sparse::sym_apply;

inline int world_rank() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
inline int world_size() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}
inline double sum_all(double x) {
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
  double max_resid = 0, max_diff = 0;
  double device_tasks = 0, host_tasks = 0, fallbacks = 0;  // all ranks
  double fanin = 0, messages = 0;  // fan-in contributions sent (bytes, count), all ranks
  size_type separators = 0;  // separator supernodes (above the local subtrees)
  double in_place = 0;       // ranks whose top-rank fan-in went to MPI in place (no host staging)
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
  ck.fanin = sum_all(dist.stats().fanin_bytes);
  ck.messages = sum_all(double(dist.stats().fanin_messages));
  for (int h : dist.layout().home) ck.separators += h < 0;
  ck.device_tasks = sum_all(double(dist.stats().device_tasks()));
  ck.host_tasks = sum_all(double(dist.stats().host_tasks()));
  ck.fallbacks = sum_all(double(dist.stats().device_fallback));
  ck.in_place = sum_all(double(dist.stats().fanin_in_place));
  if (world_rank() == 0)
    std::printf("  [np=%d] %s n=%lld nrhs=%lld %s: residual %.2e, vs one rank %.2e, fan-in %.0f messages (%.0f bytes), "
                "device/host tasks %.0f/%.0f\n",
                world_size(), A.name.c_str(), (long long)A.n, (long long)nrhs, by_columns ? "columns" : "rank 0",
                ck.max_resid, ck.max_diff, ck.messages, ck.fanin, ck.device_tasks, ck.host_tasks);
  return ck;
}

/// The engine placements a rank's local subtrees run on: host workers (1 and 3 threads),
/// resident on the offload space (every supernode, thresholds 0), and the top of the tree on
/// it beside host workers.
enum class Placement { Host1, Host3, Resident, TopOfTree };
inline const char* name_of(Placement p) {
  return p == Placement::Host1 ? "host x1" : p == Placement::Host3 ? "host x3" : p == Placement::Resident ? "resident" : "top-of-tree";
}
inline ks::DistributedOptions options_for(Placement p) {
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

/// Distributed factor + solve of A (nrhs right-hand sides from a fixed-seed X) against the
/// single-process solver with the same engine options, and the backward error of both.
/// The distributed solution arrives poisoned off rank 0 (ignored there) and is broadcast.
template <class Scalar>
void expect_equal_to_engine(const ks::CscMatrix<double>& Ad, Placement pl) {
  const ks::CscMatrix<Scalar> A = ks::cast_values<Scalar>(Ad);
  const size_type n = A.n, nrhs = 2;
  const ks::DistributedOptions opt = options_for(pl);
  std::mt19937_64 gen(4321 + unsigned(n));
  std::uniform_real_distribution<double> u(-1, 1);
  std::vector<Scalar> B(size_t(n * nrhs));
  for (auto& b : B) b = Scalar(u(gen));
  std::vector<Scalar> Xd = world_rank() == 0 ? B : std::vector<Scalar>(B.size(), Scalar(std::nan("")));
  ks::DistributedCholesky<Scalar> dist(MPI_COMM_WORLD, opt);
  ASSERT_EQ(dist.factorize_info(world_rank() == 0 ? A : ks::CscMatrix<Scalar>{}), 0) << A.name;
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
    if (world_rank() == 0 && c == 0)
      std::printf("  [np=%d] %s %s %s: backward error %.1e (one process %.1e), |x_dist - x_one| %.1e (|x| %.1e)\n",
                  world_size(), A.name.c_str(), sizeof(Scalar) == 4 ? "float" : "double", name_of(pl), rd, ro, dmax, xmax);
  }
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
  const std::int64_t info = dist.factorize_info(world_rank() == 0 ? bad : ks::CscMatrix<Scalar>{});
  ks::SupernodalCholesky<Scalar> one(opt.engine);
  const int info1 = one.factorize(Kokkos::DefaultExecutionSpace(), bad);
  EXPECT_EQ(info1, c + 1) << where << " " << name_of(pl);
  EXPECT_EQ(info, std::int64_t(info1)) << where << " " << name_of(pl) << ": " << dist.failure_message();
  EXPECT_LT(dist.failure_pivot(), 0.0) << where;
  std::vector<std::int64_t> all(static_cast<size_t>(world_size()));
  MPI_Allgather(&info, 1, MPI_INT64_T, all.data(), 1, MPI_INT64_T, MPI_COMM_WORLD);
  for (int r = 0; r < world_size(); ++r) EXPECT_EQ(all[size_t(r)], info) << where << ": rank " << r << " disagrees";
  // The same object factors the good matrix afterwards (no stray messages, no stale state).
  EXPECT_EQ(dist.factorize_info(world_rank() == 0 ? A : ks::CscMatrix<Scalar>{}), 0) << where;
}

/// Device ids per rank for the solvers constructed in its scope (device groups: ranks with
/// the same id share a device), then back to the detected ones.
class ScopedDeviceIds {
 public:
  explicit ScopedDeviceIds(std::vector<std::int64_t> ids) { ks::Impl::device_ids_for_testing() = std::move(ids); }
  ~ScopedDeviceIds() { ks::Impl::device_ids_for_testing().clear(); }
  ScopedDeviceIds(const ScopedDeviceIds&) = delete;
  ScopedDeviceIds& operator=(const ScopedDeviceIds&) = delete;
};
/// Every rank on a device of its own: the map over the ranks (also where ranks share a GPU).
inline std::vector<std::int64_t> own_devices() {
  std::vector<std::int64_t> ids(static_cast<size_t>(world_size()));
  for (size_t r = 0; r < ids.size(); ++r) ids[r] = std::int64_t(r);
  return ids;
}

}  // namespace kspd::test::mpi
#endif
