// perf_dense: recursive TRSM / TRMM / POTRI against the vendor call (cuBLAS/cuSOLVER on CUDA
// builds, host BLAS/LAPACK elsewhere) in the same run, with GEMM's rate for reference.
//   perf_dense [--n 1024,2048,...] [--nrhs 64,512,0] [--prec d,s] [--ops trsm,trmm,potri,gemm]
//              [--reps 5] [--leaf 0] [--lanes] [--sides] [--smoke]
// --sides: trsm/trmm for Left/Right x NoTranspose/Transpose (Right only with square B).
// nrhs 0 means square (nrhs = n). Prints one line per case: times (median), TFLOP/s, and
// speedup = t_vendor / t_kspd. --lanes: trsm/trmm also with the right-hand sides split over
// two halves on two instances (the caller's and a second stream), vendor and recursive, and
// Auto; potri also prints Auto. (Measured slower on the H100, so kspd does not split.)
#include <Kokkos_Core.hpp>
#include <Kokkos_Random.hpp>

#include <algorithm>
#include <cstdio>
#include <cstring>
#include <string>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_dense_streams.hpp"
#include "kspd_perf_utils.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

namespace {
using Exec = Kokkos::DefaultExecutionSpace;
template <class T>
using Mat = Kokkos::View<T**, Kokkos::LayoutLeft, Exec::memory_space>;

using kspd::perf::median_time;
using kspd::perf::parse_list;
using kspd::perf::parse_words;

/// A lower-triangular matrix with a dominant diagonal: well conditioned at any n.
template <class T>
void make_triangular(const Mat<T>& A, long n) {
  Kokkos::Random_XorShift64_Pool<Exec> pool(42);
  Kokkos::fill_random(A, pool, T(0), T(1));
  Kokkos::parallel_for("perf::diag", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(long i) { A(i, i) += T(n); });
}

template <class T>
void run(const std::vector<long>& ns, const std::vector<long>& nrhss, const std::vector<std::string>& ops, int reps,
         long leaf, bool lanes, bool all_sides, const char* prec) {
  Exec exec;
  // vendor and recursive as such: without the workspace routes that Auto may add
  constexpr auto off = kspd::Toggle::Off;
  const kspd::DenseOptions rec{kspd::Algo::Recursive, leaf, kspd::Blocking::Auto, 0, off, off},
      ven{kspd::Algo::Vendor, 0, kspd::Blocking::Auto, 0, off, off};
  const kspd::DenseOptions aut{};
  // CSV: the vendor call and kspd's, the same flop count.
  auto csv2 = [&](const std::string& op, const std::string& variant, long n, long nrhs, double flops, double tv, double tk) {
    kspd::perf::csv_row(prec, op, variant, n, nrhs, -1, "vendor", tv * 1e3, flops / tv * 1e-9);
    kspd::perf::csv_row(prec, op, variant, n, nrhs, -1, "kspd", tk * 1e3, flops / tk * 1e-9);
  };
  for (long n : ns) {
    Mat<T> A("A", n, n);
    make_triangular(A, n);
    double gemm_tf = 0;
    if (std::find(ops.begin(), ops.end(), "gemm") != ops.end()) {
      Mat<T> B("B", n, n), C("C", n, n);
      Kokkos::deep_copy(B, T(1));
      const double t = median_time(reps, [] {}, [&] {
        kspd::gemm(exec, kspd::Trans::NoTranspose, kspd::Trans::NoTranspose, T(1), A, B, T(0), C);
      });
      gemm_tf = 2.0 * n * n * n / t * 1e-12;
      std::printf("%s gemm      n=%6ld             %9.3f ms %7.2f TF\n", prec, n, t * 1e3, gemm_tf);
      kspd::perf::csv_row(prec, "gemm", "", n, -1, -1, "kspd", t * 1e3, gemm_tf * 1e3);
      std::fflush(stdout);
    }
    if (std::find(ops.begin(), ops.end(), "syrk") != ops.end()) {  // C = A A^T, k = n
      Mat<T> C("C", n, n);
      auto call = [&](const kspd::DenseOptions& o) {
        kspd::syrk(exec, kspd::Uplo::Lower, kspd::Trans::NoTranspose, T(1), A, T(0), C, o);
      };
      const double tv = median_time(reps, [] {}, [&] { call(ven); });
      const double tk = median_time(reps, [] {}, [&] { call(rec); });
      const double flops = double(n) * n * n;
      std::printf("%s syrk      n=%6ld k=%6ld     vendor %9.3f ms %7.2f TF | kspd %9.3f ms %7.2f TF | speedup %5.2fx\n",
                  prec, n, n, tv * 1e3, flops / tv * 1e-12, tk * 1e3, flops / tk * 1e-12, tv / tk);
      csv2("syrk", "", n, n, flops, tv, tk);
      std::fflush(stdout);
    }
    for (const std::string op : {"trsm", "trmm"}) {
      if (std::find(ops.begin(), ops.end(), op) == ops.end()) continue;
      for (long r : nrhss) {
        const long m = r == 0 ? n : r;
        Mat<T> B0("B0", n, m), B("B", n, m);
        Kokkos::Random_XorShift64_Pool<Exec> pool(7);
        Kokkos::fill_random(B0, pool, T(-1), T(1));
        const bool solve = op == "trsm";
        std::vector<std::pair<kspd::Side, kspd::Trans>> st = {{kspd::Side::Left, kspd::Trans::NoTranspose}};
        if (all_sides)
          st = {{kspd::Side::Left, kspd::Trans::NoTranspose}, {kspd::Side::Left, kspd::Trans::Transpose},
                {kspd::Side::Right, kspd::Trans::NoTranspose}, {kspd::Side::Right, kspd::Trans::Transpose}};
        for (auto [side_, trans_] : st) {
          const kspd::Side side = side_;
          const kspd::Trans trans = trans_;
          if (side == kspd::Side::Right && m != n) continue;  // B is n x m: Right needs a square B
          auto call = [&](const kspd::DenseOptions& o) {
            if (solve) kspd::trsm(exec, side, kspd::Uplo::Lower, trans, kspd::Diag::NonUnit, T(1), A, B, o);
            else kspd::trmm(exec, side, kspd::Uplo::Lower, trans, kspd::Diag::NonUnit, T(1), A, B, o);
          };
          auto reset = [&] { Kokkos::deep_copy(exec, B, B0); };
          const double tv = median_time(reps, reset, [&] { call(ven); });
          const double tk = median_time(reps, reset, [&] { call(rec); });
          const double flops = double(n) * n * m;
          std::printf("%s %-4s %cL%c n=%6ld nrhs=%6ld  vendor %9.3f ms %7.2f TF | kspd %9.3f ms %7.2f TF | speedup %5.2fx",
                      prec, op.c_str(), kspd::to_char(side), kspd::to_char(trans), n, m, tv * 1e3, flops / tv * 1e-12, tk * 1e3, flops / tk * 1e-12, tv / tk);
          csv2(op, std::string(1, kspd::to_char(side)) + "L" + kspd::to_char(trans), n, m, flops, tv, tk);
          if (gemm_tf > 0 && m == n) std::printf(" | kspd/gemm rate %3.0f%%", 100.0 * (flops / tk * 1e-12) / gemm_tf);
          if (lanes) {  // the right-hand sides over two instances; Auto
            auto call2 = [&](const kspd::DenseOptions& o) {  // the two halves of B on two instances
              const long h = m / 2;
              auto B1 = Kokkos::subview(B, Kokkos::ALL(), Kokkos::make_pair(0L, h));
              auto B2 = Kokkos::subview(B, Kokkos::ALL(), Kokkos::make_pair(h, m));
              kspd::Impl::Lanes<Exec> lanes(exec, true);
              lanes.side_waits_main();
              for (int half = 0; half < 2; ++half) {
                const Exec& x = half == 0 ? exec : lanes.side();
                const auto& Bh = half == 0 ? B1 : B2;
                if (solve) kspd::trsm(x, side, kspd::Uplo::Lower, trans, kspd::Diag::NonUnit, T(1), A, Bh, o);
                else kspd::trmm(x, side, kspd::Uplo::Lower, trans, kspd::Diag::NonUnit, T(1), A, Bh, o);
              }
              lanes.main_waits_side();
            };
            const double tv2 = median_time(reps, reset, [&] { call2(ven); });
            const double tk2 = median_time(reps, reset, [&] { call2(rec); });
            const double ta = median_time(reps, reset, [&] { call(aut); });
            std::printf(" | 2 lanes: vendor %9.3f ms (speedup %5.2fx) kspd %9.3f ms (speedup %5.2fx) | auto %9.3f ms "
                        "(speedup %5.2fx)",
                        tv2 * 1e3, tv / tv2, tk2 * 1e3, tv / tk2, ta * 1e3, tv / ta);
          }
          std::printf("\n");
          std::fflush(stdout);
        }
      }
    }
    if (std::find(ops.begin(), ops.end(), "potri") != ops.end()) {
      // SPD A = T T^T/n^2 + I from the triangular matrix, factored once (untimed).
      Mat<T> S("S", n, n), F("F", n, n), W("W", n, n);
      kspd::gemm(exec, kspd::Trans::NoTranspose, kspd::Trans::Transpose, T(1) / T(n) / T(n), A, A, T(0), S);
      Kokkos::parallel_for("perf::shift", Kokkos::RangePolicy<Exec>(0, n), KOKKOS_LAMBDA(long i) { S(i, i) += T(1); });
      Kokkos::deep_copy(F, S);
      kspd::require_spd(kspd::potrf(exec, kspd::Uplo::Lower, F), "perf_dense");
      auto reset = [&] { Kokkos::deep_copy(exec, W, F); };
      int info_v = 0, info_k = 0;
      const double tv = median_time(reps, reset, [&] { info_v = kspd::potri(exec, kspd::Uplo::Lower, W, ven); });
      const double tk = median_time(reps, reset, [&] { info_k = kspd::potri(exec, kspd::Uplo::Lower, W, rec); });
      const double tf = median_time(reps, [&] { Kokkos::deep_copy(exec, W, S); },
                                    [&] { (void)kspd::potrf(exec, kspd::Uplo::Lower, W); });
      if (std::find(ops.begin(), ops.end(), "parts") != ops.end()) {  // potri = trtri + lauum
        const double tt_v = median_time(reps, reset, [&] {
          (void)kspd::trtri(exec, kspd::Uplo::Lower, kspd::Diag::NonUnit, W, ven); });
        const double tt_k = median_time(reps, reset, [&] {
          (void)kspd::trtri(exec, kspd::Uplo::Lower, kspd::Diag::NonUnit, W, rec); });
        const double tl_v = median_time(reps, reset, [&] { kspd::lauum(exec, kspd::Uplo::Lower, W, ven); });
        const double tl_k = median_time(reps, reset, [&] { kspd::lauum(exec, kspd::Uplo::Lower, W, rec); });
        const double f3 = double(n) * n * n / 3.0;
        std::printf("%s trtri     n=%6ld             vendor %9.3f ms %7.2f TF | kspd %9.3f ms %7.2f TF\n", prec, n,
                    tt_v * 1e3, f3 / tt_v * 1e-12, tt_k * 1e3, f3 / tt_k * 1e-12);
        std::printf("%s lauum     n=%6ld             vendor %9.3f ms %7.2f TF | kspd %9.3f ms %7.2f TF\n", prec, n,
                    tl_v * 1e3, f3 / tl_v * 1e-12, tl_k * 1e3, f3 / tl_k * 1e-12);
        csv2("trtri", "", n, -1, f3, tt_v, tt_k);
        csv2("lauum", "", n, -1, f3, tl_v, tl_k);
      }
      const double flops = 2.0 * n * n * n / 3.0;
      if (lanes) {
        const double ta = median_time(reps, reset, [&] { (void)kspd::potri(exec, kspd::Uplo::Lower, W, aut); });
        std::printf("%s potri     n=%6ld             auto   %9.3f ms %7.2f TF | vendor/auto %5.2fx\n", prec, n,
                    ta * 1e3, flops / ta * 1e-12, tv / ta);
      }
      std::printf("%s potri     n=%6ld             vendor %9.3f ms %7.2f TF | kspd %9.3f ms %7.2f TF | speedup %5.2fx "
                  "(info %d/%d) | potrf %9.3f ms %7.2f TF\n",
                  prec, n, tv * 1e3, flops / tv * 1e-12, tk * 1e3, flops / tk * 1e-12, tv / tk, info_v, info_k,
                  tf * 1e3, double(n) * n * n / 3.0 / tf * 1e-12);
      csv2("potri", "", n, -1, flops, tv, tk);
      kspd::perf::csv_row(prec, "potrf", "", n, -1, -1, "kspd", tf * 1e3, double(n) * n * n / 3.0 / tf * 1e-9);
      std::fflush(stdout);
    }
  }
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  std::vector<long> ns = {1024, 2048, 4096, 8192, 16384, 32768}, nrhs = {64, 512, 0};
  std::vector<std::string> precs = {"d", "s"}, ops = {"gemm", "trsm", "trmm", "potri"};
  int reps = 5;
  long leaf = 0;
  bool lanes = false, all_sides = false;
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) {
      ns = {200};
      nrhs = {16, 0};
      reps = 1;
      lanes = true;
    } else if (arg("--n")) ns = parse_list(argv[++i]);
    else if (arg("--nrhs")) nrhs = parse_list(argv[++i]);
    else if (arg("--prec")) precs = parse_words(argv[++i]);
    else if (arg("--ops")) ops = parse_words(argv[++i]);
    else if (arg("--reps")) reps = std::stoi(argv[++i]);
    else if (arg("--leaf")) leaf = std::stol(argv[++i]);
    else if (std::strcmp(argv[i], "--lanes") == 0) lanes = true;
    else if (std::strcmp(argv[i], "--sides") == 0) all_sides = true;
  }
  std::printf("perf_dense: backend %s, kspd %d.%d (git %s), recursive leaf %ld (0 = default)\n", Exec::name(),
              KSPD_VERSION_MAJOR, KSPD_VERSION_MINOR, KSPD_GIT_HASH, leaf);
  for (const auto& p : precs) {
    if (p == "d") run<double>(ns, nrhs, ops, reps, leaf, lanes, all_sides, "d");
    if (p == "s") run<float>(ns, nrhs, ops, reps, leaf, lanes, all_sides, "s");
  }
  return 0;
}
