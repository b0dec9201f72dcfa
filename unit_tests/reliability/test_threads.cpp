// Worker threads that the system refuses: the sparse engines throw a kspd::Error naming the
// requested count (none started) or go on with the threads that started (recorded in the
// stats), never std::terminate (issue #12, row 1).

#include <gtest/gtest.h>
#include <pthread.h>
#include <signal.h>
#include <spawn.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <fstream>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#ifdef KSPD_ENABLE_MPI
#include "kspd_sparse_distributed.hpp"
#endif

extern char** environ;

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

/// Sets kspd's thread-start budget for the scope (-1 again afterwards).
struct ThreadBudget {
  explicit ThreadBudget(int b) { kspd::Impl::thread_start_budget() = b; }
  ~ThreadBudget() { kspd::Impl::thread_start_budget() = -1; }
};

double residual(const ks::CscMatrix<double>& A, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> ax;
  ks::symv(A, x, ax);
  double r = 0, bn = 0;
  for (size_t i = 0; i < b.size(); ++i) r += (ax[i] - b[i]) * (ax[i] - b[i]), bn += b[i] * b[i];
  return std::sqrt(r / bn);
}

TEST(ReliabilityThreads, NoWorkerStartsIsAnErrorNamingTheCount) {
  const auto A = ks::laplacian_3d<double>(6, 6, 6);
  ks::Options opt;
  opt.threads = 37;
  ks::SupernodalCholesky<double> chol(opt);
  ThreadBudget none(0);
  try {
    (void)chol.factorize(Kokkos::DefaultExecutionSpace(), A);
    FAIL() << "factorize ran with no worker thread created";
  } catch (const kspd::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("37 requested"), std::string::npos) << msg;
    EXPECT_NE(msg.find("Options::threads = 37"), std::string::npos) << msg;
  }
}

TEST(ReliabilityThreads, SomeWorkersStartTheFactorizationGoesOnWithThem) {
  const auto A = ks::laplacian_3d<double>(8, 8, 8);
  ks::Options opt;
  opt.threads = 6;
  ks::SupernodalCholesky<double> chol(opt);
  {
    ThreadBudget two(2);
    ASSERT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
  }
  EXPECT_EQ(chol.factor_stats().threads, 2);
  std::vector<double> b(size_t(A.n), 1.0), x = b;
  chol.solve(x);
  EXPECT_LE(residual(A, x, b), 1e-12);
  ASSERT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);  // the budget is back: all six
  EXPECT_EQ(chol.factor_stats().threads, 6);
}

#if defined(__SANITIZE_ADDRESS__)
#define KSPD_TEST_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define KSPD_TEST_ASAN 1
#endif
#endif

