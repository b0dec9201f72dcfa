#ifndef KSPD_PERF_SPARSE_CASES_HPP
#define KSPD_PERF_SPARSE_CASES_HPP
/// \file perf_sparse_cases.hpp
/// The problems the sparse benchmarks take on their command lines: a generated problem
/// ("elasticity" or "laplace3d" with its size) or a matrix file, and the collection matrices
/// of their default lists.

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"

namespace kspd::perf {

/// ("elasticity" | "laplace3d", size) or (a file, 0).
using SparseCase = std::pair<std::string, kspd::size_type>;

/// The collection matrices of the default lists, from $KSPD_DATA_DIR (../shared/data/matrices).
inline void add_collection_cases(std::vector<SparseCase>& cases) {
  const char* dir = std::getenv("KSPD_DATA_DIR");
  const std::string d = dir ? dir : "../shared/data/matrices";
  for (const char* f : {"cvxbqp1.mtx.gz", "bcsstk13.mtx", "bcsstk14.mtx", "bodyy5.mtx.gz", "ex10hs.mtx"})
    cases.push_back({d + "/" + f, 0});
}

/// Generates or reads the case into A and names it (the file's base name, or the problem and
/// its size); false, with the reason printed in a column of `width`, when it cannot be read.
inline bool load_case(const SparseCase& cs, sparse::CscMatrix<double>& A, std::string& name, int width) {
  name = cs.first;
  try {
    if (cs.first == "elasticity") A = sparse::elasticity_3d<double>(cs.second, cs.second, cs.second);
    else if (cs.first == "laplace3d") A = sparse::laplacian_3d<double>(cs.second, cs.second, cs.second);
    else A = sparse::read_matrix<double>(cs.first);
  } catch (const std::exception& e) {
    std::printf("%-*s skipped: %s\n", width, name.c_str(), e.what());
    return false;
  }
  if (cs.second > 0) name += std::to_string(cs.second);
  else name = name.substr(name.find_last_of('/') + 1);
  return true;
}

}  // namespace kspd::perf
#endif
