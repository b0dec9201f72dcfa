// A Tpetra application using the installed Amesos2 adapter: a 1-D Laplacian solved with
// kspd::amesos2::create("kspd") (one process).
#include <Tpetra_Core.hpp>
#include <Tpetra_CrsMatrix.hpp>
#include <cmath>
#include <cstdio>

#include "kspd_amesos2.hpp"

int main(int argc, char* argv[]) {
  Tpetra::ScopeGuard guard(&argc, &argv);
  using crs_t = Tpetra::CrsMatrix<double>;
  using mv_t = Tpetra::MultiVector<double>;
  using GO = Tpetra::Map<>::global_ordinal_type;
  const GO n = 100;
  auto map = Teuchos::rcp(new Tpetra::Map<>(Tpetra::global_size_t(n), GO(0), Tpetra::getDefaultComm()));
  auto A = Teuchos::rcp(new crs_t(map, 3));
  for (GO i = 0; i < n; ++i) {
    if (!map->isNodeGlobalElement(i)) continue;
    std::vector<GO> c;
    std::vector<double> v;
    if (i > 0) c.push_back(i - 1), v.push_back(-1);
    c.push_back(i), v.push_back(2.5);
    if (i + 1 < n) c.push_back(i + 1), v.push_back(-1);
    A->insertGlobalValues(i, Teuchos::ArrayView<const GO>(c), Teuchos::ArrayView<const double>(v));
  }
  A->fillComplete();
  auto X = Teuchos::rcp(new mv_t(map, 1)), B = Teuchos::rcp(new mv_t(map, 1)), R = Teuchos::rcp(new mv_t(map, 1));
  B->putScalar(1.0);
  auto solver = kspd::amesos2::create<crs_t, mv_t>("kspd", A, X, B);
  solver->symbolicFactorization().numericFactorization().solve();
  A->apply(*X, *R);
  R->update(1.0, *B, -1.0);
  const double r = R->getVector(0)->normInf();
  if (Tpetra::getDefaultComm()->getRank() == 0) std::printf("kspd Amesos2 consumer: residual %.3e\n", r);
  return r < 1e-12 ? 0 : 1;
}
