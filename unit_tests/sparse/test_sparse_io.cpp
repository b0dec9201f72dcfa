// Tests of the sparse matrix readers and writer: every malformed-input case (exception
// type, file and line in the message), valid variants against hand-built expectations,
// round trips through the writer (plain and gzip), and every real matrix in KSPD_DATA_DIR
// against MANIFEST.md.
#include <gtest/gtest.h>

#include <unistd.h>

#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"

extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);

namespace {

using kspd::size_type;
namespace sp = kspd::sparse;
namespace fs = std::filesystem;

/// A private temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    dir_ = fs::temp_directory_path() /
           ("kspd_sparse_io_" + std::to_string(::getpid()) + "_" + (info ? std::string(info->name()) : "x"));
    fs::remove_all(dir_);
    fs::create_directories(dir_);
  }
  ~TempDir() {
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }
  std::string write(const std::string& name, const std::string& text) const {
    const std::string p = (dir_ / name).string();
    std::ofstream f(p, std::ios::binary);
    f << text;
    return p;
  }
  std::string path(const std::string& name) const { return (dir_ / name).string(); }

 private:
  fs::path dir_;
};

/// Expects ParseError whose message starts with "path:line: " and contains `what`.
template <class Read>
void expect_parse_error(const Read& read, const std::string& path, size_type line, const std::string& what) {
  try {
    read();
    ADD_FAILURE() << "no exception for " << path << " (expected line " << line << ": " << what << ")";
  } catch (const kspd::ParseError& e) {
    const std::string msg = e.what();
    const std::string prefix = path + ":" + std::to_string(line) + ": ";
    EXPECT_EQ(msg.rfind(prefix, 0), 0u) << "message '" << msg << "' does not start with '" << prefix << "'";
    EXPECT_NE(msg.find(what), std::string::npos) << "message '" << msg << "' does not say '" << what << "'";
  } catch (const std::exception& e) {
    ADD_FAILURE() << "wrong exception type for " << path << ": " << e.what();
  }
}

void expect_mm_error(const TempDir& tmp, const std::string& text, size_type line, const std::string& what) {
  static int counter = 0;
  const std::string p = tmp.write("bad" + std::to_string(counter++) + ".mtx", text);
  SCOPED_TRACE(text.substr(0, 200));
  expect_parse_error([&] { (void)sp::read_matrix_market<double>(p); }, p, line, what);
  expect_parse_error([&] { (void)sp::read_matrix_market<float>(p); }, p, line, what);
}

/// Dense full matrix (column-major) from the lower storage; also checks the invariants.
template <class Scalar>
std::vector<double> dense(const sp::CscMatrix<Scalar>& A) {
  EXPECT_NO_THROW(sp::check_csc(A));
  const size_t n = size_t(A.n);
  std::vector<double> D(n * n, 0.0);
  for (size_type j = 0; j < A.n; ++j)
    for (size_type q = A.colptr[size_t(j)]; q < A.colptr[size_t(j + 1)]; ++q) {
      const size_t i = size_t(A.rowind[size_t(q)]);
      D[i + size_t(j) * n] = D[size_t(j) + i * n] = double(A.values[size_t(q)]);
    }
  return D;
}

int dense_potrf(std::vector<double> D, size_type n) {
  const int nn = int(n), lda = n > 0 ? int(n) : 1;
  int info = -1;
  dpotrf_("L", &nn, D.data(), &lda, &info, 1);
  return info;
}

template <class Scalar>
void expect_equal(const sp::CscMatrix<Scalar>& A, const sp::CscMatrix<Scalar>& B) {
  EXPECT_EQ(A.n, B.n);
  EXPECT_EQ(A.colptr, B.colptr);
  EXPECT_EQ(A.rowind, B.rowind);
  ASSERT_EQ(A.values.size(), B.values.size());
  size_t bad = 0;
  for (size_t k = 0; k < A.values.size(); ++k) bad += A.values[k] != B.values[k];
  EXPECT_EQ(bad, 0u);
}

