// Helpers of the distributed solver's tests (test_sparse_mpi*.cpp, run under mpiexec at
// 1-4 ranks): ranks, a watchdog that turns a hang into a failure, collective-error checks,
// right-hand sides, a column split, and run_case: the distributed solve against the
// one-process solver and the residual.
#ifndef KSPD_MPI_TEST_HELPERS_HPP
#define KSPD_MPI_TEST_HELPERS_HPP
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
  if (world_rank() == 0)
    std::printf("  [np=%d] %s n=%lld nrhs=%lld %s: residual %.2e, vs one rank %.2e, fan-in %.0f messages (%.0f bytes), "
                "device/host tasks %.0f/%.0f\n",
                world_size(), A.name.c_str(), (long long)A.n, (long long)nrhs, by_columns ? "columns" : "rank 0",
                ck.max_resid, ck.max_diff, ck.messages, ck.fanin, ck.device_tasks, ck.host_tasks);
  return ck;
}

}  // namespace kspd::test::mpi
#endif
