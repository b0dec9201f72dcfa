// Supernodal sparse Cholesky: symbolic invariants against a brute-force symbolic
// factorization, the factor against LAPACK's dense dpotrf of the permuted matrix, solves
// with many right-hand sides, refactorization, every ordering, non-SPD reporting, the
// offload path forced on versus off, the task-parallel scheduler, and argument errors.

#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>
#include <random>
#include <thread>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse.hpp"
#include "kspd_test_data.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;

/// Brute-force symbolic factorization of P A P^T: the boolean pattern of L.
std::vector<std::vector<char>> brute_pattern(const CscMatrix<double>& A, const std::vector<size_type>& perm) {
  const size_type n = A.n;
  std::vector<size_type> ip(static_cast<size_t>(n));
  for (size_type k = 0; k < n; ++k) ip[size_t(perm[size_t(k)])] = k;
  std::vector<std::vector<char>> L(static_cast<size_t>(n), std::vector<char>(size_t(n), 0));
  for (size_type j = 0; j < n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
      const size_type a = ip[size_t(A.rowind[size_t(p)])], b = ip[size_t(j)];
      L[size_t(std::max(a, b))][size_t(std::min(a, b))] = 1;
    }
  for (size_type k = 0; k < n; ++k)
    for (size_type i = k + 1; i < n; ++i)
      if (L[size_t(i)][size_t(k)])
        for (size_type j = k + 1; j <= i; ++j)
          if (L[size_t(j)][size_t(k)]) L[size_t(i)][size_t(j)] = 1;
  return L;
}

std::vector<ks::Options> all_orderings(size_type n, unsigned seed) {
  std::vector<ks::Options> v(3);
  v[0].ordering = ks::Ordering::Natural;
  v[1].ordering = ks::Ordering::Metis;
  v[2].ordering = ks::Ordering::User;
  v[2].user_permutation.resize(static_cast<size_t>(n));
  std::iota(v[2].user_permutation.begin(), v[2].user_permutation.end(), size_type(0));
  std::shuffle(v[2].user_permutation.begin(), v[2].user_permutation.end(), std::mt19937_64(seed));
  return v;
}

