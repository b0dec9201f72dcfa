// perf_sparse_tacho: kspd's sparse Cholesky directly and through its Amesos2 adapter, Tacho
// (Trilinos' Kokkos sparse Cholesky) called directly with the same Metis ordering, and Amesos2's
// KLU2, side by side on the same matrices in the same run: analysis, factorization and solve
// times, and residuals ||b - A x||_inf / (||A||_inf ||x||_inf + ||b||_inf).
//
//   perf_sparse_tacho [--smoke] [--workers T] [--reps R] [--no-klu] [--klu-max-n N]
//                     [--laplace3d N ...] [--elasticity N ...] [FILE.mtx[.gz]|.rsa ...]
// Default cases: 3-D Laplacian 30^3, 3-D elasticity 16^3 and 22^3, and bodyy4/bodyy5/bodyy6/
// shallow_water1 from $KSPD_DATA_DIR when present.
//
// Threads: kspd runs T task workers (OpenBLAS single-threaded inside); Debian's Kokkos is
// Serial, so Tacho's only parallelism is its BLAS, which gets T OpenBLAS threads ("Tacho (BLAS
// T)"; with T > 1 it also runs with one, "Tacho (BLAS 1)", which can be faster); KLU2 is
// sequential. Tacho's "factor" includes initialize() (its numeric data structures), as
// kspd's first factorize allocates its own.
//
// --reps R: R rounds, each running every solver once (analysis, one factorization, one solve)
// in turn, so that the load of a shared machine falls on all of them alike; each phase keeps its
// best round. --csv FILE writes the rows as CSV too (perf_tests/common/kspd_perf_csv.hpp).
//
// Amesos2 13.2's "Tacho" interface is not timed: it never calls Tacho::Driver::initialize()
// and crashes for n >= 1024.

#include <Amesos2.hpp>
#include <Tacho.hpp>
#include <Tacho_Driver.hpp>
#include <mpi.h>
#include <Tpetra_Core.hpp>
#include <Trilinos_version.h>
#include <Tpetra_CrsMatrix.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_amesos2.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_sparse_symbolic.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

extern "C" void openblas_set_num_threads(int) __attribute__((weak));

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using map_t = Tpetra::Map<>;
using crs_t = Tpetra::CrsMatrix<double>;
using mv_t = Tpetra::MultiVector<double>;
using GO = map_t::global_ordinal_type;

void blas_threads(int n) {
  if (n > 0 && openblas_set_num_threads) openblas_set_num_threads(n);
}
double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
// Best of the repetitions: the 2-core VM is shared, so the minimum is the least disturbed run.
double best(const std::vector<double>& v) { return v.empty() ? 0.0 : *std::min_element(v.begin(), v.end()); }

struct Case {
  std::string name;
  ks::CscMatrix<double> L;  // lower triangle
};

/// Full symmetric CSR (rows sorted) of the lower CSC L.
struct FullCsr {
  std::vector<size_t> ap;
  std::vector<int> aj;
  std::vector<double> ax;
};
FullCsr full_csr(const ks::CscMatrix<double>& L) {
  const size_type n = L.n;
  FullCsr C;
  C.ap.assign(size_t(n + 1), 0);
  for (size_type j = 0; j < n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      ++C.ap[size_t(i + 1)];
      if (i != j) ++C.ap[size_t(j + 1)];
    }
  for (size_type i = 0; i < n; ++i) C.ap[size_t(i + 1)] += C.ap[size_t(i)];
  C.aj.resize(C.ap[size_t(n)]);
  C.ax.resize(C.aj.size());
  std::vector<size_t> next(C.ap.begin(), C.ap.end() - 1);
  // Row i gets its entries (i, j), j < i, from the columns j in increasing order, then its
  // diagonal and its column i's rows below: sorted.
  for (size_type j = 0; j < n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      size_t k = next[size_t(i)]++;
      C.aj[k] = int(j), C.ax[k] = L.values[size_t(q)];
      if (i != j) {
        k = next[size_t(j)]++;
        C.aj[k] = int(i), C.ax[k] = L.values[size_t(q)];
      }
    }
  return C;
}

