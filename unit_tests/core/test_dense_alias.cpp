// Aliased operands (issue #12, row 5): an output that shares memory with an input of an
// operation not defined in place is an InvalidArgument naming both operands; disjoint
// blocks of one matrix (L11 and L21 of a panel, interleaved in memory) stay accepted.
#include <gtest/gtest.h>

#include <string>

#include "kspd_core.hpp"
#include "kspd_test_utils.hpp"

namespace {
using kspd::Diag;
using kspd::Side;
using kspd::Trans;
using kspd::Uplo;
using Exec = KSPD_TEST_EXECSPACE;
using Mat = Kokkos::View<double**, Kokkos::LayoutLeft, Exec::memory_space>;
using MatR = Kokkos::View<double**, Kokkos::LayoutRight, Exec::memory_space>;
const auto ALL = Kokkos::ALL;
using Range = std::pair<int, int>;

template <class F>
void expect_alias(F&& f, const std::string& op, const std::string& out, const std::string& in) {
  try {
    f();
    ADD_FAILURE() << op << ": aliased " << out << " / " << in << " accepted";
  } catch (const kspd::InvalidArgument& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find(op + ": the output " + out + " overlaps the input " + in), std::string::npos) << msg;
  }
}

/// An SPD matrix (diagonally dominant), n x n.
Mat spd(int n) {
  Mat A("A", n, n);
  auto h = Kokkos::create_mirror_view(A);
  for (int j = 0; j < n; ++j)
    for (int i = 0; i < n; ++i) h(i, j) = i == j ? 2.0 * n : 1.0 / (1 + i + j);
  Kokkos::deep_copy(A, h);
  return A;
}

TEST(DenseAlias, GemmRejectsCAliasingAOrB) {
  Exec exec;
  Mat A = spd(8), B = spd(8), C("C", 8, 8);
  expect_alias([&] { kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A, A, 0.0, A); }, "kspd::gemm", "C", "A");
  expect_alias([&] { kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A, B, 0.0, B); }, "kspd::gemm", "C", "B");
  // A block of A as C: overlapping blocks.
  auto A1 = Kokkos::subview(A, Range(0, 4), Range(0, 4)), A2 = Kokkos::subview(A, Range(2, 6), Range(2, 6));
  expect_alias([&] { kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A1, Kokkos::subview(B, Range(0, 4), ALL), 0.0,
                                Kokkos::subview(A, Range(0, 4), Range(0, 8))); },
               "kspd::gemm", "C", "A");
  expect_alias([&] { kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, A2, A2, 0.0, A1); }, "kspd::gemm", "C", "A");
  // Disjoint blocks of one matrix (interleaved column by column) are fine.
  auto top = Kokkos::subview(A, Range(0, 4), ALL), bottom = Kokkos::subview(A, Range(4, 8), ALL);
  EXPECT_NO_THROW(kspd::gemm(exec, Trans::NoTranspose, Trans::Transpose, 1.0, Kokkos::subview(B, Range(0, 4), ALL),
                             Kokkos::subview(B, Range(4, 8), ALL), 0.0, Kokkos::subview(C, Range(0, 4), Range(0, 4))));
  EXPECT_NO_THROW(kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, Kokkos::subview(top, ALL, Range(0, 4)),
                             Kokkos::subview(top, ALL, Range(4, 8)), 0.0, Kokkos::subview(bottom, ALL, Range(0, 4))));
  // The same for row-major storage.
  MatR R("R", 8, 8);
  EXPECT_NO_THROW(kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, Kokkos::subview(R, Range(0, 4), Range(0, 4)),
                             Kokkos::subview(R, Range(0, 4), Range(4, 8)), 0.0, Kokkos::subview(R, Range(4, 8), Range(0, 4))));
  expect_alias([&] { kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, 1.0, Kokkos::subview(R, Range(0, 1), ALL), R, 0.0,
                                Kokkos::subview(R, Range(7, 8), ALL)); },
               "kspd::gemm", "C", "B");
  exec.fence();
}

