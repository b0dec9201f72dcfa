// Rutherford-Boeing / Harwell-Boeing reader (assembled real, integer or pattern; symmetric,
// or unsymmetric type with symmetric values) and the reader dispatch by file name.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstring>
#include <sstream>
#include <type_traits>

#include "kspd_error.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_io_assemble.hpp"
#include "kspd_sparse_io_stream.hpp"

namespace kspd::sparse {

namespace {

using namespace Impl;

/// A Fortran edit descriptor for one card: `per_line` fields of `width` characters.
struct FortranFormat {
  int per_line = 0;
  int width = 0;
  char kind = 'I';  // I, E, D, F or G
  std::string text;
};

std::string trim(const std::string& s) {
  std::size_t b = 0, e = s.size();
  while (b < e && std::isspace((unsigned char)s[b])) ++b;
  while (e > b && std::isspace((unsigned char)s[e - 1])) --e;
  return s.substr(b, e - b);
}

// Parses "(16I5)", "(10I8)", "(5E16.8)", "(3D26.18)", "(1P,4E20.12)", "(1P4E20.12)",
// "(4E20.12E3)", "(8F10.2)": [scale P[,]] [repeat] letter width [.digits [E exp]].
bool parse_format(const std::string& raw, FortranFormat& f) {
  std::string s;
  for (char c : raw)
    if (!std::isspace((unsigned char)c)) s += char(std::toupper((unsigned char)c));
  f.text = trim(raw);
  if (s.size() < 3 || s.front() != '(' || s.back() != ')') return false;
  std::size_t k = 1;
  auto number = [&](int& v) {
    const std::size_t b = k;
    v = 0;
    while (k < s.size() && std::isdigit((unsigned char)s[k]) && k - b < 6) v = 10 * v + (s[k++] - '0');
    return k > b;
  };
  int v = 0;
  // Optional scale factor "kP" (possibly followed by a comma): it does not change how
  // values with an explicit exponent read, and the cards always carry one.
  std::size_t save = k;
  if (number(v) && k < s.size() && s[k] == 'P') {
    ++k;
    if (k < s.size() && s[k] == ',') ++k;
  } else {
    k = save;
  }
  f.per_line = 1;
  save = k;
  if (number(v)) f.per_line = v;
  if (k >= s.size() || std::strchr("IEDFG", s[k]) == nullptr) return false;
  f.kind = s[k++];
  if (!number(f.width) || f.width <= 0 || f.per_line <= 0) return false;
  if (k < s.size() && s[k] == '.') {
    ++k;
    if (!number(v)) return false;
    if (k < s.size() && s[k] == 'E') {
      ++k;
      if (!number(v)) return false;
    }
  }
  return k + 1 == s.size();
}

/// Reads `count` fixed-width fields spread over the section's cards.
class CardSection {
 public:
  CardSection(LineReader& in, const FortranFormat& fmt, const char* what, size_type cards)
      : in_(in), fmt_(fmt), what_(what), cards_(cards) {}

  // Calls f(field_begin, field_end) for each of `count` fields (blanks trimmed).
  template <class F>
  void read(size_type count, F&& f) {
    const size_type first_line = in_.line_number() + 1;
    size_type got = 0;
    while (got < count) {
      const char* line = nullptr;
      std::size_t len = 0;
      if (!in_.next(line, len))
        in_.fail_at(in_.line_number() + 1, "unexpected end of file in the " + std::string(what_) + ": " +
                                               std::to_string(got) + " of " + std::to_string(count) +
                                               " values read (truncated file?)");
      int fields = 0;
      for (int k = 0; k < fmt_.per_line && got < count; ++k) {
        const std::size_t b0 = std::size_t(k) * std::size_t(fmt_.width);
        if (b0 >= len) break;
        const char* b = line + b0;
        const char* e = line + std::min(len, b0 + std::size_t(fmt_.width));
        while (b < e && (*b == ' ' || *b == '\t')) ++b;
        while (e > b && (e[-1] == ' ' || e[-1] == '\t')) --e;
        if (b == e) {
          // A blank field ends the card's data; anything after it is malformed.
          for (const char* r = line + b0; r < line + len; ++r)
            if (*r != ' ' && *r != '\t')
              in_.fail("blank field " + std::to_string(k + 1) + " followed by more data in the " + what_ +
                       " (format " + fmt_.text + ")");
          break;
        }
        f(b, e);
        ++fields, ++got;
      }
      if (fields == 0)
        in_.fail("no data on a card of the " + std::string(what_) + " (" + std::to_string(got) + " of " +
                 std::to_string(count) + " values read; format " + fmt_.text + ")");
      // Data past what the format allows on a card, or past the last value.
      const std::size_t used = std::size_t(fields) * std::size_t(fmt_.width);
      for (std::size_t r = used; r < len; ++r)
        if (line[r] != ' ' && line[r] != '\t')
          in_.fail("unexpected data '" + token_text(line + r, line + std::min(len, r + 20)) + "' in column " +
                   std::to_string(r + 1) + " of the " + what_ +
                   (got == count ? " (more values than the " + std::to_string(count) + " declared)"
                                 : " (beyond the fields of format " + fmt_.text + ")"));
    }
    const size_type used_cards = in_.line_number() - first_line + 1;
    if (count > 0 && used_cards != cards_)
      in_.fail("the " + std::string(what_) + " take " + std::to_string(used_cards) + " card(s), the header (line 2) declares " +
               std::to_string(cards_));
    if (count == 0 && cards_ != 0)
      in_.fail_at(first_line, "the header (line 2) declares " + std::to_string(cards_) + " card(s) of " + what_ +
                                  ", but there are none to read");
  }

