// Tests of the sparse matrix readers and writer: every malformed-input case (exception
// type, file and line in the message), valid variants against hand-built expectations,
// round trips through the writer (plain and gzip), and every real matrix in KSPD_DATA_DIR
// against MANIFEST.md.
#include <gtest/gtest.h>

#include "kspd_test_data.hpp"

#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <chrono>
#include <cmath>
#include <cstdlib>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <map>
#include <random>
#include <sstream>
#include <string>
#include <vector>

#include "KSPD_Config.hpp"
#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_io_stream.hpp"

extern "C" void dpotrf_(const char* uplo, const int* n, double* a, const int* lda, int* info, size_t uplo_len);
extern "C" void dsyev_(const char* jobz, const char* uplo, const int* n, double* a, const int* lda, double* w,
                       double* work, const int* lwork, int* info, size_t jobz_len, size_t uplo_len);

namespace {

using kspd::size_type;
namespace sp = kspd::sparse;
namespace fs = std::filesystem;

/// A private temporary directory, removed at the end of the test.
class TempDir {
 public:
  TempDir() {
    const auto* info = ::testing::UnitTest::GetInstance()->current_test_info();
    // tmpfs when there is one: the fuzz test writes thousands of small files.
    std::error_code ec;
    const fs::path base = fs::is_directory("/dev/shm", ec) && ::access("/dev/shm", W_OK) == 0
                              ? fs::path("/dev/shm")
                              : fs::temp_directory_path();
    dir_ = base /
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


// ------------------------------------------------------------------------------------------
// Rutherford-Boeing / Harwell-Boeing
// ------------------------------------------------------------------------------------------
std::string ifield(long long v, int w) {
  char b[64];
  std::snprintf(b, sizeof b, "%*lld", w, v);
  return b;
}
std::string pad(std::string s, size_t w) {
  s.resize(std::max(s.size(), w), ' ');
  return s;
}
/// Cards of `vals` (already formatted fields), `per` per line.
std::string cards(const std::vector<std::string>& vals, size_t per, int* count) {
  std::string out;
  *count = 0;
  for (size_t k = 0; k < vals.size(); k += per) {
    for (size_t m = k; m < std::min(vals.size(), k + per); ++m) out += vals[m];
    out += "\n";
    ++*count;
  }
  return out;
}
std::vector<std::string> ints(const std::vector<long long>& v, int w) {
  std::vector<std::string> f;
  for (long long x : v) f.push_back(ifield(x, w));
  return f;
}

/// Pieces of a Rutherford-Boeing file; tests change one and assemble it with text().
struct RbFile {
  std::string title = "1Test matrix for kspd";
  std::string key = "KSPDTEST";
  std::string type = "RSA";
  long long nrow = 4, ncol = 4, nnz = 7;
  std::vector<long long> ptr = {1, 4, 6, 7, 8};
  std::vector<long long> ind = {1, 2, 4, 2, 3, 3, 4};
  std::vector<std::string> val = {"  0.400000000000E+01", " -0.100000000000E+01", "  0.500000000000E+00",
                                  "  0.500000000000E+01", " -0.200000000000E+01", "  0.600000000000E+01",
                                  "  0.700000000000E+01"};
  std::string ptrfmt = "(16I5)", indfmt = "(16I5)", valfmt = "(4E20.12)";
  size_t val_per = 4, int_per = 16;
  int int_w = 5;
  bool hb_rhs = false;       // Harwell-Boeing: a right-hand side after the values
  bool four_counts = false;  // Rutherford-Boeing line 2 without rhscrd
  long long crd_fix[4] = {-1, -1, -1, -1};  // override totcrd ptrcrd indcrd valcrd
  std::string after;         // text appended after the last card

  std::string text() const {
    int pc = 0, ic = 0, vc = 0;
    const std::string P = cards(ints(ptr, int_w), int_per, &pc), I = cards(ints(ind, int_w), int_per, &ic);
    const std::string V = type[0] == 'P' ? std::string() : cards(val, val_per, &vc);
    const int rc = hb_rhs ? 1 : 0;
    long long c[5] = {pc + ic + vc + rc, pc, ic, vc, rc};
    for (int k = 0; k < 4; ++k)
      if (crd_fix[k] >= 0) c[k] = crd_fix[k];
    std::string t = pad(title, 72) + key + "\n";
    for (int k = 0; k < (four_counts ? 4 : 5); ++k) t += ifield(c[k], 14);
    t += "\n" + pad(type, 14) + ifield(nrow, 14) + ifield(ncol, 14) + ifield(nnz, 14) + ifield(0, 14) + "\n";
    t += pad(ptrfmt, 16) + pad(indfmt, 16) + pad(valfmt, 20) + (hb_rhs ? pad("(4E20.12)", 20) : "") + "\n";
    if (hb_rhs) t += "F             1\n";
    t += P + I + V;
    if (hb_rhs) t += "  0.100000000000E+01  0.200000000000E+01  0.300000000000E+01  0.400000000000E+01\n";
    return t + after;
  }
};

void expect_rb_error(const TempDir& tmp, const RbFile& f, size_type line, const std::string& what) {
  static int counter = 0;
  const std::string p = tmp.write("bad" + std::to_string(counter++) + ".rsa", f.text());
  SCOPED_TRACE(f.text());
  expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p); }, p, line, what);
  expect_parse_error([&] { (void)sp::read_matrix<float>(p); }, p, line, what);
}

