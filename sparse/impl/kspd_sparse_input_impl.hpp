#ifndef KSPD_SPARSE_INPUT_IMPL_HPP
#define KSPD_SPARSE_INPUT_IMPL_HPP
/// \file kspd_sparse_input_impl.hpp
/// The one-pass conversion of a compressed symmetric matrix (CSR or CSC, any triangle,
/// any integer type, host pointers) into the lower-triangle CscMatrix the analysis reads,
/// with the map from input entries to output entries that makes refactorization a scatter.
///
/// Every input entry has an outer index o (the row of CSR, the column of CSC) and an inner
/// index i. Its lower-triangle position is (row max(o,i), column min(o,i)). Two cases:
///  - i <= o ("transpose"): the output column is i, the row is o. Walking the input by
///    increasing o and appending to column i (a counting sort) leaves every output column
///    sorted, whatever the order within the input's rows/columns.
///  - i >= o ("copy"): the output column is o and its rows are the inner indices; a column
///    whose inner indices are unsorted is sorted on its own (a small per-column buffer).
/// Duplicates are adjacent afterwards in both cases; they are summed on request (one
/// compaction pass) or reported.

#include <algorithm>
#include <cmath>
#include <limits>
#include <sstream>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

/// How the input is compressed: CSR (row pointers, column indices) or CSC.
enum class Compression { Csr, Csc };
/// Which entries of the symmetric matrix the input holds.
enum class Stored { Lower, Upper, Full };

/// Description of a symmetric input matrix.
struct InputFormat {
  Compression compression = Compression::Csr;
  Stored stored = Stored::Lower;
  /// Duplicate (row, column) entries are added (FEM assembly); otherwise they are an error.
  bool sum_duplicates = false;
  /// Stored::Full: check that the two triangles agree (pattern and values, within
  /// symmetry_tolerance relative to the larger magnitude); otherwise one is ignored.
  bool check_symmetry = false;
  double symmetry_tolerance = 0.0;
};

inline const char* to_string(Compression c) { return c == Compression::Csr ? "CSR" : "CSC"; }
inline const char* to_string(Stored s) {
  return s == Stored::Lower ? "lower" : s == Stored::Upper ? "upper" : "full";
}

