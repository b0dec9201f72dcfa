/// \file kspd_sparse_ordering.cpp
/// Fill-reducing orderings: Metis nested dissection (METIS_NodeND), natural, user.

#include <algorithm>
#include <limits>
#include <numeric>

#include "KSPD_Config.hpp"
#include "kspd_error.hpp"
#include "kspd_sparse_symbolic.hpp"

#ifdef KSPD_ENABLE_METIS
#include <metis.h>
#endif

namespace kspd::sparse::Impl {

namespace {

#ifdef KSPD_ENABLE_METIS
std::vector<size_type> metis_nd(const PatternRef& A) {
  const size_type n = A.n;
  // The adjacency graph: both triangles, no diagonal.
  std::vector<size_type> deg(static_cast<size_t>(n), 0);
  for (size_type j = 0; j < n; ++j)
    for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
      const size_type i = A.rowind[p];
      if (i != j) {
        ++deg[size_t(i)];
        ++deg[size_t(j)];
      }
    }
  const size_type nadj = std::accumulate(deg.begin(), deg.end(), size_type(0));
  std::vector<size_type> ident(static_cast<size_t>(n));
  std::iota(ident.begin(), ident.end(), size_type(0));
  if (n <= 2 || nadj == 0) return ident;
  KSPD_REQUIRE(nadj < size_type(std::numeric_limits<idx_t>::max()) && n < size_type(std::numeric_limits<idx_t>::max()),
               InvalidArgument,
               "kspd::sparse: the graph has " << nadj << " adjacency entries, more than this Metis's "
                                              << sizeof(idx_t) * 8 << "-bit idx_t holds; use another ordering");
  std::vector<idx_t> xadj(static_cast<size_t>(n + 1), 0), adj(static_cast<size_t>(nadj));
  for (size_type j = 0; j < n; ++j) xadj[size_t(j + 1)] = xadj[size_t(j)] + idx_t(deg[size_t(j)]);
  std::vector<idx_t> pos(xadj.begin(), xadj.end() - 1);
  for (size_type j = 0; j < n; ++j)
    for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
      const size_type i = A.rowind[p];
      if (i != j) {
        adj[size_t(pos[size_t(i)]++)] = idx_t(j);
        adj[size_t(pos[size_t(j)]++)] = idx_t(i);
      }
    }
  idx_t nv = idx_t(n);
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  std::vector<idx_t> perm(static_cast<size_t>(n)), iperm(static_cast<size_t>(n));
  const int rc = METIS_NodeND(&nv, xadj.data(), adj.data(), nullptr, options, perm.data(), iperm.data());
  KSPD_REQUIRE(rc == METIS_OK, TplError, "kspd::sparse: METIS_NodeND failed with status " << rc);
  std::vector<size_type> out(static_cast<size_t>(n));
  for (size_type k = 0; k < n; ++k) out[size_t(k)] = perm[size_t(k)];  // METIS: perm is new -> old
  return out;
}
#endif

}  // namespace

std::vector<size_type> compute_ordering(const PatternRef& A, const Options& opt) {
  const size_type n = A.n;
  std::vector<size_type> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), size_type(0));
  switch (opt.ordering) {
    case Ordering::Natural: return perm;
    case Ordering::User: {
      KSPD_REQUIRE(size_type(opt.user_permutation.size()) == n, InvalidArgument,
                   "kspd::sparse: Options::user_permutation has " << opt.user_permutation.size()
                                                                  << " entries, the matrix has " << n << " rows");
      std::vector<char> seen(static_cast<size_t>(n), 0);
      for (size_type k = 0; k < n; ++k) {
        const size_type o = opt.user_permutation[size_t(k)];
        KSPD_REQUIRE(o >= 0 && o < n && !seen[size_t(o)], InvalidArgument,
                     "kspd::sparse: Options::user_permutation is not a permutation (entry " << k << " = " << o
                                                                                           << ")");
        seen[size_t(o)] = 1;
      }
      return opt.user_permutation;
    }
    case Ordering::Metis:
#ifdef KSPD_ENABLE_METIS
      return metis_nd(A);
#else
      KSPD_REQUIRE(false, InvalidArgument, "kspd::sparse: Ordering::Metis requested but kspd was built without Metis");
#endif
  }
  return perm;
}

}  // namespace kspd::sparse::Impl