TEST(SparseIoRutherfordBoeing, ValidVariantsReadTheSameMatrix) {
  TempDir tmp;
  const auto ref = small_dense();
  std::vector<std::pair<std::string, RbFile>> variants;
  variants.push_back({"plain", RbFile{}});
  {
    RbFile f;  // D exponents, 3 per card, scale factor
    f.valfmt = "(1P,3D26.18)";
    f.val_per = 3;
    f.val = {"  4.000000000000000000D+00", " -1.000000000000000000D+00", "  5.000000000000000000D-01",
             "  5.000000000000000000d+00", " -2.000000000000000000D+00", "  6.000000000000000000D+00",
             "  7.000000000000000000D+00"};
    variants.push_back({"D exponents", f});
  }
  {
    RbFile f;  // values run together; exponents without a letter; integers run together
    f.valfmt = "(3E13.6)";
    f.val_per = 3;
    f.val = {" 4.000000E+00", "-1.000000E+00", " 5.00000-001", "  5.000000+00", "-2.000000E+00", " 6.000000E+00",
             " 7.000000E+00"};
    f.ptrfmt = f.indfmt = "(10I1)";
    f.int_w = 1;
    f.int_per = 10;
    variants.push_back({"run together", f});
  }
  {
    RbFile f;  // upper triangle stored (rows <= column), several cards of pointers
    f.ptr = {1, 2, 4, 6, 8};
    f.ind = {1, 1, 2, 2, 3, 1, 4};
    f.val = {"  0.400000000000E+01", " -0.100000000000E+01", "  0.500000000000E+01", " -0.200000000000E+01",
             "  0.600000000000E+01", "  0.500000000000E+00", "  0.700000000000E+01"};
    f.int_per = 2;
    f.ptrfmt = f.indfmt = "(2I5)";
    variants.push_back({"upper triangle", f});
  }
  {
    RbFile f;  // unsymmetric type with symmetric values, Harwell-Boeing right-hand side
    f.type = "RUA";
    f.nnz = 10;
    f.ptr = {1, 5, 8, 10, 12};
    f.ind = {1, 2, 4, 4, 1, 2, 3, 2, 3, 4};
    f.ind = {1, 2, 4, 1, 2, 3, 2, 3, 1, 4};
    f.ptr = {1, 4, 7, 9, 11};
    f.val = {"  0.400000000000E+01", " -0.100000000000E+01", "  0.500000000000E+00", " -0.100000000000E+01",
             "  0.500000000000E+01", " -0.200000000000E+01", " -0.200000000000E+01", "  0.600000000000E+01",
             "  0.500000000000E+00", "  0.700000000000E+01"};
    f.hb_rhs = true;
    variants.push_back({"RUA + rhs", f});
  }
  {
    RbFile f;  // Rutherford-Boeing 4-count line 2, lower-case type, trailing blank lines
    f.four_counts = true;
    f.type = "rsa";
    f.after = "\n   \n";
    variants.push_back({"4 counts", f});
  }
  for (const auto& [name, f] : variants) {
    SCOPED_TRACE(name + "\n" + f.text());
    const std::string p = tmp.write("ok.rsa", f.text());
    const auto A = sp::read_rutherford_boeing<double>(p);
    EXPECT_EQ(A.n, 4);
    EXPECT_EQ(A.nnz(), 7);
    EXPECT_EQ(dense(A), ref);
    EXPECT_EQ(dense(sp::read_matrix<float>(p)), ref);
  }
  // Integer and pattern types.
  RbFile fi;
  fi.type = "ISA";
  fi.valfmt = "(8I4)";
  fi.val_per = 8;
  fi.val = ints({4, -1, 2, 5, -2, 6, 7}, 4);
  const auto Ai = sp::read_rutherford_boeing<double>(tmp.write("i.rsa", fi.text()));
  EXPECT_EQ(Ai.values, (std::vector<double>{4, -1, 2, 5, -2, 6, 7}));
  RbFile fp;
  fp.type = "PSA";
  fp.valfmt = "";
  const std::string pp = tmp.write("p.psa", fp.text());
  for (double v : sp::read_rutherford_boeing<double>(pp).values) EXPECT_EQ(v, 1.0);
  sp::ReadOptions opt;
  opt.pattern_values = sp::PatternValues::DiagonallyDominant;
  const auto Ap = sp::read_matrix<double>(pp, opt);
  EXPECT_EQ(Ap.values, (std::vector<double>{3, -1, -1, 3, -1, 2, 2}));
  EXPECT_EQ(dense_potrf(dense(Ap), 4), 0);
}

