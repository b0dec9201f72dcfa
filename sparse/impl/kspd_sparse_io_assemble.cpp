// Entries as read -> lower-triangle CscMatrix, with duplicate and symmetry checks.
#include "kspd_sparse_io_assemble.hpp"

#include <algorithm>
#include <limits>
#include <sstream>

#include "kspd_error.hpp"
#include "kspd_sparse_io_stream.hpp"

namespace kspd::sparse::Impl {

template <class Scalar>
double scalar_max() {
  return double(std::numeric_limits<Scalar>::max());
}
template double scalar_max<float>();
template double scalar_max<double>();

void check_declared_size(const std::string& path, size_type line, size_type n, size_type declared,
                         FileSymmetry symmetry) {
  std::ostringstream os;
  constexpr size_type kHuge = size_type(1) << 62;  // keeps every later n + 1, nnz + 1 exact
  if (n > kHuge || declared > kHuge) {
    os << "sizes " << n << " / " << declared << " are too large (more than 2^62)";
    throw_parse_error(path, line, os.str());
  }
  const long double nn = (long double)n;
  const long double positions = symmetry == FileSymmetry::Symmetric ? nn * (nn + 1) / 2 : nn * nn;
  if ((long double)declared > positions) {
    os << "the size line declares " << declared << " entries, more than the " << positions << " positions of "
       << (symmetry == FileSymmetry::Symmetric ? "the triangle of " : "") << "an order-" << n << " matrix";
    throw_parse_error(path, line, os.str());
  }
  constexpr size_type kSlack = size_type(1) << 20;
  if (n - kSlack > declared) {
    os << "order " << n << " exceeds the " << declared
       << " declared entries by more than 2^20: that many empty columns make the matrix singular "
          "(refusing to allocate for it)";
    throw_parse_error(path, line, os.str());
  }
}

namespace {

struct Offence {
  size_type line = std::numeric_limits<size_type>::max();
  std::string reason;
  bool any() const { return line != std::numeric_limits<size_type>::max(); }
  template <class F>
  void consider(size_type l, F&& make_reason) {
    if (l < line) {
      line = l;
      reason = make_reason();
    }
  }
};

// "(i, j)" in the file's own orientation, 1-based.
std::string pos(const Triplet& t) {
  std::ostringstream os;
  if (t.upper) os << '(' << t.col + 1 << ", " << t.row + 1 << ')';
  else os << '(' << t.row + 1 << ", " << t.col + 1 << ')';
  return os.str();
}

std::string fmt(double v) {
  std::ostringstream os;
  os.precision(17);
  os << v;
  return os.str();
}

}  // namespace

template <class Scalar>
CscMatrix<Scalar> assemble_lower(std::vector<Triplet>&& entries, const AssembleInfo& info,
                                 const ReadOptions& options) {
  const size_type n = info.n;
  // Bucket by column in place (counting sort with cycle-following swaps, so no second copy
  // of the entries), then sort each column by (row, upper, line).
  std::vector<size_type> start(size_t(n + 1), 0);
  for (const Triplet& t : entries) ++start[size_t(t.col + 1)];
  for (size_type j = 0; j < n; ++j) start[size_t(j + 1)] += start[size_t(j)];
  std::vector<Triplet> sorted(std::move(entries));
  {
    std::vector<size_type> next(start.begin(), start.end() - 1);
    for (size_type j = 0; j < n; ++j)
      while (next[size_t(j)] < start[size_t(j + 1)]) {
        Triplet& t = sorted[size_t(next[size_t(j)])];
        if (t.col == j) ++next[size_t(j)];
        else std::swap(t, sorted[size_t(next[size_t(t.col)]++)]);
      }
  }

  const bool general = info.symmetry == FileSymmetry::General;
  Offence bad;
  for (size_type j = 0; j < n; ++j) {
    auto b = sorted.begin() + start[size_t(j)], e = sorted.begin() + start[size_t(j + 1)];
    std::sort(b, e, [](const Triplet& x, const Triplet& y) {
      return x.row != y.row ? x.row < y.row : x.upper != y.upper ? x.upper < y.upper : x.line < y.line;
    });
    for (auto g = b; g != e;) {
      auto ge = g;
      while (ge != e && ge->row == g->row) ++ge;
      if (!general || g->row == g->col) {
        // One entry per position. Group sorted by (upper, line): the duplicate is the
        // second occurrence in the file.
        if (ge - g > 1) {
          std::vector<Triplet> grp(g, ge);
          std::sort(grp.begin(), grp.end(), [](const Triplet& x, const Triplet& y) { return x.line < y.line; });
          bad.consider(grp[1].line, [&] {
            std::ostringstream os;
            os << "duplicate entry " << pos(grp[1]) << ": the same position as " << pos(grp[0]) << " at line "
               << grp[0].line;
            if (!general && grp[0].upper != grp[1].upper)
              os << " (a symmetric file stores each pair (i, j), (j, i) once)";
            return os.str();
          });
        }
      } else {
        // General: exactly one lower (upper == false) and one upper entry, equal values.
        auto mid = g;
        while (mid != ge && !mid->upper) ++mid;
        const auto nlow = mid - g, nup = ge - mid;
        if (nlow > 1)
          bad.consider(g[1].line, [&] { return "duplicate entry " + pos(g[1]) + ": the same position as line " + std::to_string(g[0].line); });
        if (nup > 1)
          bad.consider(mid[1].line, [&] { return "duplicate entry " + pos(mid[1]) + ": the same position as line " + std::to_string(mid[0].line); });
        if (nlow == 0 || nup == 0) {
          const Triplet& t = *g;
          bad.consider(t.line, [&] {
            const Triplet mirror{t.row, t.col, 0.0, 0, !t.upper};
            return "entry " + pos(t) + " has no matching entry " + pos(mirror) +
                   ": 'general' data must be symmetric (store one triangle with 'symmetric' instead)";
          });
        } else if (g->value != mid->value) {
          const Triplet& first = g->line < mid->line ? *g : *mid;
          const Triplet& other = g->line < mid->line ? *mid : *g;
          bad.consider(first.line, [&] {
            return "entry " + pos(first) + " = " + fmt(first.value) + " differs from " + pos(other) + " = " +
                   fmt(other.value) + " at line " + std::to_string(other.line) +
                   ": 'general' data must have symmetric values";
          });
        }
      }
      g = ge;
    }
  }
  if (bad.any()) throw_parse_error(info.path, bad.line, bad.reason);

  const bool dd = info.pattern && options.pattern_values == PatternValues::DiagonallyDominant;
  std::vector<size_type> degree;
  std::vector<char> has_diag;
  if (dd) {
    degree.assign(size_t(n), 0);
    has_diag.assign(size_t(n), 0);
  }
  CscMatrix<Scalar> A;
  A.n = n;
  A.name = base_name(info.path);
  A.colptr.assign(size_t(n + 1), 0);
  // Count the kept entries per column (plus an added diagonal in the dominant-pattern case).
  for (size_type j = 0; j < n; ++j) {
    size_type c = 0;
    for (size_type q = start[size_t(j)]; q < start[size_t(j + 1)]; ++q) {
      const Triplet& t = sorted[size_t(q)];
      if (q > start[size_t(j)] && sorted[size_t(q - 1)].row == t.row) continue;
      ++c;
      if (dd) {
        if (t.row == j) has_diag[size_t(j)] = 1;
        else ++degree[size_t(j)], ++degree[size_t(t.row)];
      }
    }
    A.colptr[size_t(j + 1)] = c + (dd && !has_diag[size_t(j)] ? 1 : 0);
  }
  for (size_type j = 0; j < n; ++j) A.colptr[size_t(j + 1)] += A.colptr[size_t(j)];
  A.rowind.resize(size_t(A.nnz()));
  A.values.resize(size_t(A.nnz()));
  for (size_type j = 0; j < n; ++j) {
    size_type o = A.colptr[size_t(j)];
    if (dd && !has_diag[size_t(j)]) {
      A.rowind[size_t(o)] = j;
      A.values[size_t(o++)] = Scalar(1 + degree[size_t(j)]);
    }
    for (size_type q = start[size_t(j)]; q < start[size_t(j + 1)]; ++q) {
      const Triplet& t = sorted[size_t(q)];
      if (q > start[size_t(j)] && sorted[size_t(q - 1)].row == t.row) continue;
      A.rowind[size_t(o)] = t.row;
      if (dd) A.values[size_t(o)] = t.row == j ? Scalar(1 + degree[size_t(j)]) : Scalar(-1);
      else A.values[size_t(o)] = Scalar(t.value);
      ++o;
    }
  }
  return A;
}

template CscMatrix<float> assemble_lower<float>(std::vector<Triplet>&&, const AssembleInfo&, const ReadOptions&);
template CscMatrix<double> assemble_lower<double>(std::vector<Triplet>&&, const AssembleInfo&, const ReadOptions&);

}  // namespace kspd::sparse::Impl