TEST(SparseSymbolic, InvariantsMatchBruteForce) {
  for (size_type n : {1, 2, 7, 8, 33, 64, 101})
    for (double density : {0.5, 2.0, 6.0})
      for (auto opt : all_orderings(n, unsigned(n))) {
        for (size_type maxw : {size_type(1), size_type(3), size_type(256)}) {
          opt.max_supernode = maxw;
          opt.max_trsm_rows = 5;
          const auto A = random_spd<double>(n, density, unsigned(7 * n + maxw));
          const auto S = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, opt);
          SCOPED_TRACE("n=" + std::to_string(n) + " density=" + std::to_string(density) + " ordering=" +
                       ks::to_string(opt.ordering) + " maxw=" + std::to_string(maxw));
          const auto L = brute_pattern(A, S.perm);
          size_type nnzl = 0;
          for (size_type j = 0; j < n; ++j) {
            size_type cnt = 0, par = -1;
            for (size_type i = j; i < n; ++i)
              if (L[size_t(i)][size_t(j)] || i == j) {
                ++cnt;
                if (i > j && par == -1) par = i;
              }
            nnzl += cnt;
            ASSERT_EQ(S.colcount[size_t(j)], cnt) << "column " << j;
            ASSERT_EQ(S.parent[size_t(j)], par) << "column " << j;
            if (par != -1) ASSERT_GT(par, j);
          }
          EXPECT_EQ(S.stats.nnz_l, nnzl);
          // Supernodes: contiguous, <= max width; every nonzero of L is in the row structure;
          // rows sorted; blocks cover the rows by target supernode; the value map is in range.
          size_type next = 0;
          for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
            const auto& sn = S.snodes[size_t(s)];
            ASSERT_EQ(sn.first_col, next);
            ASSERT_LE(sn.ncols, maxw);
            next += sn.ncols;
            if (sn.parent != -1) ASSERT_GT(sn.parent, s);
            ASSERT_TRUE(std::is_sorted(S.rows.begin() + sn.row_begin, S.rows.begin() + sn.row_end));
            for (size_type c = sn.first_col; c < sn.first_col + sn.ncols; ++c)
              for (size_type i = c; i < n; ++i)
                if (L[size_t(i)][size_t(c)])
                  ASSERT_TRUE(std::binary_search(S.rows.begin() + sn.row_begin, S.rows.begin() + sn.row_end, i))
                      << "L(" << i << "," << c << ") missing";
            size_type covered = 0;
            for (size_type b = sn.block_begin; b < sn.block_end; ++b) {
              const auto& blk = S.blocks[size_t(b)];
              ASSERT_EQ(blk.row_offset, covered);
              covered += blk.nrows;
              for (size_type q = blk.row_offset; q < blk.row_offset + blk.nrows; ++q)
                ASSERT_EQ(S.col_snode[size_t(S.rows[size_t(sn.row_begin + q)])], blk.target);
              if (b > sn.block_begin) ASSERT_GT(blk.target, s);
            }
            ASSERT_EQ(covered, sn.nrows());
          }
          ASSERT_EQ(next, n);
          for (auto off : S.value_map) ASSERT_TRUE(off >= 0 && off < S.nvalues);
          // Dependency counts: every task's count equals the events that can reach it.
          std::vector<int> incoming(S.tasks.size(), 0);
          for (size_type t = 0; t < size_type(S.tasks.size()); ++t) {
            const auto& task = S.tasks[size_t(t)];
            const auto& sn = S.snodes[size_t(task.snode)];
            if (task.kind == ks::Impl::TaskKind::DiagFactor) {
              for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b)
                if (S.blocks[size_t(b)].trsm_task != -1 &&
                    (b == sn.block_begin + 1 || S.blocks[size_t(b)].trsm_task != S.blocks[size_t(b - 1)].trsm_task))
                  ++incoming[size_t(S.blocks[size_t(b)].trsm_task)];
            } else if (task.kind == ks::Impl::TaskKind::Trsm) {
              for (size_type b = 1; b < task.block_end; ++b) {
                const size_type u = S.update_task[size_t(sn.block_begin + b)];
                if (S.tasks[size_t(u)].block_begin == b) ++incoming[size_t(u)];
              }
            } else {
              for (size_type b = task.block_begin; b < task.block_end; ++b)
                ++incoming[size_t(S.blocks[size_t(sn.block_begin + b)].target)];
            }
          }
          for (size_type t = 0; t < size_type(S.tasks.size()); ++t) ASSERT_EQ(incoming[size_t(t)], S.tasks[size_t(t)].ndeps);
        }
      }
}

TEST(SparseSymbolic, RelaxationTradesZerosForWiderSupernodes) {
  const auto A = random_spd<double>(400, 3.0, 11);
  ks::Options strict, relaxed;
  strict.relax.enabled = false;
  const auto S0 = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, strict);
  const auto S1 = ks::Impl::analyse({A.n, A.colptr.data(), A.rowind.data()}, relaxed);
  EXPECT_EQ(S0.stats.nnz_l, S0.stats.nnz_l_stored);  // fundamental supernodes hold no zeros
  EXPECT_EQ(S0.stats.nnz_l, S1.stats.nnz_l);
  EXPECT_GE(S1.stats.nnz_l_stored, S1.stats.nnz_l);
  EXPECT_LT(S1.stats.nsupernodes, S0.stats.nsupernodes);
}

template <class Scalar>
struct SparseCholesky : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseCholesky, ScalarTypes);

TYPED_TEST(SparseCholesky, FactorMatchesDenseLapackForEveryOrdering) {
  for (size_type n : {0, 1, 2, 7, 8, 33, 64, 127})
    for (auto opt : all_orderings(n, 3u + unsigned(n))) {
      SCOPED_TRACE("n=" + std::to_string(n) + " ordering=" + ks::to_string(opt.ordering));
      opt.max_supernode = 8;  // several supernodes per separator even when small
      check_against_dense(random_spd<TypeParam>(n, 2.5, unsigned(n)), opt, n % 2 ? 3 : 1);
    }
}

TYPED_TEST(SparseCholesky, GeneratedProblemsManyRhsAndThreads) {
  const auto A = ks::elasticity_3d<TypeParam>(5, 4, 3);
  for (int threads : {1, 2, 4})
    for (size_type maxw : {size_type(16), size_type(256)}) {
      SCOPED_TRACE("threads=" + std::to_string(threads) + " maxw=" + std::to_string(maxw));
      ks::Options opt;
      opt.threads = threads;
      opt.max_supernode = maxw;
      opt.max_trsm_rows = 20;
      check_against_dense(A, opt, 16);
    }
  check_against_dense(ks::laplacian_2d<TypeParam>(13, 10), ks::Options{}, 5);
  check_against_dense(ks::laplacian_3d<TypeParam>(6, 5, 7), ks::Options{}, 2);
}