TEST(SparseIoRutherfordBoeing, MalformedHeader) {
  TempDir tmp;
  const RbFile ok;
  {
    const std::string p = tmp.write("empty.rsa", "");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p); }, p, 1, "empty file");
    const std::string p2 = tmp.write("title.rsa", "1Only a title\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p2); }, p2, 2, "expected the card counts");
    const std::string p3 = tmp.write("three.rsa", "title\n 1 2 3\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p3); }, p3, 2, "found 3 numbers");
    const std::string p4 = tmp.write("abc.rsa", "title\n 4 1 abc 2\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p4); }, p4, 2, "'abc' is not a non-negative integer");
    const std::string p5 = tmp.write("eof3.rsa", "title\n 4 1 1 2\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p5); }, p5, 3, "expected 'mxtype");
  }
  RbFile f = ok;
  f.crd_fix[0] = 9;
  expect_rb_error(tmp, f, 2, "totcrd = 9 is not ptrcrd + indcrd + valcrd + rhscrd = 4");
  {  // counts whose sum overflows 64 bits: an error at line 2, not signed overflow
    const std::string p = tmp.write("overflow.rsa", "title\n 4 9223372036854775807 9223372036854775807 2 0\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p); }, p, 2, "overflow a 64-bit integer");
    const std::string p2 = tmp.write("overflow2.rsa", "title\n 9223372036854775807 1 9223372036854775807 0\n");
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p2); }, p2, 2, "overflow a 64-bit integer");
  }
  const std::vector<std::pair<std::string, std::string>> types = {
      {"RSE", "elemental"}, {"CSA", "complex"}, {"RHA", "only symmetric (S)"}, {"RZA", "only symmetric (S)"},
      {"RRA", "rectangular"}, {"XSA", "unknown value type 'X'"}, {"RXA", "unknown symmetry 'X'"},
      {"RSX", "unknown storage 'X'"}, {"QSA", "values supplied separately"}, {"1SA", "3-letter matrix type"}};
  for (const auto& [t, what] : types) {
    f = ok;
    f.type = t;
    expect_rb_error(tmp, f, 3, what);
  }
  f = ok;
  f.ncol = 5;
  expect_rb_error(tmp, f, 3, "not square (4 rows, 5 columns)");
  f = ok;
  f.nnz = 11;
  f.nrow = f.ncol = 4;
  expect_rb_error(tmp, f, 3, "more than the 10 positions");
  f = ok;
  f.ptrfmt = "(16Q5)";
  expect_rb_error(tmp, f, 4, "pointer format '(16Q5)'");
  f = ok;
  f.indfmt = "16I5";
  expect_rb_error(tmp, f, 4, "index format '16I5'");
  f = ok;
  f.valfmt = "(4X20.12)";
  expect_rb_error(tmp, f, 4, "value format '(4X20.12)'");
  f = ok;
  f.type = "PSA";
  f.crd_fix[0] = 4;
  f.crd_fix[3] = 2;
  expect_rb_error(tmp, f, 2, "declares 2 value cards");
}

