// perf_rfp_blocking: pftrf's blockings (Split = LAPACK's four calls, the old algorithm;
// Blocked; LookAhead; Auto = core's table) for every RFP variant, and pftri (Auto against the
// vendor-leaf path it replaced), against the dense peer timed in the same run on the same
// matrix A = X X^H / k + I (real s, d; complex c, z).
//   CUDA builds: cuSOLVER Xpotrf / potri on the dense n x n matrix (the RFP matrix unpacked).
//   Host builds: no dense peer here (perf_rfp_cpu_pftrf times LAPACK's ?pftrf); ratios to
//   Split.
// Usage: perf_rfp_blocking [--n 4096,8192] [--prec s,d,z] [--variants NL,NU,TL,TU]
//                          [--blocking split,blocked,lookahead,dense,auto] [--nb 256,512,1024]
//                          [--ops pftrf,pftri] [--reps 3] [--k 256] [--algos auto,recursive]
//                          [--upper auto,off,on] [--blas3 auto,off,on] [--smoke]
// --algos: the core algorithm of the block calls (DenseOptions::algo), each blocking at each.
// --upper: DenseOptions::upper_via_lower (the upper-stored diagonal block factored, inverted,
// multiplied in 'L' on a transposed copy), each case at each. --blas3 (pftri only):
// DenseOptions::blas3_inverse (trtri / lauum as one trsm / trmm on a workspace).
// --ops parts: Split's four calls (potrf t1, trsm s, herk t2, potrf t2) timed one by one.
// --ops calls: the first four calls of each case timed one by one (first-call costs).
// --ops steps: the pieces of one nb-column step (panel potrf: the leaf and cuSOLVER; trsm;
// the next panel's update), each fenced alone, at each --nb.
// Each blocking other than split and auto runs at every nb. One line per case: median time,
// TFLOP/s, kspd/peer (time ratio: < 1 kspd faster), kspd/split, info, and the largest
// relative difference of diag(L) from the peer's (or Split's) factor.
#include <cmath>

#include "perf_rfp_peer.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

