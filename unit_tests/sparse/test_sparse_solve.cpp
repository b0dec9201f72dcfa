// The host supernodal solve (kspd_sparse_solve.hpp, kspd_sparse_host_solve_plan.hpp):
// 1 and many right-hand sides, forward-only, backward-only and both, 1/2/3 threads, the
// default plan and one shrunk so that small matrices reach every path (tasks, their
// buffers, big top panels split into panels and chunks), against a dense triangular
// reference in long double built from the factor; the same bits for every thread count.

#include <gtest/gtest.h>

#include <cmath>
#include <cstring>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_solve.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;
namespace ki = kspd::sparse::Impl;

template <class Scalar>
struct SparseHostSolve : ::testing::Test {};
using SolveScalars = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseHostSolve, SolveScalars);

/// Odd and even sizes, several tree shapes.
template <class Scalar>
std::vector<CscMatrix<Scalar>> solve_matrices() {
  return {ks::elasticity_3d<Scalar>(6, 5, 4), random_spd<Scalar>(151, 3.0, 17), ks::laplacian_3d<Scalar>(9, 7, 5),
          random_spd<Scalar>(2, 1.0, 3), random_spd<Scalar>(1, 1.0, 4)};
}

/// Small plans: tasks of a few supernodes, every top panel "big", panels of 3 columns and
/// chunks of 5 rows, or panels of 80 and chunks of 7; threads used however small the work.
std::vector<ki::HostSolveTuning> tunings() {
  ki::HostSolveTuning shrunk;
  shrunk.grain = 16;
  shrunk.big = 8;
  shrunk.panel = 3;
  shrunk.chunk = 5;
  shrunk.work_per_thread = 0;
  ki::HostSolveTuning wide = shrunk;  // panels wider than one group of 32 columns
  wide.panel = 80;
  wide.chunk = 7;
  ki::HostSolveTuning dflt;
  dflt.work_per_thread = 0;
  return {dflt, shrunk, wide};
}

/// The supernodal panels rebuilt from the CSC factor (rows matched through Symbolic::rows).
template <class Scalar>
std::vector<Scalar> panels_from_csc(const ki::Symbolic& S, const CscMatrix<Scalar>& L) {
  std::vector<Scalar> v(static_cast<size_t>(std::max<size_type>(S.nvalues, 1)), Scalar(0));
  std::vector<size_type> pos(static_cast<size_t>(S.n), -1);
  for (const auto& sn : S.snodes) {
    for (size_type q = 0; q < sn.nrows(); ++q) pos[size_t(S.rows[size_t(sn.row_begin + q)])] = q;
    for (size_type c = 0; c < sn.ncols; ++c) {
      const size_type j = sn.first_col + c;
      for (size_type p = L.colptr[size_t(j)]; p < L.colptr[size_t(j + 1)]; ++p) {
        const size_type q = pos[size_t(L.rowind[size_t(p)])];
        EXPECT_GE(q, 0);
        if (q >= 0) v[size_t(sn.value_offset + q + c * sn.nrows())] = L.values[size_t(p)];
      }
    }
    for (size_type q = 0; q < sn.nrows(); ++q) pos[size_t(S.rows[size_t(sn.row_begin + q)])] = -1;
  }
  return v;
}

/// Dense reference on the permuted system: forward L y = b, backward L^T x = y (long double).
struct DenseL {
  size_type n = 0;
  std::vector<long double> L;  // column-major
  template <class Scalar>
  explicit DenseL(const CscMatrix<Scalar>& F) : n(F.n), L(static_cast<size_t>(F.n * F.n), 0.0L) {
    for (size_type j = 0; j < n; ++j)
      for (size_type p = F.colptr[size_t(j)]; p < F.colptr[size_t(j + 1)]; ++p)
        L[size_t(F.rowind[size_t(p)] + j * n)] = (long double)F.values[size_t(p)];
  }
  void solve(std::vector<long double>& x, ks::SolvePart part) const {
    if (int(part) & int(ks::SolvePart::Forward))
      for (size_type j = 0; j < n; ++j) {
        x[size_t(j)] /= L[size_t(j + j * n)];
        for (size_type i = j + 1; i < n; ++i) x[size_t(i)] -= L[size_t(i + j * n)] * x[size_t(j)];
      }
    if (int(part) & int(ks::SolvePart::Backward))
      for (size_type j = n - 1; j >= 0; --j) {
        long double s = x[size_t(j)];
        for (size_type i = j + 1; i < n; ++i) s -= L[size_t(i + j * n)] * x[size_t(i)];
        x[size_t(j)] = s / L[size_t(j + j * n)];
      }
  }
};

