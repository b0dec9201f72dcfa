// perf_sparse_solve: the host supernodal solve (issue #17) against CHOLMOD's solve on the
// same matrix, factored once each; then the solves alternate (kspd, CHOLMOD, kspd, ...) so
// that both see the same load of a shared machine, and each keeps its fastest and median
// time. kspd solves at every --threads count with one factorization, CHOLMOD with its
// OpenBLAS threads (--cholmod-blas-threads). Prints the ratio kspd / CHOLMOD (< 1: kspd
// faster) and whether kspd's solution has the same bits at every thread count.
//
//   perf_sparse_solve [--smoke] [--reps R] [--threads T ...] [--nrhs K ...]
//                     [--kspd-blas-threads N] [--cholmod-blas-threads N]
//                     [--elasticity N ...] [--laplace3d N ...] [FILE.mtx|.rsa ...]
// Without cases: 3-D elasticity 16, 22, 28, 34 and the collection matrices of
// perf_sparse_cholmod's default list in $KSPD_DATA_DIR.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_perf_csv.hpp"
#include "perf_sparse_cases.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

#ifdef KSPD_HAVE_CHOLMOD
#include <cholmod.h>
#endif

extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

void blas_threads(int n) {
  if (n > 0 && openblas_set_num_threads) openblas_set_num_threads(n);
}
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
struct Stat {
  std::vector<double> t;
  double best() const { return t.empty() ? 0 : *std::min_element(t.begin(), t.end()); }
  double median() const {
    if (t.empty()) return 0;
    auto v = t;
    std::sort(v.begin(), v.end());
    return v[v.size() / 2];
  }
};

double residual(const ks::CscMatrix<double>& A, const std::vector<double>& X, const std::vector<double>& B, size_type nrhs) {
  double worst = 0;
  const size_type n = A.n;
  for (size_type r = 0; r < nrhs; ++r) {
    std::vector<double> x(X.begin() + r * n, X.begin() + (r + 1) * n), ax(static_cast<size_t>(n));
    ks::symv(A, x, ax);
    double rn = 0, xn = 0, bn = 0, an = 0;
    for (size_type i = 0; i < n; ++i) {
      const double bi = B[size_t(i + r * n)];
      rn += (ax[size_t(i)] - bi) * (ax[size_t(i)] - bi);
      xn += x[size_t(i)] * x[size_t(i)];
      bn += bi * bi;
    }
    for (size_type j = 0; j < n; ++j)
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p)
        an += (A.rowind[size_t(p)] == j ? 1.0 : 2.0) * A.values[size_t(p)] * A.values[size_t(p)];
    worst = std::max(worst, std::sqrt(rn) / (std::sqrt(an) * std::sqrt(xn) + std::sqrt(bn)));
  }
  return worst;
}

