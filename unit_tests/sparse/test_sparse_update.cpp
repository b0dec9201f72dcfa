// Rank-k update and downdate of the supernodal factor (SupernodalCholesky::update): the
// modified factor against a fresh factorization of A +/- W W^T on the same analysis (every
// entry of L), the solve's residual against A +/- W W^T, every placement (host workers,
// device-resident, top of tree), k = 1, 5, 16, 33, 63, 64, odd and even n, float and double,
// generated problems and matrices of ../shared/data, the resident update's wide panels
// (kspd_sparse_update_wide.hpp) through a test hook; a downdate that is not positive
// definite against factorize's info; W outside L's pattern and bad W named.

#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_test_data.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;
using Exec = Kokkos::DefaultExecutionSpace;

/// k random columns of `per_col` distinct random rows each, values in [-scale, scale].
template <class Scalar>
ks::SparseColumns<Scalar> random_w(size_type n, size_type k, size_type per_col, double scale, unsigned seed) {
  std::mt19937_64 gen(seed);
  std::uniform_int_distribution<size_type> row(0, n - 1);
  std::uniform_real_distribution<double> val(-scale, scale);
  ks::SparseColumns<Scalar> W;
  W.nrows = n;
  for (size_type j = 0; j < k; ++j) {
    std::vector<size_type> r;
    while (size_type(r.size()) < std::min(per_col, n)) {
      const size_type i = row(gen);
      if (std::find(r.begin(), r.end(), i) == r.end()) r.push_back(i);
    }
    std::sort(r.begin(), r.end());
    for (size_type i : r) {
      W.rowind.push_back(i);
      W.values.push_back(Scalar(val(gen)));
    }
    W.colptr.push_back(size_type(W.rowind.size()));
  }
  return W;
}

/// A +/- W W^T (lower triangle) on the union of A's pattern and W W^T's; with sign 0, A
/// itself on that pattern (explicit zeros where only W W^T has entries).
template <class Scalar>
ks::CscMatrix<Scalar> modified(const ks::CscMatrix<Scalar>& A, const ks::SparseColumns<Scalar>& W, int sign) {
  std::vector<std::map<size_type, double>> cols(static_cast<size_t>(A.n));
  for (size_type j = 0; j < A.n; ++j)
    for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
      cols[size_t(j)][A.rowind[size_t(p)]] = double(A.values[size_t(p)]);
  for (size_type c = 0; c < W.ncols(); ++c)
    for (size_type p = W.colptr[size_t(c)]; p < W.colptr[size_t(c + 1)]; ++p)
      for (size_type q = W.colptr[size_t(c)]; q <= p; ++q)  // rows sorted: rowind[p] >= rowind[q]
        cols[size_t(W.rowind[size_t(q)])][W.rowind[size_t(p)]] +=
            double(sign) * double(W.values[size_t(p)]) * double(W.values[size_t(q)]);
  ks::CscMatrix<Scalar> B;
  B.n = A.n;
  B.colptr.push_back(0);
  for (auto& col : cols) {
    for (auto& [i, v] : col) {
      B.rowind.push_back(i);
      B.values.push_back(Scalar(v));
    }
    B.colptr.push_back(size_type(B.rowind.size()));
  }
  return B;
}

ks::Options placement(int which) {
  ks::Options opt;
  opt.threads = 2;
  if (which >= 1) opt.offload.force_all();  // 1: device-resident
  if (which == 2) opt.offload.placement = ks::Offload::Placement::TopOfTree;
  return opt;
}
const char* placement_name(int which) { return which == 0 ? "host" : which == 1 ? "resident" : "top-of-tree"; }

template <class Scalar>
double max_abs(const ks::CscMatrix<Scalar>& L) {
  double m = 0;
  for (auto v : L.values) m = std::max(m, std::fabs(double(v)));
  return m;
}

/// max |L1 - L2| / max |L2| over every stored entry (same analysis, so the same pattern).
template <class Scalar>
double factor_diff(const ks::CscMatrix<Scalar>& L1, const ks::CscMatrix<Scalar>& L2) {
  EXPECT_EQ(L1.rowind, L2.rowind);
  double d = 0;
  for (size_t p = 0; p < L1.values.size(); ++p)
    d = std::max(d, std::fabs(double(L1.values[p]) - double(L2.values[p])));
  return d / max_abs(L2);
}