const char* kBanner = "%%MatrixMarket matrix coordinate real symmetric\n";

// The 4x4 test matrix of the valid-input tests (lower triangle):
//   [ 4 . . . ]
//   [-1 5 . . ]
//   [ . -2 6 . ]
//   [ 0.5 . . 7 ]
std::vector<double> small_dense() {
  std::vector<double> D(16, 0.0);
  auto set = [&](int i, int j, double v) { D[size_t(i + 4 * j)] = D[size_t(j + 4 * i)] = v; };
  set(0, 0, 4), set(1, 1, 5), set(2, 2, 6), set(3, 3, 7), set(1, 0, -1), set(2, 1, -2), set(3, 0, 0.5);
  return D;
}

// ------------------------------------------------------------------------------------------
// Matrix Market: valid variants
// ------------------------------------------------------------------------------------------
TEST(SparseIoMatrixMarket, SymmetricEitherTriangleGeneralIntegerAndCommentsReadTheSame) {
  TempDir tmp;
  const std::vector<std::string> files = {
      // lower triangle, comments and blank lines everywhere
      std::string(kBanner) + "% a comment\n\n%another\n4 4 7\n1 1 4\n2 1 -1\n\n% mid comment\n2 2 5\n3 2 -2\n3 3 6\n4 1 0.5\n4 4 7\n",
      // upper triangle, shuffled order, CRLF line ends, tabs, upper-case banner words
      "%%MatrixMarket MATRIX Coordinate REAL Symmetric\r\n4 4 7\r\n4 4 7.0e0\r\n1\t4\t5e-1\r\n2 3 -2\r\n1 2 -1\r\n"
      "3 3 6\r\n2 2 5\r\n1 1 4\r\n",
      // mixed triangles, no final newline
      std::string(kBanner) + "4 4 7\n1 2 -1\n3 2 -2\n1 1 4\n2 2 5\n3 3 6\n1 4 0.5\n4 4 7",
      // general with symmetric values
      "%%MatrixMarket matrix coordinate real general\n4 4 10\n1 1 4\n2 1 -1\n1 2 -1\n2 2 5\n3 2 -2\n2 3 -2\n"
      "3 3 6\n4 1 0.5\n1 4 0.5\n4 4 7\n",
      // +signs, exponents, hex float
      std::string(kBanner) + "4 4 7\n+1 +1 +4.0\n2 1 -1E+0\n2 2 0x1.4p+2\n3 2 -2.\n3 3 6\n4 1 .5\n4 4 7\n",
  };
  const auto ref = small_dense();
  for (size_t f = 0; f < files.size(); ++f) {
    SCOPED_TRACE("variant " + std::to_string(f));
    const std::string p = tmp.write("ok" + std::to_string(f) + ".mtx", files[f]);
    const auto A = sp::read_matrix_market<double>(p);
    EXPECT_EQ(A.n, 4);
    EXPECT_EQ(A.nnz(), 7);
    EXPECT_EQ(dense(A), ref);
    EXPECT_EQ(A.name, "ok" + std::to_string(f) + ".mtx");
    const auto Af = sp::read_matrix_market<float>(p);
    EXPECT_EQ(dense(Af), ref);
  }
  // Integer field.
  const std::string pi = tmp.write("int.mtx",
                                   "%%MatrixMarket matrix coordinate integer symmetric\n3 3 4\n1 1 3\n2 2 4\n3 3 5\n3 1 -1\n");
  const auto Ai = sp::read_matrix_market<double>(pi);
  EXPECT_EQ(Ai.rowind, (std::vector<size_type>{0, 2, 1, 2}));
  EXPECT_EQ(Ai.values, (std::vector<double>{3, -1, 4, 5}));
  // Explicit zeros are kept (they are part of the file's pattern) and the empty matrix reads.
  const auto Az = sp::read_matrix_market<double>(tmp.write("zero.mtx", std::string(kBanner) + "2 2 3\n1 1 1\n2 1 0\n2 2 1\n"));
  EXPECT_EQ(Az.nnz(), 3);
  EXPECT_EQ(Az.values[1], 0.0);
  const auto A0 = sp::read_matrix_market<double>(tmp.write("empty.mtx", std::string(kBanner) + "0 0 0\n"));
  EXPECT_EQ(A0.n, 0);
  EXPECT_EQ(A0.nnz(), 0);
}

