// The host task scheduler (kspd_sparse_scheduler.hpp): a broken dependency count is an
// error, not a hang; the idle counters say where the workers waited.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <vector>

#include "kspd_sparse.hpp"
#include "sparse_test_helpers.hpp"

namespace {
using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;
}  // namespace

namespace {

// A broken dependency count makes the scheduler stop with an error instead of hanging,
// with one worker and with several; the progress callback reports every supernode.
TEST(SparseScheduler, StallIsAnErrorAndProgressIsReported) {
  const auto A = random_spd<double>(120, 3.0, 21);
  auto S = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, ks::Options{});
  ASSERT_GT(S.snodes.size(), 2u);
  for (int threads : {1, 3}) {
    auto broken = S;
    ++broken.tasks[broken.tasks.size() / 2].ndeps;
    ks::Impl::Scheduler sched(broken);
    size_type ran = 0;
    EXPECT_THROW(sched.run(threads, [&](size_type, int) { ++ran; }, [](size_type) {}), kspd::Error);
    EXPECT_LT(ran, size_type(broken.tasks.size()));
    ks::Impl::Scheduler ok(S);
    std::atomic<size_type> all{0};
    ok.run(threads, [&](size_type, int) { ++all; }, [](size_type) {});
    EXPECT_EQ(all.load(), size_type(S.tasks.size()));
  }
  ks::Options opt;
  opt.progress_interval = 0;
  size_type calls = 0, last = 0;
  opt.progress = [&](size_type done, size_type total, double) {
    ++calls;
    EXPECT_GT(done, last);
    EXPECT_EQ(total, size_type(S.snodes.size()));
    last = done;
  };
  ks::SupernodalCholesky<double> chol(opt);
  factor_ok(chol, A);
  EXPECT_EQ(calls, size_type(S.snodes.size()));
  EXPECT_EQ(last, size_type(S.snodes.size()));
}

// Where the workers were when not in a task (the timeline's idle counters). A tridiagonal
// matrix in natural order with 1-column supernodes is a chain: one task is ready at a time,
// so every worker but one waits (sleeps), and one worker never does. Each worker's time is
// its tasks plus before / between / after them: those three and the tasks' own time add
// up to at most workers x wall.
TEST(SparseScheduler, IdleStatsSayWhereTheWorkersWaited) {
  const auto A = ks::laplacian_2d<double>(25, 1);
  ks::Options opt;
  opt.ordering = ks::Ordering::Natural;
  opt.relax.enabled = false;
  opt.max_supernode = 1;
  const auto S = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, opt);
  ASSERT_EQ(S.snodes.size(), size_t(A.n));
  using clock = std::chrono::steady_clock;
  for (int threads : {1, 2, 3, 4}) {
    SCOPED_TRACE("threads=" + std::to_string(threads));
    ks::Impl::Scheduler sched(S);
    std::atomic<size_type> ran{0};
    std::atomic<std::int64_t> task_ns{0};
    auto task = [&](size_type, int) {
      const auto b = clock::now();
      std::this_thread::sleep_for(std::chrono::microseconds(1500));
      ++ran;
      task_ns += std::chrono::duration_cast<std::chrono::nanoseconds>(clock::now() - b).count();
    };
    const auto t0 = clock::now();
    const int used = sched.run(threads, task, [](size_type) {});
    const double wall = std::chrono::duration<double>(clock::now() - t0).count();
    EXPECT_EQ(used, threads);
    EXPECT_EQ(ran.load(), size_type(S.tasks.size()));
    const auto& st = sched.idle_stats();
    if (threads == 1) {
      EXPECT_EQ(st.sleeps, 0);
      EXPECT_EQ(st.sleep_seconds, 0.0);
    } else {
      EXPECT_GE(st.sleeps, threads - 1);
      EXPECT_GT(st.sleep_seconds, 0.0);
    }
    EXPECT_GE(st.wake_latency, 0.0);
    EXPECT_LE(st.wake_latency, st.sleep_seconds);
    EXPECT_LE(st.sleep_seconds, st.between_seconds + st.start_seconds + st.end_seconds);
    for (double x : {st.start_seconds, st.between_seconds, st.end_seconds}) EXPECT_GE(x, 0.0);
    const double accounted = st.start_seconds + st.between_seconds + st.end_seconds + double(task_ns.load()) * 1e-9;
    EXPECT_LE(accounted, used * wall * (1 + 1e-9) + 1e-6);
    EXPECT_GE(accounted, 0.5 * used * wall);  // the workers live from the start to the end of the run
  }
}

}  // namespace