#ifdef KSPD_HAVE_CHOLMOD
struct Cholmod {
  cholmod_common c;
  cholmod_sparse* S = nullptr;
  cholmod_factor* L = nullptr;
  explicit Cholmod(const ks::CscMatrix<double>& A) {
    cholmod_l_start(&c);
    c.supernodal = CHOLMOD_SUPERNODAL;
    c.nmethods = 1;
    c.method[0].ordering = CHOLMOD_METIS;
    c.postorder = 1;
    S = cholmod_l_allocate_sparse(size_t(A.n), size_t(A.n), size_t(A.nnz()), 1, 1, -1, CHOLMOD_REAL, &c);
    std::copy(A.colptr.begin(), A.colptr.end(), static_cast<SuiteSparse_long*>(S->p));
    std::copy(A.rowind.begin(), A.rowind.end(), static_cast<SuiteSparse_long*>(S->i));
    std::copy(A.values.begin(), A.values.end(), static_cast<double*>(S->x));
    L = cholmod_l_analyze(S, &c);
    cholmod_l_factorize(S, L, &c);
  }
  ~Cholmod() {
    cholmod_l_free_factor(&L, &c);
    cholmod_l_free_sparse(&S, &c);
    cholmod_l_finish(&c);
  }
  double solve(const std::vector<double>& B, std::vector<double>& X, size_type n, size_type nrhs) {
    cholmod_dense* Bd = cholmod_l_allocate_dense(size_t(n), size_t(nrhs), size_t(n), CHOLMOD_REAL, &c);
    std::copy(B.begin(), B.end(), static_cast<double*>(Bd->x));
    const double t0 = now();
    cholmod_dense* Xd = cholmod_l_solve(CHOLMOD_A, L, Bd, &c);
    const double t = now() - t0;
    std::copy(static_cast<double*>(Xd->x), static_cast<double*>(Xd->x) + n * nrhs, X.begin());
    cholmod_l_free_dense(&Xd, &c);
    cholmod_l_free_dense(&Bd, &c);
    return t;
  }
};
#endif

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;
  int reps = 15, kspd_blas = 1, cholmod_blas = 0;
  std::vector<int> threads;
  std::vector<size_type> nrhs_list;
  std::vector<kspd::perf::SparseCase> cases;
  bool smoke = false;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    auto val = [&]() { return i + 1 < argc ? std::string(argv[++i]) : std::string("0"); };
    if (a == "--smoke") smoke = true;
    else if (a == "--reps") reps = std::max(1, std::atoi(val().c_str()));
    else if (a == "--threads") threads.push_back(std::atoi(val().c_str()));
    else if (a == "--nrhs") nrhs_list.push_back(std::atoll(val().c_str()));
    else if (a == "--kspd-blas-threads") kspd_blas = std::atoi(val().c_str());
    else if (a == "--cholmod-blas-threads") cholmod_blas = std::atoi(val().c_str());
    else if (a == "--elasticity") cases.push_back({"elasticity", std::atoll(val().c_str())});
    else if (a == "--laplace3d") cases.push_back({"laplace3d", std::atoll(val().c_str())});
    else cases.push_back({a, 0});
  }
  if (threads.empty()) threads = {1, 2};
  if (nrhs_list.empty()) nrhs_list = {1};
  if (smoke) {
    reps = 2;
    if (cases.empty()) cases = {{"elasticity", 6}};
  }
  if (cases.empty()) {
    cases = {{"elasticity", 16}, {"elasticity", 22}, {"elasticity", 28}, {"elasticity", 34}};
    kspd::perf::add_collection_cases(cases);
  }
  std::printf("perf_sparse_solve: kspd %s, host %s, kspd BLAS threads %d, CHOLMOD BLAS threads %d, %d alternating solves, "
              "times in ms (best / median)\n",
              KSPD_GIT_HASH, Kokkos::DefaultHostExecutionSpace::name(), kspd_blas, cholmod_blas, reps);
  std::printf("%-20s %8s %5s %4s | %17s | %17s | %6s %6s | %8s %s\n", "case", "n", "nrhs", "T", "kspd", "CHOLMOD", "best",
              "median", "k.res", "bits");
  int bad = 0;
  for (const auto& cs : cases) {
    ks::CscMatrix<double> A;
    std::string name;
    if (!kspd::perf::load_case(cs, A, name, 20)) continue;
    const size_type n = A.n;
#ifdef KSPD_HAVE_CHOLMOD
    blas_threads(cholmod_blas);
    Cholmod cm(A);
#endif
    // one factorization (the most threads), then each thread count solves with it
    // (Options::threads is read by each solve): the bits compare the solves alone
    ks::Options opt;
    opt.threads = *std::max_element(threads.begin(), threads.end());
    ks::SupernodalCholesky<double> chol(opt);
    blas_threads(kspd_blas);
    if (chol.factorize(Kokkos::DefaultHostExecutionSpace(), A) != 0) chol.require_spd();
    for (size_type nrhs : nrhs_list) {
      std::vector<double> B(size_t(n * nrhs));
      for (size_t i = 0; i < B.size(); ++i) B[i] = std::sin(double(i) * 0.37) + 0.5;
      std::vector<double> X1;
      for (size_t q = 0; q < threads.size(); ++q) {
        Stat ks_t, cm_t;
        std::vector<double> X(B.size()), Xc(B.size());
        Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> Bv("B", size_t(n), size_t(nrhs)),
            Xv("X", size_t(n), size_t(nrhs));
        std::memcpy(Bv.data(), B.data(), B.size() * sizeof(double));
        chol.options().threads = threads[q];
        for (int r = 0; r < reps; ++r) {
          blas_threads(kspd_blas);
          double t0 = now();
          chol.solve(Kokkos::DefaultHostExecutionSpace(), Bv, Xv);
          ks_t.t.push_back(now() - t0);
#ifdef KSPD_HAVE_CHOLMOD
          blas_threads(cholmod_blas);
          cm_t.t.push_back(cm.solve(B, Xc, n, nrhs));
#endif
        }
        std::memcpy(X.data(), Xv.data(), X.size() * sizeof(double));
        if (q == 0) X1 = X;
        const bool same = std::memcmp(X.data(), X1.data(), X.size() * sizeof(double)) == 0;
        const double res = residual(A, X, B, nrhs);
        if (!(res <= 1e-10) || !same) ++bad;
        auto ratio = [](double a, double b) { return b > 0 ? a / b : 0.0; };
        std::printf("%-20s %8ld %5ld %4d | %8.3f %8.3f | %8.3f %8.3f | %6.2f %6.2f | %8.1e %s\n", name.c_str(), long(n),
                    long(nrhs), threads[q], ks_t.best() * 1e3, ks_t.median() * 1e3, cm_t.best() * 1e3,
                    cm_t.median() * 1e3, ratio(ks_t.best(), cm_t.best()), ratio(ks_t.median(), cm_t.median()), res,
                    q == 0 ? "ref" : same ? "same" : "DIFFER");
        const std::string variant = name + "-T" + std::to_string(threads[q]);
        kspd::perf::csv_row("d", "solve", variant, long(n), long(nrhs), -1, "kspd", ks_t.best() * 1e3);
        if (!cm_t.t.empty()) kspd::perf::csv_row("d", "solve", variant, long(n), long(nrhs), -1, "CHOLMOD", cm_t.best() * 1e3);
        std::fflush(stdout);
      }
    }
  }
  std::printf("ratios: kspd / CHOLMOD (< 1: kspd faster); bits: kspd's X against the first thread count's\n");
  return bad ? 1 : 0;
}