/// ||B x - b|| / (||B|| ||x|| + ||b||) for the solve of the modified factor, X poisoned.
template <class Scalar>
double solve_residual(const ks::SupernodalCholesky<Scalar>& chol, const ks::CscMatrix<Scalar>& B, unsigned seed) {
  const size_type n = B.n;
  std::mt19937_64 gen(seed);
  std::uniform_real_distribution<double> d(-1, 1);
  Kokkos::View<Scalar*, Kokkos::HostSpace> b("b", size_t(n)), x("x", size_t(n));
  for (size_type i = 0; i < n; ++i) b(i) = Scalar(d(gen)), x(i) = kspd::test::poison<Scalar>();
  chol.solve(Exec(), b, x);
  std::vector<double> xd(static_cast<size_t>(n)), bd(static_cast<size_t>(n));
  for (size_type i = 0; i < n; ++i) xd[size_t(i)] = double(x(i)), bd[size_t(i)] = double(b(i));
  const std::vector<double> r = sym_apply(B, xd);
  double rn = 0;
  for (size_type i = 0; i < n; ++i) rn += (r[size_t(i)] - bd[size_t(i)]) * (r[size_t(i)] - bd[size_t(i)]);
  return std::sqrt(rn) / (norm_fro(B) * norm2(xd) + norm2(bd));
}

/// Update A -> A + W W^T and downdate back, each against a fresh factorization.
template <class Scalar>
void check_update(const ks::CscMatrix<Scalar>& A0, size_type k, size_type per_col, int where, unsigned seed) {
  SCOPED_TRACE(A0.name + " n=" + std::to_string(A0.n) + " k=" + std::to_string(k) + " " + placement_name(where));
  const auto W = random_w<Scalar>(A0.n, k, per_col, 1.0, seed);
  const auto A = modified(A0, W, 0), Ap = modified(A0, W, +1);
  ks::SupernodalCholesky<Scalar> chol(placement(where));
  chol.analyze(A);
  const double tol = kspd::test::tolerance<Scalar>(A.n, 50.0);
  // update
  ASSERT_EQ(chol.factorize(Exec(), A), 0);
  ASSERT_EQ(chol.resident(), where == 1);
  ASSERT_EQ(chol.update(Exec(), W, ks::Sign::Plus), 0);
  const auto L_upd = chol.factor_csc();
  EXPECT_LE(solve_residual(chol, Ap, seed + 1), tol) << "update: solve";
  ASSERT_EQ(chol.factorize(Exec(), Ap), 0);
  const auto L_ap = chol.factor_csc();
  EXPECT_LE(factor_diff(L_upd, L_ap), tol) << "update: factor";
  // downdate of the fresh factor of A + W W^T: back to A
  ASSERT_EQ(chol.update(Exec(), W, ks::Sign::Minus), 0);
  const auto L_down = chol.factor_csc();
  EXPECT_LE(solve_residual(chol, A, seed + 2), tol) << "downdate: solve";
  ASSERT_EQ(chol.factorize(Exec(), A), 0);
  EXPECT_LE(factor_diff(L_down, chol.factor_csc()), tol) << "downdate: factor";
}

template <class Scalar>
struct SparseUpdate : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseUpdate, ScalarTypes);

TYPED_TEST(SparseUpdate, MatchesAFreshFactorizationEveryRankAndPlacement) {
  const std::vector<ks::CscMatrix<TypeParam>> problems = {
      ks::laplacian_3d<TypeParam>(5, 5, 5),        // n = 125
      ks::elasticity_3d<TypeParam>(3, 4, 3),       // n = 108
      random_spd<TypeParam>(201, 3.0, 7),          // n = 201
  };
  unsigned seed = 11;
  for (const auto& A : problems)
    for (size_type k : {1, 5, 16, 33, 64})
      for (int where : {0, 1, 2}) check_update(A, k, k >= 33 ? 2 : 3, where, seed++);
}

TYPED_TEST(SparseUpdate, LargerSupernodesManyPanels) {
  // supernodes wider than the 32-column panel of the modification, rows below them
  auto A = ks::laplacian_3d<TypeParam>(10, 9, 8);  // n = 720
  check_update(A, 16, 4, 0, 101);
  check_update(A, 16, 4, 1, 102);
}