TEST(SparseIoRutherfordBoeing, MalformedData) {
  TempDir tmp;
  const RbFile ok;  // pointers: line 5, indices: line 6, values: lines 7-8
  RbFile f = ok;
  f.ptr = {2, 4, 6, 7, 8};
  expect_rb_error(tmp, f, 5, "the first column pointer is 2, expected 1");
  f.ptr = {1, 4, 3, 7, 8};
  expect_rb_error(tmp, f, 5, "column pointer 3 = 3 is smaller than the previous one (4)");
  f.ptr = {1, 4, 6, 7, 7};
  expect_rb_error(tmp, f, 5, "the last column pointer is 7, expected nnzero + 1 = 8");
  f.ptr = {1, 4, 6, 9, 8};
  expect_rb_error(tmp, f, 5, "column pointer 4 = 9 exceeds nnzero + 1 = 8");
  f = ok;
  f.ind = {1, 2, 9, 2, 3, 3, 4};
  expect_rb_error(tmp, f, 6, "row index 9 out of range [1, 4]");
  f.ind = {1, 2, 0, 2, 3, 3, 4};
  expect_rb_error(tmp, f, 6, "row index 0 out of range");
  f = ok;
  f.ind = {1, 2, 2, 2, 3, 3, 4};  // (2,1) twice in column 1
  expect_rb_error(tmp, f, 6, "duplicate entry (2, 1)");
  f = ok;
  f.val[5] = "                 NaN";
  expect_rb_error(tmp, f, 8, "'NaN' is not finite");
  f.val[5] = "  0.1000000000E+999";
  expect_rb_error(tmp, f, 8, "not finite");
  f.val[5] = "  0.60000000000X+01";
  expect_rb_error(tmp, f, 8, "'0.60000000000X+01' is not a number");
  f = ok;
  f.val[1] = "                    ";  // blank field followed by data
  expect_rb_error(tmp, f, 7, "blank field 2 followed by more data");
  // Truncated: the value cards missing, or cut short.
  {
    std::string t = ok.text();
    const std::string p = tmp.write("cut1.rsa", t.substr(0, t.find("  0.4000")));
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p); }, p, 7, "0 of 7 values read");
    const std::string p2 = tmp.write("cut2.rsa", t.substr(0, t.find("  0.6000")));
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p2); }, p2, 9, "unexpected end of file in the values: 5 of 7");
    const std::string p3 = tmp.write("cut3.rsa", t.substr(0, t.find("    1    2    4")));
    expect_parse_error([&] { (void)sp::read_rutherford_boeing<double>(p3); }, p3, 6, "in the row indices: 0 of 7");
  }
  // Card counts that disagree with the data, more values than declared, trailing data.
  f = ok;
  f.crd_fix[0] = 5;
  f.crd_fix[2] = 2;
  expect_rb_error(tmp, f, 6, "the row indices take 1 card(s), the header (line 2) declares 2");
  f = ok;
  f.val.push_back("  0.800000000000E+01");
  expect_rb_error(tmp, f, 8, "more values than the 7 declared");
  f = ok;
  f.after = "  0.800000000000E+01\n";
  expect_rb_error(tmp, f, 9, "unexpected data after the last card");
  // Unsymmetric type whose values are not symmetric.
  f = ok;
  f.type = "RUA";
  f.nnz = 8;
  f.ptr = {1, 4, 7, 8, 9};
  f.ind = {1, 2, 4, 1, 2, 3, 3, 4};
  f.val = {"  0.400000000000E+01", " -0.100000000000E+01", "  0.500000000000E+00", " -0.100000000000E+01",
           "  0.500000000000E+01", " -0.200000000000E+01", "  0.600000000000E+01", "  0.700000000000E+01"};
  expect_rb_error(tmp, f, 6, "no matching entry");
  f.val[3] = " -0.150000000000E+01";
  f.ind = {1, 2, 3, 1, 2, 3, 3, 4};
  f.ptr = {1, 4, 7, 8, 9};
  expect_rb_error(tmp, f, 6, "differs");
}

