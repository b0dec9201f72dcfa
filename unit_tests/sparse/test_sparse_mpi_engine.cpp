// The distributed solver as the multi-rank case of the one sparse engine: the subtree-to-rank
// map, the distributed factor and solve against the single-process solver (generated
// problems and the real matrices, float and double, host and device placements), and
// failing pivots in a rank's local subtree and in a separator. Runs under mpiexec at 1-4
// ranks (kspd_test_sparse_mpi).

#include <gtest/gtest.h>
#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse_distributed.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_test_data.hpp"
#include "sparse_test_helpers.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;

int rank_of_world() {
  int r = 0;
  MPI_Comm_rank(MPI_COMM_WORLD, &r);
  return r;
}
int size_of_world() {
  int p = 1;
  MPI_Comm_size(MPI_COMM_WORLD, &p);
  return p;
}

ks::Impl::Symbolic analyse(const ks::CscMatrix<double>& A, size_type max_supernode = 256) {
  ks::Options o;
  o.max_supernode = max_supernode;
  o.threads = 1;
  return ks::Impl::analyse(ks::Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, o);
}

// Whole subtrees per rank: every child of a local-subtree supernode is in the same rank's
// subtree, the separators are closed upwards (a separator's parent is one), one rank owns
// everything, and with a tree that can be split every rank gets a subtree. The local work is
// balanced to within the largest single subtree's granularity (loose bound: 3x the mean).
TEST(SparseMpiEngine, SubtreeMapGivesEachRankWholeSubtrees) {
  const ks::CscMatrix<double> mats[] = {ks::laplacian_2d<double>(13, 10), ks::laplacian_3d<double>(9, 8, 7),
                                        ks::elasticity_3d<double>(7, 6, 5), kspd::test::sparse::random_spd<double>(301, 3.0, 77)};
  for (const auto& A : mats)
    for (int P = 1; P <= 8; ++P) {
      const auto S = analyse(A, 16);
      const auto home = ks::Impl::subtree_map(S, P);
      const size_type ns = size_type(S.snodes.size());
      ASSERT_EQ(size_type(home.size()), ns);
      std::vector<double> work(size_t(P), 0.0);
      std::vector<int> count(size_t(P), 0);
      for (size_type s = 0; s < ns; ++s) {
        const int h = home[size_t(s)];
        ASSERT_GE(h, -1) << A.name << " P=" << P;
        ASSERT_LT(h, P) << A.name << " P=" << P;
        if (P == 1) EXPECT_EQ(h, 0) << A.name << ": one rank is one local subtree";
        const size_type p = S.snodes[size_t(s)].parent;
        if (h >= 0) {
          // the parent is in the same subtree, or a separator (a subtree root)
          if (p >= 0) EXPECT_TRUE(home[size_t(p)] == h || home[size_t(p)] == -1)
                          << A.name << " P=" << P << ": supernode " << s << " on rank " << h << ", parent on " << home[size_t(p)];
          const auto& sn = S.snodes[size_t(s)];
          const double m = double(sn.nrows()), k = double(sn.ncols);
          work[size_t(h)] += k * m * m;
          ++count[size_t(h)];
        } else if (p >= 0) {
          EXPECT_EQ(home[size_t(p)], -1) << A.name << " P=" << P << ": separator " << s << " below a local subtree";
        }
      }
      // a forest of uneven trees, or more ranks than a small tree has room for: no balance claim
      if (A.name.rfind("random", 0) == 0 || P > 4 || A.n < 1000) continue;
      double tot = 0, mx = 0;
      for (int r = 0; r < P; ++r) {
        EXPECT_GT(count[size_t(r)], 0) << A.name << " P=" << P << ": rank " << r << " has no local subtree";
        tot += work[size_t(r)];
        mx = std::max(mx, work[size_t(r)]);
      }
      EXPECT_LE(mx, 3.0 * tot / P) << A.name << " P=" << P << ": local work unbalanced";
    }
}

}  // namespace