TEST(SparseIoMatrixMarket, PatternOnesAndDiagonallyDominant) {
  TempDir tmp;
  // A path graph 1-2-3 plus 1-4, diagonal stored only for 1 and 3.
  const std::string p = tmp.write("pat.mtx",
                                  "%%MatrixMarket matrix coordinate pattern symmetric\n4 4 5\n1 1\n2 1\n3 2\n3 3\n4 1\n");
  const auto A = sp::read_matrix_market<double>(p);
  EXPECT_EQ(A.nnz(), 5);
  for (double v : A.values) EXPECT_EQ(v, 1.0);
  sp::ReadOptions opt;
  opt.pattern_values = sp::PatternValues::DiagonallyDominant;
  const auto B = sp::read_matrix_market<double>(p, opt);
  EXPECT_EQ(B.nnz(), 7);  // diagonals of 2 and 4 added
  const auto D = dense(B);
  // degrees: 1:2 (2,4)  2:2 (1,3)  3:1  4:1
  const double expect_diag[4] = {3, 3, 2, 2};
  for (int i = 0; i < 4; ++i) EXPECT_EQ(D[size_t(i + 4 * i)], expect_diag[i]);
  EXPECT_EQ(D[1 + 4 * 0], -1.0);
  EXPECT_EQ(D[3 + 4 * 0], -1.0);
  EXPECT_EQ(D[2 + 4 * 1], -1.0);
  EXPECT_EQ(D[2 + 4 * 0], 0.0);
  EXPECT_EQ(dense_potrf(D, 4), 0);
  EXPECT_NE(dense_potrf(dense(A), 4), 0);  // the all-ones reading is not SPD here
  // A pattern file with a value column is malformed.
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate pattern symmetric\n2 2 1\n1 1 1.0\n", 3, "unexpected token '1.0'");
}

// ------------------------------------------------------------------------------------------
// Matrix Market: every malformed case names the file, the line and the reason
// ------------------------------------------------------------------------------------------
TEST(SparseIoMatrixMarket, MalformedHeaderAndSizeLine) {
  TempDir tmp;
  expect_mm_error(tmp, "", 1, "empty file");
  expect_mm_error(tmp, "%%MatrixMarkt matrix coordinate real symmetric\n1 1 1\n1 1 1\n", 1, "not a Matrix Market file");
  expect_mm_error(tmp, "1 1 1\n1 1 1\n", 1, "not a Matrix Market file");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real\n1 1 1\n1 1 1\n", 1, "incomplete banner");
  expect_mm_error(tmp, "%%MatrixMarket vector coordinate real symmetric\n", 1, "unsupported object 'vector'");
  expect_mm_error(tmp, "%%MatrixMarket matrix array real symmetric\n2 2\n1\n0\n1\n", 1, "unsupported format 'array'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinat real symmetric\n", 1, "unknown format 'coordinat'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate complex symmetric\n1 1 1\n1 1 1 0\n", 1, "unsupported field 'complex'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate rael symmetric\n", 1, "unknown field 'rael'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real hermitian\n", 1, "unsupported symmetry 'hermitian'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real skew-symmetric\n", 1, "unsupported symmetry 'skew-symmetric'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real symmetrix\n", 1, "unknown symmetry 'symmetrix'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real symmetric extra\n", 1, "unexpected text 'extra'");
  // Size line.
  expect_mm_error(tmp, std::string(kBanner) + "% only comments\n%\n", 4, "expected the size line");
  expect_mm_error(tmp, std::string(kBanner) + "% c\n3 3\n1 1 1\n", 3, "expected 3 integers");
  expect_mm_error(tmp, std::string(kBanner) + "3 x 4\n", 2, "'x' is not an integer");
  expect_mm_error(tmp, std::string(kBanner) + "3 3.0 4\n", 2, "'3.0' is not an integer");
  expect_mm_error(tmp, std::string(kBanner) + "3 3 4 5\n", 2, "unexpected token '5'");
  expect_mm_error(tmp, std::string(kBanner) + "\n\n3 4 2\n1 1 1\n2 2 1\n", 4, "not square (3 rows, 4 columns)");
  expect_mm_error(tmp, std::string(kBanner) + "-3 -3 2\n", 2, "negative");
  expect_mm_error(tmp, std::string(kBanner) + "2 2 4\n", 2, "more than the 3 positions");
  expect_mm_error(tmp, std::string(kBanner) + "99999999999999999999 99999999999999999999 1\n", 2, "is not an integer");
  expect_mm_error(tmp, std::string(kBanner) + "100000000000 100000000000 1\n1 1 1\n", 2, "exceeds the 1 declared entries");
}