TEST(SparseIoDispatch, ReadMatrixChoosesTheReaderByExtension) {
  TempDir tmp;
  const RbFile rb;
  const std::string mm = std::string(kBanner) + "4 4 7\n1 1 4\n2 1 -1\n2 2 5\n3 2 -2\n3 3 6\n4 1 0.5\n4 4 7\n";
  const auto ref = small_dense();
  for (const char* nm : {"a.rsa", "a.rb", "a.RUA", "a.hb", "a.psa"}) {
    EXPECT_EQ(sp::matrix_format_of(tmp.write(nm, rb.text())), sp::MatrixFormat::RutherfordBoeing) << nm;
  }
  EXPECT_EQ(dense(sp::read_matrix<double>(tmp.write("b.rb", rb.text()))), ref);
  EXPECT_EQ(dense(sp::read_matrix<double>(tmp.write("b.mtx", mm))), ref);
  EXPECT_EQ(dense(sp::read_matrix<double>(tmp.write("b.MTX", mm))), ref);
  EXPECT_EQ(dense(sp::read_matrix<double>(tmp.write("b.txt", mm))), ref);  // banner sniffed
  EXPECT_EQ(sp::matrix_format_of(tmp.path("b.mtx.gz")), sp::MatrixFormat::MatrixMarket);  // by name only
  EXPECT_THROW((void)sp::read_matrix<double>(tmp.write("c.dat", "1 2 3\n")), kspd::InvalidArgument);
  EXPECT_THROW((void)sp::read_matrix<double>(tmp.path("missing.xyz")), kspd::InvalidArgument);
  // The reader follows the name: Matrix Market text in a .rsa file is a parse error at line 2.
  const std::string wrong = tmp.write("mm.rsa", mm);
  expect_parse_error([&] { (void)sp::read_matrix<double>(wrong); }, wrong, 2, "card count");
#ifdef KSPD_ENABLE_ZLIB
  const auto A = sp::laplacian_2d<double>(4, 3);
  sp::write_matrix_market(tmp.path("g.mtx.gz"), A);
  expect_equal(sp::read_matrix<double>(tmp.path("g.mtx.gz")), A);
  // A gzip-compressed Rutherford-Boeing file (detected by its magic bytes).
  {
    kspd::sparse::Impl::FileWriter w(tmp.path("h.rsa.gz"));
    w.write(rb.text());
    w.close();
  }
  EXPECT_EQ(sp::matrix_format_of(tmp.path("h.rsa.gz")), sp::MatrixFormat::RutherfordBoeing);
  EXPECT_EQ(dense(sp::read_matrix<double>(tmp.path("h.rsa.gz"))), ref);
  // ... and a gzip file under a plain name still reads.
  fs::copy_file(tmp.path("g.mtx.gz"), tmp.path("g_renamed.mtx"));
  expect_equal(sp::read_matrix<double>(tmp.path("g_renamed.mtx")), A);
#endif
}

// ------------------------------------------------------------------------------------------
// The real matrices in KSPD_DATA_DIR, against MANIFEST.md
// ------------------------------------------------------------------------------------------
struct ManifestRow {
  std::string name, file;
  size_type n = 0, nnz_stored = 0, nnz_full = 0;
};