TEST(DenseAlias, TrsmTrmmRejectBAliasingA) {
  Exec exec;
  Mat A = spd(8);
  for (bool solve : {true, false}) {
    const std::string op = solve ? "kspd::trsm" : "kspd::trmm";
    auto call = [&](const auto& a, const auto& b) {
      if (solve) kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, a, b);
      else kspd::trmm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, a, b);
    };
    expect_alias([&] { call(A, A); }, op, "B", "A");
    expect_alias([&] { call(Kokkos::subview(A, Range(0, 4), Range(0, 4)), Kokkos::subview(A, Range(3, 7), Range(0, 2))); }, op, "B", "A");
    // L11 \ L21^T-like blocks of one panel: disjoint.
    Mat P = spd(8);
    EXPECT_NO_THROW(call(Kokkos::subview(P, Range(0, 4), Range(0, 4)), Kokkos::subview(P, Range(4, 8), Range(0, 4))));
    EXPECT_NO_THROW(kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, 1.0,
                               Kokkos::subview(P, Range(0, 4), Range(0, 4)), Kokkos::subview(P, Range(4, 8), Range(0, 4))));
  }
  exec.fence();
}

TEST(DenseAlias, SyrkSyr2kSymmRejectCAliasingAnInput) {
  Exec exec;
  Mat A = spd(8), B = spd(8), C("C", 8, 8);
  expect_alias([&] { kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, 1.0, A, 0.0, A); }, "kspd::syrk", "C", "A");
  expect_alias([&] { kspd::syr2k(exec, Uplo::Lower, Trans::NoTranspose, 1.0, A, B, 0.0, B); }, "kspd::syr2k", "C", "B");
  expect_alias([&] { kspd::syr2k(exec, Uplo::Lower, Trans::NoTranspose, 1.0, A, B, 0.0, A); }, "kspd::syr2k", "C", "A");
  expect_alias([&] { kspd::symm(exec, Side::Left, Uplo::Lower, 1.0, A, B, 0.0, A); }, "kspd::symm", "C", "A");
  expect_alias([&] { kspd::symm(exec, Side::Left, Uplo::Lower, 1.0, A, B, 0.0, B); }, "kspd::symm", "C", "B");
  // The update of a panel's trailing block from its own rows below (disjoint): accepted.
  EXPECT_NO_THROW(kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, -1.0, Kokkos::subview(A, Range(4, 8), Range(0, 4)), 1.0,
                             Kokkos::subview(A, Range(4, 8), Range(4, 8))));
  EXPECT_NO_THROW(kspd::symm(exec, Side::Left, Uplo::Lower, 1.0, A, B, 0.0, C));
  exec.fence();
}

TEST(DenseAlias, PotrsRejectsBAliasingA) {
  Exec exec;
  Mat A = spd(8);
  kspd::require_spd(kspd::potrf(exec, Uplo::Lower, A), "test");
  expect_alias([&] { kspd::potrs(exec, Uplo::Lower, A, A); }, "kspd::potrs", "B", "A");
  expect_alias([&] { kspd::potrs(exec, Uplo::Lower, A, Kokkos::subview(A, ALL, Range(7, 8))); }, "kspd::potrs", "B", "A");
  Mat B("B", 8, 2);
  EXPECT_NO_THROW(kspd::potrs(exec, Uplo::Lower, A, B));
  exec.fence();
}

TEST(DenseAlias, OverlapIsExactForBlocksOfOneMatrix) {
  Mat A("A", 10, 10);
  using kspd::Impl::views_overlap;
  auto blk = [&](int r0, int r1, int c0, int c1) { return Kokkos::subview(A, Range(r0, r1), Range(c0, c1)); };
  EXPECT_FALSE(views_overlap(blk(0, 5, 0, 5), blk(5, 10, 0, 5)));
  EXPECT_FALSE(views_overlap(blk(0, 5, 0, 5), blk(0, 5, 5, 10)));
  EXPECT_TRUE(views_overlap(blk(0, 5, 0, 5), blk(4, 10, 4, 10)));
  EXPECT_TRUE(views_overlap(blk(2, 3, 0, 10), blk(0, 10, 7, 8)));  // a row and a column cross
  EXPECT_FALSE(views_overlap(blk(2, 3, 0, 10), blk(3, 10, 7, 8)));
  Mat E("E", 0, 5);
  EXPECT_FALSE(views_overlap(E, A));
  // Strided 1 x 1 and m x 1 blocks of one panel (a LayoutStride span reaches past them).
  using SMat = Kokkos::View<double**, Kokkos::LayoutStride, Mat::memory_space>;
  SMat a11(A.data(), Kokkos::LayoutStride(1, 1, 1, 10)), a21(A.data() + 1, Kokkos::LayoutStride(9, 1, 1, 10));
  EXPECT_FALSE(views_overlap(a11, a21));
  EXPECT_TRUE(views_overlap(a11, SMat(A.data(), Kokkos::LayoutStride(9, 1, 1, 10))));
  Mat D("D", 10, 10);
  EXPECT_FALSE(views_overlap(A, D));
}

}  // namespace
