// Symmetric inputs (kspd_sparse_input.hpp): every form (CSR/CSC, lower/upper/full, 32/64-bit,
// unsorted, duplicates, raw pointers, host and device Views, KokkosSparse::CrsMatrix) gives the
// CscMatrix of the existing path, and the same factor and solution; update_values matches a
// rebuild; every malformed input throws an error that names its problem.

#include <gtest/gtest.h>

#include <KokkosSparse_CrsMatrix.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <string>
#include <tuple>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_input.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using kspd::size_type;
using kspd::sparse::CscMatrix;
namespace ks = kspd::sparse;

/// A compressed input built from a reference lower CSC: (ptr, ind, val) in the given format.
template <class Offset, class Index>
struct Compressed {
  size_type n = 0;
  std::vector<Offset> ptr;
  std::vector<Index> ind;
  std::vector<double> val;
};

/// The entries of `ref` in `fmt` (CSR/CSC, lower/upper/full). shuffle: entries of every
/// row/column in random order. split: every off-diagonal entry and every third diagonal
/// entry stored as two halves (exact in binary), placed apart when shuffled.
template <class Offset, class Index>
Compressed<Offset, Index> compress(const CscMatrix<double>& ref, ks::InputFormat fmt, bool shuffle, bool split,
                                   unsigned seed) {
  const size_type n = ref.n;
  std::vector<std::vector<std::pair<size_type, double>>> outer(static_cast<size_t>(n));
  auto add = [&](size_type r, size_type c, double v) {  // entry A(r, c) of the symmetric matrix
    const bool csr = fmt.compression == ks::Compression::Csr;
    const size_type o = csr ? r : c, i = csr ? c : r;
    if (split && (r != c || r % 3 == 0)) {
      outer[size_t(o)].push_back({i, v / 2});
      outer[size_t(o)].push_back({i, v / 2});
    } else {
      outer[size_t(o)].push_back({i, v});
    }
  };
  for (size_type j = 0; j < n; ++j)
    for (size_type q = ref.colptr[size_t(j)]; q < ref.colptr[size_t(j + 1)]; ++q) {
      const size_type r = ref.rowind[size_t(q)];
      const double v = ref.values[size_t(q)];
      if (fmt.stored == ks::Stored::Upper) {
        add(j, r, v);
      } else {
        add(r, j, v);
        if (fmt.stored == ks::Stored::Full && r != j) add(j, r, v);
      }
    }
  std::mt19937_64 gen(seed);
  Compressed<Offset, Index> C;
  C.n = n;
  C.ptr.push_back(0);
  for (auto& list : outer) {
    if (shuffle) std::shuffle(list.begin(), list.end(), gen);
    else std::stable_sort(list.begin(), list.end(), [](auto& a, auto& b) { return a.first < b.first; });
    for (auto& e : list) {
      C.ind.push_back(Index(e.first));
      C.val.push_back(e.second);
    }
    C.ptr.push_back(Offset(C.ind.size()));
  }
  return C;
}

void expect_same(const CscMatrix<double>& a, const CscMatrix<double>& b) {
  ASSERT_EQ(a.n, b.n);
  ASSERT_EQ(a.colptr, b.colptr);
  ASSERT_EQ(a.rowind, b.rowind);
  ASSERT_EQ(a.values, b.values);
}

std::vector<ks::InputFormat> all_formats() {
  std::vector<ks::InputFormat> v;
  for (auto c : {ks::Compression::Csr, ks::Compression::Csc})
    for (auto s : {ks::Stored::Lower, ks::Stored::Upper, ks::Stored::Full}) {
      ks::InputFormat f;
      f.compression = c;
      f.stored = s;
      v.push_back(f);
    }
  return v;
}

std::string fmt_name(const ks::InputFormat& f) {
  return std::string(ks::to_string(f.compression)) + " " + ks::to_string(f.stored);
}

template <class Offset, class Index>
void check_all_forms(const CscMatrix<double>& ref) {
  unsigned seed = 11;
  for (auto fmt : all_formats())
    for (bool shuffle : {false, true})
      for (bool split : {false, true})
        for (bool verify : {false, true}) {
          if (verify && fmt.stored != ks::Stored::Full) continue;
          SCOPED_TRACE(fmt_name(fmt) + " shuffle=" + std::to_string(shuffle) + " split=" + std::to_string(split) +
                       " verify=" + std::to_string(verify) + " offset " + std::to_string(sizeof(Offset)) +
                       " index " + std::to_string(sizeof(Index)));
          fmt.sum_duplicates = split;
          fmt.check_symmetry = verify;
          const auto C = compress<Offset, Index>(ref, fmt, shuffle, split, seed++);
          auto in = ks::make_input(C.n, size_type(C.ind.size()), C.ptr.data(), C.ind.data(), C.val.data(), fmt);
          expect_same(in.matrix(), ref);
          EXPECT_EQ(in.had_duplicates(), split && ref.n > 0);
          EXPECT_EQ(in.input_nnz(), size_type(C.ind.size()));
          // Refactorization values: a different matrix of the same pattern, in input order.
          std::vector<double> v2(C.val.size());
          for (size_t k = 0; k < v2.size(); ++k) v2[k] = 3 * C.val[k];
          in.update_values(v2.data());
          for (size_t q = 0; q < ref.values.size(); ++q) ASSERT_EQ(in.matrix().values[q], 3 * ref.values[q]) << q;
        }
}

