// A Tpetra application solving through the Amesos2 adapter: 3-D elasticity and a 2-D
// Laplacian distributed over the ranks by contiguous rows (full symmetric storage), solved
// with three right-hand sides through kspd::amesos2::create("kspd"), checked by residual and
// against KLU2; then refactored with new values of the same pattern (the analysis reused), and
// a matrix that is not positive definite reported on every rank. Row maps that are not
// contiguous (1-based, gaps, rows dealt round-robin) and vectors on another map than the
// matrix's rows. The adapter factors distributed (no gather on one rank) at np 1-4.

#include <gtest/gtest.h>
#include <mpi.h>

#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_MultiVector.hpp>

#include <cmath>
#include <vector>

#include "kspd_amesos2.hpp"
#include "kspd_sparse_generate.hpp"

namespace {

using map_t = Tpetra::Map<>;
using crs_t = Tpetra::CrsMatrix<double>;
using mv_t = Tpetra::MultiVector<double>;
using GO = map_t::global_ordinal_type;
using kspd::size_type;
namespace ks = kspd::sparse;

/// Full rows of the symmetric matrix whose lower triangle is L.
std::vector<std::vector<std::pair<GO, double>>> full_rows(const ks::CscMatrix<double>& L) {
  std::vector<std::vector<std::pair<GO, double>>> rows(size_t(L.n));
  for (size_type j = 0; j < L.n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      rows[size_t(i)].push_back({GO(j), L.values[size_t(q)]});
      if (i != j) rows[size_t(j)].push_back({GO(i), L.values[size_t(q)]});
    }
  return rows;
}

/// The distributed matrix: every rank inserts the rows it owns. diag_shift is added to the
/// diagonal, scale multiplies everything.
Teuchos::RCP<crs_t> distributed(const ks::CscMatrix<double>& L, double scale, double diag_shift) {
  auto comm = Tpetra::getDefaultComm();
  Teuchos::RCP<const map_t> map = Teuchos::rcp(new map_t(Tpetra::global_size_t(L.n), GO(0), comm));
  const auto rows = full_rows(L);
  size_t maxrow = 0;
  for (auto& r : rows) maxrow = std::max(maxrow, r.size());
  auto A = Teuchos::rcp(new crs_t(map, maxrow));
  for (GO g = 0; g < GO(L.n); ++g) {
    if (!map->isNodeGlobalElement(g)) continue;
    std::vector<GO> cols;
    std::vector<double> vals;
    for (auto& e : rows[size_t(g)]) {
      cols.push_back(e.first);
      vals.push_back(scale * e.second + (e.first == g ? diag_shift : 0.0));
    }
    A->insertGlobalValues(g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  A->fillComplete();
  return A;
}

/// New values of the same pattern (what an FEM code does between time steps).
void revalue(crs_t& A, const ks::CscMatrix<double>& L, double scale, double diag_shift) {
  const auto rows = full_rows(L);
  A.resumeFill();
  for (GO g = 0; g < GO(L.n); ++g) {
    if (!A.getRowMap()->isNodeGlobalElement(g)) continue;
    std::vector<GO> cols;
    std::vector<double> vals;
    for (auto& e : rows[size_t(g)]) {
      cols.push_back(e.first);
      vals.push_back(scale * e.second + (e.first == g ? diag_shift : 0.0));
    }
    A.replaceGlobalValues(g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  A.fillComplete();
}

/// Known solution X (a fixed function of the global index), B = A X.
std::pair<Teuchos::RCP<mv_t>, Teuchos::RCP<mv_t>> known_solution(const crs_t& A, size_t nrhs) {
  auto X = Teuchos::rcp(new mv_t(A.getDomainMap(), nrhs));
  auto B = Teuchos::rcp(new mv_t(A.getRangeMap(), nrhs));
  const auto map = A.getDomainMap();
  for (size_t l = 0; l < map->getNodeNumElements(); ++l) {
    const GO g = map->getGlobalElement(typename map_t::local_ordinal_type(l));
    for (size_t r = 0; r < nrhs; ++r) X->replaceLocalValue(l, r, std::sin(0.37 * double(g) + double(r)) + 0.1 * double(r));
  }
  A.apply(*X, *B);
  return {X, B};
}

/// max over columns of ||B - A X|| / (||A||_F ||X|| + ||B||).
double residual(const crs_t& A, const mv_t& X, const mv_t& B) {
  const size_t nrhs = X.getNumVectors();
  mv_t R(B.getMap(), nrhs);
  A.apply(X, R);
  R.update(1.0, B, -1.0);
  std::vector<double> nr(nrhs), nx(nrhs), nb(nrhs);
  R.norm2(Teuchos::arrayViewFromVector(nr));
  X.norm2(Teuchos::arrayViewFromVector(nx));
  B.norm2(Teuchos::arrayViewFromVector(nb));
  const double na = A.getFrobeniusNorm();
  double worst = 0;
  for (size_t r = 0; r < nrhs; ++r) worst = std::max(worst, nr[r] / (na * nx[r] + nb[r]));
  return worst;
}

double max_diff(const mv_t& X, const mv_t& Y) {
  mv_t D(X, Teuchos::Copy);
  D.update(-1.0, Y, 1.0);
  std::vector<double> n(X.getNumVectors());
  D.normInf(Teuchos::arrayViewFromVector(n));
  return *std::max_element(n.begin(), n.end());
}

void solve_and_refactor(const ks::CscMatrix<double>& L, int threads) {
  const size_t nrhs = 3;
  auto A = distributed(L, 1.0, 0.0);
  auto [Xtrue, B] = known_solution(*A, nrhs);
  auto X = Teuchos::rcp(new mv_t(A->getDomainMap(), nrhs));
  ASSERT_TRUE(kspd::amesos2::query("kspd"));
  auto solver = kspd::amesos2::create<crs_t, mv_t>("kspd", A, X, B);
  EXPECT_EQ(solver->name(), "kspd");
  Teuchos::ParameterList pl("Amesos2");
  pl.sublist("kspd").set("kspd: threads", threads);
  pl.sublist("kspd").set("kspd: check symmetry", true);
  solver->setParameters(Teuchos::rcpFromRef(pl));
  solver->symbolicFactorization().numericFactorization().solve();
  EXPECT_LT(residual(*A, *X, *B), 1e-14);
  EXPECT_LT(max_diff(*X, *Xtrue), 1e-9);
  // The factor holds at least A's lower triangle (its pattern), the same count on every rank.
  const auto* kspd_solver = dynamic_cast<const Amesos2::KspdCholesky<crs_t, mv_t>*>(solver.get());
  ASSERT_NE(kspd_solver, nullptr);
  EXPECT_GE(kspd_solver->nnz_l(), L.nnz());

  // KLU2 (LU, Amesos2's own) on the same system gives the same solution. Only in one
  // process: Debian's Amesos2 13.2 KLU2 returns residuals of 1e-2 for these matrices once they
  // are distributed (np 2-4; IsContiguous either way, 1 or 3 right-hand sides).
  if (A->getComm()->getSize() == 1) {
    auto Xklu = Teuchos::rcp(new mv_t(A->getDomainMap(), nrhs));
    auto klu = kspd::amesos2::create<crs_t, mv_t>("KLU2", A, Xklu, B);
    klu->symbolicFactorization().numericFactorization().solve();
    EXPECT_LT(residual(*A, *Xklu, *B), 1e-14) << "KLU2";
    EXPECT_LT(max_diff(*X, *Xklu), 1e-9);
  }

  // Refactorization: 2A + 3I, same pattern, analysis kept.
  revalue(*A, L, 2.0, 3.0);
  auto [X2true, B2] = known_solution(*A, nrhs);
  solver->numericFactorization();
  solver->solve(X.ptr(), B2.ptr());
  EXPECT_LT(residual(*A, *X, *B2), 1e-14);
  EXPECT_LT(max_diff(*X, *X2true), 1e-9);
  EXPECT_EQ(solver->getStatus().getNumSymbolicFact(), 1);
  EXPECT_EQ(solver->getStatus().getNumNumericFact(), 2);

  // Not positive definite: -A. Every rank throws, naming the problem.
  revalue(*A, L, -1.0, 0.0);
  try {
    solver->numericFactorization();
    ADD_FAILURE() << "no error for a negative definite matrix";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not positive definite"), std::string::npos) << e.what();
  }
  // A different pattern under the kept analysis (setA keeping SYMBFACT) is an error, not a
  // wrong factor; a new symbolic factorization accepts it.
  {
    auto L2 = L;  // one more off-diagonal pair: (n-1, 0)
    L2.rowind.insert(L2.rowind.begin() + L2.colptr[1], L.n - 1);
    L2.values.insert(L2.values.begin() + L2.colptr[1], -1e-3);
    for (size_t j = 1; j < L2.colptr.size(); ++j) ++L2.colptr[j];
    auto A2 = distributed(L2, 1.0, 0.0);
    solver->setA(A2, Amesos2::SYMBFACT);
    try {
      solver->numericFactorization();
      ADD_FAILURE() << "no error for a changed pattern";
    } catch (const std::runtime_error& e) {
      EXPECT_NE(std::string(e.what()).find("pattern differs"), std::string::npos) << e.what();
    }
    auto [X3true, B3] = known_solution(*A2, nrhs);
    solver->symbolicFactorization().numericFactorization();
    solver->solve(X.ptr(), B3.ptr());
    EXPECT_LT(residual(*A2, *X, *B3), 1e-14);
    solver->setA(A, Amesos2::CLEAN);
    solver->symbolicFactorization();
  }
  // And back: the solver recovers with SPD values.
  revalue(*A, L, 1.0, 0.0);
  solver->numericFactorization();
  solver->solve(X.ptr(), B.ptr());
  EXPECT_LT(residual(*A, *X, *B), 1e-14);
}

TEST(Amesos2Kspd, Elasticity3dSolveRefactor) { solve_and_refactor(ks::elasticity_3d<double>(5, 4, 4), 1); }
TEST(Amesos2Kspd, Laplacian2dSolveRefactorTwoThreads) { solve_and_refactor(ks::laplacian_2d<double>(23, 17), 2); }

// Global indices 1..n (a Fortran-style map), non-contiguous GIDs (every index doubled), and
// rows dealt round-robin to the ranks (rank r owns rows r, r + p, ...), with B and X on a map
// that differs from the matrix's rows (contiguous blocks) in the last case. The adapter
// numbers rows by position in rank order, whatever the map.
void solve_with_gids(GO base, GO stride, bool round_robin, bool contiguous_vectors) {
  const auto L = ks::elasticity_3d<double>(4, 3, 3);
  auto comm = Tpetra::getDefaultComm();
  std::vector<GO> mine;
  const GO n = GO(L.n), p = comm->getSize(), r = comm->getRank();
  if (round_robin)
    for (GO g = r; g < n; g += p) mine.push_back(base + stride * g);
  else  // contiguous row blocks per rank, as the default map would give, but with the chosen GIDs
    for (GO g = n * r / p; g < n * (r + 1) / p; ++g) mine.push_back(base + stride * g);
  Teuchos::RCP<const map_t> map = Teuchos::rcp(
      new map_t(Tpetra::global_size_t(n), Teuchos::ArrayView<const GO>(mine), base, comm));
  const auto rows = full_rows(L);
  auto A = Teuchos::rcp(new crs_t(map, 100));
  for (GO g = 0; g < n; ++g) {
    if (!map->isNodeGlobalElement(base + stride * g)) continue;
    std::vector<GO> cols;
    std::vector<double> vals;
    for (auto& e : rows[size_t(g)]) cols.push_back(base + stride * e.first), vals.push_back(e.second);
    A->insertGlobalValues(base + stride * g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  Teuchos::RCP<const map_t> vmap = map;
  if (contiguous_vectors) {
    std::vector<GO> blocks;
    for (GO g = n * r / p; g < n * (r + 1) / p; ++g) blocks.push_back(base + stride * g);
    vmap = Teuchos::rcp(new map_t(Tpetra::global_size_t(n), Teuchos::ArrayView<const GO>(blocks), base, comm));
  }
  A->fillComplete(vmap, vmap);  // domain and range maps: the vectors' map
  for (size_t nrhs : {size_t(1), size_t(2)}) {
    auto [Xtrue, B] = known_solution(*A, nrhs);
    auto X = Teuchos::rcp(new mv_t(A->getDomainMap(), nrhs));
    X->putScalar(std::nan(""));  // poisoned: every entry must be written
    auto solver = kspd::amesos2::create<crs_t, mv_t>("kspd", A, X, B);
    Teuchos::ParameterList pl("Amesos2");
    pl.sublist("kspd").set("IsContiguous", !(stride != 1 || round_robin));  // accepted, not needed
    pl.sublist("kspd").set("kspd: check symmetry", true);
    solver->setParameters(Teuchos::rcpFromRef(pl));
    solver->symbolicFactorization().numericFactorization().solve();
    EXPECT_LT(residual(*A, *X, *B), 1e-14) << "nrhs " << nrhs;
    EXPECT_LT(max_diff(*X, *Xtrue), 1e-9) << "nrhs " << nrhs;
  }
}

TEST(Amesos2Kspd, IndexBaseOne) { solve_with_gids(1, 1, false, false); }
TEST(Amesos2Kspd, NonContiguousGlobalIndices) { solve_with_gids(0, 2, false, false); }
TEST(Amesos2Kspd, RoundRobinRows) { solve_with_gids(0, 1, true, false); }
TEST(Amesos2Kspd, RoundRobinRowsVectorsInBlocks) { solve_with_gids(1, 3, true, true); }

TEST(Amesos2Kspd, AsymmetricMatrixIsReported) {
  auto L = ks::laplacian_2d<double>(6, 5);
  auto comm = Tpetra::getDefaultComm();
  Teuchos::RCP<const map_t> map = Teuchos::rcp(new map_t(Tpetra::global_size_t(L.n), GO(0), comm));
  auto rows = full_rows(L);
  rows[3][0].second += 0.5;  // one entry of row 3 differs from its mirror
  auto A = Teuchos::rcp(new crs_t(map, 5));
  for (GO g = 0; g < GO(L.n); ++g) {
    if (!map->isNodeGlobalElement(g)) continue;
    std::vector<GO> cols;
    std::vector<double> vals;
    for (auto& e : rows[size_t(g)]) cols.push_back(e.first), vals.push_back(e.second);
    A->insertGlobalValues(g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  A->fillComplete();
  auto solver = kspd::amesos2::create<crs_t, mv_t>("kspd", A);
  Teuchos::ParameterList pl("Amesos2");
  pl.sublist("kspd").set("kspd: check symmetry", true);
  solver->setParameters(Teuchos::rcpFromRef(pl));
  try {
    solver->symbolicFactorization();
    ADD_FAILURE() << "no error for an asymmetric matrix";
  } catch (const std::runtime_error& e) {
    EXPECT_NE(std::string(e.what()).find("not symmetric"), std::string::npos) << e.what();
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A threaded factorization ("kspd: threads" > 1) needs MPI_THREAD_FUNNELED: initialize MPI
  // here; Tpetra's guard then leaves MPI to us.
  int provided = 0;
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
  int global = 0;
  {
    Tpetra::ScopeGuard tpetra(&argc, &argv);  // Kokkos
    ::testing::InitGoogleTest(&argc, argv);
    // Only rank 0 prints the GoogleTest report.
    if (Tpetra::getDefaultComm()->getRank() != 0) {
      auto& listeners = ::testing::UnitTest::GetInstance()->listeners();
      delete listeners.Release(listeners.default_result_printer());
    }
    int rc = RUN_ALL_TESTS();
    // A failure on any rank fails the run.
    Teuchos::reduceAll(*Tpetra::getDefaultComm(), Teuchos::REDUCE_MAX, rc, Teuchos::outArg(global));
  }
  MPI_Finalize();
  return global;
}
