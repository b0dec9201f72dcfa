// kspd-fem-csr: what a finite-element code does with kspd. P1 elements on a triangulated
// square for -div(grad u) + c u = f (Neumann boundary, so SPD for c > 0); the app assembles its
// CSR the cheap way, one entry per element contribution (duplicates, unsorted, 32-bit indices,
// both triangles), hands it to kspd as it is, solves 3 right-hand sides, then changes c (a new
// time step: same pattern, new values) and refactors. The lines between "kspd begin" and
// "kspd end" are all the kspd-facing code.
//
//   kspd-fem-csr [N]   (N x N squares, default 200)

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <vector>

// kspd begin
#include <Kokkos_Core.hpp>

#include "kspd_sparse_input.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
// kspd end

namespace {

/// The app's matrix: CSR with one entry per element contribution (rows of full storage).
struct Assembly {
  int n = 0;
  std::vector<int> rowptr, colind;
  std::vector<double> values;
};

/// Assembles K + c M (lumped mass) on an N x N grid of squares, each split into two triangles.
Assembly assemble(int N, double c) {
  const int np = N + 1, n = np * np;
  const double h = 1.0 / N, area = h * h / 2;
  std::vector<std::vector<std::pair<int, double>>> rows(static_cast<size_t>(n));
  auto element = [&](int a, int b, int d) {  // a: the right-angle vertex
    const int v[3] = {a, b, d};
    const double K[3][3] = {{1, -0.5, -0.5}, {-0.5, 0.5, 0}, {-0.5, 0, 0.5}};
    for (int i = 0; i < 3; ++i)
      for (int j = 0; j < 3; ++j) rows[size_t(v[i])].push_back({v[j], K[i][j] + (i == j ? c * area / 3 : 0.0)});
  };
  for (int y = 0; y < N; ++y)
    for (int x = 0; x < N; ++x) {
      const int p = x + np * y;
      element(p, p + 1, p + np);
      element(p + np + 1, p + np, p + 1);
    }
  Assembly A;
  A.n = n;
  A.rowptr.push_back(0);
  for (auto& r : rows) {
    std::reverse(r.begin(), r.end());  // not sorted either
    for (auto& e : r) A.colind.push_back(e.first), A.values.push_back(e.second);
    A.rowptr.push_back(int(A.colind.size()));
  }
  return A;
}

/// max_i |(B - A X)_i| / max_i |B_i| over the columns (the app's own CSR product).
double residual(const Assembly& A, const std::vector<double>& X, const std::vector<double>& B, int nrhs) {
  double r = 0, b = 0;
  for (int k = 0; k < nrhs; ++k)
    for (int i = 0; i < A.n; ++i) {
      double s = 0;
      for (int q = A.rowptr[size_t(i)]; q < A.rowptr[size_t(i + 1)]; ++q)
        s += A.values[size_t(q)] * X[size_t(A.colind[size_t(q)] + k * A.n)];
      r = std::max(r, std::fabs(B[size_t(i + k * A.n)] - s));
      b = std::max(b, std::fabs(B[size_t(i + k * A.n)]));
    }
  return r / b;
}

}  // namespace

int main(int argc, char** argv) {
  const int N = argc > 1 ? std::atoi(argv[1]) : 200, nrhs = 3;
  Assembly A = assemble(N, 1.0);
  std::vector<double> B(size_t(A.n) * nrhs);
  for (size_t i = 0; i < B.size(); ++i) B[i] = std::sin(0.01 * double(i));
  double worst = 0;
  // kspd begin
  Kokkos::ScopeGuard kokkos;
  namespace ks = kspd::sparse;
  ks::InputFormat fmt{ks::Compression::Csr, ks::Stored::Full};
  fmt.sum_duplicates = true;  // FEM assembly
  auto in = ks::make_input(A.n, kspd::size_type(A.colind.size()), A.rowptr.data(), A.colind.data(), A.values.data(), fmt);
  ks::Options opt;
  opt.threads = 0;  // all cores
  ks::SupernodalCholesky<double> chol(opt);
  Kokkos::DefaultExecutionSpace exec;
  chol.analyze(in.matrix());
  for (double c : {1.0, 100.0}) {  // two time steps: same pattern, new values
    if (c != 1.0) {
      A = assemble(N, c);
      in.update_values(A.values.data());
    }
    if (chol.factorize(exec, in.matrix()) != 0) chol.require_spd();
    std::vector<double> X = B;
    chol.solve(exec, Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
        X.data(), size_t(A.n), size_t(nrhs)));
    // kspd end
    const double r = residual(A, X, B, nrhs);
    worst = std::max(worst, r);
    std::printf("c = %g: n = %d, %zu CSR entries (with duplicates), residual %.2e\n", c, A.n, A.colind.size(), r);
  }
  return worst < 1e-10 ? 0 : 1;
}
