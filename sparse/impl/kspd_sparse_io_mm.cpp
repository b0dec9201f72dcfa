// Matrix Market coordinate reader and writer.
#include <algorithm>
#include <cctype>
#include <cmath>
#include <cstdio>
#include <sstream>
#include <type_traits>

#include "kspd_error.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_io_assemble.hpp"
#include "kspd_sparse_io_stream.hpp"

namespace kspd::sparse {

namespace {

std::string lower_case(const char* tb, const char* te) {
  std::string s(tb, te);
  for (char& c : s) c = char(std::tolower((unsigned char)c));
  return s;
}

enum class Field { Real, Integer, Pattern };

const char* field_name(Field f) { return f == Field::Real ? "real" : f == Field::Integer ? "integer" : "pattern"; }

}  // namespace

template <class Scalar>
CscMatrix<Scalar> read_matrix_market(const std::string& path, const ReadOptions& options) {
  using namespace Impl;
  LineReader in(path);
  const char *line = nullptr, *p = nullptr, *tb = nullptr, *te = nullptr;
  std::size_t len = 0;
  const char* const banner_form = "'%%MatrixMarket matrix coordinate <real|integer|pattern> <symmetric|general>'";

  // --- banner ----------------------------------------------------------------------------
  if (!in.next(line, len)) in.fail_at(1, std::string("empty file: expected the banner ") + banner_form);
  p = line;
  std::string tok[5];
  int ntok = 0;
  while (ntok < 5 && next_token(p, tb, te)) tok[ntok++] = lower_case(tb, te);
  if (ntok == 0 || tok[0] != "%%matrixmarket")
    in.fail(std::string("not a Matrix Market file: the first line must be the banner ") + banner_form +
            (ntok ? ", found '" + token_text(line, line + std::min<std::size_t>(len, 40)) + "'" : std::string()));
  if (ntok < 5) in.fail(std::string("incomplete banner: expected ") + banner_form);
  if (next_token(p, tb, te)) in.fail("unexpected text '" + token_text(tb, te) + "' after the banner");
  if (tok[1] != "matrix") in.fail("unsupported object '" + tok[1] + "': only 'matrix' files are read");
  if (tok[2] == "array")
    in.fail("unsupported format 'array' (dense): only sparse 'coordinate' files are read");
  if (tok[2] != "coordinate") in.fail("unknown format '" + tok[2] + "': expected 'coordinate'");
  Field field = Field::Real;
  if (tok[3] == "real" || tok[3] == "double") field = Field::Real;
  else if (tok[3] == "integer") field = Field::Integer;
  else if (tok[3] == "pattern") field = Field::Pattern;
  else if (tok[3] == "complex")
    in.fail("unsupported field 'complex': only real, integer and pattern (symmetric positive definite) matrices");
  else in.fail("unknown field '" + tok[3] + "': expected real, integer or pattern");
  FileSymmetry symmetry = FileSymmetry::Symmetric;
  if (tok[4] == "symmetric") symmetry = FileSymmetry::Symmetric;
  else if (tok[4] == "general") symmetry = FileSymmetry::General;
  else if (tok[4] == "hermitian" || tok[4] == "skew-symmetric")
    in.fail("unsupported symmetry '" + tok[4] + "': only symmetric, or general with symmetric values");
  else in.fail("unknown symmetry '" + tok[4] + "': expected symmetric or general");

  // --- size line -------------------------------------------------------------------------
  long long dims[3] = {0, 0, 0};
  for (;;) {
    if (!in.next(line, len))
      in.fail_at(in.line_number() + 1, "unexpected end of file: expected the size line 'rows columns entries'");
    p = line;
    if (!next_token(p, tb, te) || *tb == '%') continue;
    int nd = 0;
    do {
      if (nd == 3) in.fail("size line: unexpected token '" + token_text(tb, te) + "' after 'rows columns entries'");
      if (!parse_int(tb, te, dims[nd]))
        in.fail("size line: '" + token_text(tb, te) + "' is not an integer (expected 'rows columns entries')");
      ++nd;
    } while (next_token(p, tb, te));
    if (nd != 3) in.fail("size line: expected 3 integers 'rows columns entries', found " + std::to_string(nd));
    break;
  }
  const size_type size_line = in.line_number();
  if (dims[0] < 0 || dims[1] < 0 || dims[2] < 0) in.fail("size line: sizes must not be negative");
  if (dims[0] != dims[1])
    in.fail("the matrix is not square (" + std::to_string(dims[0]) + " rows, " + std::to_string(dims[1]) +
            " columns): a symmetric positive definite matrix is");
  const size_type n = dims[0], declared = dims[2];
  check_declared_size(path, size_line, n, declared, symmetry);

  // --- entries ---------------------------------------------------------------------------
  std::vector<Triplet> entries;
  entries.reserve(size_t(std::min<size_type>(declared, size_type(1) << 20)));
  const double vmax = scalar_max<Scalar>();
  const char* layout = field == Field::Pattern ? "'row column'" : "'row column value'";
  size_type count = 0;
  while (in.next(line, len)) {
    p = line;
    if (!next_token(p, tb, te) || *tb == '%') continue;  // blank or comment line
    if (count == declared)
      in.fail("more entries than the " + std::to_string(declared) + " declared on the size line (line " +
              std::to_string(size_line) + ")");
    long long ij[2];
    for (int k = 0; k < 2; ++k) {
      if (k == 1 && !next_token(p, tb, te)) in.fail(std::string("incomplete entry: expected ") + layout);
      if (!parse_int(tb, te, ij[k]))
        in.fail(std::string(k == 0 ? "row" : "column") + " index '" + token_text(tb, te) + "' is not an integer");
      if (ij[k] < 1 || ij[k] > n)
        in.fail(std::string(k == 0 ? "row" : "column") + " index " + std::to_string(ij[k]) + " out of range [1, " +
                std::to_string(n) + "]");
    }
    double v = 1.0;
    if (field != Field::Pattern) {
      if (!next_token(p, tb, te))
        in.fail(std::string("missing value: field '") + field_name(field) + "' expects " + layout);
      if (field == Field::Integer) {
        long long iv = 0;
        if (!parse_int(tb, te, iv)) {
          double dv = 0;
          in.fail("value '" + token_text(tb, te) + "' is not " +
                  (parse_real(tb, te, dv) ? "an integer (field 'integer')" : "a number"));
        }
        v = double(iv);
      } else {
        if (!parse_real(tb, te, v)) in.fail("value '" + token_text(tb, te) + "' is not a number");
        if (!std::isfinite(v)) in.fail("value '" + token_text(tb, te) + "' is not finite (NaN or Inf)");
      }
      if (std::fabs(v) > vmax)
        in.fail("value '" + token_text(tb, te) + "' overflows " + (std::is_same<Scalar, float>::value ? "float" : "double"));
    }
    if (next_token(p, tb, te))
      in.fail("unexpected token '" + token_text(tb, te) + "' after the entry (field '" + field_name(field) +
              "' expects " + layout + ")");
    const size_type r = size_type(ij[0]) - 1, c = size_type(ij[1]) - 1;
    entries.push_back(r >= c ? Triplet{r, c, v, in.line_number(), false} : Triplet{c, r, v, in.line_number(), true});
    ++count;
  }
  if (count < declared)
    in.fail_at(in.line_number() + 1, "unexpected end of file: " + std::to_string(count) + " of the " +
                                         std::to_string(declared) + " declared entries read (truncated file?)");

  AssembleInfo info;
  info.path = path;
  info.n = n;
  info.symmetry = symmetry;
  info.pattern = field == Field::Pattern;
  return assemble_lower<Scalar>(std::move(entries), info, options);
}

template <class Scalar>
void write_matrix_market(const std::string& path, const CscMatrix<Scalar>& A, const std::string& comment) {
  KSPD_REQUIRE(size_type(A.colptr.size()) == A.n + 1 && size_type(A.rowind.size()) == A.nnz() &&
                   size_type(A.values.size()) == A.nnz(),
               InvalidArgument, "kspd::sparse::write_matrix_market: inconsistent CscMatrix (n = " << A.n << ")");
  Impl::FileWriter out(path);
  out.write("%%MatrixMarket matrix coordinate real symmetric\n");
  std::string c = comment.empty() ? (A.name.empty() ? std::string() : A.name) : comment;
  if (!c.empty()) {
    std::istringstream lines(c);
    std::string l;
    while (std::getline(lines, l)) out.write("% " + l + "\n");
  }
  char buf[128];
  int k = std::snprintf(buf, sizeof buf, "%lld %lld %lld\n", (long long)A.n, (long long)A.n, (long long)A.nnz());
  out.write(buf, std::size_t(k));
  const int digits = std::is_same<Scalar, float>::value ? 9 : 17;  // round-trip exact
  for (size_type j = 0; j < A.n; ++j)
    for (size_type q = A.colptr[size_t(j)]; q < A.colptr[size_t(j + 1)]; ++q) {
      k = std::snprintf(buf, sizeof buf, "%lld %lld %.*g\n", (long long)A.rowind[size_t(q)] + 1, (long long)j + 1,
                        digits, double(A.values[size_t(q)]));
      out.write(buf, std::size_t(k));
    }
  out.close();
}

template CscMatrix<float> read_matrix_market<float>(const std::string&, const ReadOptions&);
template CscMatrix<double> read_matrix_market<double>(const std::string&, const ReadOptions&);
template void write_matrix_market<float>(const std::string&, const CscMatrix<float>&, const std::string&);
template void write_matrix_market<double>(const std::string&, const CscMatrix<double>&, const std::string&);

}  // namespace kspd::sparse
