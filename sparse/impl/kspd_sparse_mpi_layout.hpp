#ifndef KSPD_SPARSE_MPI_LAYOUT_HPP
#define KSPD_SPARSE_MPI_LAYOUT_HPP
/// \file kspd_sparse_mpi_layout.hpp
/// Block-to-rank mapping of the distributed supernodal Cholesky and the per-rank block
/// storage. Every rank runs the same analysis (Symbolic), so every rank can compute the
/// owner of any block and the offset of that block in its owner's storage: one-sided gets
/// need no address exchange. A block (s, b) is stored alone, column-major, nrows x ncols(s).

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

/// The near-square process grid pr x pc (pr <= pc, pr * pc = nranks).
inline void process_grid(int nranks, int& pr, int& pc) {
  pr = int(std::sqrt(double(nranks)));
  while (pr > 1 && nranks % pr != 0) --pr;
  if (pr < 1) pr = 1;
  pc = nranks / pr;
}

/// symPACK's 2D block-cyclic mapping: grid row from the target supernode, grid column from
/// the source supernode.
inline BlockMap block_cyclic_map() {
  return [](size_type snode, size_type target, int nranks) {
    int pr = 1, pc = 1;
    process_grid(nranks, pr, pc);
    return int(target % pr) * pc + int(snode % pc);
  };
}

/// Per-rank communication and time counters (this rank's view).
struct DistributedStats {
  double analyse_seconds = 0, distribute_seconds = 0, factor_seconds = 0, solve_seconds = 0;
  double local_seconds = 0;       ///< factorization: this rank's local subtrees by the engine
  double fanin_seconds = 0;       ///< factorization: the local subtrees' updates to the separators' owners
  double fanin_bytes = 0;         ///< ... sent by this rank
  size_type local_supernodes = 0; ///< supernodes of this rank's local subtrees
  bool local_resident = false;    ///< the engine factored them resident on the device
  double wait_seconds = 0;        ///< factorization: blocked waiting for data or notices
  double solve_wait_seconds = 0;  ///< solve: blocked waiting for messages
  double bytes_get = 0;           ///< factor blocks pulled with MPI_Get
  double bytes_sent = 0;          ///< two-sided message payload sent (notices, solve segments)
  size_type gets = 0, messages_sent = 0, solve_messages_sent = 0;
  size_type local_tasks = 0, local_blocks = 0;
  bool one_sided = false;         ///< the last factorization pulled blocks with MPI_Get
  double local_values = 0;        ///< scalars of L stored on this rank
  double flops = 0;               ///< flops of the tasks this rank ran
  int host_threads = 1;           ///< host threads of this rank (main thread + task workers)
  // Device offload (all zero when Options::offload is off).
  bool offload = false;           ///< offload was requested
  bool device_fallback = false;   ///< over device_memory_limit: this rank factored on the host
  bool cuda_aware_mpi = false;    ///< the MPI library reports CUDA-aware support
  size_type host_ops[3] = {0, 0, 0};    ///< potrf, trsm, update tasks run on the host
  size_type device_ops[3] = {0, 0, 0};  ///< ... on the device
  size_type device_supernodes = 0;      ///< device supernodes (all ranks: the same number)
  size_type device_blocks = 0;          ///< this rank's blocks resident on its device
  size_type device_need_bytes = 0;      ///< resident blocks + workspace + the largest task's cache
  size_type device_peak_bytes = 0;      ///< resident blocks, workspace, cache at the peak
  size_type device_evictions = 0;       ///< cached blocks dropped to stay within the budget
  double bytes_to_device = 0, bytes_from_device = 0;
  double device_seconds = 0;      ///< host time in device tasks (launches, transfers, fences)
  size_type device_tasks() const { return device_ops[0] + device_ops[1] + device_ops[2]; }
  size_type host_tasks() const { return host_ops[0] + host_ops[1] + host_ops[2]; }
};