TEST(SparseIoMatrixMarket, MalformedEntries) {
  TempDir tmp;
  const std::string h = std::string(kBanner) + "3 3 4\n";  // entries start at line 3
  // Index range.
  expect_mm_error(tmp, h + "1 1 1\n4 1 1\n2 2 1\n3 3 1\n", 4, "row index 4 out of range [1, 3]");
  expect_mm_error(tmp, h + "1 1 1\n2 0 1\n2 2 1\n3 3 1\n", 4, "column index 0 out of range [1, 3]");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 -1 1\n3 3 1\n", 5, "column index -1 out of range");
  // Duplicates: the second occurrence is named, with the first.
  expect_mm_error(tmp, h + "1 1 1\n2 1 1\n3 3 1\n2 1 1\n", 6, "duplicate entry (2, 1): the same position as (2, 1) at line 4");
  expect_mm_error(tmp, h + "1 1 1\n1 2 1\n3 3 1\n2 1 1\n", 6, "stores each pair");
  expect_mm_error(tmp, h + "3 3 1\n1 1 1\n2 2 1\n3 3 2\n", 6, "duplicate entry (3, 3)");
  // Counts: fewer (truncated file: the line after the last one), more.
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n", 6, "3 of the 4 declared entries");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1", 6, "unexpected end of file");
  expect_mm_error(tmp, h, 3, "0 of the 4 declared entries");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n3 1 1\n\n2 1 1\n", 8, "more entries than the 4 declared on the size line (line 2)");
  // A line cut short (truncated in the middle of an entry).
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n3 1", 6, "missing value");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n3\n", 6, "incomplete entry");
  // Values.
  expect_mm_error(tmp, h + "1 1 1\n2 2 nan\n3 3 1\n3 1 1\n", 4, "'nan' is not finite");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 -inf\n3 1 1\n", 5, "'-inf' is not finite");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n3 1 1e400\n", 6, "'1e400' is not finite");
  expect_mm_error(tmp, h + "1 1 abc\n2 2 1\n3 3 1\n3 1 1\n", 3, "'abc' is not a number");
  expect_mm_error(tmp, h + "1 1 1.5.2\n2 2 1\n3 3 1\n3 1 1\n", 3, "'1.5.2' is not a number");
  expect_mm_error(tmp, h + "1 1 1\n2 x 1\n3 3 1\n3 1 1\n", 4, "column index 'x' is not an integer");
  expect_mm_error(tmp, h + "1.0 1 1\n2 2 1\n3 3 1\n3 1 1\n", 3, "row index '1.0' is not an integer");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1 0\n3 3 1\n3 1 1\n", 4, "unexpected token '0'");
  expect_mm_error(tmp, h + "1 1 1\n2 2 1\n3 3 1\n3 1 1 % trailing comment\n", 6, "unexpected token '%'");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 2\n2 2 2.5\n", 4,
                  "'2.5' is not an integer");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate integer symmetric\n2 2 2\n1 1 2\n2 2 two\n", 4, "'two' is not a number");
  // Binary garbage.
  {
    std::string bin = h + "1 1 1\n2 2 1\n3 3 ";
    bin.push_back('\0');
    bin += "\x7f\x80garbage\n3 1 1\n";
    expect_mm_error(tmp, bin, 5, "NUL byte");
  }
  // A value finite in double but not in float.
  const std::string pf = tmp.write("big.mtx", h + "1 1 1e39\n2 2 1\n3 3 1\n3 1 1\n");
  EXPECT_NO_THROW((void)sp::read_matrix_market<double>(pf));
  expect_parse_error([&] { (void)sp::read_matrix_market<float>(pf); }, pf, 3, "'1e39' overflows float");
}