namespace Impl {

/// Names of the outer/inner indices of a format, for messages ("row 12 of column 3").
inline const char* outer_name(Compression c) { return c == Compression::Csr ? "row" : "column"; }
inline const char* inner_name(Compression c) { return c == Compression::Csr ? "column" : "row"; }
inline const char* ptr_name(Compression c) { return c == Compression::Csr ? "rowptr" : "colptr"; }

/// Which entries a conversion keeps: those with inner <= outer (transpose case) or
/// inner >= outer (copy case).
enum class Keep { InnerLeOuter, InnerGeOuter };

/// Keep rule of a (compression, stored) pair; Full keeps inner <= outer (sorted for free).
inline Keep keep_rule(Compression c, Stored s) {
  if (s == Stored::Full) return Keep::InnerLeOuter;
  const bool lower_in_outer_major = (c == Compression::Csr) == (s == Stored::Lower);
  return lower_in_outer_major ? Keep::InnerLeOuter : Keep::InnerGeOuter;
}

/// Checks n, the pointer array and the index range. Throws InvalidArgument naming the
/// first problem. Returns nothing: after it, every index is in [0, n) and ptr is monotone.
template <class Offset, class Index>
void validate_input(size_type n, size_type nnz, const Offset* ptr, const Index* ind, const void* val,
                    const InputFormat& fmt) {
  static_assert(std::is_integral<Offset>::value && std::is_integral<Index>::value,
                "kspd::sparse::make_input: index arrays must hold integers");
  const char* where = "kspd::sparse::make_input: ";
  KSPD_REQUIRE(n >= 0, InvalidArgument, where << "n = " << n << " is negative");
  KSPD_REQUIRE(nnz >= 0, InvalidArgument, where << "nnz = " << nnz << " is negative");
  KSPD_REQUIRE(ptr != nullptr || n == 0, InvalidArgument, where << ptr_name(fmt.compression) << " is null");
  if (n == 0) {
    KSPD_REQUIRE(nnz == 0, DimensionMismatch, where << "nnz mismatch: nnz = " << nnz << " but n = 0");
    return;
  }
  KSPD_REQUIRE(ind != nullptr || nnz == 0, InvalidArgument,
               where << (fmt.compression == Compression::Csr ? "colind" : "rowind") << " is null");
  KSPD_REQUIRE(val != nullptr || nnz == 0, InvalidArgument, where << "values is null");
  KSPD_REQUIRE(ptr[0] == 0, InvalidArgument,
               where << ptr_name(fmt.compression) << "[0] = " << size_type(ptr[0]) << ", expected 0");
  for (size_type o = 0; o < n; ++o)
    KSPD_REQUIRE(ptr[o + 1] >= ptr[o], InvalidArgument,
                 where << ptr_name(fmt.compression) << " is not monotone at position " << o + 1 << " ("
                       << ptr_name(fmt.compression) << "[" << o << "] = " << size_type(ptr[o]) << " > "
                       << ptr_name(fmt.compression) << "[" << o + 1 << "] = " << size_type(ptr[o + 1]) << ")");
  KSPD_REQUIRE(size_type(ptr[n]) == nnz, DimensionMismatch,
               where << "nnz mismatch: " << ptr_name(fmt.compression) << "[n] = " << size_type(ptr[n])
                     << " but the entry arrays hold " << nnz);
}

template <class I>
constexpr bool is_negative(I i) {
  if constexpr (std::is_signed<I>::value) return i < 0;
  else return (void)i, false;
}

[[noreturn]] inline void throw_out_of_range(size_type o, long long i, size_type n, Compression c) {
  std::ostringstream os;
  os << "kspd::sparse::make_input: " << inner_name(c) << " " << i << " of " << outer_name(c) << " " << o
     << " is out of range [0, " << n << ")";
  ::kspd::Impl::throw_error<InvalidArgument>(__FILE__, __LINE__, os.str());
}

[[noreturn]] inline void throw_wrong_triangle(size_type o, size_type i, Compression c, Stored s) {
  std::ostringstream os;
  os << "kspd::sparse::make_input: " << inner_name(c) << " " << i << " of " << outer_name(c) << " " << o
     << " lies in the " << (s == Stored::Lower ? "upper" : "lower") << " triangle, but the input stores the "
     << to_string(s) << " one (Stored::Full takes both)";
  ::kspd::Impl::throw_error<InvalidArgument>(__FILE__, __LINE__, os.str());
}

/// The conversion. `map` gets one entry per input entry: its output position, or -1 for an
/// entry of the ignored triangle (Stored::Full). Returns whether duplicates were summed.
/// `values` may be null (pattern only: output values are zero).
template <class Scalar, class Offset, class Index, class InScalar>
bool convert(size_type n, const Offset* ptr, const Index* ind, const InScalar* values, Keep keep,
             const InputFormat& fmt, CscMatrix<Scalar>& A, std::vector<size_type>& map) {
  const size_type nnz_in = n == 0 ? 0 : size_type(ptr[n]);
  A.n = n;
  A.colptr.assign(size_t(n + 1), 0);
  map.assign(size_t(nnz_in), -1);
  const bool le = keep == Keep::InnerLeOuter;
  const bool full = fmt.stored == Stored::Full;
  // Pass 1: range check, triangle check, column counts.
  for (size_type o = 0; o < n; ++o)
    for (size_type p = size_type(ptr[o]); p < size_type(ptr[o + 1]); ++p) {
      const auto iraw = ind[p];
      if (is_negative(iraw) || static_cast<unsigned long long>(iraw) >= static_cast<unsigned long long>(n))
        throw_out_of_range(o, static_cast<long long>(iraw), n, fmt.compression);
      const size_type i = size_type(iraw);
      if (le ? i <= o : i >= o)
        ++A.colptr[size_t((le ? i : o) + 1)];
      else if (!full)
        throw_wrong_triangle(o, i, fmt.compression, fmt.stored);
    }
  for (size_type j = 0; j < n; ++j) A.colptr[size_t(j + 1)] += A.colptr[size_t(j)];
  const size_type nnz = A.colptr[size_t(n)];
  A.rowind.resize(size_t(nnz));
  A.values.resize(size_t(nnz));
  auto value = [&](size_type p) { return values ? Scalar(values[p]) : Scalar(0); };
  // Pass 2: place every kept entry.
  if (le) {
    std::vector<size_type> next(A.colptr.begin(), A.colptr.end() - 1);
    for (size_type o = 0; o < n; ++o)
      for (size_type p = size_type(ptr[o]); p < size_type(ptr[o + 1]); ++p) {
        const size_type i = size_type(ind[p]);
        if (i > o) continue;
        const size_type q = next[size_t(i)]++;
        A.rowind[size_t(q)] = o;
        A.values[size_t(q)] = value(p);
        map[size_t(p)] = q;
      }
  } else {
    std::vector<std::pair<size_type, size_type>> buf;  // (row, input entry) of one column
    for (size_type o = 0; o < n; ++o) {
      size_type q = A.colptr[size_t(o)];
      bool sorted = true;
      size_type last = -1;
      for (size_type p = size_type(ptr[o]); p < size_type(ptr[o + 1]); ++p) {
        const size_type i = size_type(ind[p]);
        if (i < o) continue;
        sorted = sorted && i >= last;
        last = i;
        A.rowind[size_t(q)] = i;
        A.values[size_t(q)] = value(p);
        map[size_t(p)] = q++;
      }
      if (sorted) continue;
      buf.clear();
      for (size_type p = size_type(ptr[o]); p < size_type(ptr[o + 1]); ++p)
        if (size_type(ind[p]) >= o) buf.push_back({size_type(ind[p]), p});
      std::stable_sort(buf.begin(), buf.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
      q = A.colptr[size_t(o)];
      for (const auto& e : buf) {
        A.rowind[size_t(q)] = e.first;
        A.values[size_t(q)] = value(e.second);
        map[size_t(e.second)] = q++;
      }
    }
  }
  // Pass 3: duplicates (adjacent within a column now).
  size_type first_dup = -1, dup_col = -1;
  for (size_type j = 0; j < n && first_dup < 0; ++j)
    for (size_type q = A.colptr[size_t(j)] + 1; q < A.colptr[size_t(j + 1)]; ++q)
      if (A.rowind[size_t(q)] == A.rowind[size_t(q - 1)]) {
        first_dup = A.rowind[size_t(q)];
        dup_col = j;
        break;
      }
  if (first_dup < 0) return false;
  KSPD_REQUIRE(fmt.sum_duplicates, InvalidArgument,
               "kspd::sparse::make_input: duplicate entry (row " << first_dup << ", column " << dup_col
                                                                 << ") of the lower triangle; set "
                                                                    "InputFormat::sum_duplicates to add them");
  std::vector<size_type> newpos(static_cast<size_t>(nnz));
  size_type w = 0;
  for (size_type j = 0; j < n; ++j) {
    const size_type b = A.colptr[size_t(j)], e = A.colptr[size_t(j + 1)];
    A.colptr[size_t(j)] = w;
    for (size_type q = b; q < e; ++q) {
      if (q > b && A.rowind[size_t(q)] == A.rowind[size_t(q - 1)]) {
        A.values[size_t(w - 1)] += A.values[size_t(q)];
      } else {
        A.rowind[size_t(w)] = A.rowind[size_t(q)];
        A.values[size_t(w)] = A.values[size_t(q)];
        ++w;
      }
      newpos[size_t(q)] = w - 1;
    }
  }
  A.colptr[size_t(n)] = w;
  A.rowind.resize(size_t(w));
  A.rowind.shrink_to_fit();
  A.values.resize(size_t(w));
  A.values.shrink_to_fit();
  for (auto& m : map)
    if (m >= 0) m = newpos[size_t(m)];
  return true;
}

/// Full storage, verified: the ignored triangle (inner >= outer), converted the same way,
/// must equal the kept one entry by entry. Throws InvalidArgument naming the first
/// entry that differs (0-based (row, column) of the symmetric matrix).
template <class Scalar, class Offset, class Index, class InScalar>
void check_symmetric(size_type n, const Offset* ptr, const Index* ind, const InScalar* values,
                     const InputFormat& fmt, const CscMatrix<Scalar>& kept) {
  CscMatrix<Scalar> other;
  std::vector<size_type> map;
  convert(n, ptr, ind, values, Keep::InnerGeOuter, fmt, other, map);
  // `kept` holds entries with inner <= outer, `other` those with inner >= outer, both as
  // the lower triangle (row >= column). In the input's own (outer, inner) terms an entry of
  // `kept` at lower (r, c) was stored as outer r, inner c, and one of `other` as outer c,
  // inner r: for CSR these are A(r, c) and A(c, r).
  const bool csr = fmt.compression == Compression::Csr;
  auto name = [&](size_type r, size_type c, bool from_kept) {
    // from_kept: stored at (outer r, inner c); else (outer c, inner r). CSR: (row, col) = (outer, inner).
    std::ostringstream os;
    const size_type outer = from_kept ? r : c, inner = from_kept ? c : r;
    os << "A(" << (csr ? outer : inner) << ", " << (csr ? inner : outer) << ")";
    return os.str();
  };
  for (size_type j = 0; j < n; ++j) {
    size_type a = kept.colptr[size_t(j)], b = other.colptr[size_t(j)];
    const size_type ae = kept.colptr[size_t(j + 1)], be = other.colptr[size_t(j + 1)];
    while (a < ae || b < be) {
      const size_type ra = a < ae ? kept.rowind[size_t(a)] : n, rb = b < be ? other.rowind[size_t(b)] : n;
      if (ra == rb) {
        if (ra != j) {
          const double x = double(kept.values[size_t(a)]), y = double(other.values[size_t(b)]);
          const double tol = fmt.symmetry_tolerance * std::max(std::fabs(x), std::fabs(y));
          KSPD_REQUIRE(std::fabs(x - y) <= tol, InvalidArgument,
                       "kspd::sparse::make_input: the full-storage matrix is not symmetric: "
                           << name(ra, j, true) << " = " << x << " but " << name(ra, j, false) << " = " << y);
        }
        ++a, ++b;
      } else {
        const bool missing_other = ra < rb;
        const size_type r = missing_other ? ra : rb;
        KSPD_REQUIRE(false, InvalidArgument,
                     "kspd::sparse::make_input: the full-storage matrix is not symmetric: "
                         << name(r, j, missing_other) << " is stored but " << name(r, j, !missing_other)
                         << " is not");
      }
    }
  }
}

}  // namespace Impl
}  // namespace kspd::sparse
#endif
