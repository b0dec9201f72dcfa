#ifndef KSPD_SPARSE_SYMBOLIC_HPP
#define KSPD_SPARSE_SYMBOLIC_HPP
/// \file kspd_sparse_symbolic.hpp
/// Symbolic analysis of the supernodal Cholesky: fill-reducing ordering composed with the
/// elimination-tree postorder, column counts, fundamental + relaxed supernodes, the
/// supernode row structure, the block partition (symPACK's Algorithm 2: the off-diagonal rows
/// of a supernode split by the supernode that owns them), and the fan-out task graph.
///
/// Blocks are named by (supernode, block index); block 0 is the diagonal block. Every block
/// has an owner rank (0 in one process); tasks and their "block finished" events are the
/// units a distributed scheduler sends between ranks.

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse::Impl {

/// A pattern view of the lower triangle (CSC), what the analysis needs of a CscMatrix.
struct PatternRef {
  size_type n = 0;
  const size_type* colptr = nullptr;
  const size_type* rowind = nullptr;
};

struct Supernode {
  size_type first_col = 0;  ///< first column (permuted numbering)
  size_type ncols = 0;
  size_type row_begin = 0;  ///< rows in Symbolic::rows[row_begin, row_end): diagonal rows first
  size_type row_end = 0;
  size_type value_offset = 0;  ///< panel (nrows x ncols, column-major, ld = nrows) in the values
  size_type block_begin = 0;   ///< blocks [block_begin, block_end); the first is the diagonal
  size_type block_end = 0;
  size_type parent = -1;       ///< parent supernode in the supernodal elimination tree
  size_type nrows() const { return row_end - row_begin; }
};

/// A block of a supernode's panel: rows [row_offset, row_offset + nrows) of the panel, all
/// belonging to the columns of supernode `target` (the diagonal block targets itself).
struct Block {
  size_type snode = 0;
  size_type row_offset = 0;
  size_type nrows = 0;
  size_type target = 0;
  size_type trsm_task = -1;  ///< the TRSM task (block range) that factors this block
  int owner = 0;             ///< rank holding the block
};

enum class TaskKind : int { DiagFactor = 0, Trsm = 1, Update = 2 };

/// One task of the fan-out graph. DiagFactor(s): potrf of block 0 of s. Trsm(s, [b0, b1)):
/// the off-diagonal blocks b0..b1-1 of s (contiguous rows, one owner). Update(s, b): the
/// product of s's rows from block b down with block b's rows, scattered into supernode
/// target(b) (syrk on the diagonal part, gemm below).
struct Task {
  TaskKind kind = TaskKind::DiagFactor;
  size_type snode = 0;
  size_type block_begin = 0;  ///< Trsm: first block; Update: the block b; DiagFactor: block 0
  size_type block_end = 0;
  int ndeps = 0;              ///< events this task waits for
  int owner = 0;
};

/// The events of the fan-out graph: what a finished task announces to its consumers.
/// DiagDone(s) -> Trsm tasks of s; TrsmDone(task) -> Update(s, b) for every b <= its last
/// block; UpdateDone(s, b) -> DiagFactor(target(b)).
struct BlockEvent {
  TaskKind producer = TaskKind::DiagFactor;
  size_type task = 0;
};

struct AnalysisStats {
  size_type n = 0, nnz_a = 0;
  size_type nnz_l = 0;         ///< exact nnz(L) from the column counts
  size_type nnz_l_stored = 0;  ///< stored entries of the supernodal factor (with relaxation zeros)
  double flops = 0;            ///< exact factorization flops: sum over columns of c_j^2
  double flops_stored = 0;     ///< kernel flops on the stored (relaxed) factor
  size_type nsupernodes = 0, nfundamental = 0, nblocks = 0, ntasks = 0;
  size_type max_width = 0, max_rows = 0;
  size_type width_hist[6] = {0, 0, 0, 0, 0, 0};  ///< widths 1, 2-4, 5-16, 17-64, 65-256, >256
  size_type block_hist[6] = {0, 0, 0, 0, 0, 0};  ///< off-diagonal block rows, same bins
  double order_seconds = 0, analyse_seconds = 0;
  std::string summary() const;
};

/// The result of the analysis; independent of the values and the scalar type.
struct Symbolic {
  size_type n = 0;
  std::vector<size_type> perm;   ///< new -> old (ordering then postorder)
  std::vector<size_type> iperm;  ///< old -> new
  std::vector<size_type> parent; ///< column elimination tree (permuted numbering), -1 = root
  std::vector<size_type> colcount;  ///< nnz of each column of L, diagonal included
  std::vector<size_type> col_snode; ///< supernode of each column
  std::vector<Supernode> snodes;
  std::vector<size_type> rows;      ///< row structures of all supernodes
  std::vector<Block> blocks;
  std::vector<Task> tasks;          ///< DiagFactor(s) is task s; then Trsm, then Update
  std::vector<size_type> update_task;  ///< per block: its Update task (-1 for diagonal blocks)
  /// Update tasks group consecutive blocks of a supernode up to this many rows.
  static constexpr size_type kUpdateGroupRows = 64;
  WorkVector<size_type> value_map;     ///< per entry of A: its offset in the factor values
  /// A's entries by supernode: a_by_snode[a_snode_ptr[s] .. a_snode_ptr[s + 1]) are the
  /// indices in A of the entries that land in panel s (a host worker assembles a panel
  /// just before its first use).
  WorkVector<size_type> a_by_snode;
  std::vector<size_type> a_snode_ptr;
  size_type nvalues = 0;
  // The pattern of A the analysis saw (refactorization checks it: same_pattern).
  std::vector<size_type> a_colptr;
  WorkVector<size_type> a_rowind;
  /// True when (n, colptr, rowind) is the analysed pattern.
  template <class C, class R>
  bool same_pattern(size_type n2, const C& colptr, const R& rowind) const {
    return n2 == n && colptr.size() == a_colptr.size() && rowind.size() == a_rowind.size() &&
           std::equal(colptr.begin(), colptr.end(), a_colptr.begin()) &&
           std::equal(rowind.begin(), rowind.end(), a_rowind.begin());
  }
  AnalysisStats stats;
};

/// A set of supernodes that one factorization runs on (1: in the set), closed downwards
/// (every descendant of a member is a member: a forest of whole subtrees), so that every
/// task of a member depends only on members. The updates that members make to supernodes
/// outside the set are accumulated into those supernodes' panels, which the factorization
/// does not factor (the distributed solver's fan-in to the separators, kspd_sparse_distributed.hpp).
/// Empty: every supernode.
using SnodeSubset = std::vector<char>;
inline bool in_subset(const SnodeSubset& m, size_type s) { return m.empty() || m[size_t(s)] != 0; }

/// The first non-positive pivot of a diagonal block whose potrf failed, recomputed from the
/// saved (lower, column-major, ld = k) block by an unblocked Cholesky in long double, for the
/// NotPositiveDefinite report: {0-based column within the block, pivot value}. LAPACK's
/// info (1-based) is the fallback column when the recomputation finds every pivot positive.
template <class Scalar>
std::pair<size_type, long double> failing_pivot(const std::vector<Scalar>& block, size_type k, int info) {
  std::vector<long double> a(block.begin(), block.end());
  for (size_type j = 0; j < k; ++j) {
    long double d = a[size_t(j + j * k)];
    for (size_type l = 0; l < j; ++l) d -= a[size_t(j + l * k)] * a[size_t(j + l * k)];
    if (!(d > 0)) return {j, d};
    const long double r = std::sqrt(d);
    a[size_t(j + j * k)] = r;
    for (size_type i = j + 1; i < k; ++i) {
      long double x = a[size_t(i + j * k)];
      for (size_type l = 0; l < j; ++l) x -= a[size_t(i + l * k)] * a[size_t(j + l * k)];
      a[size_t(i + j * k)] = x / r;
    }
  }
  return {info > 0 ? info - 1 : 0, std::nan("")};
}

/// glibc's rand()/srand() (TYPE_3 additive feedback) as a value: the per-thread random
/// stream the Metis calls of kspd_sparse_ordering.cpp see (see FIXME_METIS there).
class GlibcRand {
 public:
  explicit GlibcRand(unsigned seed = 1);
  void seed(unsigned seed);
  int next();  ///< the next rand() value, in [0, RAND_MAX]

 private:
  std::uint32_t next_raw();
  std::int32_t r_[34] = {};
  int k_ = 34;
};

/// Threads of the ordering and the analysis: Options::threads, or all cores when it is 0.
int analysis_threads(const Options& opt);

/// Fill-reducing ordering of the pattern: new -> old. Metis with one thread is one
/// METIS_NodeND call; with more, a parallel nested dissection (kspd_sparse_ordering.cpp).
std::vector<size_type> compute_ordering(const PatternRef& A, const Options& opt);

/// The whole analysis.
Symbolic analyse(const PatternRef& A, const Options& opt);

/// Elimination tree of the lower-triangular pattern (no permutation); exposed for tests.
std::vector<size_type> elimination_tree(const PatternRef& A);
/// Column counts of L (diagonal included) for a postordered pattern and its etree.
std::vector<size_type> column_counts(const PatternRef& A, const std::vector<size_type>& parent);

}  // namespace kspd::sparse::Impl
#endif
