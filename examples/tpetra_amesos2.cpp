// kspd-tpetra-amesos2: a Tpetra application that solves through Amesos2 with kspd's sparse
// Cholesky as the solver. A 2-D Laplacian plus a shift (SPD) is distributed over the ranks by
// contiguous rows (full symmetric storage, as Tpetra codes hold it), two right-hand sides with a
// known solution are solved, then the matrix gets new values of the same pattern and is
// refactored (the analysis reused). Checked by the residual and the known solution on every
// rank; non-zero exit otherwise.
//
//   mpiexec -n 2 kspd-tpetra-amesos2 [N]   (N x N grid, default 60)

#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <Tpetra_MultiVector.hpp>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

#include "kspd_amesos2.hpp"

namespace {
using map_t = Tpetra::Map<>;
using crs_t = Tpetra::CrsMatrix<double>;
using mv_t = Tpetra::MultiVector<double>;
using GO = map_t::global_ordinal_type;

// Row g of 4 u_g - sum of the neighbours + shift u_g on an N x N grid.
void row(GO g, int N, double shift, std::vector<GO>& cols, std::vector<double>& vals) {
  const GO x = g % N, y = g / N;
  cols = {g};
  vals = {4.0 + shift};
  if (x > 0) cols.push_back(g - 1), vals.push_back(-1);
  if (x < N - 1) cols.push_back(g + 1), vals.push_back(-1);
  if (y > 0) cols.push_back(g - N), vals.push_back(-1);
  if (y < N - 1) cols.push_back(g + N), vals.push_back(-1);
}

void fill(crs_t& A, int N, double shift, bool first) {
  std::vector<GO> cols;
  std::vector<double> vals;
  if (!first) A.resumeFill();
  for (size_t l = 0; l < A.getRowMap()->getNodeNumElements(); ++l) {
    const GO g = A.getRowMap()->getGlobalElement(map_t::local_ordinal_type(l));
    row(g, N, shift, cols, vals);
    if (first) A.insertGlobalValues(g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
    else A.replaceGlobalValues(g, Teuchos::ArrayView<const GO>(cols), Teuchos::ArrayView<const double>(vals));
  }
  A.fillComplete();
}

// Residual max_r ||B - A X|| / (||A||_F ||X|| + ||B||) and max |X - Xtrue|.
std::pair<double, double> check(const crs_t& A, const mv_t& X, const mv_t& B, const mv_t& Xtrue) {
  const size_t k = X.getNumVectors();
  mv_t R(B.getMap(), k), D(X, Teuchos::Copy);
  A.apply(X, R);
  R.update(1.0, B, -1.0);
  D.update(-1.0, Xtrue, 1.0);
  std::vector<double> nr(k), nx(k), nb(k), nd(k);
  R.norm2(Teuchos::arrayViewFromVector(nr)), X.norm2(Teuchos::arrayViewFromVector(nx));
  B.norm2(Teuchos::arrayViewFromVector(nb)), D.normInf(Teuchos::arrayViewFromVector(nd));
  double res = 0, err = 0;
  for (size_t r = 0; r < k; ++r) res = std::max(res, nr[r] / (A.getFrobeniusNorm() * nx[r] + nb[r])), err = std::max(err, nd[r]);
  return {res, err};
}
}  // namespace

int main(int argc, char** argv) {
  Tpetra::ScopeGuard tpetra(&argc, &argv);
  const int N = argc > 1 ? std::atoi(argv[1]) : 60, nrhs = 2;
  auto comm = Tpetra::getDefaultComm();
  auto map = Teuchos::rcp(new map_t(Tpetra::global_size_t(N) * N, GO(0), comm));
  auto A = Teuchos::rcp(new crs_t(map, 5));
  fill(*A, N, 0.01, true);
  auto Xtrue = Teuchos::rcp(new mv_t(map, nrhs)), X = Teuchos::rcp(new mv_t(map, nrhs)), B = Teuchos::rcp(new mv_t(map, nrhs));
  Xtrue->randomize();
  A->apply(*Xtrue, *B);
  X->putScalar(std::nan(""));  // poisoned: unwritten entries show

  auto solver = kspd::amesos2::create<crs_t, mv_t>("kspd", A, X, B);
  Teuchos::ParameterList pl("Amesos2");
  pl.sublist("kspd").set("kspd: threads", 1);
  solver->setParameters(Teuchos::rcpFromRef(pl));
  solver->symbolicFactorization().numericFactorization().solve();
  auto [res1, err1] = check(*A, *X, *B, *Xtrue);

  fill(*A, N, 1.0, false);  // a new time step: same pattern, new values
  A->apply(*Xtrue, *B);
  X->putScalar(std::nan(""));
  solver->numericFactorization().solve();  // the analysis is reused
  auto [res2, err2] = check(*A, *X, *B, *Xtrue);

  const double tol = double(N) * N * 2.2e-16;  // n eps
  const bool ok = res1 < tol && res2 < tol && err1 < 1e-8 && err2 < 1e-8 && solver->getStatus().getNumSymbolicFact() == 1;
  if (comm->getRank() == 0)
    std::printf("n = %d on %d rank(s): residual %.2e / %.2e, error %.2e / %.2e, %d analysis: %s\n", N * N,
                comm->getSize(), res1, res2, err1, err2, solver->getStatus().getNumSymbolicFact(), ok ? "OK" : "FAILED");
  return ok ? 0 : 1;
}
