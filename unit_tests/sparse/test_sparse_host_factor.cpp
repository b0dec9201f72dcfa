// The host factorization's task bodies at 1, 2 and 3 workers, in float and double, against
// LAPACK's dense dpotrf: updates computed and scattered in row chunks, panels zeroed and
// assembled by the workers (also after a failed factorization), a failing pivot inside a
// chain of a split separator; and the schedule replay against an independent longest path.

#include <gtest/gtest.h>

#include <functional>
#include <random>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse.hpp"
#include "kspd_sparse_schedule_sim.hpp"
#include "kspd_test_data.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;

template <class Scalar>
struct SparseHostFactor : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseHostFactor, ScalarTypes);

/// Generated problems, odd and even n.
template <class Scalar>
std::vector<ks::CscMatrix<Scalar>> problems() {
  return {ks::elasticity_3d<Scalar>(7, 6, 5),   // n = 630
          ks::laplacian_3d<Scalar>(9, 8, 7),    // n = 504
          ks::elasticity_3d<Scalar>(3, 3, 3)};  // n = 81
}

/// A copy of A with another diagonal and off-diagonals (still SPD): what a second
/// factorization of the same solver sees.
template <class Scalar>
ks::CscMatrix<Scalar> other_values(ks::CscMatrix<Scalar> A) {
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
      A.values[size_t(p)] = A.rowind[size_t(p)] == j ? A.values[size_t(p)] * Scalar(2) : A.values[size_t(p)] * Scalar(0.5);
  return A;
}

// The workers assemble the panels as they reach them; with narrow and wide supernodes and
// 1-3 workers the factor must match dpotrf on every refactorization (a panel that was not
// zeroed again would keep the last factorization's values).
TYPED_TEST(SparseHostFactor, LazilyAssembledPanelsMatchDenseLapack) {
  for (const auto& A : problems<TypeParam>())
    for (int threads : {1, 2, 3})
      for (size_type maxw : {size_type(6), size_type(16), size_type(256)}) {
        SCOPED_TRACE(A.name + " n=" + std::to_string(A.n) + " threads=" + std::to_string(threads) +
                     " max_supernode=" + std::to_string(maxw));
        ks::Options opt;
        opt.threads = threads;
        opt.max_supernode = maxw;
        ks::SupernodalCholesky<TypeParam> chol(opt);
        factor_ok(chol, other_values(A));
        check_factor_against_dense(chol, A, threads == 2 ? 3 : 1);
      }
}

// The updates' products are computed and scattered in row chunks of C (to keep C in cache):
// chunks of 1-7 rows put chunk edges inside the diagonal blocks, inside the off-diagonal
// blocks and between them; the factor must still match dpotrf, at 1-3 workers.
TYPED_TEST(SparseHostFactor, UpdatesInRowChunksMatchDenseLapack) {
  auto& chunking = ks::Impl::update_chunking();
  const ks::Impl::UpdateChunking saved = chunking;
  for (size_type rows : {size_type(1), size_type(4), size_type(7)})
    for (int threads : {1, 2, 3}) {
      SCOPED_TRACE("chunk rows " + std::to_string(rows) + " threads=" + std::to_string(threads));
      chunking.bytes = 1;
      chunking.min_rows = rows;
      for (const auto& A : problems<TypeParam>()) {
        ks::Options opt;
        opt.threads = threads;
        opt.max_supernode = 16;
        ks::SupernodalCholesky<TypeParam> chol(opt);
        check_factor_against_dense(chol, A, threads);
      }
    }
  chunking = saved;
}

// A pivot that fails inside a chain of the top separator (max_supernode 6 splits it) is
// reported at its original 1-based column; the next factorization of good values on the
// same solver then matches dpotrf (the panels the failed run never reached were assembled).
TYPED_TEST(SparseHostFactor, FailingPivotInAChainThenGoodValues) {
  const auto A = ks::elasticity_3d<TypeParam>(4, 4, 3);  // n = 144
  for (int threads : {1, 2, 3}) {
    ks::Options opt;
    opt.threads = threads;
    opt.max_supernode = 6;
    ks::SupernodalCholesky<TypeParam> chol(opt);
    chol.analyze(A);
    const auto& S = chol.symbolic();
    const size_type top = size_type(S.snodes.size()) - 1;
    ASSERT_EQ(S.snodes[size_t(top)].parent, -1);
    ASSERT_GE(S.snodes[size_t(top - 1)].parent, 0);
    // a middle column of the chain link below the root (the root's child in the chain)
    const auto& link = S.snodes[size_t(top - 1)];
    for (size_type k : {link.first_col + link.ncols / 2, size_type(A.n - 1)}) {
      const size_type bad = chol.permutation()[size_t(k)];  // its original column
      SCOPED_TRACE("threads=" + std::to_string(threads) + " bad column " + std::to_string(bad));
      auto B = A;
      for (size_type p = B.colptr[size_t(bad)]; p < B.colptr[size_t(bad + 1)]; ++p)
        if (B.rowind[size_t(p)] == bad) B.values[size_t(p)] = TypeParam(-1);
      EXPECT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), B), bad + 1);
      try {
        chol.require_spd();
        ADD_FAILURE() << "no error";
      } catch (const kspd::NotPositiveDefinite& e) {
        EXPECT_EQ(e.column(), bad + 1) << e.what();
      }
      check_factor_against_dense(chol, A, 2);
    }
  }
}