 private:
  LineReader& in_;
  const FortranFormat& fmt_;
  const char* what_;
  size_type cards_;
};

bool ends_with(const std::string& s, const std::string& suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

}  // namespace

template <class Scalar>
CscMatrix<Scalar> read_rutherford_boeing(const std::string& path, const ReadOptions& options) {
  LineReader in(path);
  const char *line = nullptr, *p = nullptr, *tb = nullptr, *te = nullptr;
  std::size_t len = 0;

  // Line 1: title and key (free text).
  if (!in.next(line, len)) in.fail_at(1, "empty file: expected the Rutherford-Boeing title line");

  // Line 2: totcrd ptrcrd indcrd valcrd [rhscrd].
  if (!in.next(line, len)) in.fail_at(2, "unexpected end of file: expected the card counts 'totcrd ptrcrd indcrd valcrd [rhscrd]'");
  long long crd[5] = {0, 0, 0, 0, 0};
  int ncrd = 0;
  for (p = line; next_token(p, tb, te);) {
    if (ncrd == 5) in.fail("unexpected token '" + token_text(tb, te) + "' after the 5 card counts");
    if (!parse_int(tb, te, crd[ncrd]) || crd[ncrd] < 0)
      in.fail("card count '" + token_text(tb, te) + "' is not a non-negative integer");
    ++ncrd;
  }
  if (ncrd < 4) in.fail("expected the card counts 'totcrd ptrcrd indcrd valcrd [rhscrd]', found " + std::to_string(ncrd) + " numbers");
  const long long totcrd = crd[0], ptrcrd = crd[1], indcrd = crd[2], valcrd = crd[3], rhscrd = crd[4];
  // Checked sum: each count may be up to 2^63 - 1 (signed overflow is undefined).
  long long sum = 0;
  for (int k = 1; k < 5; ++k)
    if (__builtin_add_overflow(sum, crd[k], &sum))
      in.fail("the card counts ptrcrd + indcrd + valcrd" + std::string(ncrd == 5 ? " + rhscrd" : "") +
              " overflow a 64-bit integer (totcrd = " + std::to_string(totcrd) + ")");
  if (totcrd != sum)
    in.fail("totcrd = " + std::to_string(totcrd) + " is not ptrcrd + indcrd + valcrd" + (ncrd == 5 ? " + rhscrd" : "") +
            " = " + std::to_string(sum));

  // Line 3: type, nrow, ncol, nnzero, neltvl.
  if (!in.next(line, len)) in.fail_at(3, "unexpected end of file: expected 'mxtype nrow ncol nnzero neltvl'");
  std::string type(line, std::min<std::size_t>(len, 3));
  for (char& c : type) c = char(std::toupper((unsigned char)c));
  if (type.size() < 3 || !std::isalpha((unsigned char)type[0]) || !std::isalpha((unsigned char)type[1]) ||
      !std::isalpha((unsigned char)type[2]))
    in.fail("expected the 3-letter matrix type (such as RSA) in columns 1-3, found '" + token_text(line, line + std::min<std::size_t>(len, 3)) + "'");
  if (type[0] == 'C') in.fail("unsupported type " + type + ": complex matrices are not read");
  if (type[0] == 'Q') in.fail("unsupported type " + type + ": values supplied separately (Q) are not read");
  if (type[0] != 'R' && type[0] != 'I' && type[0] != 'P') in.fail("unknown value type '" + type.substr(0, 1) + "' in " + type);
  if (type[1] == 'H' || type[1] == 'Z')
    in.fail("unsupported type " + type + ": only symmetric (S), or unsymmetric (U) with symmetric values");
  if (type[1] == 'R') in.fail("unsupported type " + type + ": the matrix is rectangular (not square)");
  if (type[1] != 'S' && type[1] != 'U') in.fail("unknown symmetry '" + type.substr(1, 1) + "' in " + type);
  if (type[2] == 'E') in.fail("unsupported type " + type + ": elemental matrices are not read (assemble them first)");
  if (type[2] != 'A') in.fail("unknown storage '" + type.substr(2, 1) + "' in " + type);
  long long dims[4] = {0, 0, 0, 0};
  int nd = 0;
  for (p = line + 3; next_token(p, tb, te);) {
    if (nd == 4) in.fail("unexpected token '" + token_text(tb, te) + "' after 'nrow ncol nnzero neltvl'");
    if (!parse_int(tb, te, dims[nd]) || dims[nd] < 0)
      in.fail("'" + token_text(tb, te) + "' is not a non-negative integer (expected 'nrow ncol nnzero neltvl')");
    ++nd;
  }
  if (nd < 3) in.fail("expected 'nrow ncol nnzero [neltvl]' after the type, found " + std::to_string(nd) + " numbers");
  if (dims[0] != dims[1])
    in.fail("the matrix is not square (" + std::to_string(dims[0]) + " rows, " + std::to_string(dims[1]) + " columns)");
  if (nd == 4 && dims[3] != 0) in.fail("neltvl = " + std::to_string(dims[3]) + " must be 0 for an assembled matrix");
  const size_type n = dims[0], nnz = dims[2];
  const FileSymmetry symmetry = type[1] == 'S' ? FileSymmetry::Symmetric : FileSymmetry::General;
  check_declared_size(path, 3, n, nnz, symmetry);
  const bool pattern = type[0] == 'P';

  // Line 4: formats (A16, A16, A20[, A20]).
  if (!in.next(line, len)) in.fail_at(4, "unexpected end of file: expected the Fortran formats of pointers, indices and values");
  const std::string l4(line, len);
  auto column = [&](std::size_t b, std::size_t w) { return b < l4.size() ? trim(l4.substr(b, w)) : std::string(); };
  FortranFormat ptrfmt, indfmt, valfmt;
  if (!parse_format(column(0, 16), ptrfmt) || (ptrfmt.kind != 'I'))
    in.fail("pointer format '" + column(0, 16) + "' in columns 1-16 is not an integer Fortran format such as (16I5)");
  if (!parse_format(column(16, 16), indfmt) || (indfmt.kind != 'I'))
    in.fail("index format '" + column(16, 16) + "' in columns 17-32 is not an integer Fortran format such as (16I5)");
  if (!pattern) {
    if (!parse_format(column(32, 20), valfmt))
      in.fail("value format '" + column(32, 20) + "' in columns 33-52 is not a Fortran format such as (4E20.12)");
    if (type[0] == 'I' && valfmt.kind != 'I' && valfmt.kind != 'F' && valfmt.kind != 'E' && valfmt.kind != 'D')
      in.fail("value format '" + valfmt.text + "' does not fit integer values");
  } else if (valcrd != 0) {
    in.fail_at(2, "a pattern matrix (" + type + ") declares " + std::to_string(valcrd) + " value cards");
  }
  if (!pattern && nnz > 0 && valcrd == 0) in.fail_at(2, "type " + type + " has values but valcrd = 0");
  // Harwell-Boeing right-hand-side header (skipped with the right-hand sides).
  if (rhscrd > 0 && !in.next(line, len))
    in.fail_at(5, "unexpected end of file: expected the right-hand-side header (rhscrd > 0)");

  // Column pointers: ncol + 1 values, 1 = first <= ... <= last = nnzero + 1.
  std::vector<size_type> colptr;
  std::vector<size_type> ptr_line;
  CardSection(in, ptrfmt, "column pointers", ptrcrd).read(n + 1, [&](const char* b, const char* e) {
    long long v = 0;
    if (!parse_int(b, e, v)) in.fail("column pointer '" + token_text(b, e) + "' is not an integer");
    const size_type j = size_type(colptr.size());
    if (j == 0 && v != 1) in.fail("the first column pointer is " + std::to_string(v) + ", expected 1");
    if (j > 0 && v < colptr.back())
      in.fail("column pointer " + std::to_string(j + 1) + " = " + std::to_string(v) + " is smaller than the previous one (" +
              std::to_string(colptr.back()) + ")");
    if (v > nnz + 1)
      in.fail("column pointer " + std::to_string(j + 1) + " = " + std::to_string(v) + " exceeds nnzero + 1 = " +
              std::to_string(nnz + 1));
    if (j == n && v != nnz + 1)
      in.fail("the last column pointer is " + std::to_string(v) + ", expected nnzero + 1 = " + std::to_string(nnz + 1));
    colptr.push_back(v);
  });

  // Row indices: the column of entry k is the j with colptr[j] <= k+1 < colptr[j+1].
  std::vector<Triplet> entries;
  entries.reserve(size_t(std::min<size_type>(nnz, size_type(1) << 20)));
  size_type col = 0;
  CardSection(in, indfmt, "row indices", indcrd).read(nnz, [&](const char* b, const char* e) {
    long long v = 0;
    if (!parse_int(b, e, v)) in.fail("row index '" + token_text(b, e) + "' is not an integer");
    if (v < 1 || v > n) in.fail("row index " + std::to_string(v) + " out of range [1, " + std::to_string(n) + "]");
    const size_type k = size_type(entries.size());
    while (colptr[size_t(col + 1)] - 1 <= k) ++col;
    entries.push_back(Triplet{size_type(v) - 1, col, 1.0, in.line_number(), false});
  });

  // Values.
  if (!pattern) {
    const double vmax = scalar_max<Scalar>();
    size_type k = 0;
    CardSection(in, valfmt, "values", valcrd).read(nnz, [&](const char* b, const char* e) {
      double v = 0;
      if (type[0] == 'I' && valfmt.kind == 'I') {
        long long iv = 0;
        if (!parse_int(b, e, iv)) in.fail("value '" + token_text(b, e) + "' is not an integer");
        v = double(iv);
      } else if (!parse_real(b, e, v, true)) {
        in.fail("value '" + token_text(b, e) + "' is not a number");
      }
      if (!std::isfinite(v)) in.fail("value '" + token_text(b, e) + "' is not finite (NaN or Inf)");
      if (std::fabs(v) > vmax)
        in.fail("value '" + token_text(b, e) + "' overflows " + (std::is_same<Scalar, float>::value ? "float" : "double"));
      entries[size_t(k++)].value = v;
    });
  }
  // Nothing but blank lines may follow (Harwell-Boeing right-hand sides are skipped).
  if (rhscrd == 0)
    while (in.next(line, len)) {
      p = line;
      if (next_token(p, tb, te))
        in.fail("unexpected data after the last card ('" + token_text(tb, te) + "'): the header declares " +
                std::to_string(totcrd) + " cards");
    }

  for (Triplet& t : entries)
    if (t.row < t.col) {
      std::swap(t.row, t.col);
      t.upper = true;
    }
  AssembleInfo info;
  info.path = path;
  info.n = n;
  info.symmetry = symmetry;
  info.pattern = pattern;
  return assemble_lower<Scalar>(std::move(entries), info, options);
}

MatrixFormat matrix_format_of(const std::string& path) {
  std::string s = path;
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  if (ends_with(s, ".gz")) s.resize(s.size() - 3);
  if (ends_with(s, ".mtx") || ends_with(s, ".mm")) return MatrixFormat::MatrixMarket;
  for (const char* e : {".rsa", ".rb", ".rua", ".psa", ".pua", ".isa", ".iua", ".hb"})
    if (ends_with(s, e)) return MatrixFormat::RutherfordBoeing;
  // Unknown extension: a Matrix Market file says so on its first line.
  LineReader in(path);
  const char* line = nullptr;
  std::size_t len = 0;
  if (in.next(line, len) && len >= 14 && std::strncmp(line, "%%MatrixMarket", 14) == 0) return MatrixFormat::MatrixMarket;
  throw InvalidArgument(path + ": unknown matrix file format (expected .mtx, .mtx.gz, .rsa, .rb, .rua, .psa or .hb, "
                               "or a Matrix Market banner on the first line)");
}

template <class Scalar>
CscMatrix<Scalar> read_matrix(const std::string& path, const ReadOptions& options) {
  return matrix_format_of(path) == MatrixFormat::MatrixMarket ? read_matrix_market<Scalar>(path, options)
                                                              : read_rutherford_boeing<Scalar>(path, options);
}

template CscMatrix<float> read_rutherford_boeing<float>(const std::string&, const ReadOptions&);
template CscMatrix<double> read_rutherford_boeing<double>(const std::string&, const ReadOptions&);
template CscMatrix<float> read_matrix<float>(const std::string&, const ReadOptions&);
template CscMatrix<double> read_matrix<double>(const std::string&, const ReadOptions&);

}  // namespace kspd::sparse