namespace {
using namespace perf_rfp;

struct Config {
  std::vector<long> ns;
  std::vector<std::string> precs = {"d", "s", "z"}, variants = {"NL", "NU", "TL", "TU"},
                           blockings = {"split", "lookahead", "auto"}, ops = {"pftrf", "pftri"};
  std::vector<long> nbs = {512};
  std::vector<std::string> algos = {"auto"}, uppers = {"auto"}, blas3s = {"auto"};
  int reps = 3;
  long k = 256;
};

template <class T>
KOKKOS_INLINE_FUNCTION double mag2(const T& v) {
  if constexpr (kspd::is_complex_v<T>) return double(v.real()) * v.real() + double(v.imag()) * v.imag();
  else return double(v) * double(v);
}

/// max_i |F(i,i) - D(i,i)| / |D(i,i)|: the RFP factor's diagonal against a dense factor's.
template <class T>
double diag_diff(const kspd::rfp::Matrix<T, Mem>& F, const Dense<T>& D) {
  const auto L = F.layout();
  auto f = F.data();
  double m = 0;
  Kokkos::parallel_reduce(
      "perf::diag_diff", Kokkos::RangePolicy<Exec>(0, F.n()),
      KOKKOS_LAMBDA(long i, double& r) {
        const double e = mag2(T(f(L.diag(i)) - D(i, i))) / mag2(D(i, i));
        if (!(e <= r)) r = e;
      },
      Kokkos::Max<double>(m));
  return std::sqrt(m);
}

template <class T>
void run(const Config& c, const char* prec) {
  using R = kspd::real_t<T>;
  constexpr bool cplx = kspd::is_complex_v<T>;
  Exec exec;
#ifdef KSPD_ENABLE_CUDA_TPLS
  CudaPeer peer(exec.cuda_stream());
#endif
  for (long n : c.ns) {
    const double nd = double(n), fac_flops = (cplx ? 4.0 : 1.0) * nd * nd * nd / 3.0;
    Dense<T> X("X", n, c.k);
    Kokkos::Random_XorShift64_Pool<Exec> pool(1234 + unsigned(n));
    Kokkos::fill_random(X, pool, T(-1), T(1));
#ifdef KSPD_ENABLE_CUDA_TPLS
    Dense<T> D("D", n, n);
#else
    Dense<T> D("D", 1, 1);
#endif
    bool peer_timed = false;
    double tpf = 0, tpi = 0;
    for (const auto& var : c.variants) {
      const kspd::Trans transr = var[0] == 'N' ? kspd::Trans::NoTranspose : kspd::Trans::Transpose;
      const kspd::Uplo uplo = var[1] == 'L' ? kspd::Uplo::Lower : kspd::Uplo::Upper;
      kspd::rfp::Matrix<T, Mem> A0("A0", n, transr, uplo), W("W", n, transr, uplo);
      kspd::rfp::hfrk(exec, kspd::Trans::NoTranspose, R(1) / R(c.k), X, R(0), A0);
      kspd::rfp::add_to_diagonal(exec, A0, R(1));
      exec.fence();
      int ip = 0;
#ifdef KSPD_ENABLE_CUDA_TPLS
      // the dense peer: once per n, on the first variant's triangle (tfttr writes that one)
      if (!peer_timed) {
        peer.set_uplo(uplo);
        tpf = median_time(c.reps, [&] { kspd::rfp::tfttr(exec, A0, D); }, [&] { ip = peer.potrf(D); });
        if constexpr (!cplx) {
          if (has(c.ops, "pftri")) {
            Dense<T> F("F", n, n);
            Kokkos::deep_copy(exec, F, D);  // D holds the dense factor
            tpi = median_time(c.reps, [&] { Kokkos::deep_copy(exec, D, F); }, [&] { (void)peer.potri(D); });
            Kokkos::deep_copy(exec, D, F);
          }
        }
        peer.release();
        peer_timed = true;
        std::printf("%s peer   n=%6ld %s | cuSOLVER potrf %10.3f ms %7.2f TF | potri %10.3f ms | info %d\n", prec, n,
                    var.c_str(), tpf * 1e3, fac_flops / tpf * 1e-12, tpi * 1e3, ip);
        kspd::perf::csv_row(prec, "pftrf", var, n, -1, -1, "cuSOLVER potrf", tpf * 1e3, fac_flops / tpf * 1e-9);
        if (tpi > 0) kspd::perf::csv_row(prec, "pftri", var, n, -1, -1, "cuSOLVER potri", tpi * 1e3, 2.0 * fac_flops / tpi * 1e-9);
      }
#endif
      // pftrf: every blocking (x nb)
      std::vector<kspd::DenseOptions> opts;
      for (const auto& u : c.uppers)
        for (const auto& a : c.algos) {
          const kspd::Algo al = a == "vendor" ? kspd::Algo::Vendor : a == "recursive" ? kspd::Algo::Recursive
                                                                                    : kspd::Algo::Auto;
          const kspd::Toggle up = parse_toggle(u);
          for (const auto& b : c.blockings) {
            const kspd::Blocking bk = parse_blocking(b);
            if (bk == kspd::Blocking::Split || bk == kspd::Blocking::Auto || bk == kspd::Blocking::Dense)
              opts.push_back({al, 0, bk, 0, up});
            else
              for (long nb : c.nbs) opts.push_back({al, 0, bk, nb, up});
          }
        }
      // the first calls of each case one by one (before any other pftrf of this variant):
      // what a call costs once (handles, streams, workspaces) against the later ones
      if (has(c.ops, "calls"))
        for (const auto& o : opts) {
          double t[4];
          int ik = 0;
          for (double& ti : t) {
            Kokkos::deep_copy(exec, W.data(), A0.data());
            exec.fence();
            Kokkos::Timer timer;
            ik = kspd::rfp::pftrf(exec, W, o);
            exec.fence();
            ti = timer.seconds();
          }
          std::printf("%s calls  n=%6ld %s %-9s nb=%5lld | 1st %8.3f ms | 2nd %8.3f ms | 3rd %8.3f ms | 4th %8.3f ms "
                      "| 4th/peer %6.3f | info %d\n",
                      prec, n, var.c_str(), blocking_name(o.blocking), o.block_size, t[0] * 1e3, t[1] * 1e3, t[2] * 1e3,
                      t[3] * 1e3, tpf > 0 ? t[3] / tpf : 0.0, ik);
          std::fflush(stdout);
        }
      double t_split = 0;
      if (has(c.ops, "pftrf"))
        for (const auto& o : opts) {
          int ik = 0;
          const double tk = median_time(c.reps, [&] { Kokkos::deep_copy(exec, W.data(), A0.data()); },
                                        [&] { ik = kspd::rfp::pftrf(exec, W, o); });
          // the baseline: the first split row (with --upper off,...: cuSOLVER's 'U' as before)
          if (o.blocking == kspd::Blocking::Split && o.algo == kspd::Algo::Auto && t_split == 0) t_split = tk;
          const double dd = peer_timed && var == c.variants.front() ? diag_diff(W, D) : -1;
          std::printf("%s pftrf  n=%6ld %s %-9s nb=%5lld %-9s up=%-4s | kspd %10.3f ms %7.2f TF | kspd/peer %6.3f | kspd/split %6.3f "
                      "| info %d | diag rel diff %.1e\n",
                      prec, n, var.c_str(), blocking_name(o.blocking), o.block_size,
                      o.algo == kspd::Algo::Auto ? "auto" : o.algo == kspd::Algo::Vendor ? "vendor" : "recursive",
                      toggle_name(o.upper_via_lower), tk * 1e3, fac_flops / tk * 1e-12,
                      tpf > 0 ? tk / tpf : 0.0, t_split > 0 ? tk / t_split : 0.0, ik, dd);
          std::fflush(stdout);
          kspd::perf::csv_row(prec, "pftrf", var, n, -1, -1,
                              std::string("kspd ") + blocking_name(o.blocking) + " nb=" + std::to_string(o.block_size) + " " +
                                  (o.algo == kspd::Algo::Auto ? "auto" : o.algo == kspd::Algo::Vendor ? "vendor" : "recursive"),
                              tk * 1e3, fac_flops / tk * 1e-9);
        }
      // the four calls of Split, each timed alone (fenced): where the time goes per variant
      if (has(c.ops, "parts")) {
        const auto b = kspd::rfp::Impl::stored_blocks(W);
        const kspd::DenseOptions o{};
        const double f1 = (cplx ? 4.0 : 1.0) * double(b.n1) * b.n1 * b.n1 / 3.0;
        const double ft = (cplx ? 4.0 : 1.0) * double(b.n2) * b.n1 * b.n1;
        const double fs = (cplx ? 4.0 : 1.0) * double(b.n2) * b.n2 * b.n1;
        const double f2 = (cplx ? 4.0 : 1.0) * double(b.n2) * b.n2 * b.n2 / 3.0;
        Kokkos::View<int, Mem> info("info");
        // t: fenced time of each call; q: the host's time in the call itself (before the
        // fence): q close to t means the call waited for the device (a hidden sync)
        double t[4] = {0, 0, 0, 0}, q[4] = {0, 0, 0, 0};
        for (int r = 0; r <= c.reps; ++r) {
          Kokkos::deep_copy(exec, W.data(), A0.data());
          exec.fence();
          double tt[4], qq[4];
          Kokkos::Timer timer;
          kspd::potrf(exec, b.t1.uplo, b.t1.v, info, o);
          qq[0] = timer.seconds();
          exec.fence();
          tt[0] = timer.seconds();
          timer.reset();
          kspd::rfp::Impl::tri_s(exec, true, kspd::Side::Right, true, kspd::Diag::NonUnit, T(1), b.t1, b.s, o);
          qq[1] = timer.seconds();
          exec.fence();
          tt[1] = timer.seconds();
          timer.reset();
          kspd::herk(exec, b.t2.uplo, b.s.h ? kspd::Impl::herm_trans<T>() : kspd::Trans::NoTranspose, R(-1), b.s.v, R(1),
                     b.t2.v, o);
          qq[2] = timer.seconds();
          exec.fence();
          tt[2] = timer.seconds();
          timer.reset();
          kspd::potrf(exec, b.t2.uplo, b.t2.v, info, o);
          qq[3] = timer.seconds();
          exec.fence();
          tt[3] = timer.seconds();
          if (r > 0)  // r = 0 warms up; the sum of the others, then their mean
            for (int i = 0; i < 4; ++i) t[i] += tt[i] / c.reps, q[i] += qq[i] / c.reps;
        }
        std::printf("%s parts  n=%6ld %s | potrf(t1 %c%s) %8.3f ms %6.2f TF | trsm(s%s) %8.3f ms %6.2f TF | "
                    "herk(t2 %c) %8.3f ms %6.2f TF | potrf(t2 %c%s) %8.3f ms %6.2f TF | sum %8.3f ms\n",
                    prec, n, var.c_str(), kspd::to_char(b.t1.uplo), b.t1.h ? "h" : "", t[0] * 1e3, f1 / t[0] * 1e-12,
                    b.s.h ? "h" : "", t[1] * 1e3, ft / t[1] * 1e-12, kspd::to_char(b.t2.uplo), t[2] * 1e3,
                    fs / t[2] * 1e-12, kspd::to_char(b.t2.uplo), b.t2.h ? "h" : "", t[3] * 1e3, f2 / t[3] * 1e-12,
                    (t[0] + t[1] + t[2] + t[3]) * 1e3);
        std::printf("%s host   n=%6ld %s | in-call host time (before the fence) %8.3f %8.3f %8.3f %8.3f ms\n", prec, n,
                    var.c_str(), q[0] * 1e3, q[1] * 1e3, q[2] * 1e3, q[3] * 1e3);
        std::fflush(stdout);
      }
      // the pieces of ONE nb-column step (--ops steps, at each --nb), each fenced alone: the
      // first diagonal panel's POTRF as pftrf's leaf runs it (kspd_rfp_panel_potrf_impl.hpp:
      // shared memory where it fits) and as core's potrf (cuSOLVER), the panel's TRSMs (the
      // rest of the first half, and A21) and the look-ahead update of the next panel (herk +
      // gemms); with the steps' count, what bounds the chain of panels from below
      if (has(c.ops, "steps")) {
        namespace RI = kspd::rfp::Impl;
        const auto b = RI::stored_blocks(W);
        const kspd::DenseOptions o{};
        Kokkos::View<int, Mem> info("info");
        const int reps = std::max(c.reps, 15);
        auto reset = [&] { Kokkos::deep_copy(exec, W.data(), A0.data()); };
        for (long nb : c.nbs) {
          if (nb <= 0 || 2 * nb > long(b.n1)) continue;
          const auto d = RI::part(b, 1, 1, 0, nb, 0, nb);
          const auto below = RI::part(b, 1, 1, nb, b.n1 - nb, 0, nb);
          const auto s21 = RI::part(b, 2, 1, 0, b.n2, 0, nb);
          const double tl = median_time(reps, reset, [&] { RI::panel_potrf(exec, d, info.data(), o); });
          const double tv = median_time(reps, reset, [&] { kspd::potrf(exec, d.uplo, d.v, info, o); });
          auto solve = [&](const RI::Stored<T, Mem>& B) {
            RI::tri_s(exec, true, kspd::Side::Right, true, kspd::Diag::NonUnit, T(1), d, B, o);
          };
          const auto joined = RI::join_rows(below, s21);  // one call where the storage joins (NL, TU)
          const double tt = median_time(reps, reset, [&] {
            if (joined) solve(*joined);
            else solve(below), solve(s21);
          });
          // the next panel's update by this one: its diagonal block (herk), the rows below it
          // in the first half and in A21 (gemm), as update_cols runs them
          const auto d2 = RI::part(b, 1, 1, nb, nb, nb, nb);
          const auto p2 = RI::part(b, 1, 1, nb, nb, 0, nb);
          const auto c3 = RI::part(b, 1, 1, 2 * nb, b.n1 - 2 * nb, nb, nb);
          const auto a3 = RI::part(b, 1, 1, 2 * nb, b.n1 - 2 * nb, 0, nb);
          const auto cs = RI::part(b, 2, 1, 0, b.n2, nb, nb);
          const double tu = median_time(reps, reset, [&] {
            kspd::herk(exec, d2.uplo, p2.h ? kspd::Impl::herm_trans<T>() : kspd::Trans::NoTranspose, R(-1), p2.v, R(1),
                       d2.v, o);
            const auto jc = RI::join_rows(c3, cs), ja = RI::join_rows(a3, s21);
            if (jc && ja) RI::gemm_logical(exec, *jc, *ja, p2);
            else RI::gemm_logical(exec, c3, a3, p2), RI::gemm_logical(exec, cs, s21, p2);
          });
          const long steps = (long(b.n1) + nb - 1) / nb + (long(b.n2) + nb - 1) / nb;
          std::printf("%s steps  n=%6ld %s nb=%5ld | panel potrf: leaf %8.4f ms, cuSOLVER %8.4f ms | trsm %8.4f ms | "
                      "next-panel update %8.4f ms | chain (leaf+trsm+update) x %ld steps %8.3f ms | rows joined %d\n",
                      prec, n, var.c_str(), nb, tl * 1e3, tv * 1e3, tt * 1e3, tu * 1e3, steps,
                      (tl + tt + tu) * steps * 1e3, int(bool(joined)));
          std::fflush(stdout);
        }
      }
      // pftri on the factor: Auto against the vendor leaves (the path before the Auto change)
      if (has(c.ops, "pftri")) {
        Kokkos::deep_copy(exec, W.data(), A0.data());
        if (kspd::rfp::pftrf(exec, W) != 0) continue;
        kspd::rfp::Matrix<T, Mem> F("F", n, transr, uplo);
        Kokkos::deep_copy(exec, F.data(), W.data());
        // the vendor leaves as before (baseline), then Auto at each --upper x --blas3
        std::vector<kspd::DenseOptions> popts = {
            {kspd::Algo::Vendor, 0, kspd::Blocking::Auto, 0, kspd::Toggle::Off, kspd::Toggle::Off}};
        for (const auto& u : c.uppers)
          for (const auto& b3 : c.blas3s)
            popts.push_back({kspd::Algo::Auto, 0, kspd::Blocking::Auto, 0, parse_toggle(u), parse_toggle(b3)});
        double t_vendor = 0;
        for (const auto& o : popts) {
          const kspd::Algo algo = o.algo;
          int ik = 0;
          const double tk = median_time(c.reps, [&] { Kokkos::deep_copy(exec, W.data(), F.data()); },
                                        [&] { ik = kspd::rfp::pftri(exec, W, o); });
          if (algo == kspd::Algo::Vendor && t_vendor == 0) t_vendor = tk;
          std::printf("%s pftri  n=%6ld %s algo=%-6s up=%-4s b3=%-4s | kspd %10.3f ms %7.2f TF | peer/kspd %6.3f | vendor/kspd %6.3f "
                      "| info %d\n",
                      prec, n, var.c_str(), algo == kspd::Algo::Vendor ? "vendor" : "auto", toggle_name(o.upper_via_lower),
                      toggle_name(o.blas3_inverse), tk * 1e3,
                      2.0 * fac_flops / tk * 1e-12, tpi > 0 ? tpi / tk : 0.0, t_vendor / tk, ik);
          std::fflush(stdout);
          kspd::perf::csv_row(prec, "pftri", var, n, -1, -1, algo == kspd::Algo::Vendor ? "kspd vendor" : "kspd auto",
                              tk * 1e3, 2.0 * fac_flops / tk * 1e-9);
        }
      }
    }
  }
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  Config c;
  constexpr bool host = kspd::compat::is_host_exec_v<Exec>;
  c.ns = host ? std::vector<long>{512, 1024} : std::vector<long>{4096, 8192, 16384, 32768};
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) {
      c.ns = {97, 128};
      c.k = 16;
      c.reps = 1;
      c.nbs = {16, 40};
      c.precs = {"s", "d", "c", "z"};
      c.blockings = {"split", "blocked", "lookahead", "auto"};
      c.algos = {"auto", "recursive"};
      c.uppers = {"auto", "on"};
      c.blas3s = {"auto", "on"};
    } else if (arg("--n")) c.ns = parse_list(argv[++i]);
    else if (arg("--prec")) c.precs = parse_words(argv[++i]);
    else if (arg("--variants")) c.variants = parse_words(argv[++i]);
    else if (arg("--blocking")) c.blockings = parse_words(argv[++i]);
    else if (arg("--nb")) c.nbs = parse_list(argv[++i]);
    else if (arg("--ops")) c.ops = parse_words(argv[++i]);
    else if (arg("--reps")) c.reps = std::stoi(argv[++i]);
    else if (arg("--k")) c.k = std::stol(argv[++i]);
    else if (arg("--algos")) c.algos = parse_words(argv[++i]);
    else if (arg("--upper")) c.uppers = parse_words(argv[++i]);
    else if (arg("--blas3")) c.blas3s = parse_words(argv[++i]);
    else {
      std::fprintf(stderr, "perf_rfp_blocking: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("perf_rfp_blocking: device %s, backend %s, kspd %d.%d (git %s), k %ld, reps %d (median)\n",
              device_name().c_str(), Exec::name(), KSPD_VERSION_MAJOR, KSPD_VERSION_MINOR, KSPD_GIT_HASH, c.k, c.reps);
  std::printf("flops: pftrf n^3/3 (complex x4), pftri 2n^3/3; kspd/peer = t_kspd / t_cuSOLVER (< 1: kspd faster); "
              "peer/kspd for pftri (> 1: kspd faster)\n");
  for (const auto& p : c.precs) {
    if (p == "s") run<float>(c, "s");
    if (p == "d") run<double>(c, "d");
    if (p == "c") run<Kokkos::complex<float>>(c, "c");
    if (p == "z") run<Kokkos::complex<double>>(c, "z");
  }
  return 0;
}