TYPED_TEST(SparseCholesky, RefactorizationReusesTheAnalysis) {
  auto A = random_spd<TypeParam>(150, 3.0, 5);
  ks::SupernodalCholesky<TypeParam> chol;
  factor_ok(chol, A);
  const auto* before = &chol.symbolic();
  const auto nsn = chol.analysis_stats().nsupernodes;
  for (int round = 1; round <= 2; ++round) {
    for (size_type j = 0; j < A.n; ++j)  // new values: scaled off-diagonals, larger diagonal
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
        A.values[size_t(p)] = A.rowind[size_t(p)] == j ? A.values[size_t(p)] * TypeParam(1.5) + TypeParam(round)
                                                       : A.values[size_t(p)] * TypeParam(-0.7);
    factor_ok(chol, A);
    EXPECT_EQ(&chol.symbolic(), before);
    EXPECT_EQ(chol.analysis_stats().nsupernodes, nsn);
    std::vector<TypeParam> x(static_cast<size_t>(A.n));
    std::vector<double> xd(static_cast<size_t>(A.n)), b;
    for (size_type i = 0; i < A.n; ++i) xd[size_t(i)] = std::sin(double(i + round));
    b = sym_apply(A, xd);
    for (size_type i = 0; i < A.n; ++i) x[size_t(i)] = TypeParam(b[size_t(i)]);
    chol.solve(x);
    for (size_type i = 0; i < A.n; ++i) xd[size_t(i)] = double(x[size_t(i)]);
    EXPECT_LE(relative_residual(A, xd, b), kspd::test::tolerance<TypeParam>(A.n));
  }
  // A different pattern is refused with a clear error.
  auto B = random_spd<TypeParam>(150, 3.0, 6);
  EXPECT_THROW((void)chol.factorize(Kokkos::DefaultExecutionSpace(), B), kspd::InvalidArgument);
}

TYPED_TEST(SparseCholesky, NotPositiveDefiniteNamesTheOriginalColumn) {
  for (int threads : {1, 3})
    for (auto opt : all_orderings(96, 17)) {
      for (size_type bad : {size_type(0), size_type(41), size_type(95)}) {
        auto A = ks::laplacian_2d<TypeParam>(12, 8);
        for (size_type p = A.colptr[size_t(bad)]; p < A.colptr[size_t(bad + 1)]; ++p)
          if (A.rowind[size_t(p)] == bad) A.values[size_t(p)] = TypeParam(-3);
        opt.threads = threads;
        opt.offload = ks::Offload{};
        if (bad == 41) opt.offload.force_all();  // the resident potrf's info is honoured too
        if (bad == 95) {                          // and the top-of-tree one's
          opt.offload.force_all();
          opt.offload.placement = ks::Offload::Placement::TopOfTree;
        }
        ks::SupernodalCholesky<TypeParam> chol(opt);
        EXPECT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), bad + 1);  // info, not thrown
        try {
          chol.require_spd();
          ADD_FAILURE() << "no error for column " << bad;
        } catch (const kspd::NotPositiveDefinite& e) {
          EXPECT_EQ(e.column(), bad + 1) << e.what();
          EXPECT_LT(e.pivot(), 0.0) << e.what();
          EXPECT_NE(std::string(e.what()).find("column " + std::to_string(bad + 1) + " (1-based"), std::string::npos)
              << e.what();
        }
        std::vector<TypeParam> x(static_cast<size_t>(A.n));
        EXPECT_THROW(chol.solve(x), kspd::InvalidArgument);  // no factor after a failure
      }
    }
}

