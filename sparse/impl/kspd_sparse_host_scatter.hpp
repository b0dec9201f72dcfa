#ifndef KSPD_SPARSE_HOST_SCATTER_HPP
#define KSPD_SPARSE_HOST_SCATTER_HPP
/// \file kspd_sparse_host_scatter.hpp
/// The host update's pieces that hold no state of the factorization (Numeric::update and
/// scatter in kspd_sparse_numeric.hpp): how C is cut into row chunks, the relative indices
/// of a chunk's rows in the target's rows, and the prefetch of a target column.

#include <algorithm>

#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The host update's product is computed and scattered in row chunks of C of about `bytes`
/// (at least `min_rows` rows): a product of the whole height wrote C to memory and the
/// scatter read it back, 16 bytes per entry of C against k flops (most supernodes have
/// k <= 64 columns). Internal; the tests shrink it to put chunk edges everywhere.
struct UpdateChunking {
  size_type bytes = 512 * 1024;  ///< to stay in L2 (1-2 MiB per core) with the product's own blocks
  size_type min_rows = 256;      ///< a taller product runs faster
};
inline UpdateChunking& update_chunking() {
  static UpdateChunking c;
  return c;
}

/// Entries of Scalar per cache line (the unit of match_rows' prefetch list).
template <class Scalar>
inline constexpr size_type kLineEntries = size_type(64 / sizeof(Scalar));

/// Relative indices of m source rows in the target's rows (a superset, both ascending):
/// rel[i] = the position of srows[i] in trows, searched from `cursor` (where the last
/// chunk of the same block left off; advanced). pf: the i whose target rows lie at least a
/// cache line of Scalar past the last listed one (the lines prefetch_column fetches).
template <class Scalar>
void match_rows(const size_type* srows, const size_type* trows, size_type m, size_type& cursor,
                WorkVector<size_type>& rel, WorkVector<size_type>& pf) {
  rel.resize(static_cast<size_t>(m));
  pf.clear();
  size_type p = cursor;
  for (size_type i = 0; i < m; ++i) {
    while (trows[p] != srows[i]) ++p;
    rel[size_t(i)] = p;
    if (pf.empty() || p >= rel[size_t(pf.back())] + kLineEntries<Scalar>) pf.push_back(i);
  }
  cursor = p;
}

/// The target column's cache lines that the scatter of a source column touches (its rows
/// from row j of rel on), fetched while the column before is added: the targets of a
/// fan-out update are cold (last touched a subtree ago), and the scatter waited on them
/// (69% of its samples). Each listed row's line and the next are fetched.
template <class Scalar>
void prefetch_column(const Scalar* col, size_type j, const WorkVector<size_type>& rel, const WorkVector<size_type>& pf) {
  constexpr size_type line = kLineEntries<Scalar>;
  const auto b = std::lower_bound(pf.begin(), pf.end(), j);
  if (b == pf.end() || *b != j) {  // rows j.. before the next listed one lie within a line of row j
    __builtin_prefetch(col + rel[size_t(j)], 1, 3);
    __builtin_prefetch(col + rel[size_t(j)] + (line - 1), 1, 3);
  }
  for (auto p = b; p != pf.end(); ++p) {
    __builtin_prefetch(col + rel[size_t(*p)], 1, 3);
    __builtin_prefetch(col + rel[size_t(*p)] + (line - 1), 1, 3);
  }
}

}  // namespace kspd::sparse::Impl
#endif