TYPED_TEST(SparseUpdate, BatchedPanelWidths) {
  // the resident update with panels narrower and wider than its 32 columns (then a panel's
  // rows are more than the 32-row chunk of the rows below) and not a power of two, down to
  // panels of one column; k below, above and not a multiple of the 32 lanes that run the
  // panel's chains on a device (a lane per column of Z: two columns on some lanes at k = 33);
  // update_panel_width_hook is perf_sparse_update's diagnostic
  struct Restore {
    ~Restore() { ks::Impl::update_panel_width_hook() = 0; }
  } restore;
  const auto A = ks::laplacian_3d<TypeParam>(10, 9, 8);  // n = 720, supernodes up to 90 columns
  unsigned seed = 401;
  for (int nb : {1, 8, 31, 48, 64})
    for (size_type k : {5, 16, 33, 64}) {
      SCOPED_TRACE("panel width " + std::to_string(nb));
      ks::Impl::update_panel_width_hook() = nb;
      check_update(A, k, 3, 1, seed++);
    }
}

/// Sets update_wide_hook (the resident update's wide panels) for a scope.
struct WideHook {
  explicit WideHook(int threshold, int alone, int width) { ks::Impl::update_wide_hook() = {threshold, alone, width}; }
  ~WideHook() { ks::Impl::update_wide_hook() = {}; }
};

TYPED_TEST(SparseUpdate, WidePanelsEveryWidthAndRank) {
  // the resident update with every path supernode of at least 1 or 24 columns on wide panels
  // (core's trsm / syrk / potrf / gemm / trmm, kspd_sparse_update_wide.hpp), panels of one
  // column, odd and even widths, one panel or several per supernode, wider than any supernode;
  // k = 1 .. 64; the others (below 24 columns) on the batched launches in the same update
  const auto A = ks::laplacian_3d<TypeParam>(10, 9, 8);  // n = 720, supernodes up to 90 columns
  unsigned seed = 501;
  for (int threshold : {1, 24})
    for (int width : {1, 7, 16, 33, 128})
      for (size_type k : {1, 16, 33, 64}) {
        if (width == 1 && k > 16) continue;  // (720 one-column panels: slow on one host thread)
        SCOPED_TRACE("wide from " + std::to_string(threshold) + " columns, width " + std::to_string(width));
        WideHook hook(threshold, 1000, width);
        check_update(A, k, 3, 1, seed++);
      }
}

TYPED_TEST(SparseUpdate, WideAndBatchedSupernodesInOneUpdate) {
  // 3-D elasticity 14^3: 256-column supernodes; the default choice (at least 128 columns, at
  // most 2 path supernodes in their launches, panels of 256) takes some, not all, of the path
  const auto A0 = ks::elasticity_3d<TypeParam>(14, 14, 14);  // n = 8232
  for (int width : {0, 100}) {
    SCOPED_TRACE("width " + std::to_string(width));
    WideHook hook(0, 2, width);  // the hook set: host spaces take the wide path too
    const auto W = random_w<TypeParam>(A0.n, 16, 3, 1.0, 611);
    ks::SupernodalCholesky<TypeParam> probe(placement(1));
    probe.analyze(modified(A0, W, 0));
    const auto plan = ks::Impl::plan_update(probe.symbolic(), W, "test", false);
    const auto wide = ks::Impl::update_wide_choice<Exec>(probe.symbolic(), plan, ks::Impl::update_panel_width(plan.k, true));
    const auto nwide = std::count(wide.begin(), wide.end(), 1);
    EXPECT_GT(nwide, 0);
    EXPECT_LT(size_t(nwide), wide.size());
    check_update(A0, 16, 3, 1, 611);
  }
}

TYPED_TEST(SparseUpdate, RowsBelowLargeSupernodesOnSeveralThreads) {
  // 256-column supernodes with 300+ rows below: those rows are split among host threads
  const auto A = ks::elasticity_3d<TypeParam>(14, 14, 14);  // n = 8232
  check_update(A, 16, 3, 0, 201);                            // two workers
  check_update(A, 16, 3, 1, 203);  // resident: the root's many panels, rows in many chunks
  const auto W = random_w<TypeParam>(A.n, 16, 3, 1.0, 202);
  const auto Au = modified(A, W, 0);
  ks::SupernodalCholesky<TypeParam> chol(placement(0));  // one analysis: the same ordering
  std::vector<ks::CscMatrix<TypeParam>> L;
  for (int t : {1, 4}) {  // 4: more threads than cores, the pieces still add up
    ASSERT_EQ(chol.factorize(Exec(), Au), 0);
    chol.options().threads = t;
    ASSERT_EQ(chol.update(Exec(), W, ks::Sign::Plus), 0);
    L.push_back(chol.factor_csc());
  }
  EXPECT_LE(factor_diff(L[1], L[0]), kspd::test::tolerance<TypeParam>(A.n, 50.0));
}