TEST(SparseInput, EveryFormMatchesTheCscPath) {
  for (size_type n : {0, 1, 2, 7, 40, 101}) {
    SCOPED_TRACE("n=" + std::to_string(n));
    const auto ref = kspd::test::sparse::random_spd<double>(n, 3.0, unsigned(n + 5));
    check_all_forms<int, int>(ref);
    check_all_forms<std::int64_t, std::int64_t>(ref);
    check_all_forms<std::size_t, int>(ref);
    check_all_forms<std::int64_t, std::int32_t>(ref);
  }
  check_all_forms<int, int>(ks::elasticity_3d<double>(3, 4, 2));
}

TEST(SparseInput, SameFactorAndSolutionAsTheCscPath) {
  const auto ref = ks::laplacian_3d<double>(6, 5, 4);
  const size_type n = ref.n, nrhs = 3;
  std::vector<double> X(size_t(n * nrhs));
  for (size_t k = 0; k < X.size(); ++k) X[k] = double(k % 7) - 3;
  const auto B = ks::known_solution_rhs(ref, X, nrhs);
  ks::Options opt;
  opt.threads = 1;
  ks::SupernodalCholesky<double> chol_ref(opt);
  chol_ref.analyze(ref);
  if (chol_ref.factorize(Kokkos::DefaultExecutionSpace(), ref) != 0) chol_ref.require_spd();
  Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> Xref("Xref", n, nrhs);
  for (size_type r = 0; r < nrhs; ++r)
    for (size_type i = 0; i < n; ++i) Xref(i, r) = B[size_t(i + r * n)];
  chol_ref.solve(Kokkos::DefaultExecutionSpace(), Xref);
  const auto Lref = chol_ref.factor_csc();
  for (auto fmt : all_formats()) {
    SCOPED_TRACE(fmt_name(fmt));
    fmt.sum_duplicates = true;
    const auto C = compress<int, int>(ref, fmt, true, true, 99);
    auto in = ks::make_input(C.n, size_type(C.ind.size()), C.ptr.data(), C.ind.data(), C.val.data(), fmt);
    ks::SupernodalCholesky<double> chol(opt);
    chol.analyze(in.matrix());
    if (chol.factorize(Kokkos::DefaultExecutionSpace(), in.matrix()) != 0) chol.require_spd();
    const auto L = chol.factor_csc();
    ASSERT_EQ(L.rowind, Lref.rowind);
    ASSERT_EQ(L.values, Lref.values);
    Kokkos::View<double**, Kokkos::LayoutLeft, Kokkos::HostSpace> Xs("X", n, nrhs);
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < n; ++i) Xs(i, r) = B[size_t(i + r * n)];
    chol.solve(Kokkos::DefaultExecutionSpace(), Xs);
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < n; ++i) ASSERT_EQ(Xs(i, r), Xref(i, r));
    // Refactorization with new values of the same pattern: 2A, so X/2 solves it.
    std::vector<double> v2(C.val.size());
    for (size_t k = 0; k < v2.size(); ++k) v2[k] = 2 * C.val[k];
    in.update_values(v2.data());
    if (chol.factorize(Kokkos::DefaultExecutionSpace(), in.matrix()) != 0) chol.require_spd();
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < n; ++i) Xs(i, r) = B[size_t(i + r * n)];
    chol.solve(Kokkos::DefaultExecutionSpace(), Xs);
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type i = 0; i < n; ++i) ASSERT_NEAR(Xs(i, r), X[size_t(i + r * n)] / 2, 1e-12);
  }
}