double residual(const ks::CscMatrix<double>& L, const std::vector<double>& x, const std::vector<double>& b) {
  std::vector<double> r(b.size());
  ks::symv(L, x.data(), r.data());
  double rn = 0, xn = 0, bn = 0;
  std::vector<double> rowsum(b.size(), 0.0);
  for (size_type j = 0; j < L.n; ++j)
    for (size_type q = L.colptr[size_t(j)]; q < L.colptr[size_t(j + 1)]; ++q) {
      const size_type i = L.rowind[size_t(q)];
      rowsum[size_t(i)] += std::fabs(L.values[size_t(q)]);
      if (i != j) rowsum[size_t(j)] += std::fabs(L.values[size_t(q)]);
    }
  double an = 0;
  for (size_t i = 0; i < b.size(); ++i) {
    rn = std::max(rn, std::fabs(b[i] - r[i]));
    xn = std::max(xn, std::fabs(x[i]));
    bn = std::max(bn, std::fabs(b[i]));
    an = std::max(an, rowsum[i]);
  }
  return rn / (an * xn + bn);
}

struct Times {
  double analyse = 0, factor = 0, solve = 0, residual = 0;
  double engine = 0;  // kspd: the engine's own factorization seconds (FactorStats::seconds) in the best round
  bool ok = false;
  std::string note;
};

Times run_kspd_direct(const Case& c, const std::vector<size_type>& perm, int workers, int reps,
                      const std::vector<double>& b) {
  Times t;
  blas_threads(1);
  ks::Options opt;
  opt.threads = workers;
  opt.ordering = ks::Ordering::User;
  opt.user_permutation = perm;
  ks::SupernodalCholesky<double> chol(opt);
  double t0 = now();
  chol.analyze(c.L);
  t.analyse = now() - t0;
  std::vector<double> tf, ts;
  std::vector<double> x;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    if (chol.factorize(Kokkos::DefaultExecutionSpace(), c.L) != 0) chol.require_spd();
    tf.push_back(now() - t0);
    if (tf.back() <= best(tf)) t.engine = chol.factor_stats().seconds;
    x = b;
    t0 = now();
    chol.solve(x);
    ts.push_back(now() - t0);
  }
  t.factor = best(tf), t.solve = best(ts);
  t.residual = residual(c.L, x, b);
  t.ok = true;
  return t;
}

Teuchos::RCP<crs_t> tpetra_matrix(const FullCsr& C, size_type n) {
  auto comm = Tpetra::getDefaultComm();
  Teuchos::RCP<const map_t> map = Teuchos::rcp(new map_t(Tpetra::global_size_t(n), GO(0), comm));
  Teuchos::ArrayRCP<size_t> counts(static_cast<size_t>(n));
  for (size_type i = 0; i < n; ++i) counts[size_t(i)] = C.ap[size_t(i + 1)] - C.ap[size_t(i)];
  auto A = Teuchos::rcp(new crs_t(map, counts()));
  std::vector<GO> cols;
  for (size_type i = 0; i < n; ++i) {
    const size_t b = C.ap[size_t(i)], e = C.ap[size_t(i + 1)];
    cols.assign(C.aj.begin() + long(b), C.aj.begin() + long(e));
    A->insertGlobalValues(GO(i), Teuchos::ArrayView<const GO>(cols.data(), long(e - b)),
                          Teuchos::ArrayView<const double>(C.ax.data() + b, long(e - b)));
  }
  A->fillComplete();
  return A;
}

