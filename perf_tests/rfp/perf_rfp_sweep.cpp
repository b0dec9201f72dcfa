// perf_rfp_sweep: kspd::rfp pftrf, sfrk, pftrs, pftri against the peer in the same run, on
// the same matrix A = X X^T / k + I.
//   CUDA builds: dense cuSOLVER/cuBLAS potrf / syrk / potrs / potri (the RFP matrix's uplo, called
//   directly), with the device memory each needed (peak above the inputs, from
//   cudaMemGetInfo polled during an untimed run).
//   Host builds: LAPACK's own ?pftrf / ?sfrk / ?pftrs / ?pftri on the same RFP buffer, and
//   dense ?potrf for pftrf.
// Usage: perf_rfp_sweep [n,n,...] [--n n,n,...] [--prec s,d] [--ops pftrf,sfrk,pftrs,pftri]
//                       [--k 256] [--nrhs 64] [--reps 5] [--transr N|T] [--uplo L|U] [--csv FILE]
//                       [--algo auto|vendor|recursive|native] [--leaf 0] [--smoke]
// --algo/--leaf go to every block operation (kspd::DenseOptions); auto is core's choice.
// Default n: 1024..32768 doubling on CUDA, 256..2048 on the host. One line per case: median
// times, TFLOP/s, ratio = t_kspd / t_peer (< 1: kspd faster), memory in GiB.
#include "perf_rfp_peer.hpp"
#include "kspd_perf_csv.hpp"
#include "kspd_build_info.hpp"  // KSPD_GIT_HASH