template <class MemSpace>
void check_views() {
  const auto ref = kspd::test::sparse::random_spd<double>(57, 4.0, 3);
  for (auto fmt : all_formats()) {
    SCOPED_TRACE(fmt_name(fmt) + " " + MemSpace::name());
    fmt.sum_duplicates = true;
    const auto C = compress<int, long long>(ref, fmt, true, true, 5);
    Kokkos::View<int*, MemSpace> p("p", C.ptr.size());
    Kokkos::View<long long*, MemSpace> i("i", C.ind.size());
    Kokkos::View<double*, MemSpace> v("v", C.val.size());
    Kokkos::deep_copy(p, Kokkos::View<const int*, Kokkos::HostSpace>(C.ptr.data(), C.ptr.size()));
    Kokkos::deep_copy(i, Kokkos::View<const long long*, Kokkos::HostSpace>(C.ind.data(), C.ind.size()));
    Kokkos::deep_copy(v, Kokkos::View<const double*, Kokkos::HostSpace>(C.val.data(), C.val.size()));
    auto in = ks::make_input(p, i, v, fmt);
    expect_same(in.matrix(), ref);
    Kokkos::View<const int*, MemSpace> pc = p;  // const Views too
    auto in2 = ks::make_input(pc, Kokkos::View<const long long*, MemSpace>(i), Kokkos::View<const double*, MemSpace>(v), fmt);
    expect_same(in2.matrix(), ref);
    // update from a View in the same space
    Kokkos::View<double*, MemSpace> v2("v2", C.val.size());
    Kokkos::deep_copy(v2, v);
    auto h2 = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), v2);
    for (size_t k = 0; k < h2.extent(0); ++k) h2(k) *= -1;
    Kokkos::deep_copy(v2, h2);
    in.update_values(v2);
    for (size_t q = 0; q < ref.values.size(); ++q) ASSERT_EQ(in.matrix().values[q], -ref.values[q]);
  }
}

TEST(SparseInput, HostAndDeviceViews) {
  check_views<Kokkos::HostSpace>();
  check_views<Kokkos::DefaultExecutionSpace::memory_space>();
}

TEST(SparseInput, KokkosSparseCrsMatrix) {
  using Device = Kokkos::DefaultExecutionSpace::device_type;
  using Crs = KokkosSparse::CrsMatrix<double, int, Device, void, int>;
  const auto ref = ks::elasticity_3d<double>(3, 3, 3);
  for (auto stored : {ks::Stored::Lower, ks::Stored::Upper, ks::Stored::Full}) {
    ks::InputFormat fmt;
    fmt.stored = stored;
    fmt.check_symmetry = stored == ks::Stored::Full;
    const auto C = compress<int, int>(ref, fmt, true, false, 8);
    typename Crs::values_type::non_const_type v("v", C.val.size());
    typename Crs::row_map_type::non_const_type p("p", C.ptr.size());
    typename Crs::index_type::non_const_type i("i", C.ind.size());
    Kokkos::deep_copy(p, Kokkos::View<const int*, Kokkos::HostSpace>(C.ptr.data(), C.ptr.size()));
    Kokkos::deep_copy(i, Kokkos::View<const int*, Kokkos::HostSpace>(C.ind.data(), C.ind.size()));
    Kokkos::deep_copy(v, Kokkos::View<const double*, Kokkos::HostSpace>(C.val.data(), C.val.size()));
    Crs A("A", int(C.n), int(C.n), int(C.ind.size()), v, p, i);
    fmt.compression = ks::Compression::Csc;  // ignored: a CrsMatrix is CSR
    auto in = ks::make_input(A, fmt);
    expect_same(in.matrix(), ref);
  }
}

/// Expects `f` to throw an InvalidArgument whose message contains `what`.
template <class F>
void expect_error(F&& f, const std::string& what) {
  try {
    f();
    ADD_FAILURE() << "no error; expected \"" << what << "\"";
  } catch (const kspd::InvalidArgument& e) {
    EXPECT_NE(std::string(e.what()).find(what), std::string::npos) << "message: " << e.what() << "\nexpected: " << what;
  }
}