/// An Amesos2 solver by name ("kspd" through the adapter, or "KLU2"); one process.
Times run_amesos2(const std::string& name, const Case& c, const Teuchos::RCP<crs_t>& A, int workers, int blas,
                  int reps, const std::vector<double>& b) {
  Times t;
  blas_threads(blas);
  const size_type n = c.L.n;
  auto X = Teuchos::rcp(new mv_t(A->getDomainMap(), 1));
  auto B = Teuchos::rcp(new mv_t(A->getRangeMap(), 1));
  {
    auto h = B->getLocalViewHost();
    for (size_type i = 0; i < n; ++i) h(size_t(i), 0) = b[size_t(i)];
  }
  auto solver = kspd::amesos2::create<crs_t, mv_t>(name, A, X, B);
  if (name == "kspd") {
    Teuchos::ParameterList pl("Amesos2");
    pl.sublist("kspd").set("kspd: threads", workers);
    solver->setParameters(Teuchos::rcpFromRef(pl));
  }
  double t0 = now();
  solver->symbolicFactorization();
  t.analyse = now() - t0;
  std::vector<double> tf, ts;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    solver->numericFactorization();
    tf.push_back(now() - t0);
    t0 = now();
    solver->solve();
    ts.push_back(now() - t0);
  }
  t.factor = best(tf), t.solve = best(ts);
  std::vector<double> x(static_cast<size_t>(n));
  {
    auto h = X->getLocalViewHost();
    for (size_type i = 0; i < n; ++i) x[size_t(i)] = h(size_t(i), 0);
  }
  t.residual = residual(c.L, x, b);
  t.ok = true;
  return t;
}

Times run_tacho(const Case& c, const FullCsr& C, const std::vector<size_type>& perm, int blas, int reps,
                const std::vector<double>& b) {
  using device = Kokkos::Device<Kokkos::Serial, Kokkos::HostSpace>;
  using driver_t = Tacho::Driver<double, device>;
  Times t;
  blas_threads(blas);
  const size_type n = c.L.n;
  Kokkos::View<Tacho::size_type*, device> ap("ap", C.ap.size());
  Kokkos::View<Tacho::ordinal_type*, device> aj("aj", C.aj.size()), p("perm", size_t(n)), pi("peri", size_t(n));
  Kokkos::View<double*, device> ax("ax", C.ax.size());
  for (size_t k = 0; k < C.ap.size(); ++k) ap(k) = Tacho::size_type(C.ap[k]);
  for (size_t k = 0; k < C.aj.size(); ++k) aj(k) = C.aj[k], ax(k) = C.ax[k];
  // Metis' (perm, iperm) as given: perm new -> old, iperm old -> new.
  for (size_type k = 0; k < n; ++k) p(size_t(k)) = int(perm[size_t(k)]), pi(size_t(perm[size_t(k)])) = int(k);
  driver_t solver;
  solver.setMatrixType(2, true);  // symmetric, positive definite
  double t0 = now();
  solver.analyze(int(n), ap, aj, p, pi);
  t.analyse = now() - t0;
  typename driver_t::value_type_matrix x("x", size_t(n), 1), bb("b", size_t(n), 1), w("w", size_t(n), 1);
  for (size_type i = 0; i < n; ++i) bb(size_t(i), 0) = b[size_t(i)];
  std::vector<double> tf, ts;
  t0 = now();
  solver.initialize();
  const double t_init = now() - t0;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    solver.factorize(ax);
    tf.push_back(now() - t0);
    t0 = now();
    solver.solve(x, bb, w);
    ts.push_back(now() - t0);
  }
  t.factor = t_init + best(tf), t.solve = best(ts);
  std::vector<double> xs(static_cast<size_t>(n));
  for (size_type i = 0; i < n; ++i) xs[size_t(i)] = x(size_t(i), 0);
  t.residual = residual(c.L, xs, b);
  solver.release();
  t.ok = true;
  return t;
}