// The real thing: a process whose address space cannot hold one more thread stack. The
// child is this test binary started afresh (posix_spawn of /proc/self/exe with this test as
// its filter and KSPD_RLIMIT_CHILD set), not a fork of a process that already runs MPI,
// OpenBLAS and Kokkos threads: a forked child can inherit a lock another thread held and hang.
TEST(ReliabilityThreads, AddressSpaceLimitIsAnErrorNotTerminate) {
#ifdef KSPD_TEST_ASAN
  GTEST_SKIP() << "AddressSanitizer reserves terabytes of address space: RLIMIT_AS cannot apply";
#endif
  const auto A = ks::laplacian_3d<double>(5, 5, 5);
  if (std::getenv("KSPD_RLIMIT_CHILD")) {  // the child: limit, factor, report by exit code
    int code = 3;
    try {
      ks::Options opt;
      opt.threads = 64;
      ks::SupernodalCholesky<double> chol(opt);
      chol.analyze(A);
      // A first factorization before the limit: the factor's arrays, the malloc arenas and
      // OpenBLAS's work buffers are mapped; what the second one needs anew is thread stacks.
      if (chol.factorize(Kokkos::DefaultExecutionSpace(), A) != 0) _exit(8);
      // Headroom of a quarter of a default thread stack: not one worker can start. A limit
      // that lets a few start would hang instead of testing anything: a worker's potrf or
      // syrk that finds every OpenBLAS buffer in use maps a new one (128 MiB in Debian's
      // 0.3.21), and OpenBLAS before 0.3.30 retries that mmap forever (OpenMathLib/OpenBLAS
      // #5289; 0.3.30 exits the process). The degraded path is tested with the budget hook.
      pthread_attr_t attr;
      size_t stack = size_t(8) << 20;
      if (pthread_getattr_default_np(&attr) == 0) {
        pthread_attr_getstacksize(&attr, &stack);
        pthread_attr_destroy(&attr);
      }
      long pages = 0;
      std::ifstream("/proc/self/statm") >> pages;
      const rlim_t vm = rlim_t(pages) * rlim_t(sysconf(_SC_PAGESIZE)) + rlim_t(stack / 4);
      rlimit lim{vm, vm};
      setrlimit(RLIMIT_AS, &lim);
      if (chol.factorize(Kokkos::DefaultExecutionSpace(), A) != 0) _exit(7);
      code = 4;  // a worker started under the limit: the limit is not what the test assumes
    } catch (const kspd::Error& e) {
      code = std::string(e.what()).find("64 requested") != std::string::npos ? 0 : 5;
      if (code) std::fprintf(stderr, "child: %s\n", e.what());
    } catch (const std::exception& e) {
      std::fprintf(stderr, "child: not a kspd::Error: %s\n", e.what());
      code = 6;
    }
    std::fflush(nullptr);
    _exit(code);
  }
  std::string filter = "--gtest_filter=ReliabilityThreads.AddressSpaceLimitIsAnErrorNotTerminate";
  char self[] = "/proc/self/exe";
  char* args[] = {self, filter.data(), nullptr};
  std::vector<std::string> envs;
  for (char** e = environ; *e; ++e) envs.emplace_back(*e);
  envs.emplace_back("KSPD_RLIMIT_CHILD=1");
  // glibc keeps the stacks of exited threads (up to 40 MiB) and starts new threads on them
  // without a new mapping: with that cache off, the first factorization's stacks are gone
  // and none of the second's fits under the limit. OPENBLAS_NUM_THREADS=1 as ctest gives
  // every unit test, so that the child runs the same when the binary is started by hand.
  std::string tunables = "GLIBC_TUNABLES=glibc.pthread.stack_cache_size=0";
  for (auto it = envs.begin(); it != envs.end();)
    if (it->rfind("GLIBC_TUNABLES=", 0) == 0 || it->rfind("OPENBLAS_NUM_THREADS=", 0) == 0) {
      if (it->rfind("GLIBC_TUNABLES=", 0) == 0 && it->size() > 15) tunables += ":" + it->substr(15);
      it = envs.erase(it);
    } else {
      ++it;
    }
  envs.push_back(tunables);
  envs.emplace_back("OPENBLAS_NUM_THREADS=1");
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  pid_t pid = -1;
  ASSERT_EQ(posix_spawn(&pid, self, nullptr, nullptr, args, envp.data()), 0);
  int status = 0;
  pid_t done = 0;
  for (int tenth = 0; tenth < 1200 && done == 0; ++tenth) {  // at most 120 s
    done = waitpid(pid, &status, WNOHANG);
    if (done == 0) usleep(100000);
  }
  if (done == 0) {
    kill(pid, SIGKILL);
    waitpid(pid, &status, 0);
    FAIL() << "the child under RLIMIT_AS did not finish in 120 s";
  }
  ASSERT_EQ(done, pid);
  ASSERT_TRUE(WIFEXITED(status)) << "child killed by signal " << (WIFSIGNALED(status) ? WTERMSIG(status) : 0);
  EXPECT_EQ(WEXITSTATUS(status), 0);
}

#ifdef KSPD_ENABLE_MPI
// The distributed factorization's workers: the rank goes on with those that started.
TEST(ReliabilityThreads, DistributedWorkersDegradeOnEveryRank) {
  int level = 0;
  MPI_Query_thread(&level);
  if (level < MPI_THREAD_FUNNELED) GTEST_SKIP() << "MPI thread level below FUNNELED";
  const auto A = ks::laplacian_3d<double>(6, 6, 6);
  ks::DistributedOptions opt;
  opt.engine.threads = 5;
  ks::DistributedCholesky<double> dist(MPI_COMM_WORLD, opt);
  {
    ThreadBudget one(1);
    dist.factorize(A);
  }
  // One process is one rank: the engine factors the whole tree (no transport), with the one
  // worker that started.
  EXPECT_EQ(dist.stats().host_threads, 1);
  std::vector<double> b(size_t(A.n), 1.0), x = b;
  dist.solve(x, 1);
  EXPECT_LE(residual(A, x, b), 1e-12);
}
#endif

}  // namespace
