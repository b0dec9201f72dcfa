// The threaded analysis: the parallel nested dissection keeps METIS_NodeND's fill (nnz(L)
// within 5%) and the threaded symbolic analysis is bitwise the single-thread one.

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <numeric>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "sparse_test_helpers.hpp"

namespace {

using namespace kspd::test::sparse;
using kspd::size_type;
namespace ks = kspd::sparse;

ks::Impl::PatternRef pattern(const CscMatrix<double>& A) { return {A.n, A.colptr.data(), A.rowind.data()}; }

/// nnz(L) of the Metis ordering with `threads` threads (1: one METIS_NodeND call).
size_type metis_nnz_l(const CscMatrix<double>& A, int threads) {
  ks::Options opt;
  opt.threads = threads;
  const auto perm = ks::Impl::compute_ordering(pattern(A), opt);
  std::vector<char> seen(static_cast<size_t>(A.n), 0);  // a permutation
  for (const size_type o : perm) {
    EXPECT_TRUE(o >= 0 && o < A.n && !seen[size_t(o)]) << "entry " << o;
    if (o >= 0 && o < A.n) seen[size_t(o)] = 1;
  }
  ks::Options user;
  user.ordering = ks::Ordering::User;
  user.user_permutation = perm;
  user.threads = 1;
  return ks::Impl::analyse(pattern(A), user).stats.nnz_l;
}

void expect_fill_kept(const CscMatrix<double>& A, const std::string& name, std::initializer_list<int> threads) {
  const double serial = double(metis_nnz_l(A, 1));
  for (const int t : threads) {
    const double ratio = double(metis_nnz_l(A, t)) / serial;
    std::printf("  %-22s n=%8ld threads=%2d nnz(L) ratio %.4f\n", name.c_str(), long(A.n), t, ratio);
    EXPECT_LE(ratio, 1.05) << name << " threads=" << t;
  }
}

TEST(SparseOrdering, ParallelNestedDissectionKeepsMetisFill) {
  expect_fill_kept(ks::elasticity_3d<double>(12, 12, 12), "elasticity 12^3", {2, 4, 16});
  expect_fill_kept(ks::elasticity_3d<double>(16, 16, 16), "elasticity 16^3", {2, 8});
  expect_fill_kept(ks::laplacian_3d<double>(24, 24, 24), "laplace3d 24^3", {2, 4, 16});
  expect_fill_kept(ks::laplacian_2d<double>(150, 150), "laplace2d 150^2", {2, 8});
  expect_fill_kept(random_spd<double>(6000, 6.0, 11), "random_spd 6000", {2, 4});
}

TEST(SparseOrdering, ParallelNestedDissectionKeepsFillOnTheCollection) {
  const char* dir = std::getenv("KSPD_DATA_DIR");
  if (!dir || !std::filesystem::is_directory(dir)) GTEST_SKIP() << "KSPD_DATA_DIR is not set or not a directory";
  std::vector<std::string> files;
  for (const auto& e : std::filesystem::directory_iterator(dir)) {
    const std::string f = e.path().string();
    auto ends = [&](const char* s) { return f.size() >= std::strlen(s) && f.compare(f.size() - std::strlen(s), std::string::npos, s) == 0; };
    if (ends(".mtx") || ends(".mtx.gz") || ends(".rsa") || ends(".rb")) files.push_back(f);
  }
  std::sort(files.begin(), files.end());
  for (const auto& f : files) {
    SCOPED_TRACE(f);
    expect_fill_kept(ks::read_matrix<double>(f), std::filesystem::path(f).filename().string(), {2, 4});
  }
}

void expect_same(const ks::Impl::Symbolic& a, const ks::Impl::Symbolic& b) {
  ASSERT_EQ(a.n, b.n);
  EXPECT_EQ(a.perm, b.perm);
  EXPECT_EQ(a.iperm, b.iperm);
  EXPECT_EQ(a.parent, b.parent);
  EXPECT_EQ(a.colcount, b.colcount);
  EXPECT_EQ(a.col_snode, b.col_snode);
  ASSERT_EQ(a.snodes.size(), b.snodes.size());
  for (size_t s = 0; s < a.snodes.size(); ++s) {
    const auto &x = a.snodes[s], &y = b.snodes[s];
    ASSERT_TRUE(x.first_col == y.first_col && x.ncols == y.ncols && x.row_begin == y.row_begin &&
                x.row_end == y.row_end && x.value_offset == y.value_offset && x.block_begin == y.block_begin &&
                x.block_end == y.block_end && x.parent == y.parent)
        << "supernode " << s;
  }
  EXPECT_EQ(a.rows, b.rows);
  ASSERT_EQ(a.blocks.size(), b.blocks.size());
  for (size_t k = 0; k < a.blocks.size(); ++k) {
    const auto &x = a.blocks[k], &y = b.blocks[k];
    ASSERT_TRUE(x.snode == y.snode && x.row_offset == y.row_offset && x.nrows == y.nrows && x.target == y.target &&
                x.trsm_task == y.trsm_task && x.owner == y.owner)
        << "block " << k;
  }
  ASSERT_EQ(a.tasks.size(), b.tasks.size());
  for (size_t k = 0; k < a.tasks.size(); ++k) {
    const auto &x = a.tasks[k], &y = b.tasks[k];
    ASSERT_TRUE(x.kind == y.kind && x.snode == y.snode && x.block_begin == y.block_begin &&
                x.block_end == y.block_end && x.ndeps == y.ndeps && x.owner == y.owner)
        << "task " << k;
  }
  EXPECT_EQ(a.update_task, b.update_task);
  EXPECT_TRUE(std::equal(a.value_map.begin(), a.value_map.end(), b.value_map.begin(), b.value_map.end()));
  EXPECT_EQ(a.nvalues, b.nvalues);
  EXPECT_EQ(a.a_colptr, b.a_colptr);
  EXPECT_TRUE(std::equal(a.a_rowind.begin(), a.a_rowind.end(), b.a_rowind.begin(), b.a_rowind.end()));
  EXPECT_EQ(a.stats.nnz_l, b.stats.nnz_l);
  EXPECT_EQ(a.stats.nnz_l_stored, b.stats.nnz_l_stored);
  EXPECT_EQ(a.stats.flops, b.stats.flops);
  EXPECT_EQ(a.stats.flops_stored, b.stats.flops_stored);
}

void expect_threads_agree(const CscMatrix<double>& A, const std::string& name, ks::Options opt) {
  SCOPED_TRACE(name);
  // One ordering (Metis in 4 threads) for every analysis: the symbolic phases are compared.
  ks::Options ord;
  ord.threads = 4;
  opt.ordering = ks::Ordering::User;
  opt.user_permutation = ks::Impl::compute_ordering(pattern(A), ord);
  opt.threads = 1;
  const auto S1 = ks::Impl::analyse(pattern(A), opt);
  // The etree of the postordered matrix is the relabelled one: check it against a fresh etree.
  {
    std::vector<size_type> cp(static_cast<size_t>(A.n + 1), 0), ri;
    std::vector<std::vector<size_type>> cols(static_cast<size_t>(A.n));
    for (size_type j = 0; j < A.n; ++j)
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
        const size_type a = S1.iperm[size_t(A.rowind[size_t(p)])], b = S1.iperm[size_t(j)];
        cols[size_t(std::min(a, b))].push_back(std::max(a, b));
      }
    for (size_type j = 0; j < A.n; ++j) {
      std::sort(cols[size_t(j)].begin(), cols[size_t(j)].end());
      ri.insert(ri.end(), cols[size_t(j)].begin(), cols[size_t(j)].end());
      cp[size_t(j + 1)] = size_type(ri.size());
    }
    EXPECT_EQ(S1.parent, ks::Impl::elimination_tree({A.n, cp.data(), ri.data()}));
  }
  for (const int t : {2, 3, 8}) {
    SCOPED_TRACE("threads=" + std::to_string(t));
    opt.threads = t;
    expect_same(S1, ks::Impl::analyse(pattern(A), opt));
  }
}

