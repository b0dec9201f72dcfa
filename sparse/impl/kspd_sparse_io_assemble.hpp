#ifndef KSPD_SPARSE_IO_ASSEMBLE_HPP
#define KSPD_SPARSE_IO_ASSEMBLE_HPP
/// \file kspd_sparse_io_assemble.hpp
/// Shared back end of the readers: entries as read (with their file line) to the lower
/// triangle in CscMatrix form, with the duplicate and symmetry checks.

#include <string>
#include <vector>

#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse::Impl {

/// One stored entry, already mirrored into the lower triangle (row >= col, 0-based).
/// `upper` records that the file had it as (col, row).
struct Triplet {
  size_type row, col;
  double value;
  size_type line;
  bool upper;
};

enum class FileSymmetry {
  Symmetric,  ///< one entry per symmetric pair, in either triangle
  General,    ///< both (i,j) and (j,i) stored, values must agree
};

struct AssembleInfo {
  std::string path;  ///< for messages
  size_type n = 0;
  FileSymmetry symmetry = FileSymmetry::Symmetric;
  bool pattern = false;  ///< values are placeholders: apply ReadOptions::pattern_values
};

/// Sorts `entries` (consumed) into the lower-triangle CscMatrix. Duplicates, unmatched or
/// unequal (i,j)/(j,i) pairs of General data throw ParseError at the line of the first
/// offending entry in the file (for a duplicate: the second occurrence).
template <class Scalar>
CscMatrix<Scalar> assemble_lower(std::vector<Triplet>&& entries, const AssembleInfo& info,
                                 const ReadOptions& options);

/// Largest magnitude that Scalar holds (values beyond it are rejected as overflow).
template <class Scalar>
double scalar_max();

/// Refuses declared sizes that would make a malformed file allocate absurd amounts.
/// `line` is the size line. \throw ParseError.
void check_declared_size(const std::string& path, size_type line, size_type n, size_type declared_entries,
                         FileSymmetry symmetry);

}  // namespace kspd::sparse::Impl
#endif