TYPED_TEST(SparseCholesky, OffloadForcedOnEqualsHostPath) {
  const auto A = ks::elasticity_3d<TypeParam>(4, 5, 3);
  ks::Options host_opt, dev_opt;
  host_opt.max_supernode = dev_opt.max_supernode = 24;
  dev_opt.offload.force_all();
  dev_opt.offload.placement = ks::Offload::Placement::TopOfTree;
  ks::SupernodalCholesky<TypeParam> h(host_opt), d(dev_opt);
  factor_ok(h, A);
  factor_ok(d, A);
  const auto& ds = d.factor_stats();
  EXPECT_EQ(ds.host_ops[0] + ds.host_ops[1] + ds.host_ops[2], 0);
  EXPECT_EQ(ds.device_ops[0], d.analysis_stats().nsupernodes);
  EXPECT_GT(ds.device_ops[2], 0);
  EXPECT_GT(ds.bytes_to_device, 0);
  const auto Lh = h.factor_csc(), Ld = d.factor_csc();
  ASSERT_EQ(Lh.rowind, Ld.rowind);
  double diff = 0, ref = 0;
  for (size_t p = 0; p < Lh.values.size(); ++p) {
    diff = std::max(diff, std::fabs(double(Lh.values[p]) - double(Ld.values[p])));
    ref = std::max(ref, std::fabs(double(Lh.values[p])));
  }
  EXPECT_LE(diff, 64 * kspd::test::eps<TypeParam>() * ref);  // one syrk per supernode vs per block: rounding only
  // Thresholds that put only the top of the tree on the device, by each measure alone and
  // together: host and device supernodes mix (host updates merged into device panels), and
  // every ancestor of a device supernode is a device supernode. Same factor.
  const std::int64_t combos[][3] = {{20, -1, -1}, {-1, 400, -1}, {-1, -1, 8000}, {20, 400, 8000}};
  const size_type ns = d.analysis_stats().nsupernodes;
  for (const auto& cmb : combos) {
    SCOPED_TRACE("thresholds " + std::to_string(cmb[0]) + " " + std::to_string(cmb[1]) + " " + std::to_string(cmb[2]));
    ks::Options mixed = host_opt;
    mixed.offload.placement = ks::Offload::Placement::TopOfTree;
    mixed.offload.potrf_threshold = cmb[0];
    mixed.offload.trsm_threshold = cmb[1];
    mixed.offload.update_threshold = cmb[2];
    mixed.threads = 2;
    ks::SupernodalCholesky<TypeParam> m(mixed);
    factor_ok(m, A);
    const auto& ms = m.factor_stats();
    EXPECT_GT(ms.device_ops[0], 0);
    EXPECT_EQ(ms.device_ops[0], ms.device_supernodes);
    EXPECT_GT(ms.host_ops[0], 0);
    EXPECT_EQ(ms.host_ops[0] + ms.device_ops[0], ns);
    const auto Lm = m.factor_csc();
    for (size_t p = 0; p < Lh.values.size(); ++p)
      ASSERT_NEAR(double(Lm.values[p]), double(Lh.values[p]), 64 * kspd::test::eps<TypeParam>() * ref);
  }
  // A device-memory budget too small: fall back to the host (default) or fail clearly.
  ks::Options tiny = dev_opt;
  tiny.offload.device_memory_limit = 64 * sizeof(TypeParam);
  ks::SupernodalCholesky<TypeParam> t(tiny);
  factor_ok(t, A);
  EXPECT_GT(t.factor_stats().fallbacks, 0);
  EXPECT_GT(t.factor_stats().host_ops[0], 0);
  const auto Lt = t.factor_csc();
  for (size_t p = 0; p < Lh.values.size(); ++p)
    ASSERT_NEAR(double(Lt.values[p]), double(Lh.values[p]), 64 * kspd::test::eps<TypeParam>() * ref);
  // A budget of a few panels with three workers: panels evicted and uploaded again, some
  // operations fall back, the factor is the same.
  ks::Options few = dev_opt;
  few.threads = 3;
  few.offload.device_memory_limit = 3000 * sizeof(TypeParam);
  ks::SupernodalCholesky<TypeParam> fw(few);
  factor_ok(fw, A);
  EXPECT_GT(fw.factor_stats().device_ops[0], 0);
  EXPECT_LE(fw.factor_stats().device_peak_bytes, few.offload.device_memory_limit);
  const auto Lf = fw.factor_csc();
  for (size_t p = 0; p < Lh.values.size(); ++p)
    ASSERT_NEAR(double(Lf.values[p]), double(Lh.values[p]), 64 * kspd::test::eps<TypeParam>() * ref);
  tiny.offload.fallback = ks::OffloadFallback::Fail;
  ks::SupernodalCholesky<TypeParam> f(tiny);
  EXPECT_THROW((void)f.factorize(Kokkos::DefaultExecutionSpace(), A), kspd::OutOfDeviceMemory);
}