TEST(SparseSymbolic, ThreadedAnalysisIsBitwiseTheSerialOne) {
  ks::Options def;
  expect_threads_agree(ks::elasticity_3d<double>(10, 10, 10), "elasticity 10^3", def);
  expect_threads_agree(ks::laplacian_3d<double>(20, 20, 20), "laplace3d 20^3", def);
  expect_threads_agree(ks::laplacian_2d<double>(90, 90), "laplace2d 90^2", def);
  ks::Options narrow;
  narrow.max_supernode = 3;
  narrow.max_trsm_rows = 5;
  narrow.relax.enabled = false;
  expect_threads_agree(ks::laplacian_3d<double>(16, 16, 16), "laplace3d 16^3 narrow", narrow);
  for (double density : {0.5, 3.0, 12.0})
    expect_threads_agree(random_spd<double>(3000, density, 5), "random_spd 3000 density " + std::to_string(density), def);
  expect_threads_agree(random_spd<double>(1, 1.0, 3), "random_spd 1", def);
  // Disconnected: a forest of etrees.
  auto D = ks::laplacian_2d<double>(40, 40);
  {
    CscMatrix<double> B = D;
    B.colptr.assign(size_t(D.n + 1), 0);
    B.rowind.clear();
    B.values.clear();
    for (size_type j = 0; j < D.n; ++j) {
      for (size_type p = D.colptr[size_t(j)]; p < D.colptr[size_t(j + 1)]; ++p)
        if (D.rowind[size_t(p)] == j || (j / 40) % 7 != 3) {  // cut rows of the grid apart
          B.rowind.push_back(D.rowind[size_t(p)]);
          B.values.push_back(D.values[size_t(p)]);
        }
      B.colptr[size_t(j + 1)] = size_type(B.rowind.size());
    }
    expect_threads_agree(B, "laplace2d 40^2 cut", def);
  }
}

}  // namespace
namespace {

// Metis draws from rand(): the threads' Metis calls each get a stream of their own, so the
// parallel ordering is the same in every run (it was not while they shared libc's).
TEST(SparseOrdering, ParallelNestedDissectionIsReproducible) {
  const auto A = ks::laplacian_2d<double>(150, 150);
  const auto E = ks::elasticity_3d<double>(12, 12, 12);
  for (int t : {1, 2, 4}) {
    ks::Options opt;
    opt.threads = t;
    const auto p0 = ks::Impl::compute_ordering(pattern(A), opt), q0 = ks::Impl::compute_ordering(pattern(E), opt);
    for (int r = 0; r < 3; ++r) {
      EXPECT_EQ(p0, ks::Impl::compute_ordering(pattern(A), opt)) << "threads " << t << " repetition " << r;
      EXPECT_EQ(q0, ks::Impl::compute_ordering(pattern(E), opt)) << "threads " << t << " repetition " << r;
    }
  }
}

// The per-thread stream is glibc's rand() (one thread orders exactly as with libc's), and
// rand() outside the Metis calls is still libc's.
TEST(SparseOrdering, MetisRandomStreamIsGlibcRand) {
  for (unsigned seed : {0u, 1u, 4321u, 123456789u}) {
    ks::Impl::GlibcRand g(seed);
    std::srand(seed);
    for (int i = 0; i < 2000; ++i) ASSERT_EQ(std::rand(), g.next()) << "seed " << seed << " draw " << i;
  }
}

}  // namespace