TYPED_TEST(SparseUpdate, RefusedThreadsLeaveTheWorkToTheOthers) {
  // the update's host threads start once per call; when the system refuses some (the test
  // hook: budget 1 lets one more start, 0 none), the started ones and the caller do all the
  // work: each result is the fresh factor of A + W W^T
  const auto A0 = ks::elasticity_3d<TypeParam>(12, 11, 10);  // n = 3960
  const auto W = random_w<TypeParam>(A0.n, 16, 3, 1.0, 404);
  const auto A = modified(A0, W, 0), Ap = modified(A0, W, +1);
  ks::SupernodalCholesky<TypeParam> chol(placement(0));
  chol.analyze(A);
  ASSERT_EQ(chol.factorize(Exec(), Ap), 0);
  const auto L_ap = chol.factor_csc();
  for (int budget : {-1, 1, 0}) {
    SCOPED_TRACE("thread budget " + std::to_string(budget));
    ASSERT_EQ(chol.factorize(Exec(), A), 0);
    chol.options().threads = 4;
    kspd::Impl::thread_start_budget() = budget;
    const int info = chol.update(Exec(), W, ks::Sign::Plus);
    kspd::Impl::thread_start_budget() = -1;
    ASSERT_EQ(info, 0);
    EXPECT_LE(factor_diff(chol.factor_csc(), L_ap), kspd::test::tolerance<TypeParam>(A.n, 50.0));
    EXPECT_LE(solve_residual(chol, Ap, 405), kspd::test::tolerance<TypeParam>(A.n, 50.0));
  }
}

TYPED_TEST(SparseUpdate, ManyBranchesPerLevel) {
  // 63 and 64 columns of one entry each start in leaves all over the tree: the levels of
  // the path hold many supernodes, run concurrently (host workers; one launch per level
  // and panel index on exec)
  const auto A = ks::laplacian_3d<TypeParam>(12, 11, 10);  // n = 1320
  for (size_type k : {63, 64}) {
    const auto W = random_w<TypeParam>(A.n, k, 1, 1.0, 300 + unsigned(k));
    ks::SupernodalCholesky<TypeParam> probe(placement(0));
    probe.analyze(modified(A, W, 0));
    const auto plan = ks::Impl::plan_update(probe.symbolic(), W, "test");
    size_type widest = 0;
    for (size_type l = 0; l < plan.levels(); ++l) widest = std::max(widest, plan.level_begin[size_t(l + 1)] - plan.level_begin[size_t(l)]);
    EXPECT_GE(widest, 8) << "the test's W should start in many branches";
    for (int where : {0, 1}) check_update(A, k, 1, where, 300 + unsigned(k));
  }
}

TYPED_TEST(SparseUpdate, DenseWEqualsSparseW) {
  const auto A0 = ks::laplacian_3d<TypeParam>(4, 5, 6);
  const auto W = random_w<TypeParam>(A0.n, 5, 3, 1.0, 5);
  const auto A = modified(A0, W, 0);
  Kokkos::View<TypeParam**, Kokkos::LayoutLeft, Kokkos::HostSpace> Wd("W", size_t(A.n), 5);
  for (size_type j = 0; j < 5; ++j)
    for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p) Wd(W.rowind[size_t(p)], j) = W.values[size_t(p)];
  ks::Options one = placement(0);
  one.threads = 1;  // two workers sum updates in either order: the factors could differ in the last bit
  ks::SupernodalCholesky<TypeParam> s(one), d(one);
  ASSERT_EQ(s.factorize(Exec(), A), 0);
  ASSERT_EQ(d.factorize(Exec(), A), 0);
  ASSERT_EQ(s.update(Exec(), W, ks::Sign::Plus), 0);
  ASSERT_EQ(d.update(Exec(), Wd, ks::Sign::Plus), 0);
  EXPECT_EQ(s.factor_csc().values, d.factor_csc().values);
}