std::vector<ManifestRow> read_manifest(const fs::path& dir) {
  std::vector<ManifestRow> rows;
  std::ifstream f(dir / "MANIFEST.md");
  std::string line;
  while (std::getline(f, line)) {
    if (line.rfind("| ", 0) != 0) continue;
    std::vector<std::string> cols;
    std::stringstream ss(line.substr(1));
    std::string c;
    while (std::getline(ss, c, '|')) {
      const auto b = c.find_first_not_of(" `"), e = c.find_last_not_of(" `");
      cols.push_back(b == std::string::npos ? std::string() : c.substr(b, e - b + 1));
    }
    if (cols.size() < 6 || cols[0].empty() || !std::isdigit((unsigned char)cols[0][0])) continue;
    ManifestRow r;
    r.name = cols[1];
    r.file = cols[2];
    r.n = std::atoll(cols[3].c_str());
    r.nnz_stored = std::atoll(cols[4].c_str());
    r.nnz_full = std::atoll(cols[5].c_str());
    rows.push_back(r);
  }
  return rows;
}

using kspd::test::data_dir;  // records the skip (a failure under CI)

TEST(SparseIoData, EveryMatrixReadsAndMatchesTheManifest) {
  const std::string dir = data_dir();
  if (dir.empty()) GTEST_SKIP() << "no data directory (reason printed above)";
  const auto manifest = read_manifest(dir);
  std::map<std::string, ManifestRow> by_file;
  for (const auto& r : manifest) by_file[r.file] = r;
  std::printf("[          ] %s: %zu matrices in MANIFEST.md\n", dir.c_str(), manifest.size());
  EXPECT_GE(manifest.size(), 40u) << "MANIFEST.md parse";
  size_type files = 0, checked = 0, dense_checked = 0;
  const auto t0 = std::chrono::steady_clock::now();
  for (const auto& entry : fs::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file == "MANIFEST.md" || !entry.is_regular_file()) continue;
    ++files;
    SCOPED_TRACE(file);
    sp::CscMatrix<double> A;
    try {
      A = sp::read_matrix<double>(entry.path().string());
    } catch (const std::exception& e) {
      ADD_FAILURE() << "cannot read " << file << ": " << e.what();
      continue;
    }
    ASSERT_NO_THROW(sp::check_csc(A));
    size_type diag = 0, missing_diag = 0, nonpositive_diag = 0;
    for (size_type j = 0; j < A.n; ++j) {
      const size_type b = A.colptr[size_t(j)];
      if (b < A.colptr[size_t(j + 1)] && A.rowind[size_t(b)] == j) {
        ++diag;
        nonpositive_diag += !(A.values[size_t(b)] > 0);
      } else {
        ++missing_diag;
      }
    }
    for (double v : A.values) ASSERT_TRUE(std::isfinite(v));
    // An SPD matrix has every diagonal entry, positive.
    EXPECT_EQ(missing_diag, 0);
    EXPECT_EQ(nonpositive_diag, 0);
    const auto it = by_file.find(file);
    if (it != by_file.end()) {
      ++checked;
      EXPECT_EQ(A.n, it->second.n);
      EXPECT_EQ(A.nnz(), it->second.nnz_stored);
      EXPECT_EQ(2 * (A.nnz() - diag) + diag, it->second.nnz_full);
    } else {
      std::printf("[          ] %s is not in MANIFEST.md: read and checked for invariants only\n", file.c_str());
    }
    // Small ones: the values read make an SPD matrix (dense LAPACK Cholesky).
    if (A.n <= 1100) {
      EXPECT_EQ(dense_potrf(dense(A), A.n), 0) << "not SPD as read";
      ++dense_checked;
    }
    // The float reading is the double reading rounded.
    if (A.n <= 3000) {
      const auto Af = sp::read_matrix<float>(entry.path().string());
      ASSERT_EQ(Af.rowind, A.rowind);
      size_t bad = 0;
      for (size_t k = 0; k < A.values.size(); ++k) bad += Af.values[k] != float(A.values[k]);
      EXPECT_EQ(bad, 0u);
    }
  }
  const double sec = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  std::printf("[          ] %lld files read, %lld checked against MANIFEST.md, %lld by dense Cholesky, %.2f s\n",
              (long long)files, (long long)checked, (long long)dense_checked, sec);
  EXPECT_EQ(size_t(checked), manifest.size()) << "some matrices listed in MANIFEST.md are missing from " << dir;
}