namespace {
using namespace perf_rfp;

struct Config {
  std::vector<long> ns;
  std::vector<std::string> precs = {"s", "d"}, ops = {"pftrf", "sfrk", "pftrs", "pftri"};
  long k = 256, nrhs = 64;
  int reps = 5;
  kspd::Trans transr = kspd::Trans::NoTranspose;
  kspd::Uplo uplo = kspd::Uplo::Lower;
  kspd::DenseOptions opt;  // --algo: what the block operations run (Auto = core's measured choice)
};

void line(const char* prec, const char* op, long n, double flops, double tk, double mk, const char* peer, double tp,
          double mp, const char* extra) {
  kspd::perf::csv_row(prec, op, "", n, -1, -1, "kspd", tk * 1e3, flops / tk * 1e-9);
  if (tp > 0) kspd::perf::csv_row(prec, op, "", n, -1, -1, peer, tp * 1e3, flops / tp * 1e-9);
  std::printf("%s %-6s n=%6ld | kspd %10.3f ms %7.2f TF %7.3f GiB | %-14s", prec, op, n, tk * 1e3, flops / tk * 1e-12,
              mk / GiB, peer);
  if (tp > 0)
    std::printf(" %10.3f ms %7.2f TF %7.3f GiB | kspd/peer time %6.3f", tp * 1e3, flops / tp * 1e-12, mp / GiB,
                tk / tp);
  std::printf(" %s\n", extra);
  std::fflush(stdout);
}

/// max_i |d1(i) - d2(i)| / |d2(i)| for the diagonals of the RFP factor and the dense factor.
template <class T>
double diag_check(const kspd::rfp::Matrix<T, Mem>& F, const Dense<T>& D) {
  const auto L = F.layout();
  auto f = F.data();
  double m = 0;
  Kokkos::parallel_reduce(
      "perf::diag_check", Kokkos::RangePolicy<Exec>(0, F.n()),
      KOKKOS_LAMBDA(long i, double& r) {
        const double a = double(f(L.diag(i))), b = double(D(i, i));
        const double e = (a - b) / (b < 0 ? -b : b);
        const double ae = e < 0 ? -e : e;
        if (!(ae <= r)) r = ae;
      },
      Kokkos::Max<double>(m));
  return m;
}

/// Workspace: device memory taken above what exists while fn() runs once (untimed).
template <class Fn>
double workspace(Fn fn) {
  Exec exec;
  exec.fence();
  PeakTracker pt;
  fn();
  exec.fence();
  return pt.finish();
}

template <class T>
void run(const Config& c, const char* prec) {
  Exec exec;
#ifdef KSPD_ENABLE_CUDA_TPLS
  CudaPeer peer(exec.cuda_stream());
  peer.set_uplo(c.uplo);
#else
  constexpr bool host = kspd::compat::is_host_exec_v<Exec>;
#endif
  for (long n : c.ns) {
    const int reps = n >= 16384 ? std::min(c.reps, 3) : c.reps;
    const double rfp_bytes = double(kspd::rfp::packed_size(n)) * sizeof(T), dense_bytes = double(n) * n * sizeof(T);
    // Memory: A0 and W (RFP) and D (dense) only, so that the sweep reaches the dense limit:
    // at n = 65,536 in double that is 2 x 17.2 + 34.4 GB. "mem" = operand buffer + the
    // workspace measured during one untimed call.
    kspd::rfp::Matrix<T, Mem> A0("A0", n, c.transr, c.uplo), W("W", n, c.transr, c.uplo);
    Dense<T> X("X", n, c.k);
    make_spd(A0, X, 1234 + unsigned(n));
    Dense<T> D("D", n, n);  // the dense peer's matrix (host builds: dense potrf)
    char extra[160] = "";
    const double nd = double(n);
    if (has(c.ops, "sfrk")) {
      const T alpha = T(1) / T(c.k);
      auto call_k = [&] { kspd::rfp::sfrk(exec, kspd::Trans::NoTranspose, alpha, X, T(0), W, c.opt); };
      const double tk = median_time(reps, [] {}, call_k);
      const double mk = rfp_bytes + workspace(call_k);
      double tp = 0, mp = 0;
      const char* pname = "none";
#ifdef KSPD_ENABLE_CUDA_TPLS
      auto call_p = [&] { peer.syrk(alpha, X, D); };
      tp = median_time(reps, [] {}, call_p);
      mp = dense_bytes + workspace(call_p);
      pname = "cuBLAS syrk";
#else
      if constexpr (host) {
        tp = median_time(reps, [] {}, [&] { LapackPeer::sfrk(alpha, X, W); });
        mp = rfp_bytes;
        pname = "LAPACK sfrk";
      }
#endif
      line(prec, "sfrk", n, nd * (nd + 1) * double(c.k), tk, mk, pname, tp, mp, "");
    }
    // pftrf (always: the later operations need the factor).
    {
      int ik = 0, ip = 0;
      auto reset_k = [&] { Kokkos::deep_copy(exec, W.data(), A0.data()); };
      auto reset_d = [&] { kspd::rfp::tfttr(exec, A0, D); };
      auto call_k = [&] { ik = kspd::rfp::pftrf(exec, W, c.opt); };
      const double tk = median_time(reps, reset_k, call_k);
      reset_k();
      const double mk = rfp_bytes + workspace(call_k);
      double tp = 0, mp = 0;
      const char* pname = "none";
#ifdef KSPD_ENABLE_CUDA_TPLS
      auto call_p = [&] { ip = peer.potrf(D); };
      tp = median_time(reps, reset_d, call_p);
      peer.release();  // the measured call allocates its own workspace
      reset_d();
      mp = dense_bytes + workspace(call_p);
      pname = "cuSOLVER potrf";
      std::snprintf(extra, sizeof extra, "| info %d/%d | diag(L) rel diff %.1e", ik, ip, diag_check(W, D));
#else
      if constexpr (host) {
        kspd::rfp::Matrix<T, Mem> W2("W2", n, c.transr, c.uplo);
        tp = median_time(reps, [&] { Kokkos::deep_copy(W2.data(), A0.data()); }, [&] { ip = LapackPeer::pftrf(W2); });
        mp = rfp_bytes;
        pname = "LAPACK pftrf";
        int id = 0;
        const double tp2 = median_time(reps, reset_d, [&] { id = LapackPeer::potrf(D); });
        std::snprintf(extra, sizeof extra,
                      "| dense potrf %9.3f ms (kspd/dense %5.3f) | info %d/%d/%d | diag(L) rel diff %.1e", tp2 * 1e3,
                      tk / tp2, ik, ip, id, diag_check(W, D));
      }
#endif
      if (has(c.ops, "pftrf")) line(prec, "pftrf", n, nd * nd * nd / 3.0, tk, mk, pname, tp, mp, extra);
    }
    // W and D hold the factors; A0 keeps a copy of the RFP factor for pftri's resets.
    Kokkos::deep_copy(exec, A0.data(), W.data());
    if (has(c.ops, "pftrs")) {
      Dense<T> B0("B0", n, c.nrhs), B("B", n, c.nrhs);
      Kokkos::Random_XorShift64_Pool<Exec> pool(7);
      Kokkos::fill_random(B0, pool, T(-1), T(1));
      auto reset = [&] { Kokkos::deep_copy(exec, B, B0); };
      auto call_k = [&] { kspd::rfp::pftrs(exec, W, B, c.opt); };
      const double tk = median_time(reps, reset, call_k);
      const double bbytes = double(n) * c.nrhs * sizeof(T);
      const double mk = rfp_bytes + bbytes + workspace(call_k);
      double tp = 0, mp = 0;
      const char* pname = "none";
#ifdef KSPD_ENABLE_CUDA_TPLS
      auto call_p = [&] { peer.potrs(D, B); };
      tp = median_time(reps, reset, call_p);
      mp = dense_bytes + bbytes + workspace(call_p);
      pname = "cuSOLVER potrs";
#else
      if constexpr (host) {
        tp = median_time(reps, reset, [&] { LapackPeer::pftrs(W, B); });
        mp = mk;
        pname = "LAPACK pftrs";
      }
#endif
      line(prec, "pftrs", n, 2.0 * nd * nd * double(c.nrhs), tk, mk, pname, tp, mp, "(mem: factor + B + workspace)");
    }
    if (has(c.ops, "pftri")) {
      int ik = 0, ip = 0;
      auto reset_k = [&] { Kokkos::deep_copy(exec, W.data(), A0.data()); };
      auto call_k = [&] { ik = kspd::rfp::pftri(exec, W, c.opt); };
      const double tk = median_time(reps, reset_k, call_k);
      reset_k();
      const double mk = rfp_bytes + workspace(call_k);
      double tp = 0, mp = 0;
      const char* pname = "none";
#ifdef KSPD_ENABLE_CUDA_TPLS
      // The dense peer inverts the same factor, unpacked (lower triangle) from RFP.
      auto reset_d = [&] { kspd::rfp::tfttr(exec, A0, D); };
      auto call_p = [&] { ip = peer.potri(D); };
      tp = median_time(reps, reset_d, call_p);
      peer.release();
      reset_d();
      mp = dense_bytes + workspace(call_p);
      pname = "cuSOLVER potri";
#else
      if constexpr (host) {
        kspd::rfp::Matrix<T, Mem> W2("W2", n, c.transr, c.uplo);
        tp = median_time(reps, [&] { Kokkos::deep_copy(W2.data(), A0.data()); }, [&] { ip = LapackPeer::pftri(W2); });
        mp = rfp_bytes;
        pname = "LAPACK pftri";
      }
#endif
      std::snprintf(extra, sizeof extra, "| info %d/%d", ik, ip);
      line(prec, "pftri", n, 2.0 * nd * nd * nd / 3.0, tk, mk, pname, tp, mp, extra);
    }
  }
}
}  // namespace