namespace Impl {

/// Message tags on the library's duplicated communicator.
enum MpiTag : int { kTagNotice = 101, kTagAbort = 102, kTagRequest = 103, kTagData = 104, kTagFwd = 111, kTagBwd = 112 };

template <class T>
inline MPI_Datatype mpi_type() {
  static_assert(std::is_same<T, double>::value || std::is_same<T, float>::value || std::is_same<T, std::int64_t>::value,
                "kspd::sparse: unsupported MPI type");
  return mpi_datatype<T>();
}

/// The subtree-to-rank map: per supernode, the rank whose local subtree holds it, or -1 for
/// a separator supernode. Proportional mapping (Pothen and Sun) on the supernodal
/// elimination tree with the subtrees' flops as weights: a tree node given one rank is a
/// local subtree of that rank, whole; a node given several ranks is a separator, and its
/// children are split into two groups of about equal weight whose rank counts are
/// proportional to the weights (recursively, so any number of children and ranks works).
/// One rank: the whole forest is one local subtree. Deterministic (ties by supernode).
inline std::vector<int> subtree_map(const Symbolic& S, int P) {
  const size_type ns = size_type(S.snodes.size());
  std::vector<int> home(size_t(ns), 0);
  if (P <= 1) return home;
  std::vector<double> W(size_t(ns), 0.0);
  std::vector<std::vector<size_type>> kids(static_cast<size_t>(ns));
  std::vector<size_type> roots;
  auto sq = [](double x) { return x * (x + 1) * (2 * x + 1) / 6; };  // sum of i^2, i = 1..x
  for (size_type s = 0; s < ns; ++s) {  // postorder: children before parents
    const Supernode& sn = S.snodes[size_t(s)];
    const double m = double(sn.nrows()), k = double(sn.ncols);
    W[size_t(s)] += sq(m) - sq(m - k);  // potrf + trsm + update flops (sum of column counts squared)
    const size_type p = sn.parent;
    KSPD_REQUIRE(p < 0 || p > s, Error, "kspd::sparse: internal error: supernode " << s << " has parent " << p);
    if (p >= 0) {
      W[size_t(p)] += W[size_t(s)];
      kids[size_t(p)].push_back(s);
    } else {
      roots.push_back(s);
    }
  }
  auto whole = [&](size_type s, int r) {  // s and its descendants: consecutive in postorder
    size_type first = s;
    while (!kids[size_t(first)].empty()) first = kids[size_t(first)].front();
    for (size_type t = first; t <= s; ++t) home[size_t(t)] = r;
  };
  // Ranks [r0, r0 + p) for the subtrees of `set` (a list of tree nodes).
  std::function<void(std::vector<size_type>, int, int)> assign = [&](std::vector<size_type> set, int r0, int p) {
    if (p == 1) {
      for (size_type s : set) whole(s, r0);
      return;
    }
    if (set.size() == 1) {
      const size_type s = set.front();
      if (kids[size_t(s)].empty()) return whole(s, r0);  // a leaf cannot be split
      home[size_t(s)] = -1;
      return assign(kids[size_t(s)], r0, p);
    }
    std::sort(set.begin(), set.end(), [&](size_type a, size_type b) { return W[size_t(a)] > W[size_t(b)] || (W[size_t(a)] == W[size_t(b)] && a < b); });
    std::vector<size_type> A, B;
    double wa = 0, wb = 0;
    for (size_type s : set) (wa <= wb ? (wa += W[size_t(s)], A) : (wb += W[size_t(s)], B)).push_back(s);
    const double tot = wa + wb;
    int pa = tot > 0 ? int(std::lround(double(p) * wa / tot)) : p / 2;
    pa = std::min(std::max(pa, 1), p - 1);
    assign(std::move(A), r0, pa);
    assign(std::move(B), r0 + pa, p - pa);
  };
  if (!roots.empty()) assign(roots, 0, P);
  return home;
}

/// Owners and storage offsets of every block, the same on every rank.
struct MpiLayout {
  int rank = 0, nranks = 1;
  std::vector<int> home;              ///< per supernode: its local subtree's rank, -1: separator
  std::vector<int> owner;             ///< per block
  std::vector<size_type> offset;      ///< per block: offset in its owner's storage (-1: none, one rank's local subtree)
  std::vector<size_type> local_size;  ///< per rank: scalars stored
  std::uint64_t map_hash = 0;         ///< of the given block map's value for every block (0: none given)

