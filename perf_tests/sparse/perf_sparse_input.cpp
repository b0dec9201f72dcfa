// perf_sparse_input: the cost of handing kspd a CSR matrix (make_input: lower, upper or full
// storage, 32-bit indices as FEM codes have them) and of refactorization's update_values,
// against the analysis and the numeric factorization of the same matrix.
//
//   perf_sparse_input [--smoke] [--size N] [--threads T] [--reps R]
// Default: 3-D elasticity 40^3 (n = 192,000), 2 threads, median of 3.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_input.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_perf_csv.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

struct Csr {
  std::vector<int> ptr, ind;
  std::vector<double> val;
};

/// The CSR (32-bit) of the lower, upper or both triangles of the lower CSC L.
Csr to_csr(const ks::CscMatrix<double>& L, ks::Stored stored) {
  const size_type n = L.n;
  Csr C;
  C.ptr.assign(size_t(n + 1), 0);
  for (size_type j = 0; j < n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      if (stored != ks::Stored::Upper) ++C.ptr[size_t(i + 1)];             // (i, j) in row i
      if (stored != ks::Stored::Lower && i != j) ++C.ptr[size_t(j + 1)];   // (j, i) in row j
      if (stored == ks::Stored::Upper && i == j) ++C.ptr[size_t(j + 1)];
    }
  for (size_type i = 0; i < n; ++i) C.ptr[size_t(i + 1)] += C.ptr[size_t(i)];
  C.ind.resize(size_t(C.ptr[size_t(n)]));
  C.val.resize(C.ind.size());
  std::vector<int> next(C.ptr.begin(), C.ptr.end() - 1);
  for (size_type j = 0; j < n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      const double v = L.values[size_t(q)];
      if (stored != ks::Stored::Upper) {
        const int k = next[size_t(i)]++;
        C.ind[size_t(k)] = int(j), C.val[size_t(k)] = v;
      }
      if ((stored != ks::Stored::Lower && i != j) || (stored == ks::Stored::Upper && i == j)) {
        const int k = next[size_t(j)]++;
        C.ind[size_t(k)] = int(i), C.val[size_t(k)] = v;
      }
    }
  return C;
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;  // our flags are not Kokkos's (it rejects --threads T)
  size_type size = 40;
  int threads = 2, reps = 3;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    if (s == "--smoke") size = 8, reps = 1;
    else if (s == "--size" && a + 1 < argc) size = std::atol(argv[++a]);
    else if (s == "--threads" && a + 1 < argc) threads = std::atoi(argv[++a]);
    else if (s == "--reps" && a + 1 < argc) reps = std::atoi(argv[++a]);
    else {
      std::fprintf(stderr, "usage: perf_sparse_input [--smoke] [--size N] [--threads T] [--reps R]\n");
      return 2;
    }
  }
  const auto ref = ks::elasticity_3d<double>(size, size, size);
  std::printf("3-D elasticity %ld^3: n = %ld, nnz(lower) = %ld, threads %d, median of %d\n", long(size),
              long(ref.n), long(ref.nnz()), threads, reps);
  ks::Options opt;
  opt.threads = threads;
  ks::SupernodalCholesky<double> chol(opt);
  double t0 = now();
  chol.analyze(ref);
  const double t_analyse = now() - t0;
  std::vector<double> tf;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    if (chol.factorize(Kokkos::DefaultExecutionSpace(), ref) != 0) chol.require_spd();
    tf.push_back(now() - t0);
  }
  const double t_factor = median(tf);
  std::printf("analysis %.3f s, factorization %.3f s (nnz(L) %.1fM)\n", t_analyse, t_factor,
              double(chol.analysis_stats().nnz_l) * 1e-6);
  const std::string variant = "elasticity" + std::to_string(long(size));
  kspd::perf::csv_row("d", "factor", variant, long(ref.n), -1, -1, "kspd", t_factor * 1e3);
  std::printf("%-22s %10s %10s %12s %12s %10s\n", "input (CSR, int32)", "entries", "convert s", "% of factor",
              "update s", "% factor");
  bool ok = true;
  for (auto stored : {ks::Stored::Lower, ks::Stored::Upper, ks::Stored::Full}) {
    const Csr C = to_csr(ref, stored);
    ks::InputFormat fmt;
    fmt.stored = stored;
    std::vector<double> tc, tu;
    ks::SymmetricInput<double> in;
    for (int r = 0; r < reps; ++r) {
      in = ks::SymmetricInput<double>();  // free the last one first: time a cold build
      t0 = now();
      in = ks::make_input(ref.n, size_type(C.ind.size()), C.ptr.data(), C.ind.data(), C.val.data(), fmt);
      tc.push_back(now() - t0);
      t0 = now();
      in.update_values(C.val.data());
      tu.push_back(now() - t0);
    }
    ok = ok && in.matrix().colptr == ref.colptr && in.matrix().rowind == ref.rowind && in.matrix().values == ref.values;
    const double c = median(tc), u = median(tu);
    std::printf("%-22s %10zu %10.4f %11.2f%% %12.4f %9.2f%%\n", ks::to_string(stored), C.ind.size(), c,
                100 * c / t_factor, u, 100 * u / t_factor);
    kspd::perf::csv_row("d", std::string("convert ") + ks::to_string(stored), variant, long(ref.n), -1, -1, "kspd", c * 1e3);
    kspd::perf::csv_row("d", std::string("update ") + ks::to_string(stored), variant, long(ref.n), -1, -1, "kspd", u * 1e3);
  }
  std::printf("converted matrices equal the generator's CscMatrix: %s\n", ok ? "yes" : "NO");
  return ok ? 0 : 1;
}