// The collection's matrices up to n = 1200 at 1 and 3 workers (the existing collection test
// runs 2) in double and, where the conditioning allows a float factor to match dpotrf's,
// float; the factor against dpotrf where cond_1(A) eps(Scalar) stays below ~1e-10 (the
// entries of L move by about that much between two correct factorizations).
TEST(SparseHostFactorCollection, FactorMatchesDenseLapackAtOneAndThreeWorkers) {
  const std::string dir = kspd::test::data_dir();  // records the skip (a failure under CI)
  if (dir.empty()) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory";
  int checked_double = 0, checked_float = 0;
  for_each_collection_matrix(dir, 1200, [&](const ks::CscMatrix<double>& A) {
    const double cond = condition_estimate(A);
    for (int threads : {1, 3}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " cond_1 ~ " + std::to_string(cond));
      ks::Options opt;
      opt.threads = threads;
      if (cond < 1e6) {
        check_against_dense(A, opt, 1);
        ++checked_double;
      }
      if (cond < 1e2) {
        check_against_dense(ks::cast_values<float>(A), opt, 1);
        ++checked_float;
      }
    }
  });
  EXPECT_GE(checked_double, 6) << "too few well-conditioned matrices in the collection";
  EXPECT_GE(checked_float, 2);
}

/// The longest path through S's task graph with task t taking d[t], from the graph's
/// definition (Symbolic's comments), not the scheduler's counters: a TRSM task waits for its
/// supernode's potrf, an Update task for every TRSM task from its first block down, a potrf
/// for every Update task with a block targeting its supernode.
double longest_path(const ks::Impl::Symbolic& S, const std::vector<double>& d) {
  const size_type nt = size_type(S.tasks.size()), ns = size_type(S.snodes.size());
  std::vector<std::vector<size_type>> pred(static_cast<size_t>(nt));
  for (size_type t = ns; t < nt; ++t) {
    const auto& task = S.tasks[size_t(t)];
    const auto& sn = S.snodes[size_t(task.snode)];
    if (task.kind == ks::Impl::TaskKind::Trsm) {
      pred[size_t(t)].push_back(task.snode);
    } else {
      for (size_type b = sn.block_begin + task.block_begin; b < sn.block_end; ++b) {
        const size_type tr = S.blocks[size_t(b)].trsm_task;
        if (pred[size_t(t)].empty() || pred[size_t(t)].back() != tr) pred[size_t(t)].push_back(tr);
      }
      for (size_type b = sn.block_begin + task.block_begin; b < sn.block_begin + task.block_end; ++b)
        pred[size_t(S.blocks[size_t(b)].target)].push_back(t);
    }
  }
  std::vector<double> end(static_cast<size_t>(nt), -1);
  std::function<double(size_type)> finish = [&](size_type t) {
    if (end[size_t(t)] >= 0) return end[size_t(t)];
    double start = 0;
    for (size_type p : pred[size_t(t)]) start = std::max(start, finish(p));
    return end[size_t(t)] = start + d[size_t(t)];
  };
  double path = 0;
  for (size_type t = 0; t < nt; ++t) path = std::max(path, finish(t));
  return path;
}

TEST(SparseScheduleSim, ReplayBoundsAndCriticalPath) {
  for (size_type maxw : {size_type(8), size_type(256)}) {
    const auto A = ks::elasticity_3d<double>(5, 4, 4);
    ks::Options opt;
    opt.max_supernode = maxw;
    const auto S = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, opt);
    std::mt19937_64 rng(42 + maxw);
    std::uniform_real_distribution<double> u(0.5, 1.5);
    std::vector<double> d(S.tasks.size());
    double work = 0;
    for (double& x : d) work += (x = u(rng));
    const double path = longest_path(S, d);
    const auto one = ks::Impl::simulate_schedule(S, d, 1);
    EXPECT_NEAR(one.makespan, work, 1e-9 * work);
    EXPECT_NEAR(one.idle(), 0.0, 1e-12);
    const auto all = ks::Impl::simulate_schedule(S, d, int(S.tasks.size()));
    EXPECT_NEAR(all.makespan, path, 1e-9 * path);
    for (int p : {2, 3}) {  // list scheduling: at least work / p and the path, at most their sum
      const auto r = ks::Impl::simulate_schedule(S, d, p);
      EXPECT_GE(r.makespan, std::max(work / p, path) * (1 - 1e-12));
      EXPECT_LE(r.makespan, (work / p + path) * (1 + 1e-12));
      EXPECT_NEAR(r.work, work, 1e-9 * work);
    }
  }
}

}  // namespace