TEST(SparseCholeskyErrors, BadArgumentsAreNamed) {
  const auto A = random_spd<double>(20, 2.0, 1);
  ks::Options opt;
  opt.ordering = ks::Ordering::User;
  opt.user_permutation = {0, 1, 2};
  ks::SupernodalCholesky<double> c1(opt);
  try {
    c1.analyze(A);
    ADD_FAILURE();
  } catch (const kspd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("user_permutation"), std::string::npos);
  }
  opt.user_permutation.assign(20, 0);
  EXPECT_THROW(ks::SupernodalCholesky<double>(opt).analyze(A), kspd::InvalidArgument);
  ks::SupernodalCholesky<double> c2;
  std::vector<double> x(20);
  EXPECT_THROW(c2.solve(x), kspd::InvalidArgument);
  factor_ok(c2, A);
  std::vector<double> y(19);
  EXPECT_THROW(c2.solve(y), kspd::DimensionMismatch);
  auto bad = A;
  bad.rowind[1] = 0;  // an upper-triangle entry in column 0's list
  bad.rowind[0] = 5;
  EXPECT_THROW(ks::SupernodalCholesky<double>().analyze(bad), kspd::InvalidArgument);
}

}  // namespace

namespace {

// Every SPD matrix of the shared collection factors and solves to a relative residual of
// at most 1e-10 in double (Metis ordering, two workers), read by kspd's own readers.
TEST(SparseCholeskyMatrices, EveryCollectionMatrixSolves) {
  const std::string dir = kspd::test::data_dir();  // records the skip (a failure under CI)
  if (dir.empty()) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().string();
    auto ends = [&](const char* s) { return f.size() >= std::strlen(s) && f.compare(f.size() - std::strlen(s), std::string::npos, s) == 0; };
    if (ends(".mtx") || ends(".mtx.gz") || ends(".rsa") || ends(".rb")) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  ASSERT_GE(files.size(), 40u) << "the collection in " << dir << " is incomplete";
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    const auto A = ks::read_matrix<double>(f);
    ks::Options opt;
    opt.threads = 2;
    ks::SupernodalCholesky<double> chol(opt);
    factor_ok(chol, A);
    std::vector<double> xs(static_cast<size_t>(A.n)), b, x(static_cast<size_t>(A.n));
    for (size_type i = 0; i < A.n; ++i) xs[size_t(i)] = 1.0 + 0.5 * std::sin(double(i));
    b = sym_apply(A, xs);
    x = b;
    chol.solve(x);
    const double res = relative_residual(A, x, b);
    EXPECT_LE(res, 1e-10) << A.name << " n=" << A.n;
    // the device-resident placement (forced) on the same matrix: same solution quality
    ks::Options dopt;
    dopt.offload.force_all();
    ks::SupernodalCholesky<double> dev(dopt);
    ASSERT_EQ(dev.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
    ASSERT_TRUE(dev.resident());
    x = b;
    dev.solve(x);
    EXPECT_LE(relative_residual(A, x, b), 1e-10) << A.name << " n=" << A.n << " (resident)";
  }
}

}  // namespace

