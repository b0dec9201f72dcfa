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

/// Maps a block to a rank: (source supernode, target supernode of the block's rows, number
/// of ranks) -> rank in [0, nranks). symPACK's map(i, j) with i = target, j = source; the
/// diagonal block of s is (s, s).
using BlockMap = std::function<int(size_type snode, size_type target, int nranks)>;

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

/// Options of the distributed solver: the single-process options plus the block mapping.
/// With no map given, small subtrees of the supernodal elimination tree (subtree work at
/// most total / (nranks * subtree_granularity)) are placed whole on one rank each (the
/// least loaded, largest first: no messages inside them) and the supernodes above use the
/// 2D block-cyclic map; subtree_granularity = 0 maps every block 2D block-cyclically.
/// A given map is used for every block.
struct DistributedOptions : Options {
  BlockMap map;
  double subtree_granularity = 4.0;
  /// Pull factor blocks with MPI_Get (passive target); false, or a window that cannot be
  /// created: request/reply messages (the owner serves requests while it polls).
  bool one_sided = true;
  /// Device offload (the inherited Options::offload): one MPI rank per GPU; a supernode
  /// is a device supernode when its width reaches potrf_threshold, its panel below the
  /// diagonal (rows x width) trsm_threshold or its update product (rows below)^2 x width
  /// update_threshold, and every supernode its rows update is one too (up the tree). The
  /// rank's blocks of device supernodes live on its GPU; their potrf and trsm run there,
  /// and so does an update into them whose product m1 x m2 x width reaches
  /// update_threshold. device_memory_limit bounds the rank's device memory: over it, the
  /// rank factors on the host (fallback Cpu) or every rank throws OutOfDeviceMemory (Fail).
  /// Blocks move between ranks through host memory ("host staging").
  /// gpu_direct: ask MPI to move device blocks directly (CUDA-aware MPI). Not implemented
  /// yet: reported (DistributedStats::gpu_direct, cuda_aware_mpi), host staging is used.
  bool gpu_direct = false;
  // Options::threads: host threads per rank (the main thread, which makes every MPI call and
  // runs the device tasks, plus threads - 1 workers for the host tasks); 0: the cores of the
  // node shared among the ranks on it. More than 1 needs MPI_THREAD_FUNNELED (else InvalidArgument; 0 then gives 1).
};

/// Per-rank communication and time counters (this rank's view).
struct DistributedStats {
  double analyse_seconds = 0, distribute_seconds = 0, factor_seconds = 0, solve_seconds = 0;
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
  bool gpu_direct = false;        ///< DistributedOptions::gpu_direct was requested (host staging used)
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

/// Owners and storage offsets of every block, the same on every rank.
struct MpiLayout {
  int rank = 0, nranks = 1;
  std::vector<int> owner;             ///< per block
  std::vector<size_type> offset;      ///< per block: offset in its owner's storage
  std::vector<size_type> local_size;  ///< per rank: scalars stored

  void build(const Symbolic& S, const DistributedOptions& opt, int me, int P) {
    rank = me;
    nranks = P;
    owner.assign(S.blocks.size(), 0);
    offset.assign(S.blocks.size(), 0);
    local_size.assign(size_t(P), 0);
    const BlockMap map = opt.map ? opt.map : block_cyclic_map();
    const std::vector<int> home = opt.map || opt.subtree_granularity <= 0 || P == 1
                                      ? std::vector<int>(S.snodes.size(), -1)
                                      : subtree_homes(S, P, opt.subtree_granularity);
    for (size_t b = 0; b < S.blocks.size(); ++b) {
      const Block& blk = S.blocks[b];
      const int h = home[size_t(blk.snode)];
      const int r = h >= 0 ? h : map(blk.snode, blk.target, P);
      KSPD_REQUIRE(r >= 0 && r < P, InvalidArgument,
                   "kspd::sparse::DistributedCholesky: the block map returned rank " << r << " for block (" << blk.snode
                                                                                      << ", " << blk.target << ") with "
                                                                                      << P << " ranks");
      owner[b] = r;
      offset[b] = local_size[size_t(r)];
      local_size[size_t(r)] += blk.nrows * S.snodes[size_t(blk.snode)].ncols;
    }
  }
  /// Per supernode: the rank of the small subtree it belongs to, or -1 (mapped 2D).
  static std::vector<int> subtree_homes(const Symbolic& S, int P, double granularity) {
    const size_t ns = S.snodes.size();
    std::vector<double> W(ns, 0.0);
    double total = 0;
    for (size_t s = 0; s < ns; ++s) {  // postorder: children before parents
      const double k = double(S.snodes[s].ncols), m = double(S.snodes[s].nrows());
      W[s] += k * m * m;
      total += k * m * m;
      const size_type p = S.snodes[s].parent;
      if (p >= 0 && size_t(p) <= s) return std::vector<int>(ns, -1);  // not postordered: no subtrees
      if (p >= 0) W[size_t(p)] += W[s];
    }
    const double limit = total / (double(P) * granularity);
    std::vector<int> home(ns, -1);
    std::vector<std::pair<double, size_t>> roots;
    for (size_t s = ns; s-- > 0;) {
      const size_type p = S.snodes[s].parent;
      if (p >= 0 && home[size_t(p)] != -1) home[s] = home[size_t(p)];  // inside a subtree
      else if (W[s] <= limit) {
        home[s] = -2;  // a subtree root, rank assigned below
        roots.push_back({W[s], s});
      }
    }
    std::sort(roots.begin(), roots.end(), [](const auto& a, const auto& b) { return a.first > b.first || (a.first == b.first && a.second < b.second); });
    std::vector<double> load(size_t(P), 0.0);
    std::vector<int> rank_of(ns, -1);
    for (const auto& r : roots) {
      const int q = int(std::min_element(load.begin(), load.end()) - load.begin());
      load[size_t(q)] += r.first;
      rank_of[r.second] = q;
    }
    for (size_t s = ns; s-- > 0;) {
      if (rank_of[s] >= 0) home[s] = rank_of[s];
      else if (home[s] != -1) home[s] = home[size_t(S.snodes[s].parent)];
    }
    return home;
  }

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