// A downdate that leaves A - W W^T indefinite: info is the column factorize(A - W W^T)
// reports, the factor is unusable afterwards, require_spd throws.
TYPED_TEST(SparseUpdate, DowndateLosingDefinitenessReportsTheColumn) {
  for (int where : {0, 1}) {
    for (unsigned seed : {1u, 2u, 3u}) {
      SCOPED_TRACE(std::string(placement_name(where)) + " seed " + std::to_string(seed));
      const auto A0 = ks::laplacian_3d<TypeParam>(6, 5, 4);  // diagonal 6, n = 120
      // k = 5 columns; one of them large enough (entries up to 4: 16 > 6) to break A
      auto W = random_w<TypeParam>(A0.n, 5, 3, 0.5, 40 + seed);
      W.values[size_t(W.colptr[2])] = TypeParam(2.6 + seed);
      const auto A = modified(A0, W, 0), Am = modified(A0, W, -1);
      ks::SupernodalCholesky<TypeParam> chol(placement(where));
      chol.analyze(A);
      const int expect = chol.factorize(Exec(), Am);
      ASSERT_GT(expect, 0) << "the test's A - W W^T should be indefinite";
      ASSERT_EQ(chol.factorize(Exec(), A), 0);
      const int info = chol.update(Exec(), W, ks::Sign::Minus);
      EXPECT_EQ(info, expect);
      EXPECT_THROW(chol.require_spd(), kspd::NotPositiveDefinite);
      std::vector<TypeParam> b(size_t(A.n), 1);
      EXPECT_THROW(chol.solve(b), kspd::InvalidArgument);
      EXPECT_THROW((void)chol.update(Exec(), W, ks::Sign::Plus), kspd::InvalidArgument);
      ASSERT_EQ(chol.factorize(Exec(), A), 0);  // usable again after factorize
    }
  }
}

TYPED_TEST(SparseUpdate, DowndateFailingInsideAWidePanel) {
  // the downdate breaks at column j of the root supernode (90 columns), on wide panels of 16
  // columns: j inside a panel (not its first column), at a panel's first column, the last
  // column; info is the column factorize(A - W W^T) reports
  const auto A0 = ks::laplacian_3d<TypeParam>(10, 9, 8);  // diagonal 6, n = 720
  WideHook hook(1, 1000, 16);
  ks::SupernodalCholesky<TypeParam> probe(placement(1));
  probe.analyze(A0);
  const auto& S = probe.symbolic();
  const auto& root = S.snodes.back();
  ASSERT_GE(root.ncols, 48);
  for (size_type j : {size_type(5), size_type(16), size_type(37), root.ncols - 1}) {
    SCOPED_TRACE("column " + std::to_string(j) + " of the root supernode");
    auto W = random_w<TypeParam>(A0.n, 3, 1, 0.5, 700 + unsigned(j));  // one entry a column: A's pattern, its analysis
    const size_type r = S.perm[size_t(root.first_col + j)];  // that column's row of A
    W.rowind.push_back(r);  // a fourth column: 3 e_r (9 > 6, the diagonal)
    W.values.push_back(TypeParam(3));
    W.colptr.push_back(size_type(W.rowind.size()));
    const auto A = modified(A0, W, 0), Am = modified(A0, W, -1);
    ks::SupernodalCholesky<TypeParam> chol(placement(1));
    chol.analyze(A);
    const int expect = chol.factorize(Exec(), Am);
    ASSERT_GT(expect, 0) << "the test's A - W W^T should be indefinite";
    ASSERT_EQ(chol.factorize(Exec(), A), 0);
    EXPECT_EQ(chol.update(Exec(), W, ks::Sign::Minus), expect);
    EXPECT_THROW(chol.require_spd(), kspd::NotPositiveDefinite);
  }
}

TEST(SparseUpdateInternals, IndexSplitIsExactOnItsRange) {
  // the panels' loops split t = q n + r by a float product: every t < 2^14, n <= 128
  long bad = 0;
  for (int n = 1; n <= 128; ++n)
    for (int t = 0; t < (1 << 14); ++t) {
      int q = -1, r = -1;
      ks::Impl::index_split(t, n, q, r);
      bad += q != t / n || r != t % n;
    }
  EXPECT_EQ(bad, 0);
}