void print_row(const Case& c, const char* who, const Times& t, const Times& ref) {
  if (!t.ok) {
    std::printf("  %-15s %s\n", who, t.note.c_str());
    return;
  }
  const double total = t.analyse + t.factor + t.solve, rtotal = ref.analyse + ref.factor + ref.solve;
  std::printf("  %-15s %9.3f %9.3f %9.4f %9.3f %9.1e | %7.2f %7.2f\n", who, t.analyse, t.factor, t.solve, total,
              t.residual, t.factor / ref.factor, total / rtotal);
  std::fflush(stdout);
  const long n = long(c.L.n);
  kspd::perf::csv_row("d", "analyse", c.name, n, -1, -1, who, t.analyse * 1e3);
  kspd::perf::csv_row("d", "factor", c.name, n, -1, -1, who, t.factor * 1e3);
  kspd::perf::csv_row("d", "solve", c.name, n, 1, -1, who, t.solve * 1e3);
  kspd::perf::csv_row("d", "total", c.name, n, 1, -1, who, total * 1e3);
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  int workers = 2, reps = 3;
  bool klu = true;
  size_type klu_max_n = 200000;
  std::vector<size_type> lap, ela;
  std::vector<std::string> files;
  bool smoke = false, explicit_cases = false;
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto val = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "perf_sparse_tacho: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    if (s == "--smoke") smoke = true;
    else if (s == "--workers") workers = std::atoi(val().c_str());
    else if (s == "--reps") reps = std::atoi(val().c_str());
    else if (s == "--no-klu") klu = false;
    else if (s == "--klu-max-n") klu_max_n = std::atol(val().c_str());
    else if (s == "--laplace3d") lap.push_back(std::atol(val().c_str())), explicit_cases = true;
    else if (s == "--elasticity") ela.push_back(std::atol(val().c_str())), explicit_cases = true;
    else if (!s.empty() && s[0] != '-') files.push_back(s), explicit_cases = true;
    else {
      std::fprintf(stderr,
                   "usage: perf_sparse_tacho [--smoke] [--workers T] [--reps R] [--no-klu] [--klu-max-n N] "
                   "[--laplace3d N ...] [--elasticity N ...] [FILE ...]\n");
      return 2;
    }
  }
  if (smoke) {
    lap = {8}, ela = {5}, reps = 1;
  } else if (!explicit_cases) {
    lap = {30}, ela = {16, 22};
    const char* dir = std::getenv("KSPD_DATA_DIR");
    const std::string d = dir ? dir : KSPD_DEFAULT_DATA_DIR;
    for (const char* name : {"bodyy4", "bodyy5", "bodyy6", "shallow_water1"})
      for (const char* ext : {".mtx", ".mtx.gz", ".rsa", ".rb"}) {
        const std::string path = d + "/" + name + ext;
        if (std::filesystem::exists(path)) {
          files.push_back(path);
          break;
        }
      }
  }
  int one = 1;
  char* prog[] = {argv[0], nullptr};
  char** pargv = prog;
  // kspd's adapter factors with --workers threads per rank: MPI_THREAD_FUNNELED, initialized
  // before Tpetra's guard (which then leaves MPI alone) and finalized after it.
  struct MpiFunneled {
    MpiFunneled() {
      int provided = 0;
      MPI_Init_thread(nullptr, nullptr, MPI_THREAD_FUNNELED, &provided);
    }
    ~MpiFunneled() { MPI_Finalize(); }
  } mpi;
  Tpetra::ScopeGuard tpetra(&one, &pargv);  // our flags are not Kokkos' (it rejects --threads T)
  std::vector<Case> cases;
  for (auto N : lap) cases.push_back({"laplace3d-" + std::to_string(N), ks::laplacian_3d<double>(N, N, N)});
  for (auto N : ela) cases.push_back({"elasticity3d-" + std::to_string(N), ks::elasticity_3d<double>(N, N, N)});
  for (auto& f : files) cases.push_back({std::filesystem::path(f).filename().string(), ks::read_matrix<double>(f)});

  std::printf("perf_sparse_tacho: kspd %s, Trilinos %s (Tacho, Amesos2 KLU2), Kokkos Serial; kspd %d workers "
              "(OpenBLAS 1 thread), Tacho OpenBLAS %d threads, KLU2 sequential; best of %d interleaved rounds\n",
              KSPD_GIT_HASH, TRILINOS_VERSION_STRING, workers, workers, reps);
  std::printf("  %-15s %9s %9s %9s %9s %9s | %7s %7s\n", "solver", "analyse s", "factor s", "solve s", "total s",
              "residual", "factor/", "total/");
  std::printf("  %-15s %9s %9s %9s %9s %9s | %7s %7s\n", "", "", "", "", "", "", "kspd", "kspd");
  bool ok = true;
  for (const auto& c : cases) {
    const size_type n = c.L.n;
    // The same Metis ordering for kspd and Tacho (kspd's own call, as its analysis makes it).
    ks::Options mo;
    mo.ordering = ks::Ordering::Metis;
    double t0 = now();
    const auto perm = ks::Impl::compute_ordering({n, c.L.colptr.data(), c.L.rowind.data()}, mo);
    const double t_metis = now() - t0;
    const FullCsr C = full_csr(c.L);
    std::vector<double> xtrue(static_cast<size_t>(n)), b(static_cast<size_t>(n));
    for (size_type i = 0; i < n; ++i) xtrue[size_t(i)] = std::sin(0.1 * double(i)) + 1.0;
    ks::symv(c.L, xtrue.data(), b.data());
    std::printf("%s: n = %ld, nnz(full) = %zu, Metis %.3f s (given to kspd and Tacho, not in their analysis; "
                "the adapter orders by itself in its analysis)\n", c.name.c_str(), long(n),
                C.aj.size(), t_metis);
    // Rounds: every solver once per round, interleaved, so that the load of the shared machine
    // falls on all of them alike; each phase keeps its best round.
    auto A = tpetra_matrix(C, n);
    Times direct, adapter, tacho, tacho1;
    auto guarded = [](Times& best, auto&& run) {
      Times t;
      try {
        t = run();
      } catch (const std::exception& e) {
        t.note = std::string("failed: ") + e.what();
      }
      if (!t.ok) {
        if (!best.ok) best = t;
        return;
      }
      if (!best.ok) {
        best = t;
        return;
      }
      best.analyse = std::min(best.analyse, t.analyse);
      if (t.factor < best.factor) best.engine = t.engine;
      best.factor = std::min(best.factor, t.factor);
      best.solve = std::min(best.solve, t.solve);
      best.residual = std::max(best.residual, t.residual);
    };
    for (int r = 0; r < reps; ++r) {
      guarded(direct, [&] { return run_kspd_direct(c, perm, workers, 1, b); });
      guarded(adapter, [&] { return run_amesos2("kspd", c, A, workers, 1, 1, b); });
      guarded(tacho, [&] { return run_tacho(c, C, perm, workers, 1, b); });
      // OpenBLAS threads do not always pay on small blocks: Tacho's best is shown too
      if (workers > 1) guarded(tacho1, [&] { return run_tacho(c, C, perm, 1, 1, b); });
    }
    direct.ok ? print_row(c, "kspd", direct, direct) : void();
    // factorize() also checks the input against the analysis and builds the numeric engine
    if (direct.ok)
      std::printf("  %-15s %9s %9.3f  (the engine's factorization in that round; the rest: input checks, setup)\n",
                  "kspd (engine)", "", direct.engine);
    print_row(c, "kspd (Amesos2)", adapter, direct);
    print_row(c, workers > 1 ? "Tacho (BLAS T)" : "Tacho", tacho, direct);
    if (workers > 1) print_row(c, "Tacho (BLAS 1)", tacho1, direct);
    Times klu2;
    if (klu && n <= klu_max_n) {
      try {
        klu2 = run_amesos2("KLU2", c, A, workers, 1, 1, b);
      } catch (const std::exception& e) {
        klu2.note = std::string("failed: ") + e.what();
      }
    } else {
      klu2.note = "skipped (--no-klu / --klu-max-n)";
    }
    print_row(c, "KLU2 (Amesos2)", klu2, direct);
    for (const Times* t : {static_cast<const Times*>(&direct), static_cast<const Times*>(&adapter), static_cast<const Times*>(&tacho)})
      ok = ok && t->ok && t->residual < 1e-10;
  }
  return ok ? 0 : 1;
}
