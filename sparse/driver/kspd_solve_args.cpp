// kspd-solve's command line (see kspd_solve_args.hpp).
#include "kspd_solve_args.hpp"

#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <stdexcept>
#include <vector>

namespace kspd::sparse::driver {

namespace {

/// Thrown inside the parser, turned into ParseResult::Error.
struct BadFlag : std::runtime_error {
  using std::runtime_error::runtime_error;
};

[[noreturn]] void bad(const std::string& flag, const std::string& value, const std::string& why) {
  throw BadFlag("kspd-solve: " + flag + " '" + value + "': " + why);
}
[[noreturn]] void bad_flag(const std::string& flag, const std::string& why) { throw BadFlag("kspd-solve: " + flag + ": " + why); }

long long to_int(const std::string& flag, const std::string& v, long long lo, long long hi) {
  errno = 0;
  char* end = nullptr;
  const long long x = std::strtoll(v.c_str(), &end, 10);
  if (v.empty() || end != v.c_str() + v.size() || std::isspace((unsigned char)v[0]))
    bad(flag, v, "not an integer");
  if (errno == ERANGE || x < lo || x > hi)
    bad(flag, v, "out of range [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
  return x;
}

std::string g(double x) {
  char buf[32];
  std::snprintf(buf, sizeof buf, "%g", x);
  return buf;
}

double to_real(const std::string& flag, const std::string& v, double lo, double hi) {
  errno = 0;
  char* end = nullptr;
  const double x = std::strtod(v.c_str(), &end);
  if (v.empty() || end != v.c_str() + v.size() || std::isspace((unsigned char)v[0])) bad(flag, v, "not a number");
  if (!std::isfinite(x)) bad(flag, v, "not a finite number");
  if (errno == ERANGE || x < lo || x > hi)
    bad(flag, v, "out of range [" + g(lo) + ", " + g(hi) + "]");
  return x;
}

/// "a,b,c" -> three fields (exactly).
std::vector<std::string> triple(const std::string& flag, const std::string& v) {
  std::vector<std::string> f(1);
  for (char c : v)
    if (c == ',') f.emplace_back();
    else f.back() += c;
  if (f.size() != 3) bad(flag, v, "expected three comma-separated values a,b,c");
  return f;
}

std::string one_of(const std::string& flag, const std::string& v, std::initializer_list<const char*> names) {
  std::string list;
  for (const char* n : names) {
    if (v == n) return v;
    list += (list.empty() ? "" : "|") + std::string(n);
  }
  bad(flag, v, "expected " + list);
}

bool looks_like_flag(const char* s) { return s[0] == '-' && s[1] == '-'; }
bool is_help(const std::string& f) { return f == "--help" || f == "-h"; }

}  // namespace

const char* usage_text() {
  return "usage: kspd-solve [FILE | --input FILE | --generate laplace2d|laplace3d|elasticity3d --size N [--ny N --nz N]]\n"
         "  [--ordering metis|natural] [--nrhs K] [--precision float|double|mixed|mixed-fp32] [--threads T] [--blas-threads B]\n"
         "  [--relax on|off] [--nrelax a,b,c] [--zrelax x,y,z] [--max-supernode W] [--max-trsm-rows R]\n"
         "  [--gpu on|off|force] [--gpu-threshold-potrf W] [--gpu-threshold-trsm M*W] [--gpu-threshold-update M*N*K]\n"
         "  [--gpu-mem-limit MiB] [--fallback cpu|fail] [--gpu-placement resident|top] [--timeline]\n"
         "  [--distributed] [--mpi-device-aware auto|on|off] [--refactor K] [--quiet] [--analyse-only]\n"
         "FILE: a Matrix Market (.mtx, .mtx.gz) or Rutherford-Boeing (.rsa, .rb) file (the same as --input FILE).\n"
         "Default: --generate elasticity3d --size 22 (3 dof per node, n = 31944), --threads = all cores as\n"
         "task workers with single-threaded BLAS inside each (--threads 1: one worker, threaded BLAS).\n"
         "--threads also sets the threads of the ordering and the analysis; --analyse-only stops after them.\n"
         "--precision mixed: the factor in fp32 (half the memory), solutions to fp64 accuracy by refinement\n"
         "(fp64 residuals, CG with the fp32 factor), an fp64 factor when that stalls; one process only. A\n"
         "factorization too small for that to win (flops, flops per nnz(L)) is done in fp64 at once, and said;\n"
         "--precision mixed-fp32 always starts in fp32 (for the memory saving).\n"
         "--gpu on|force: the whole factor on the GPU when it fits (--gpu-mem-limit), factored by tree level and\n"
         "kept there for the solve (--gpu-placement resident, the default); else, or with --gpu-placement top,\n"
         "the top of the tree on the GPU (by the thresholds) and the rest on the host workers. --timeline: where the\n"
         "time went (resident factorization and solve: fenced per phase or launch; host workers: seconds per task kind).\n"
         "Under mpiexec (distributed): one rank per GPU (node-local rank % GPUs); --gpu on|off|force and the\n"
         "thresholds pick the device supernodes, --gpu-mem-limit is per rank; resident factors on several GPUs\n"
         "send their contributions GPU to GPU when MPI is device-aware (--mpi-device-aware auto: ask the library\n"
         "at run time; on: assume it; off: through pinned host memory), host panels through host memory;\n"
         "--distributed runs the distributed solver with one rank too; --threads T is per rank (the main thread, which makes the MPI\n"
         "calls and runs the device tasks, and T-1 host task workers; default: the node's cores / its ranks).\n"
         "Exit status: 0 solved (or --help), 1 error, 2 bad command line, 3 not positive definite, 4 residual too large.\n";
}

ParseResult parse_args(int argc, const char* const* argv, Args& a) {
  ParseResult r;
  // --help anywhere wins (even after a bad flag), as in most tools.
  for (int i = 1; i < argc; ++i)
    if (argv[i] && is_help(argv[i])) return r.status = ParseStatus::Help, r;
  try {
    constexpr long long kI64 = std::numeric_limits<long long>::max();
    bool size_given[3] = {false, false, false};
    for (int i = 1; i < argc; ++i) {
      const std::string f = argv[i] ? argv[i] : "";
      auto need = [&]() -> std::string {
        if (i + 1 >= argc || !argv[i + 1]) bad_flag(f, "needs a value");
        if (looks_like_flag(argv[i + 1])) bad_flag(f, std::string("needs a value, got the flag '") + argv[i + 1] + "'");
        return argv[++i];
      };
      if (f == "--input") {
        const std::string v = need();
        if (v.empty()) bad(f, v, "an empty file name");
        if (!a.input.empty()) bad(f, v, "the matrix file is already given ('" + a.input + "')");
        a.input = v;
      } else if (f == "--generate") {
        a.generate = one_of(f, need(), {"laplace2d", "laplace3d", "elasticity3d"});
      } else if (f == "--size") {
        a.nx = to_int(f, need(), 1, 1 << 20), size_given[0] = true;
      } else if (f == "--ny") {
        a.ny = to_int(f, need(), 1, 1 << 20), size_given[1] = true;
      } else if (f == "--nz") {
        a.nz = to_int(f, need(), 1, 1 << 20), size_given[2] = true;
      } else if (f == "--nrhs") {
        a.nrhs = to_int(f, need(), 1, kMaxNrhs);
      } else if (f == "--precision") {
        a.precision = one_of(f, need(), {"float", "double", "mixed", "mixed-fp32"});
      } else if (f == "--threads") {
        a.opt.threads = int(to_int(f, need(), 0, kMaxThreads));
      } else if (f == "--blas-threads") {
        a.blas_threads = int(to_int(f, need(), 0, kMaxThreads));
      } else if (f == "--refactor") {
        a.refactor = int(to_int(f, need(), 0, 1000000));
      } else if (f == "--quiet") {
        a.opt.progress_interval = 1e30;
      } else if (f == "--analyse-only") {
        a.analyse_only = true;
      } else if (f == "--ordering") {
        a.opt.ordering = one_of(f, need(), {"metis", "natural"}) == "metis" ? Ordering::Metis : Ordering::Natural;
      } else if (f == "--relax") {
        a.opt.relax.enabled = one_of(f, need(), {"on", "off"}) == "on";
      } else if (f == "--nrelax") {
        const std::string v = need();
        const auto t = triple(f, v);
        for (int k = 0; k < 3; ++k) a.opt.relax.nrelax[k] = to_int(f + " (value " + std::to_string(k + 1) + ")", t[size_t(k)], 0, 1 << 20);
      } else if (f == "--zrelax") {
        const std::string v = need();
        const auto t = triple(f, v);
        for (int k = 0; k < 3; ++k) a.opt.relax.zrelax[k] = to_real(f + " (value " + std::to_string(k + 1) + ")", t[size_t(k)], 0.0, 1.0);
      } else if (f == "--max-supernode") {
        a.opt.max_supernode = to_int(f, need(), 1, 1 << 20), a.max_supernode_given = true;
      } else if (f == "--max-trsm-rows") {
        a.opt.max_trsm_rows = to_int(f, need(), 1, kI64 / 2);
      } else if (f == "--gpu") {
        const std::string g = one_of(f, need(), {"on", "off", "force"});
        if (g == "on") a.opt.offload.gpu_defaults();
        else if (g == "force") a.opt.offload.force_all();
        else a.opt.offload.potrf_threshold = a.opt.offload.trsm_threshold = a.opt.offload.update_threshold = -1;
      } else if (f == "--gpu-placement") {
        a.opt.offload.placement = one_of(f, need(), {"resident", "top"}) == "top" ? Offload::Placement::TopOfTree
                                                                                 : Offload::Placement::Resident;
      } else if (f == "--timeline") {
        a.opt.offload.timeline = true;
      } else if (f == "--gpu-threshold-potrf") {
        a.opt.offload.potrf_threshold = to_int(f, need(), -1, kI64);
      } else if (f == "--gpu-threshold-trsm") {
        a.opt.offload.trsm_threshold = to_int(f, need(), -1, kI64);
      } else if (f == "--gpu-threshold-update") {
        a.opt.offload.update_threshold = to_int(f, need(), -1, kI64);
      } else if (f == "--gpu-mem-limit") {
        // MiB; the byte count must fit in 64 bits: at most 2^42 MiB (4 EiB).
        const double mib = to_real(f, need(), 0.0, 4398046511104.0);
        if (!(mib > 0)) bad(f, argv[i], "must be positive (MiB)");
        a.opt.offload.device_memory_limit = std::int64_t(mib * 1048576.0);
        a.memory_limit_given = true;
      } else if (f == "--distributed") {
        a.distributed = true;
      } else if (f == "--mpi-device-aware") {
        const std::string v = one_of(f, need(), {"auto", "on", "off"});
        a.device_aware_mpi = v == "on" ? Toggle::On : v == "off" ? Toggle::Off : Toggle::Auto;
      } else if (f == "--fallback") {
        a.opt.offload.fallback = one_of(f, need(), {"cpu", "fail"}) == "fail" ? OffloadFallback::Fail : OffloadFallback::Cpu;
      } else if (!f.empty() && f[0] == '-') {
        bad_flag(f, "unknown flag (--help lists them)");
      } else {  // the positional matrix file
        if (f.empty()) bad("FILE", f, "an empty file name");
        if (!a.input.empty()) bad("FILE", f, "the matrix file is already given ('" + a.input + "')");
        a.input = f;
      }
    }
    if (!size_given[1]) a.ny = a.nx;
    if (!size_given[2]) a.nz = a.nx;
    if (a.input.empty()) {  // the generated order must stay reasonable (and its count exact)
      const long double n = a.generate == "laplace2d"   ? (long double)a.nx * a.ny
                            : a.generate == "laplace3d" ? (long double)a.nx * a.ny * a.nz
                                                        : 3.0L * a.nx * a.ny * a.nz;
      if (n > (long double)kMaxGeneratedOrder)
        bad("--size", std::to_string(a.nx), "the generated " + a.generate + " problem would have " +
                                                 g(double(n)) + " unknowns (at most 2^31)");
    }
  } catch (const BadFlag& e) {
    r.status = ParseStatus::Error;
    r.message = e.what();
  }
  return r;
}

}  // namespace kspd::sparse::driver
