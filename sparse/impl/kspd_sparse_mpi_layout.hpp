#ifndef KSPD_SPARSE_MPI_LAYOUT_HPP
#define KSPD_SPARSE_MPI_LAYOUT_HPP
/// \file kspd_sparse_mpi_layout.hpp
/// The map of the distributed supernodal Cholesky: one owner rank per supernode, in one
/// place (MpiLayout::build). Local subtrees by proportional mapping (subtree_map), whole on
/// their rank; each separator supernode on a rank of the range the proportional mapping gave
/// it, cyclically along the range's separators in postorder, so the column chunks of a big
/// separator (a chain of supernodes of at most Options::max_supernode columns) go to
/// consecutive ranks: a 1D block-cyclic distributed dense Cholesky over the top chain, whose
/// look-ahead is the scheduler's priority order. Every rank runs the same analysis, so every
/// rank knows every owner and no map travels. The factor lives in each rank's engine
/// storage (the owner's panel of each supernode).
/// The top-rank map (device offload with several ranks, kspd_sparse_mpi_top.hpp): the
/// local subtrees as above, every separator on rank 0 (kTopRank), whose device factors
/// them in one resident run.
/// Over device groups (kspd_sparse_mpi_groups.hpp: the ranks that share one device, for
/// the resident placement): the map above over the G groups, each group's part on its
/// leader; the other ranks own nothing. With one group the leader (rank 0) owns every
/// supernode: the one-rank engine, with no fan-in (single()).

#include <mpi.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <functional>
#include <map>
#include <utility>
#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_mpi_groups.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

/// Per-rank communication and time counters (this rank's view).
struct DistributedStats {
  double analyse_seconds = 0, distribute_seconds = 0, factor_seconds = 0, solve_seconds = 0;
  size_type analyses = 0;         ///< analyses this solver ran (a factorization of the analysed pattern runs none)
  double local_seconds = 0;       ///< factorization: this rank's engine run (its tasks and the transport)
  double fanin_bytes = 0;         ///< factorization: contributions sent by this rank (payload bytes)
  size_type fanin_messages = 0;   ///< ... their number
  bool fanin_in_place = false;    ///< the top-rank map sent its contributions in place, not through host staging (DistributedOptions::device_aware_mpi)
  size_type local_supernodes = 0; ///< supernodes of this rank's local subtrees
  size_type owned_separators = 0; ///< separator supernodes this rank owns
  bool local_resident = false;    ///< one rank: the engine factored resident on the device
  double solve_wait_seconds = 0;  ///< solve: blocked waiting for messages
  double bytes_sent = 0;          ///< solve: message payload sent
  size_type solve_messages_sent = 0;
  double local_values = 0;        ///< scalars of L stored on this rank (its supernodes' panels)
  int host_threads = 1;           ///< the engine's workers on this rank
  bool offload = false;           ///< offload was requested
  bool device_fallback = false;   ///< the engine fell back to the host
  size_type host_ops[3] = {0, 0, 0};    ///< potrf, trsm, update tasks run on the host
  size_type device_ops[3] = {0, 0, 0};  ///< ... on the device
  FactorStats::Timeline timeline;       ///< this rank's engine's phases (with Offload::timeline)
  size_type device_tasks() const { return device_ops[0] + device_ops[1] + device_ops[2]; }
  size_type host_tasks() const { return host_ops[0] + host_ops[1] + host_ops[2]; }
};