namespace {

// The device-resident placement (every supernode on the offload space, factored by tree
// level: team kernels for the small supernodes, core's dense kernels for the large ones)
// gives the host path's factor and solution; on CPU builds the "device" is a host space.
template <class Scalar>
void check_resident(const CscMatrix<Scalar>& A, size_type maxw, size_type nrhs) {
  ks::Options host_opt, dev_opt;
  host_opt.max_supernode = dev_opt.max_supernode = maxw;
  host_opt.threads = 2;
  dev_opt.offload.force_all();
  dev_opt.offload.timeline = true;
  ks::SupernodalCholesky<Scalar> h(host_opt), d(dev_opt);
  Kokkos::DefaultExecutionSpace exec;
  ASSERT_EQ(h.factorize(exec, A), 0);
  ASSERT_EQ(d.factorize(exec, A), 0);
  ASSERT_TRUE(d.resident());
  EXPECT_GT(d.factor_stats().setup_seconds, 0.0);  // the first factorization reports the one-time setup
  EXPECT_GT(h.factor_stats().setup_seconds, 0.0);
  // a refactorization (the streams and handles already prepared) has none, and the same factor
  const auto L1 = d.factor_csc();
  ASSERT_EQ(d.factorize(exec, A), 0);
  EXPECT_EQ(d.factor_stats().setup_seconds, 0.0);
  const auto& ds = d.factor_stats();
  EXPECT_TRUE(ds.resident);
  EXPECT_GT(ds.levels, 0);
  const auto Lh = h.factor_csc(), Ld = d.factor_csc();
  ASSERT_EQ(L1.values.size(), Ld.values.size());  // (the device's atomic updates may sum in another order)
  double rdiff = 0, rref = 0;
  for (size_t p = 0; p < Ld.values.size(); ++p) {
    ASSERT_FALSE(std::isnan(double(Ld.values[p]))) << "entry " << p;
    rdiff = std::max(rdiff, std::fabs(double(L1.values[p]) - double(Ld.values[p])));
    rref = std::max(rref, std::fabs(double(L1.values[p])));
  }
  EXPECT_LE(rdiff, 64 * kspd::test::eps<Scalar>() * rref * std::sqrt(double(A.n)));
  ASSERT_EQ(Lh.rowind, Ld.rowind);
  double diff = 0, ref = 0;
  for (size_t p = 0; p < Lh.values.size(); ++p) {
    diff = std::max(diff, std::fabs(double(Lh.values[p]) - double(Ld.values[p])));
    ref = std::max(ref, std::fabs(double(Lh.values[p])));
  }
  EXPECT_LE(diff, 64 * kspd::test::eps<Scalar>() * ref * std::sqrt(double(A.n)));
  EXPECT_NEAR(d.log_determinant(exec), h.log_determinant(exec),
              1e3 * kspd::test::eps<Scalar>() * std::max(1.0, std::fabs(h.log_determinant(exec))));
  // The factor's diagonal where it lives, against the host factor's (poisoned first).
  Kokkos::View<Scalar*, Kokkos::DefaultExecutionSpace::memory_space> diag("diag", size_t(A.n));
  Kokkos::deep_copy(diag, std::numeric_limits<Scalar>::quiet_NaN());
  d.factor_diagonal(exec, diag);
  Kokkos::View<Scalar*, Kokkos::HostSpace> hdiag("hdiag", size_t(A.n));
  h.factor_diagonal(exec, hdiag);
  auto dh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), diag);
  for (size_type j = 0; j < A.n; ++j) {
    ASSERT_NEAR(double(dh(size_t(j))), double(hdiag(size_t(j))), 64 * kspd::test::eps<Scalar>() * ref * std::sqrt(double(A.n)));
    ASSERT_EQ(double(hdiag(size_t(j))), double(Lh.values[size_t(Lh.colptr[size_t(j)])]));  // first entry of column j
  }
  // Solve on the device with device Views (B and X distinct, X poisoned), many rhs.
  const size_type n = A.n;
  using Mem = Kokkos::DefaultExecutionSpace::memory_space;
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> Bh("B", size_t(n), size_t(nrhs));
  std::vector<std::vector<double>> b(static_cast<size_t>(nrhs));
  for (size_type r = 0; r < nrhs; ++r) {
    std::vector<double> x(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = std::sin(double(3 * i + r + 1));
    b[size_t(r)] = sym_apply(A, x);
    for (size_type i = 0; i < n; ++i) Bh(size_t(i), size_t(r)) = Scalar(b[size_t(r)][size_t(i)]);
  }
  auto Bd = Kokkos::create_mirror_view_and_copy(Mem(), Bh);
  Kokkos::View<Scalar**, Kokkos::LayoutRight, Mem> Xd("X", size_t(n), size_t(nrhs));
  Kokkos::deep_copy(Xd, std::numeric_limits<Scalar>::quiet_NaN());
  d.solve(exec, Bd, Xd);
  auto Xh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Xd);
  for (size_type r = 0; r < nrhs; ++r) {
    std::vector<double> x(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = double(Xh(size_t(i), size_t(r)));
    EXPECT_LE(relative_residual(A, x, b[size_t(r)]), kspd::test::tolerance<Scalar>(n)) << "rhs " << r;
  }
  // Forward then backward equals the full solve.
  Kokkos::View<Scalar**, Kokkos::LayoutLeft, Mem> Y("Y", size_t(n), size_t(nrhs));
  d.solve(exec, Bd, Y, ks::SolvePart::Forward);
  d.solve(exec, Y, Y, ks::SolvePart::Backward);
  auto Yh = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), Y);
  for (size_type i = 0; i < n; ++i)
    for (size_type r = 0; r < nrhs; ++r)
      ASSERT_NEAR(double(Yh(size_t(i), size_t(r))), double(Xh(size_t(i), size_t(r))),
                  1e3 * kspd::test::eps<Scalar>() * (1 + std::fabs(double(Xh(size_t(i), size_t(r))))));
}