TEST(SparseInput, MalformedInputsNameTheirProblem) {
  ks::InputFormat csc;
  csc.compression = ks::Compression::Csc;
  ks::InputFormat csr;  // CSR lower
  // A 4x4 lower CSC: columns 0..3, entries (0,0) (2,0) (1,1) (2,2) (3,2) (3,3).
  std::vector<int> ptr{0, 2, 3, 5, 6};
  std::vector<int> ind{0, 2, 1, 2, 3, 3};
  std::vector<double> val{4, -1, 4, 4, -1, 4};
  auto call = [&](size_type n, size_type nnz, const ks::InputFormat& f) {
    return [=, &ptr, &ind, &val] { (void)ks::make_input(n, nnz, ptr.data(), ind.data(), val.data(), f); };
  };
  EXPECT_NO_THROW(call(4, 6, csc)());
  expect_error(call(-3, 6, csc), "n = -3 is negative");
  expect_error(call(0, 3, csc), "nnz mismatch: nnz = 3 but n = 0");
  expect_error([&] { (void)ks::make_input(size_type(4), size_type(6), static_cast<const int*>(nullptr), ind.data(), val.data(), csc); },
               "colptr is null");
  expect_error([&] { (void)ks::make_input(size_type(4), size_type(6), ptr.data(), static_cast<const int*>(nullptr), val.data(), csr); },
               "colind is null");
  expect_error(call(4, 5, csc), "nnz mismatch: colptr[n] = 6 but the entry arrays hold 5");
  expect_error(call(4, 5, csr), "nnz mismatch: rowptr[n] = 6");
  ind[3] = 12;
  expect_error(call(4, 6, csc), "row 12 of column 2 is out of range [0, 4)");
  ks::InputFormat csr_full;
  csr_full.stored = ks::Stored::Full;
  expect_error(call(4, 6, csr_full), "column 12 of row 2 is out of range [0, 4)");
  ind[3] = -1;
  expect_error(call(4, 6, csc), "row -1 of column 2 is out of range [0, 4)");
  ind[3] = 2;
  ptr[2] = 1;
  ptr[3] = 0;  // 0 2 1 0 6: not monotone at position 2
  expect_error(call(4, 6, csc), "colptr is not monotone at position 2");
  ptr = {1, 2, 3, 5, 6};
  expect_error(call(4, 6, csc), "colptr[0] = 1, expected 0");
  ptr = {0, 2, 3, 5, 6};
  // Lower CSC given as upper: row 2 of column 0 is below the diagonal.
  ks::InputFormat upper = csc;
  upper.stored = ks::Stored::Upper;
  expect_error(call(4, 6, upper), "row 2 of column 0 lies in the lower triangle, but the input stores the upper one");
  // The same arrays as CSR lower: column 2 of row 0 lies above the diagonal.
  expect_error(call(4, 6, csr), "column 2 of row 0 lies in the upper triangle, but the input stores the lower one");
  // Duplicates without sum_duplicates.
  ind[1] = 0;
  expect_error(call(4, 6, csc), "duplicate entry (row 0, column 0)");
  ks::InputFormat sum = csc;
  sum.sum_duplicates = true;
  auto in = ks::make_input(size_type(4), size_type(6), ptr.data(), ind.data(), val.data(), sum);
  EXPECT_EQ(in.matrix().nnz(), 5);
  EXPECT_EQ(in.matrix().values[0], 3.0);
  ind[1] = 2;
  // Full storage, not symmetric: (2,0) = -1 stored in column 0, (0,2) = -2 in column 2.
  ks::InputFormat full = csc;
  full.stored = ks::Stored::Full;
  full.check_symmetry = true;
  std::vector<int> fptr{0, 2, 3, 6, 8};
  std::vector<int> find{0, 2, 1, 0, 2, 3, 2, 3};
  std::vector<double> fval{4, -1, 4, -2, 4, -1, -1, 4};
  auto fcall = [&](const ks::InputFormat& f) {
    return [=, &fptr, &find, &fval] { (void)ks::make_input(size_type(4), size_type(8), fptr.data(), find.data(), fval.data(), f); };
  };
  expect_error(fcall(full), "not symmetric: A(0, 2) = -2 but A(2, 0) = -1");
  fval[3] = -1;
  EXPECT_NO_THROW(fcall(full)());
  full.check_symmetry = false;  // unverified: the other triangle is ignored
  fval[1] = 100;
  EXPECT_NO_THROW(fcall(full)());
  full.check_symmetry = true;
  fval[1] = -1;
  // (3, 2) in column 2 with no (2, 3) in column 3: pattern asymmetry.
  find = {0, 2, 1, 0, 2, 3, 3, 3};
  fptr = {0, 2, 3, 6, 8};
  full.sum_duplicates = true;
  expect_error(fcall(full), "not symmetric: A(3, 2) is stored but A(2, 3) is not");
  // View inputs: index and value counts differ.
  Kokkos::View<int*, Kokkos::HostSpace> vp("p", 5), vi("i", 6);
  Kokkos::View<double*, Kokkos::HostSpace> vv("v", 5);
  try {
    (void)ks::make_input(vp, vi, vv, csc);
    ADD_FAILURE() << "no error";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("6 indices but 5 values"), std::string::npos) << e.what();
  }
  // update_values with a View of the wrong length.
  auto good = ks::make_input(size_type(4), size_type(6), ptr.data(), ind.data(), val.data(), csc);
  EXPECT_THROW(good.update_values(vv), kspd::DimensionMismatch);
}

}  // namespace
