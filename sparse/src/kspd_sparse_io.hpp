#ifndef KSPD_SPARSE_IO_HPP
#define KSPD_SPARSE_IO_HPP
/// \file kspd_sparse_io.hpp
/// Readers of sparse symmetric matrices (Matrix Market, Rutherford-Boeing / Harwell-Boeing)
/// into CscMatrix (lower triangle, rows sorted and unique per column, 64-bit counts), and a
/// Matrix Market writer.
///
/// The readers stream the file line by line (plain or gzip through zlib, detected by the
/// gzip magic bytes), keep one triplet per stored entry, then sort them into columns.
/// Explicit zeros are kept: the stored pattern is the file's pattern.
///
/// Error discipline: malformed input throws kspd::ParseError whose message starts with
/// "<path>:<line>: <reason>" (line 1-based; a missing line at the end of the file is named by
/// the line number after the last one). Files that cannot be opened or read, and gzip files
/// when zlib support was not configured, throw kspd::InvalidArgument "<path>: <reason>".
/// Nothing in a malformed file can crash the reader or make it allocate beyond the entries
/// it actually holds (declared sizes are checked before anything is reserved).

#include <string>

#include "kspd_sparse_csc.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

/// Values given to pattern-only files (Matrix Market 'pattern', Rutherford-Boeing 'P').
enum class PatternValues {
  /// Every stored entry reads as 1. The result is usually not positive definite: the solver
  /// reports that. Use it to look at the structure only.
  Ones,
  /// Off-diagonal entries read as -1 and the diagonal as 1 + (number of off-diagonal entries
  /// in that row of the full matrix); missing diagonal entries are added. The result is a
  /// strictly diagonally dominant M-matrix, hence SPD, with the file's off-diagonal pattern.
  DiagonallyDominant,
};

struct ReadOptions {
  PatternValues pattern_values = PatternValues::Ones;
};

/// \brief Reads a Matrix Market file: "%%MatrixMarket matrix coordinate F S" with field F
/// in {real, integer, pattern} and symmetry S in {symmetric, general}.
///
/// - symmetric: one entry per pair, either triangle (upper entries are mirrored into the
///   lower triangle); (i,j) and (j,i) both present is a duplicate.
/// - general: every off-diagonal (i,j) needs exactly one (j,i) with the identical value
///   (the first offending entry's line is named otherwise); the lower one is kept.
/// - Rejected with ParseError: a bad banner or size line; array format; complex, hermitian
///   or skew-symmetric data; a non-square size; indices outside [1, n]; duplicates; fewer or
///   more entries than declared (truncated file); NaN/Inf values (or values that overflow
///   Scalar); non-integer values in an 'integer' file; any other token.
/// - Blank lines and '%' comment lines are skipped anywhere after the banner.
/// - A size line whose order exceeds its declared entry count by more than 2^20 is rejected
///   (that many empty columns cannot be SPD, and it bounds what a malformed size line can
///   make the reader allocate).
/// A.name is the file name without directory.
template <class Scalar>
CscMatrix<Scalar> read_matrix_market(const std::string& path, const ReadOptions& options = {});

/// \brief Writes A as "%%MatrixMarket matrix coordinate real symmetric" (lower triangle,
/// column by column, values with enough digits to read back exactly). A path ending in
/// ".gz" is gzip-compressed (needs zlib). `comment` lines (split at '\n') follow the banner.
/// \throw InvalidArgument if the file cannot be written.
template <class Scalar>
void write_matrix_market(const std::string& path, const CscMatrix<Scalar>& A, const std::string& comment = "");

/// \brief Reads a Rutherford-Boeing or Harwell-Boeing file of an assembled real symmetric
/// matrix (type RSA; also ISA integer, PSA pattern, and RUA/IUA/PUA with symmetric values,
/// checked as for 'general' Matrix Market). Fixed-format header: title/key line; the card
/// counts (totcrd ptrcrd indcrd valcrd [rhscrd]); type, nrow, ncol, nnzero, neltvl; the
/// Fortran formats of pointers, indices and values ((16I5), (10I8), (5E16.8),
/// (1P,3D26.18), ...; D exponents and exponents without a letter are read). Harwell-Boeing
/// right-hand sides (rhscrd > 0) are skipped. Entries of the upper triangle are mirrored.
/// Errors as for read_matrix_market (also: wrong card counts, pointers that are not
/// monotone from 1 to nnzero+1, elemental or complex types).
template <class Scalar>
CscMatrix<Scalar> read_rutherford_boeing(const std::string& path, const ReadOptions& options = {});

enum class MatrixFormat { MatrixMarket, RutherfordBoeing };

/// The format of a file by its extension: .mtx .mm (Matrix Market), .rsa .rb .rua .psa .pua
/// .isa .iua .hb (Rutherford-Boeing), each optionally followed by .gz. Otherwise the first line is
/// looked at ("%%MatrixMarket" means Matrix Market). \throw InvalidArgument if unknown.
MatrixFormat matrix_format_of(const std::string& path);

/// \brief Reads a sparse symmetric matrix, choosing the reader by matrix_format_of(path).
template <class Scalar>
CscMatrix<Scalar> read_matrix(const std::string& path, const ReadOptions& options = {});

}  // namespace kspd::sparse
#endif