/// Eigenvalues of a small dense symmetric matrix (LAPACK dsyev), ascending.
std::vector<double> eigenvalues(std::vector<double> D, int n) {
  std::vector<double> w(static_cast<size_t>(n));
  int lwork = -1, info = 0;
  double q = 0;
  dsyev_("N", "L", &n, D.data(), &n, w.data(), &q, &lwork, &info, 1, 1);
  lwork = int(q);
  std::vector<double> work(static_cast<size_t>(lwork));
  dsyev_("N", "L", &n, D.data(), &n, w.data(), work.data(), &lwork, &info, 1, 1);
  EXPECT_EQ(info, 0);
  return w;
}

TEST(SparseIoData, Bcsstk01And02KnownProperties) {
  const std::string dir = data_dir();
  if (dir.empty()) GTEST_SKIP() << "no data directory (reason printed above)";
  const std::string p1 = dir + "/bcsstk01.rsa", p2 = dir + "/bcsstk02.rsa";
  if (!fs::exists(p1) || !fs::exists(p2)) {
    kspd::test::record_data_skip("bcsstk01.rsa / bcsstk02.rsa missing from " + dir);
    GTEST_SKIP() << "bcsstk01.rsa / bcsstk02.rsa missing from " << dir;
  }
  const auto A = sp::read_rutherford_boeing<double>(p1);
  EXPECT_EQ(A.n, 48);
  EXPECT_EQ(A.nnz(), 224);
  EXPECT_EQ(A.name, "bcsstk01.rsa");
  // Column 1 of the file: rows 1 5 6 7 11 19 25 30 and the first 8 values of the cards.
  const std::vector<size_type> rows = {0, 4, 5, 6, 10, 18, 24, 29};
  const std::vector<double> vals = {.283226851852E+07, .100000000000E+07, .208333333333E+07, -.333333333333E+04,
                                    .100000000000E+07, -.280000000000E+07, -.289351851852E+05, .208333333333E+07};
  ASSERT_EQ(A.colptr[1], 8);
  for (size_t k = 0; k < 8; ++k) {
    EXPECT_EQ(A.rowind[k], rows[k]);
    EXPECT_EQ(A.values[k], vals[k]);
  }
  // MANIFEST.md: lambda_min = 3.42e3, cond2 = 8.8e5 (two significant digits).
  auto w = eigenvalues(dense(A), 48);
  EXPECT_NEAR(w.front(), 3.42e3, 0.01e3);
  EXPECT_NEAR(w.back() / w.front(), 8.8e5, 0.1e5);
  const auto B = sp::read_rutherford_boeing<double>(p2);
  EXPECT_EQ(B.n, 66);
  EXPECT_EQ(B.nnz(), 66 * 67 / 2);  // stored dense
  w = eigenvalues(dense(B), 66);
  EXPECT_NEAR(w.front(), 4.21, 0.01);
  EXPECT_NEAR(w.back() / w.front(), 4.3e3, 0.1e3);
  // Through the writer and back: identical.
  TempDir tmp;
  sp::write_matrix_market(tmp.path("bcsstk01.mtx"), A);
  expect_equal(sp::read_matrix<double>(tmp.path("bcsstk01.mtx")), A);
}


// ------------------------------------------------------------------------------------------
// Never a crash: randomly damaged files either read (into a valid CscMatrix) or throw
// ParseError; nothing else.
// ------------------------------------------------------------------------------------------
std::string slurp(const std::string& p) {
  std::ifstream f(p, std::ios::binary);
  std::stringstream ss;
  ss << f.rdbuf();
  return ss.str();
}