TEST(SparseUpdateErrors, OutsideThePatternAndBadWAreNamed) {
  const auto A = ks::laplacian_3d<double>(6, 6, 6);
  ks::SupernodalCholesky<double> chol(placement(0));
  ks::SparseColumns<double> W;
  W.nrows = A.n;
  W.rowind = {0, A.n - 1};
  W.values = {1.0, 1.0};
  W.colptr = {0, 2};
  EXPECT_THROW((void)chol.update(Exec(), W, ks::Sign::Plus), kspd::InvalidArgument);  // not factored
  ASSERT_EQ(chol.factorize(Exec(), A), 0);
  const auto L0 = chol.factor_csc();
  try {
    (void)chol.update(Exec(), W, ks::Sign::Plus);
    ADD_FAILURE() << "W(0, 0) W(n-1, 0) couples two far grid points: outside L's pattern";
  } catch (const kspd::InvalidArgument& e) {
    const std::string m = e.what();
    EXPECT_NE(m.find("lies outside the pattern of L"), std::string::npos) << m;
    EXPECT_NE(m.find("analyze()"), std::string::npos) << m;
  }
  EXPECT_EQ(chol.factor_csc().values, L0.values);  // untouched
  auto expect_error = [&](ks::SparseColumns<double> w, const char* text) {
    try {
      (void)chol.update(Exec(), w, ks::Sign::Plus);
      ADD_FAILURE() << "accepted: " << text;
    } catch (const kspd::Error& e) {
      EXPECT_NE(std::string(e.what()).find(text), std::string::npos) << e.what();
    }
  };
  auto w1 = W;
  w1.rowind = {3, 1};
  expect_error(w1, "not strictly increasing");
  w1.rowind = {0, A.n};
  expect_error(w1, "outside the");
  w1 = W;
  w1.rowind = {0, 1};
  w1.values = {1.0, std::nan("")};
  expect_error(w1, "not finite");
  w1.nrows = A.n + 1;
  expect_error(w1, "rows, A has n");
  ks::SparseColumns<double> wide;
  wide.nrows = A.n;
  wide.colptr.assign(66, 0);
  expect_error(wide, "65 columns");
  w1 = W;
  w1.values.pop_back();
  expect_error(w1, "inconsistent");
  EXPECT_EQ(chol.factor_csc().values, L0.values);
  ks::SparseColumns<double> empty;  // k = 0: nothing changes
  empty.nrows = A.n;
  EXPECT_EQ(chol.update(Exec(), empty, ks::Sign::Minus), 0);
  EXPECT_EQ(chol.factor_csc().values, L0.values);
}

// Two matrices of the shared collection (structural problems), rank 16, both signs.
TEST(SparseUpdateMatrices, CollectionMatrices) {
  const std::string dir = kspd::test::data_dir();
  if (dir.empty()) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory";
  for (const char* f : {"bcsstk05.mtx", "bcsstk14.mtx"}) {
    auto A = ks::read_matrix<double>(dir + "/" + f);
    A.name = f;
    // W's entries scaled to A's diagonal so that W W^T is a real change
    double dmax = 0;
    for (size_type j = 0; j < A.n; ++j) dmax = std::max(dmax, std::fabs(double(A.values[size_t(A.colptr[size_t(j)])])));
    auto W = random_w<double>(A.n, 16, 3, std::sqrt(dmax), 77);
    for (int where : {0, 1}) {
      SCOPED_TRACE(std::string(f) + " " + placement_name(where));
      const auto Au = modified(A, W, 0), Ap = modified(A, W, +1);
      ks::SupernodalCholesky<double> chol(placement(where));
      chol.analyze(Au);
      ASSERT_EQ(chol.factorize(Exec(), Au), 0);
      ASSERT_EQ(chol.update(Exec(), W, ks::Sign::Plus), 0);
      const auto L = chol.factor_csc();
      EXPECT_LE(solve_residual(chol, Ap, 3), 1e-12);
      ASSERT_EQ(chol.factorize(Exec(), Ap), 0);
      EXPECT_LE(factor_diff(L, chol.factor_csc()), 1e-10);
      ASSERT_EQ(chol.update(Exec(), W, ks::Sign::Minus), 0);
      EXPECT_LE(solve_residual(chol, Au, 4), 1e-12);
    }
  }
}

}  // namespace