/// max_i |x_i - ref_i| / max_i |ref_i| per column, the worst column.
template <class Scalar>
double column_error(const std::vector<Scalar>& X, const std::vector<std::vector<long double>>& ref, size_type n) {
  double worst = 0;
  for (size_t r = 0; r < ref.size(); ++r) {
    long double d = 0, m = 0;
    for (size_type i = 0; i < n; ++i) {
      const long double x = (long double)X[size_t(i + size_type(r) * n)];
      d = std::isnan(double(x)) ? INFINITY : std::max(d, std::fabs(x - ref[r][size_t(i)]));
      m = std::max(m, std::fabs(ref[r][size_t(i)]));
      if (std::isinf(double(d))) break;
    }
    worst = std::max(worst, double(d / std::max(m, 1e-300L)));
  }
  return worst;
}

const char* part_name(ks::SolvePart p) {
  return p == ks::SolvePart::Forward ? "forward" : p == ks::SolvePart::Backward ? "backward" : "both";
}

TYPED_TEST(SparseHostSolve, EveryPartThreadsAndRhsMatchDenseReference) {
  using Scalar = TypeParam;
  for (const auto& A : solve_matrices<Scalar>()) {
    ks::Options opt;
    opt.max_supernode = 40;  // several supernodes per separator, some wider than 32
    ks::SupernodalCholesky<Scalar> chol(opt);
    ASSERT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
    const ki::Symbolic& S = chol.symbolic();
    const auto F = chol.factor_csc();
    const auto vals = panels_from_csc(S, F);
    const DenseL D(F);
    const size_type n = A.n;
    for (size_type nrhs : {1, 2, 17, 40}) {
      const auto B0 = kspd::test::random_matrix(n, nrhs, unsigned(11 + nrhs + n));
      for (auto part : {ks::SolvePart::Forward, ks::SolvePart::Backward, ks::SolvePart::Both}) {
        std::vector<std::vector<long double>> ref(static_cast<size_t>(nrhs));
        for (size_type r = 0; r < nrhs; ++r) {
          ref[size_t(r)].resize(static_cast<size_t>(n));
          for (size_type i = 0; i < n; ++i) ref[size_t(r)][size_t(i)] = (long double)Scalar(B0(i, r));
          D.solve(ref[size_t(r)], part);
        }
        for (const auto& tune : tunings()) {
          const auto P = ki::make_host_solve_plan(S, tune);
          for (int threads : {1, 2, 3}) {
            SCOPED_TRACE("n=" + std::to_string(n) + " nrhs=" + std::to_string(nrhs) + " part=" + part_name(part) +
                         " threads=" + std::to_string(threads) + " panel=" + std::to_string(tune.panel));
            std::vector<Scalar> W(static_cast<size_t>(n * nrhs));
            for (size_type r = 0; r < nrhs; ++r)
              for (size_type i = 0; i < n; ++i) W[size_t(i + r * n)] = Scalar(B0(i, r));
            ki::supernodal_solve(S, P, vals.data(), W.data(), nrhs, n, part, threads);
            EXPECT_LE(column_error(W, ref, n), kspd::test::tolerance<Scalar>(n, 200.0));
          }
        }
      }
    }
  }
}