int main(int argc, char* argv[]) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard(argc, argv);
  Config c;
  constexpr bool host = kspd::compat::is_host_exec_v<Exec>;
  c.ns = host ? std::vector<long>{256, 512, 1024, 2048} : std::vector<long>{1024, 2048, 4096, 8192, 16384, 32768};
  for (int i = 1; i < argc; ++i) {
    auto arg = [&](const char* name) { return std::strcmp(argv[i], name) == 0 && i + 1 < argc; };
    if (std::strcmp(argv[i], "--smoke") == 0) {
      c.ns = {97, 128};
      c.k = 16;
      c.nrhs = 4;
      c.reps = 1;
    } else if (arg("--n")) c.ns = parse_list(argv[++i]);
    else if (arg("--prec")) c.precs = parse_words(argv[++i]);
    else if (arg("--ops")) c.ops = parse_words(argv[++i]);
    else if (arg("--k")) c.k = std::stol(argv[++i]);
    else if (arg("--nrhs")) c.nrhs = std::stol(argv[++i]);
    else if (arg("--reps")) c.reps = std::stoi(argv[++i]);
    else if (arg("--transr")) c.transr = argv[++i][0] == 'T' ? kspd::Trans::Transpose : kspd::Trans::NoTranspose;
    else if (arg("--uplo")) c.uplo = argv[++i][0] == 'U' ? kspd::Uplo::Upper : kspd::Uplo::Lower;
    else if (arg("--algo")) {
      const std::string a = argv[++i];
      c.opt.algo = a == "vendor" ? kspd::Algo::Vendor : a == "recursive" ? kspd::Algo::Recursive
                   : a == "native"  ? kspd::Algo::Native : kspd::Algo::Auto;
    } else if (arg("--leaf")) c.opt.leaf_size = std::stol(argv[++i]);
    else if (argv[i][0] >= '0' && argv[i][0] <= '9') c.ns = parse_list(argv[i]);
    else {
      std::fprintf(stderr, "perf_rfp_sweep: unknown argument %s\n", argv[i]);
      return 2;
    }
  }
  std::printf("perf_rfp_sweep: device %s, backend %s, kspd %d.%d (git %s), transr %c uplo %c, k %ld, nrhs %ld, algo %d leaf %lld\n",
              device_name().c_str(), Exec::name(), KSPD_VERSION_MAJOR, KSPD_VERSION_MINOR, KSPD_GIT_HASH,
              kspd::to_char(c.transr), kspd::to_char(c.uplo), c.k, c.nrhs, int(c.opt.algo), c.opt.leaf_size);
  std::printf("flops: pftrf n^3/3, sfrk n(n+1)k, pftrs 2n^2 nrhs, pftri 2n^3/3; mem = operand buffer + workspace "
              "peak measured during one call (CUDA; host: buffer only)\n");
  for (const auto& p : c.precs) {
    if (p == "s") run<float>(c, "s");
    if (p == "d") run<double>(c, "d");
  }
  return 0;
}
