// kspd-solve's command line (issue #12 rows 7, 8; issue #18 item 4): every flag checked,
// errors naming the flag and the value, a flag's value never another flag, --help, the
// positional matrix file.
#include <gtest/gtest.h>

#include <cmath>
#include <string>
#include <vector>

#include "kspd_solve_args.hpp"

namespace {

namespace kd = kspd::sparse::driver;

kd::ParseResult parse(std::vector<const char*> args, kd::Args& a) {
  args.insert(args.begin(), "kspd-solve");
  return kd::parse_args(int(args.size()), args.data(), a);
}
kd::Args ok(std::vector<const char*> args) {
  kd::Args a;
  const auto r = parse(args, a);
  EXPECT_EQ(r.status, kd::ParseStatus::Run) << r.message;
  return a;
}
/// The command line is refused with a message containing every one of `says`.
void refused(std::vector<const char*> args, std::vector<std::string> says) {
  kd::Args a;
  const auto r = parse(args, a);
  std::string line;
  for (auto* s : args) line += std::string(s) + " ";
  ASSERT_EQ(r.status, kd::ParseStatus::Error) << line;
  EXPECT_EQ(r.message.rfind("kspd-solve: ", 0), 0u) << r.message;
  for (const auto& s : says) EXPECT_NE(r.message.find(s), std::string::npos) << line << "-> " << r.message << " (expected '" << s << "')";
}

TEST(SolveArgs, ValidFlagsAreRead) {
  auto a = ok({"--generate", "laplace3d", "--size", "9", "--ny", "4", "--nrhs", "3", "--precision", "float", "--threads", "2",
               "--blas-threads", "1", "--refactor", "2", "--ordering", "natural", "--relax", "off", "--nrelax", "1,2,3",
               "--zrelax", "0.5,0.25,0", "--max-supernode", "64", "--max-trsm-rows", "100", "--gpu", "force",
               "--gpu-threshold-potrf", "-1", "--gpu-mem-limit", "1.5", "--fallback", "fail", "--distributed", "--quiet"});
  EXPECT_EQ(a.generate, "laplace3d");
  EXPECT_EQ(a.nx, 9);
  EXPECT_EQ(a.ny, 4);
  EXPECT_EQ(a.nz, 9);
  EXPECT_EQ(a.nrhs, 3);
  EXPECT_EQ(a.precision, "float");
  EXPECT_EQ(a.opt.threads, 2);
  EXPECT_EQ(a.blas_threads, 1);
  EXPECT_EQ(a.refactor, 2);
  EXPECT_EQ(a.opt.ordering, kspd::sparse::Ordering::Natural);
  EXPECT_FALSE(a.opt.relax.enabled);
  EXPECT_EQ(a.opt.relax.nrelax[2], 3);
  EXPECT_EQ(a.opt.relax.zrelax[1], 0.25);
  EXPECT_EQ(a.opt.max_supernode, 64);
  EXPECT_TRUE(a.max_supernode_given);
  EXPECT_EQ(a.opt.max_trsm_rows, 100);
  EXPECT_EQ(a.opt.offload.potrf_threshold, -1);
  EXPECT_EQ(a.opt.offload.trsm_threshold, 0);
  EXPECT_EQ(a.opt.offload.device_memory_limit, std::int64_t(1.5 * 1048576));
  EXPECT_TRUE(a.memory_limit_given);
  EXPECT_EQ(a.opt.offload.fallback, kspd::sparse::OffloadFallback::Fail);
  EXPECT_TRUE(a.distributed);
  EXPECT_GT(a.opt.progress_interval, 1e20);
  auto d = ok({});
  EXPECT_EQ(d.nx, 22);
  EXPECT_EQ(d.ny, 22);
  EXPECT_EQ(d.opt.threads, 0);
  EXPECT_TRUE(d.input.empty());
}

TEST(SolveArgs, PositionalFileOrInput) {
  EXPECT_EQ(ok({"A.mtx"}).input, "A.mtx");
  EXPECT_EQ(ok({"--nrhs", "2", "dir/B.rsa", "--quiet"}).input, "dir/B.rsa");
  EXPECT_EQ(ok({"--input", "C.mtx.gz"}).input, "C.mtx.gz");
  refused({"A.mtx", "B.mtx"}, {"FILE 'B.mtx'", "already given ('A.mtx')"});
  refused({"--input", "A.mtx", "B.mtx"}, {"already given"});
  refused({"A.mtx", "--input", "B.mtx"}, {"--input 'B.mtx'", "already given"});
  refused({""}, {"empty file name"});
}

TEST(SolveArgs, HelpExitsZero) {
  kd::Args a;
  EXPECT_EQ(parse({"--help"}, a).status, kd::ParseStatus::Help);
  EXPECT_EQ(parse({"-h"}, a).status, kd::ParseStatus::Help);
  EXPECT_EQ(parse({"--nrhs", "abc", "--help"}, a).status, kd::ParseStatus::Help);
  EXPECT_NE(std::string(kd::usage_text()).find("kspd-solve [FILE"), std::string::npos);
}

TEST(SolveArgs, NumbersAreReadInFullAndInRange) {
  refused({"--nrhs", "abc"}, {"--nrhs 'abc'", "not an integer"});
  refused({"--nrhs", "3x"}, {"--nrhs '3x'", "not an integer"});
  refused({"--nrhs", ""}, {"--nrhs ''", "not an integer"});
  refused({"--nrhs", " 3"}, {"not an integer"});
  refused({"--nrhs", "0"}, {"--nrhs '0'", "out of range [1, "});
  refused({"--nrhs", "-1"}, {"--nrhs '-1'", "out of range"});
  refused({"--size", "abc"}, {"--size 'abc'", "not an integer"});
  refused({"--size", "0"}, {"--size '0'", "out of range"});
  refused({"--size", "100000"}, {"--size '100000'", "unknowns (at most 2^31)"});
  refused({"--generate", "laplace2d", "--size", "70000"}, {"--size '70000'", "laplace2d"});
  refused({"--size", "99999999999999999999"}, {"out of range"});
  refused({"--ny", "-2"}, {"--ny '-2'"});
  refused({"--nz", "1.5"}, {"--nz '1.5'", "not an integer"});
  refused({"--threads", "-3"}, {"--threads '-3'", "out of range [0, 4096]"});
  refused({"--threads", "100000"}, {"--threads '100000'", "out of range"});
  refused({"--blas-threads", "x"}, {"--blas-threads 'x'"});
  refused({"--refactor", "-1"}, {"--refactor '-1'"});
  refused({"--max-supernode", "0"}, {"--max-supernode '0'"});
  refused({"--max-trsm-rows", "-7"}, {"--max-trsm-rows '-7'", "out of range"});
  refused({"--gpu-threshold-potrf", "-2"}, {"--gpu-threshold-potrf '-2'"});
  refused({"--gpu-threshold-trsm", "1e3"}, {"--gpu-threshold-trsm '1e3'", "not an integer"});
  refused({"--gpu-threshold-update", "9223372036854775808"}, {"--gpu-threshold-update", "out of range"});
  refused({"--nrelax", "1,2"}, {"--nrelax '1,2'", "three comma-separated"});
  refused({"--nrelax", "1,2,x"}, {"--nrelax (value 3) 'x'", "not an integer"});
  refused({"--zrelax", "nan,nan,nan"}, {"--zrelax (value 1) 'nan'", "not a finite number"});
  refused({"--zrelax", "0.1,2,0.1"}, {"--zrelax (value 2) '2'", "out of range [0, 1]"});
  refused({"--zrelax", "0.1,0.2,0.3,0.4"}, {"three comma-separated"});
}

TEST(SolveArgs, GpuMemLimitIsFiniteAndInRange) {
  refused({"--gpu-mem-limit", "1e300"}, {"--gpu-mem-limit '1e300'", "out of range"});
  refused({"--gpu-mem-limit", "nan"}, {"--gpu-mem-limit 'nan'", "not a finite number"});
  refused({"--gpu-mem-limit", "inf"}, {"not a finite number"});
  refused({"--gpu-mem-limit", "-5"}, {"--gpu-mem-limit '-5'", "out of range"});
  refused({"--gpu-mem-limit", "0"}, {"--gpu-mem-limit '0'", "must be positive"});
  refused({"--gpu-mem-limit", "12MB"}, {"not a number"});
  const auto a = ok({"--gpu-mem-limit", "4398046511104"});
  EXPECT_GT(a.opt.offload.device_memory_limit, 0);
  EXPECT_EQ(ok({"--gpu-mem-limit", "40000"}).opt.offload.device_memory_limit, std::int64_t(40000) << 20);
}

TEST(SolveArgs, NamesComeFromTheirLists) {
  refused({"--precision", "quad"}, {"--precision 'quad'", "expected float|double"});
  refused({"--gpu", "bogus"}, {"--gpu 'bogus'", "expected on|off|force"});
  refused({"--fallback", "bogus"}, {"--fallback 'bogus'", "expected cpu|fail"});
  refused({"--relax", "bogus"}, {"--relax 'bogus'", "expected on|off"});
  EXPECT_FALSE(ok({}).distributed);
  refused({"--gpu-placement", "middle"}, {"--gpu-placement 'middle'", "expected resident|top"});
  EXPECT_EQ(ok({"--gpu-placement", "top", "--timeline"}).opt.offload.placement, kspd::sparse::Offload::Placement::TopOfTree);
  refused({"--mpi-device-aware", "yes"}, {"--mpi-device-aware 'yes'", "expected auto|on|off"});
  EXPECT_EQ(ok({}).device_aware_mpi, kspd::Toggle::Auto);
  EXPECT_EQ(ok({"--mpi-device-aware", "on"}).device_aware_mpi, kspd::Toggle::On);
  EXPECT_EQ(ok({"--mpi-device-aware", "off"}).device_aware_mpi, kspd::Toggle::Off);
  EXPECT_EQ(ok({"--mpi-device-aware", "off", "--mpi-device-aware", "auto"}).device_aware_mpi, kspd::Toggle::Auto);
  refused({"--ordering", "amd"}, {"--ordering 'amd'", "expected metis|natural"});
  refused({"--generate", "poisson"}, {"--generate 'poisson'", "expected laplace2d|laplace3d|elasticity3d"});
  refused({"--bogus"}, {"--bogus", "unknown flag"});
  refused({"-x"}, {"-x", "unknown flag"});
}

TEST(SolveArgs, AFlagIsNeverAValue) {
  refused({"--nrhs", "--quiet"}, {"--nrhs", "needs a value, got the flag '--quiet'"});
  refused({"--input", "--nrhs", "2"}, {"--input", "got the flag '--nrhs'"});
  refused({"--threads"}, {"--threads", "needs a value"});
  refused({"--gpu"}, {"--gpu", "needs a value"});
  // A negative number is a value, not a flag.
  EXPECT_EQ(ok({"--gpu-threshold-trsm", "-1"}).opt.offload.trsm_threshold, -1);
}

}  // namespace