TEST(SparseIoFuzz, DamagedFilesReadOrThrowParseError) {
  TempDir tmp;
  sp::write_matrix_market(tmp.path("base.mtx"), sp::elasticity_3d<double>(2, 2, 1));
  RbFile rua;
  rua.type = "RUA";
  rua.nnz = 10;
  rua.ind = {1, 2, 4, 1, 2, 3, 2, 3, 1, 4};
  rua.ptr = {1, 4, 7, 9, 11};
  rua.val = {"  0.400000000000E+01", " -0.100000000000E+01", "  0.500000000000E+00", " -0.100000000000E+01",
             "  0.500000000000E+01", " -0.200000000000E+01", " -0.200000000000E+01", "  0.600000000000E+01",
             "  0.500000000000E+00", "  0.700000000000E+01"};
  const std::vector<std::pair<std::string, std::string>> bases = {
      {"f.mtx", slurp(tmp.path("base.mtx"))},
      {"f.mtx", "%%MatrixMarket matrix coordinate real general\n3 3 5\n1 1 2\n2 1 -1\n1 2 -1\n2 2 2\n3 3 1\n"},
      {"f.mtx", "%%MatrixMarket matrix coordinate pattern symmetric\n3 3 4\n1 1\n2 1\n2 2\n3 3\n"},
      {"f.rsa", RbFile{}.text()},
      {"f.rua", rua.text()}};
  const std::string palette = std::string("0123456789 .-+eEdD\n%xX\t()IP,", 29) + std::string(1, '\0');
  std::mt19937_64 gen(2024);
  auto pick = [&](size_t n) { return n == 0 ? size_t(0) : size_t(gen() % n); };
  size_type read_ok = 0, parse_errors = 0;
  for (int it = 0; it < 2000; ++it) {
    const auto& [name, base] = bases[size_t(it) % bases.size()];
    std::string t = base;
    const int edits = 1 + int(gen() % 3);
    for (int e = 0; e < edits; ++e) {
      const size_t at = pick(t.size() + 1);
      switch (gen() % 5) {
        case 0: t.erase(at, 1 + pick(8)); break;
        case 1: t.insert(at, 1, palette[pick(palette.size())]); break;
        case 2:
          if (at < t.size()) t[at] = palette[pick(palette.size())];
          break;
        case 3: t.resize(at); break;
        default: {  // duplicate or drop a whole line
          const size_t b = t.rfind('\n', at == 0 ? 0 : at - 1), e2 = t.find('\n', at);
          const size_t lb = b == std::string::npos ? 0 : b + 1, le = e2 == std::string::npos ? t.size() : e2 + 1;
          if (gen() % 2) t.insert(le, t.substr(lb, le - lb));
          else t.erase(lb, le - lb);
        }
      }
    }
    const std::string p = tmp.write(name, t);
    try {
      const auto A = sp::read_matrix<double>(p);
      EXPECT_NO_THROW(sp::check_csc(A)) << t;
      for (double v : A.values) EXPECT_TRUE(std::isfinite(v)) << t;
      ++read_ok;
    } catch (const kspd::ParseError& e) {
      const std::string msg = e.what();
      EXPECT_EQ(msg.rfind(p + ":", 0), 0u) << msg;
      ++parse_errors;
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception " << e.what() << " for:\n" << t;
    }
  }
  std::printf("[          ] 2000 damaged files: %lld read, %lld ParseError\n", (long long)read_ok, (long long)parse_errors);
  EXPECT_GT(parse_errors, 1000);
  EXPECT_GT(read_ok, 10);
#ifdef KSPD_ENABLE_ZLIB
  // Damaged gzip streams.
  sp::write_matrix_market(tmp.path("z.mtx.gz"), sp::laplacian_3d<double>(6, 5, 4));
  const std::string z = slurp(tmp.path("z.mtx.gz"));
  for (int it = 0; it < 200; ++it) {
    std::string t = z;
    for (int e = 0; e < 3; ++e) t[10 + pick(t.size() - 10)] = char(gen());
    if (it % 3 == 0) t.resize(pick(t.size()));
    const std::string p = tmp.write("zz.mtx.gz", t);
    try {
      sp::check_csc(sp::read_matrix<double>(p));
    } catch (const kspd::ParseError&) {
    } catch (const std::exception& e) {
      ADD_FAILURE() << "unexpected exception for damaged gzip: " << e.what();
    }
  }
#endif
}

}  // namespace