  /// Local subtrees (DistributedOptions::local_subtrees) whole on their rank, the
  /// separators' blocks by the block map.
  void build(const Symbolic& S, const DistributedOptions& opt, int me, int P) {
    rank = me;
    nranks = P;
    owner.assign(S.blocks.size(), 0);
    offset.assign(S.blocks.size(), 0);
    local_size.assign(size_t(P), 0);
    const BlockMap map = opt.map ? opt.map : block_cyclic_map();
    home = opt.local_subtrees ? subtree_map(S, P) : std::vector<int>(S.snodes.size(), -1);
    map_hash = 0;
    for (size_t b = 0; b < S.blocks.size(); ++b) {
      const Block& blk = S.blocks[b];
      const int h = home[size_t(blk.snode)];
      // A given map is checked on every block, also where a local subtree overrides it
      // (its errors do not depend on the number of ranks).
      const int m = opt.map || h < 0 ? map(blk.snode, blk.target, P) : h;
      if (opt.map) map_hash = (map_hash ^ std::uint64_t(m)) * 1099511628211ull;
      const int r = h >= 0 ? h : m;
      KSPD_REQUIRE(m >= 0 && m < P, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the block map returned rank " << m << " for block (" << blk.snode
                                                                                      << ", " << blk.target << ") with "
                                                                                      << P << " ranks");
      KSPD_REQUIRE(r >= 0 && r < P, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the block map returned rank " << r << " for block (" << blk.snode
                                                                                      << ", " << blk.target << ") with "
                                                                                      << P << " ranks");
      owner[b] = r;
      // One rank: the engine's storage is the whole factor (the block storage holds the
      // separators, none); more: the local subtrees' blocks are copied here for the solve.
      if (h >= 0 && P == 1) {
        offset[b] = -1;
        continue;
      }
      offset[b] = local_size[size_t(r)];
      local_size[size_t(r)] += blk.nrows * S.snodes[size_t(blk.snode)].ncols;
    }
  }
  /// The supernodes of this rank's local subtrees (a SnodeSubset), or the separators (-1).
  SnodeSubset subset_of(int h) const {
    SnodeSubset m(home.size(), 0);
    for (size_t s = 0; s < home.size(); ++s) m[s] = home[s] == h;
    return m;
  }
  bool separator(size_type s) const { return home[size_t(s)] < 0; }

  size_type block_size(const Symbolic& S, size_type b) const {
    return S.blocks[size_t(b)].nrows * S.snodes[size_t(S.blocks[size_t(b)].snode)].ncols;
  }
  bool local(size_type b) const { return owner[size_t(b)] == rank; }
  int diag_owner(const Symbolic& S, size_type s) const { return owner[size_t(S.snodes[size_t(s)].block_begin)]; }

  /// The block of supernode t whose rows belong to supernode u (u == t: the diagonal block).
  static size_type find_block(const Symbolic& S, size_type t, size_type u) {
    const Supernode& tn = S.snodes[size_t(t)];
    size_type lo = tn.block_begin, hi = tn.block_end;
    while (lo < hi) {
      const size_type mid = (lo + hi) / 2;
      if (S.blocks[size_t(mid)].target < u) lo = mid + 1;
      else hi = mid;
    }
    KSPD_REQUIRE(lo < tn.block_end && S.blocks[size_t(lo)].target == u, Error,
                 "kspd::sparse: internal error: supernode " << t << " has no block for supernode " << u);
    return lo;
  }

  /// Entry p of A (original numbering (i, j), analysed order) -> (block, offset in block).
  static void locate(const Symbolic& S, size_type i, size_type j, size_type p, size_type& block, size_type& off) {
    const size_type ni = S.iperm[size_t(i)], nj = S.iperm[size_t(j)];
    const size_type s = S.col_snode[size_t(std::min(ni, nj))];
    const Supernode& sn = S.snodes[size_t(s)];
    const size_type q = S.value_map[size_t(p)] - sn.value_offset, ld = sn.nrows();
    const size_type col = q / ld, r = q % ld;
    size_type lo = sn.block_begin, hi = sn.block_end;  // last block with row_offset <= r
    while (hi - lo > 1) {
      const size_type mid = (lo + hi) / 2;
      if (S.blocks[size_t(mid)].row_offset <= r) lo = mid;
      else hi = mid;
    }
    block = lo;
    off = (r - S.blocks[size_t(lo)].row_offset) + col * S.blocks[size_t(lo)].nrows;
  }
};

}  // namespace Impl
}  // namespace kspd::sparse
#endif