TEST(SparseIoMatrixMarket, GeneralDataMustBeSymmetric) {
  TempDir tmp;
  const std::string g = "%%MatrixMarket matrix coordinate real general\n3 3 6\n";  // entries from line 3
  // Unequal values: the first of the pair (in file order) is named, with the other's line.
  expect_mm_error(tmp, g + "1 1 2\n2 1 1\n2 2 2\n3 3 2\n3 2 1\n1 2 1.5\n", 4,
                  "entry (2, 1) = 1 differs from (1, 2) = 1.5 at line 8");
  // No partner.
  expect_mm_error(tmp, g + "1 1 2\n2 2 2\n3 1 1\n3 3 2\n2 1 1\n1 2 1\n", 5, "entry (3, 1) has no matching entry (1, 3)");
  expect_mm_error(tmp, g + "1 1 2\n2 2 2\n1 3 1\n3 3 2\n2 1 1\n1 2 1\n", 5, "entry (1, 3) has no matching entry (3, 1)");
  // Duplicates within general data.
  expect_mm_error(tmp, g + "1 1 2\n2 1 1\n2 2 2\n3 3 2\n1 2 1\n2 1 1\n", 8, "duplicate entry (2, 1)");
  expect_mm_error(tmp, g + "1 1 2\n2 2 2\n3 3 2\n1 1 2\n2 1 1\n1 2 1\n", 6, "duplicate entry (1, 1)");
  // Several problems: the earliest offending line wins (mismatch at 4 before missing at 7).
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2\n2 1 1\n1 2 -1\n3 3 2\n3 1 1\n", 4,
                  "differs");
  expect_mm_error(tmp, "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2\n3 1 1\n2 1 1\n1 2 -1\n3 3 2\n", 4,
                  "no matching entry (1, 3)");
}

TEST(SparseIoMatrixMarket, OpenErrorsAreInvalidArgument) {
  TempDir tmp;
  EXPECT_THROW((void)sp::read_matrix_market<double>(tmp.path("does_not_exist.mtx")), kspd::InvalidArgument);
  try {
    (void)sp::read_matrix_market<double>(tmp.path("does_not_exist.mtx"));
  } catch (const kspd::ParseError&) {
    ADD_FAILURE() << "a missing file is not a parse error";
  } catch (const kspd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find("does_not_exist.mtx: cannot open"), std::string::npos) << e.what();
  }
  // A directory opens but cannot be read as a file.
  EXPECT_THROW((void)sp::read_matrix_market<double>(tmp.path("")), kspd::InvalidArgument);
  sp::CscMatrix<double> bad;
  bad.n = 2;
  EXPECT_THROW(sp::write_matrix_market(tmp.path("x.mtx"), bad), kspd::InvalidArgument);
  EXPECT_THROW(sp::write_matrix_market(tmp.path("no_such_dir/x.mtx"), sp::laplacian_2d<double>(2, 2)), kspd::InvalidArgument);
}