TYPED_TEST(SparseHostSolve, SameBitsForEveryThreadCount) {
  using Scalar = TypeParam;
  const auto A = ks::elasticity_3d<Scalar>(7, 6, 5);
  ks::Options opt;
  opt.max_supernode = 72;
  ks::SupernodalCholesky<Scalar> chol(opt);
  ASSERT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
  const ki::Symbolic& S = chol.symbolic();
  const auto vals = panels_from_csc(S, chol.factor_csc());
  const size_type n = A.n;
  for (const auto& tune : tunings()) {
    const auto P = ki::make_host_solve_plan(S, tune);
    EXPECT_GT(P.task_root.size(), size_t(1));
    for (size_type nrhs : {1, 7, 40}) {
      const auto B0 = kspd::test::random_matrix(n, nrhs, unsigned(5 + nrhs));
      std::vector<Scalar> W1;
      for (int threads : {1, 2, 3, 5, 8}) {
        SCOPED_TRACE("nrhs=" + std::to_string(nrhs) + " threads=" + std::to_string(threads));
        std::vector<Scalar> W(static_cast<size_t>(n * nrhs));
        for (size_type r = 0; r < nrhs; ++r)
          for (size_type i = 0; i < n; ++i) W[size_t(i + r * n)] = Scalar(B0(i, r));
        ki::supernodal_solve(S, P, vals.data(), W.data(), nrhs, n, ks::SolvePart::Both, threads);
        if (threads == 1) W1 = W;
        else EXPECT_EQ(std::memcmp(W.data(), W1.data(), W.size() * sizeof(Scalar)), 0) << "bits differ from 1 thread";
      }
      {  // 5 threads asked, the system refuses all but one more: a team of 2, same bits
        SCOPED_TRACE("nrhs=" + std::to_string(nrhs) + " threads=5, 3 refused");
        std::vector<Scalar> W(static_cast<size_t>(n * nrhs));
        for (size_type r = 0; r < nrhs; ++r)
          for (size_type i = 0; i < n; ++i) W[size_t(i + r * n)] = Scalar(B0(i, r));
        kspd::Impl::thread_start_budget() = 1;
        ki::supernodal_solve(S, P, vals.data(), W.data(), nrhs, n, ks::SolvePart::Both, 5);
        kspd::Impl::thread_start_budget() = -1;
        EXPECT_EQ(std::memcmp(W.data(), W1.data(), W.size() * sizeof(Scalar)), 0) << "bits differ from 1 thread";
      }
    }
  }
}

/// The public solve with Options::threads 1/2/3, X poisoned (NaN) and distinct from B:
/// every part against the dense reference (permutations applied as solve documents).
TYPED_TEST(SparseHostSolve, PublicSolvePoisonedOutputEveryPart) {
  using Scalar = TypeParam;
  for (const auto& A : {ks::laplacian_3d<Scalar>(9, 8, 7), random_spd<Scalar>(201, 4.0, 23)}) {
    const size_type n = A.n;
    for (int threads : {1, 2, 3}) {
      ks::Options opt;
      opt.threads = threads;
      opt.max_supernode = 16;
      ks::SupernodalCholesky<Scalar> chol(opt);
      ASSERT_EQ(chol.factorize(Kokkos::DefaultExecutionSpace(), A), 0);
      const auto& perm = chol.permutation();
      const DenseL D(chol.factor_csc());
      for (size_type nrhs : {1, 3, 20}) {
        const auto B0 = kspd::test::random_matrix(n, nrhs, unsigned(31 + nrhs));
        Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> B("B", size_t(n), size_t(nrhs));
        for (size_type r = 0; r < nrhs; ++r)
          for (size_type i = 0; i < n; ++i) B(size_t(i), size_t(r)) = Scalar(B0(i, r));
        for (auto part : {ks::SolvePart::Forward, ks::SolvePart::Backward, ks::SolvePart::Both}) {
          SCOPED_TRACE("n=" + std::to_string(n) + " threads=" + std::to_string(threads) + " nrhs=" +
                       std::to_string(nrhs) + " part=" + part_name(part));
          Kokkos::View<Scalar**, Kokkos::LayoutLeft, Kokkos::HostSpace> X("X", size_t(n), size_t(nrhs));
          Kokkos::deep_copy(X, kspd::test::poison<Scalar>());
          chol.solve(Kokkos::DefaultExecutionSpace(), B, X, part);
          const bool pin = part != ks::SolvePart::Backward, pout = part != ks::SolvePart::Forward;
          std::vector<std::vector<long double>> ref(static_cast<size_t>(nrhs));
          std::vector<Scalar> got(static_cast<size_t>(n * nrhs));
          for (size_type r = 0; r < nrhs; ++r) {
            auto& y = ref[size_t(r)];
            y.resize(static_cast<size_t>(n));
            for (size_type k = 0; k < n; ++k) y[size_t(k)] = (long double)B(size_t(pin ? perm[size_t(k)] : k), size_t(r));
            D.solve(y, part);
            for (size_type k = 0; k < n; ++k) got[size_t(k + r * n)] = X(size_t(pout ? perm[size_t(k)] : k), size_t(r));
          }
          EXPECT_LE(column_error(got, ref, n), kspd::test::tolerance<Scalar>(n, 200.0));
        }
      }
    }
  }
}

}  // namespace
