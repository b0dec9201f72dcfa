#ifndef KSPD_SOLVE_ARGS_HPP
#define KSPD_SOLVE_ARGS_HPP
/// \file kspd_solve_args.hpp
/// kspd-solve's command line: every flag checked (numbers read in full and in range, names
/// from their lists, a flag's value never another flag), errors naming the flag and the
/// value. Free of Kokkos, so that its tests and its fuzz target are light.

#include <string>

#include "kspd_sparse_options.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse::driver {

struct Args {
  std::string input, generate = "elasticity3d", precision = "double";
  size_type nx = 22, ny = -1, nz = -1;
  size_type nrhs = 1;
  int refactor = 0;
  bool analyse_only = false;  // --analyse-only: stop after the order + analyse report
  int blas_threads = -1;    // -1: 1 when several task workers run, else the BLAS default
  bool distributed = false;  // --distributed: the distributed solver also with one rank
  Toggle device_aware_mpi = Toggle::Auto;  // --mpi-device-aware (DistributedOptions::device_aware_mpi)
  bool max_supernode_given = false, memory_limit_given = false;
  Options opt;
  Args() { opt.threads = 0; }  // all cores
};

/// What the command line asks for.
enum class ParseStatus { Run, Help, Error };
struct ParseResult {
  ParseStatus status = ParseStatus::Run;
  std::string message;  ///< Error: "kspd-solve: --flag 'value': reason"
};

/// Reads argv[1..argc) into `a`. Help: --help / -h (exit 0); Error: exit 2 with the message.
ParseResult parse_args(int argc, const char* const* argv, Args& a);

/// The --help text.
const char* usage_text();

/// Largest values the driver accepts.
constexpr int kMaxThreads = 4096;
constexpr size_type kMaxGeneratedOrder = size_type(1) << 31;  ///< unknowns of a generated problem
constexpr size_type kMaxNrhs = size_type(1) << 20;

}  // namespace kspd::sparse::driver
#endif