// ------------------------------------------------------------------------------------------
// Round trips
// ------------------------------------------------------------------------------------------
template <class Scalar>
struct SparseIoRoundTrip : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(SparseIoRoundTrip, ScalarTypes);

TYPED_TEST(SparseIoRoundTrip, WriteThenReadIsExact) {
  using S = TypeParam;
  TempDir tmp;
  std::vector<std::string> names = {"a.mtx"};
#ifdef KSPD_ENABLE_ZLIB
  names.push_back("a.mtx.gz");
#endif
  for (const auto& A : {sp::elasticity_3d<S>(3, 2, 3), sp::laplacian_2d<S>(5, 4), sp::laplacian_3d<S>(0, 0, 0)}) {
    // Perturb values so that they need every digit.
    auto B = A;
    for (size_t k = 0; k < B.values.size(); ++k) B.values[k] = S(double(B.values[k]) * (1 + 1e-7 * double(k % 13)) / 3.0);
    for (const auto& nm : names) {
      SCOPED_TRACE(B.name + " " + nm);
      const std::string p = tmp.path(nm);
      sp::write_matrix_market(p, B, "written by the test\nsecond comment line");
      const auto C = sp::read_matrix_market<S>(p);
      expect_equal(B, C);
      EXPECT_EQ(C.name, nm);
    }
  }
}

#ifdef KSPD_ENABLE_ZLIB
TEST(SparseIoMatrixMarket, GzipLargeRoundTripAndTruncatedGzip) {
  TempDir tmp;
  const auto A = sp::elasticity_3d<double>(14, 13, 12);  // 6552 rows, ~240k entries
  const std::string p = tmp.path("big.mtx.gz");
  const auto t0 = std::chrono::steady_clock::now();
  sp::write_matrix_market(p, A);
  const auto C = sp::read_matrix_market<double>(p);
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  expect_equal(A, C);
  std::printf("[          ] gzip write+read of %lld entries: %.2f s\n", (long long)A.nnz(), sec);
  // Cut the compressed stream: a ParseError naming the file, never a crash or a short read.
  const auto size = fs::file_size(p);
  fs::resize_file(p, size / 2);
  try {
    (void)sp::read_matrix_market<double>(p);
    ADD_FAILURE() << "truncated gzip read without error";
  } catch (const kspd::ParseError& e) {
    const std::string msg = e.what();
    EXPECT_EQ(msg.rfind(p + ":", 0), 0u) << msg;
    EXPECT_TRUE(msg.find("gzip") != std::string::npos || msg.find("end of file") != std::string::npos) << msg;
    // The line named is where the readable data ends, well past the header.
    const long long line = std::atoll(msg.c_str() + p.size() + 1);
    EXPECT_GT(line, 1000) << msg;
    EXPECT_LT(line, A.nnz() + 3) << msg;
  }
  // Corrupt bytes in the middle of the stream.
  sp::write_matrix_market(p, A);
  {
    std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
    f.seekp(std::streamoff(fs::file_size(p) / 3));
    const std::string junk(64, '#');
    f.write(junk.data(), std::streamsize(junk.size()));
  }
  EXPECT_THROW((void)sp::read_matrix_market<double>(p), kspd::ParseError);
}
#else
TEST(SparseIoMatrixMarket, GzipWithoutZlibIsAClearError) {
  std::printf("[          ] kspd was configured without zlib: checking the error for .gz files\n");
  TempDir tmp;
  const std::string p = tmp.write("a.mtx.gz", std::string("\x1f\x8b\x08\x00", 4));
  EXPECT_THROW((void)sp::read_matrix_market<double>(p), kspd::InvalidArgument);
}
#endif

}  // namespace