// The resident placement falls back to the top of the tree when the factor does not fit
// the device budget (or fails clearly), and a pivot failing inside a level's team kernel or
// in a large supernode's vendor potrf names the same column as the host path.
TYPED_TEST(SparseCholesky, ResidentFallbackAndFailures) {
  const auto A = ks::elasticity_3d<TypeParam>(7, 6, 5);
  ks::Options opt;
  opt.max_supernode = 512;
  opt.offload.force_all();
  ks::SupernodalCholesky<TypeParam> full(opt);
  factor_ok(full, A);
  EXPECT_TRUE(full.resident());
  ks::Options small = opt;
  small.offload.device_memory_limit = std::int64_t(full.factor_stats().device_peak_bytes) - 1;
  ks::SupernodalCholesky<TypeParam> fb(small);
  factor_ok(fb, A);
  EXPECT_FALSE(fb.resident());  // top of the tree, as far as the budget allows
  EXPECT_GE(fb.factor_stats().fallbacks, 1);
  std::vector<TypeParam> x(static_cast<size_t>(A.n), TypeParam(1)), y = x;
  full.solve(x);
  fb.solve(y);
  for (size_type i = 0; i < A.n; ++i) ASSERT_NEAR(double(x[size_t(i)]), double(y[size_t(i)]), 1e3 * kspd::test::eps<TypeParam>() * (1 + std::fabs(double(x[size_t(i)]))));
  small.offload.fallback = ks::OffloadFallback::Fail;
  ks::SupernodalCholesky<TypeParam> fail(small);
  EXPECT_THROW((void)fail.factorize(Kokkos::DefaultExecutionSpace(), A), kspd::OutOfDeviceMemory);
  // Failures: a leaf column (team kernel) and the last column (the root, a large supernode).
  const auto& S = full.symbolic();
  for (size_type newcol : {size_type(0), A.n - 1}) {
    const size_type bad = S.perm[size_t(newcol)];
    auto B = A;
    for (size_type p = B.colptr[size_t(bad)]; p < B.colptr[size_t(bad + 1)]; ++p)
      if (B.rowind[size_t(p)] == bad) B.values[size_t(p)] = TypeParam(-5);
    ks::Options hopt = opt;
    hopt.offload = ks::Offload{};
    ks::SupernodalCholesky<TypeParam> h(hopt), d(opt);
    const int ih = h.factorize(Kokkos::DefaultExecutionSpace(), B), id = d.factorize(Kokkos::DefaultExecutionSpace(), B);
    EXPECT_EQ(ih, bad + 1);
    EXPECT_EQ(id, ih) << "resident and host paths name different columns";
    EXPECT_THROW(d.require_spd(), kspd::NotPositiveDefinite);
    const bool small_kernel = ks::Impl::LevelSchedule::small(S.snodes[size_t(S.col_snode[size_t(newcol)])]);
    EXPECT_EQ(small_kernel, newcol == 0) << "the two cases should cover both kernels";
  }
}

TYPED_TEST(SparseCholesky, ResidentPlacementEqualsHostPath) {
  check_resident(ks::elasticity_3d<TypeParam>(4, 5, 3), 24, 3);
  check_resident(ks::elasticity_3d<TypeParam>(7, 6, 5), 512, 1);   // large supernodes too
  check_resident(ks::laplacian_2d<TypeParam>(31, 17), 8, 2);
  check_resident(random_spd<TypeParam>(129, 3.0, 7), 16, 4);
  check_resident(random_spd<TypeParam>(1, 3.0, 7), 16, 1);
  // 8 or more right-hand sides: the tiled kernels over units of at most 64 columns (wide
  // supernodes cut into chains of units, chunks of 128 rows, partial tiles of 32 rhs)
  check_resident(ks::elasticity_3d<TypeParam>(7, 6, 5), 512, 8);
  check_resident(ks::elasticity_3d<TypeParam>(10, 9, 8), 512, 33);
  check_resident(ks::laplacian_2d<TypeParam>(31, 17), 8, 64);
}

}  // namespace