namespace Impl {

/// Message tags on the library's duplicated communicator.
enum MpiTag : int { kTagNotice = 101, kTagData = 104, kTagFwd = 111, kTagBwd = 112, kTagTop = 121, kTagTopData = 122 };

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
/// range (optional): per separator, the first rank and the number of ranks it was given.
inline std::vector<int> subtree_map(const Symbolic& S, int P, std::vector<std::pair<int, int>>* range = nullptr) {
  const size_type ns = size_type(S.snodes.size());
  std::vector<int> home(size_t(ns), 0);
  if (range) range->assign(size_t(ns), {0, 1});
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
      if (range) (*range)[size_t(s)] = {r0, p};
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

/// The owner of every supernode, the same on every rank.
struct MpiLayout {
  int rank = 0, nranks = 1;
  std::vector<int> home;     ///< per supernode: its local subtree's rank, -1: separator
  std::vector<int> owner;    ///< per supernode: the rank that factors it and holds its panel
  std::vector<int> leaders;  ///< the ranks that may own supernodes (ascending): every rank, or the device groups' leaders
  std::uint64_t map_hash = 0;  ///< of the given map's value for every supernode (0: none given)
  bool top = false;            ///< the top-rank map: every separator on kTopRank
  static constexpr int kTopRank = 0;

  /// Local subtrees (DistributedOptions::local_subtrees) whole on their rank; each
  /// separator on kTopRank (top_rank), else by DistributedOptions::map, or cyclically over
  /// the separators of its rank range in postorder (file comment). With groups (device
  /// groups; null: every rank its own) the map is over the groups (the proportional
  /// mapping's and a given map's "ranks" are groups) and each group's part goes to its leader.
  void build(const Symbolic& S, const DistributedOptions& opt, int me, int P, bool top_rank = false,
             const DeviceGroups* groups = nullptr) {
    rank = me;
    nranks = P;
    leaders = groups ? groups->leaders : DeviceGroups::identity(P).leaders;
    KSPD_REQUIRE(!leaders.empty() && leaders.front() == 0 && leaders.back() < P, Error,
                 "kspd::sparse: internal error: the device groups do not fit " << P << " ranks");
    const int G = int(leaders.size());
    top = top_rank && G > 1;
    const size_type ns = size_type(S.snodes.size());
    std::vector<std::pair<int, int>> range;  // (in groups)
    if (opt.local_subtrees) home = subtree_map(S, G, &range);
    else {
      home.assign(size_t(ns), -1);
      range.assign(size_t(ns), {0, G});
    }
    owner.assign(size_t(ns), 0);
    map_hash = 0;
    std::map<std::pair<int, int>, int> next;  // per group range: the next separator's offset
    for (size_type s = 0; s < ns; ++s) {
      const int h = home[size_t(s)];
      int r = h;
      if (opt.map) {
        // A given map is checked on every supernode, also where a local subtree overrides
        // it (its errors do not depend on the number of ranks).
        const int m = opt.map(s, G);
        KSPD_REQUIRE(m >= 0 && m < G, InvalidArgument,
                     "kspd::sparse::DistributedCholesky: the map returned rank " << m << " for supernode " << s << " with "
                                                                                  << G << " ranks");
        map_hash = (map_hash ^ std::uint64_t(m)) * 1099511628211ull;
        if (h < 0) r = m;
      }
      if (top && h < 0) {
        r = 0;  // (group 0: kTopRank leads it)
      } else if (!opt.map && h < 0) {
        const auto rg = range[size_t(s)];
        r = rg.first + next[rg]++ % rg.second;
      }
      owner[size_t(s)] = leaders[size_t(r)];
      if (h >= 0) home[size_t(s)] = leaders[size_t(h)];
    }
  }
  /// One group (several ranks on one device, or one rank): its leader, rank 0, owns
  /// every supernode and runs the one-rank engine.
  bool single() const { return leaders.size() == 1; }
  /// Whether rank r owns no supernode by construction (not a leader).
  bool idle(int r) const { return !std::binary_search(leaders.begin(), leaders.end(), r); }
  /// The supernodes rank h owns (a SnodeSubset).
  SnodeSubset subset_of(int h) const {
    SnodeSubset m(owner.size(), 0);
    for (size_t s = 0; s < owner.size(); ++s) m[s] = owner[s] == h;
    return m;
  }
  /// The owner of block b (its supernode's).
  int block_owner(const Symbolic& S, size_type b) const { return owner[size_t(S.blocks[size_t(b)].snode)]; }
  bool local_block(const Symbolic& S, size_type b) const { return block_owner(S, b) == rank; }

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
};

}  // namespace Impl
}  // namespace kspd::sparse
#endif
