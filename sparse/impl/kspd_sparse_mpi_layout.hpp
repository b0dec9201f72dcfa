#ifndef KSPD_SPARSE_MPI_LAYOUT_HPP
#define KSPD_SPARSE_MPI_LAYOUT_HPP
/// \file kspd_sparse_mpi_layout.hpp
/// The map of the distributed supernodal Cholesky: one owner rank per supernode, in one
/// place (MpiLayout::build). Local subtrees by Geist and Ng's layer (subtree_map), whole on
/// their rank and balanced to within 5 %; the separator supernodes above them by list
/// scheduling on a flop model (separator_owners), so ranks with lighter subtrees take more
/// separator work and the column chunks of a big separator go to different ranks: a
/// pipelined 1D distributed dense Cholesky over the top chain, whose look-ahead is the
/// scheduler's priority order. Every rank runs the same analysis, so every
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
#include <limits>
#include <queue>
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

/// A supernode's work in the map's flop model: its column elimination (potrf, trsm and every
/// update from it), the sum of its columns' counts squared.
inline double snode_work(const Supernode& sn) {
  auto sq = [](double x) { return x * (x + 1) * (2 * x + 1) / 6; };  // sum of i^2, i = 1..x
  const double m = double(sn.nrows()), k = double(sn.ncols);
  return sq(m) - sq(m - k);
}

/// The subtree-to-rank map: per supernode, the rank whose local subtree holds it, or -1 for
/// a separator supernode (Geist and Ng's layer of subtrees, as MUMPS' layer L0): starting
/// from the roots, the whole subtrees of a frontier are dealt to the ranks largest first,
/// each to the least loaded rank (weights: the subtrees' flops), and while the most loaded
/// rank carries more than kBalance over the mean, the heaviest frontier subtree that has
/// children is made a separator and replaced by its children (at most kMaxFrontier per
/// rank). A rank may hold several local subtrees; every supernode above the frontier is a
/// separator of all ranks (separator_owners places it). One rank: the whole forest is one
/// local subtree. Deterministic (ties by supernode).
inline std::vector<int> subtree_map(const Symbolic& S, int P) {
  constexpr double kBalance = 0.05;
  constexpr size_t kMaxFrontier = 64;
  const size_type ns = size_type(S.snodes.size());
  std::vector<int> home(size_t(ns), 0);
  if (P <= 1) return home;
  std::vector<double> W(size_t(ns), 0.0);
  std::vector<std::vector<size_type>> kids(static_cast<size_t>(ns));
  std::vector<size_type> frontier;
  for (size_type s = 0; s < ns; ++s) {  // postorder: children before parents
    const Supernode& sn = S.snodes[size_t(s)];
    W[size_t(s)] += snode_work(sn);
    const size_type p = sn.parent;
    KSPD_REQUIRE(p < 0 || p > s, Error, "kspd::sparse: internal error: supernode " << s << " has parent " << p);
    if (p >= 0) {
      W[size_t(p)] += W[size_t(s)];
      kids[size_t(p)].push_back(s);
    } else {
      frontier.push_back(s);
    }
  }
  std::vector<char> separator(size_t(ns), 0);
  std::vector<int> rank_of;  // per frontier entry (sorted), its rank
  for (;;) {
    std::sort(frontier.begin(), frontier.end(), [&](size_type a, size_type b) {
      return W[size_t(a)] > W[size_t(b)] || (W[size_t(a)] == W[size_t(b)] && a < b);
    });
    std::vector<double> load(size_t(P), 0.0);
    rank_of.assign(frontier.size(), 0);
    double total = 0;
    for (size_t q = 0; q < frontier.size(); ++q) {
      const int r = int(std::min_element(load.begin(), load.end()) - load.begin());
      load[size_t(r)] += W[size_t(frontier[q])];
      rank_of[q] = r;
      total += W[size_t(frontier[q])];
    }
    const double most = *std::max_element(load.begin(), load.end());
    const bool balanced = frontier.size() >= size_t(P) && most <= (1 + kBalance) * total / P;
    if (balanced || frontier.size() >= kMaxFrontier * size_t(P)) break;
    const auto heavy = std::find_if(frontier.begin(), frontier.end(), [&](size_type s) { return !kids[size_t(s)].empty(); });
    if (heavy == frontier.end()) break;  // only leaves left: as even as they come
    const size_type s = *heavy;
    frontier.erase(heavy);
    separator[size_t(s)] = 1;
    frontier.insert(frontier.end(), kids[size_t(s)].begin(), kids[size_t(s)].end());
  }
  for (size_t q = 0; q < frontier.size(); ++q) {  // a subtree and its descendants: consecutive in postorder
    size_type first = frontier[q];
    while (!kids[size_t(first)].empty()) first = kids[size_t(first)].front();
    for (size_type t = first; t <= frontier[q]; ++t) home[size_t(t)] = rank_of[q];
  }
  for (size_type s = 0; s < ns; ++s)
    if (separator[size_t(s)]) home[size_t(s)] = -1;
  return home;
}

/// The owners of the separator supernodes (home[s] < 0), by list scheduling on a flop
/// model: every rank (or group) is one processor that first runs its local subtrees, and a
/// separator supernode's work is its column elimination (sum of its column counts squared:
/// potrf, trsm and every update from it). A separator is ready when its children are: a
/// local child when its rank's local work is done, a separator child when that child's
/// potrf, trsm and update into it are done (the rest of the child's updates overlap, as
/// the engine's look-ahead runs them). Ready supernodes are taken in order of their ready
/// time, each to the rank where it would finish first (ties: the rank idle longest, then
/// the lowest). So ranks whose subtrees are lighter take more of the separators, and
/// consecutive chunks of a separator's chain (supernodes of at most Options::max_supernode
/// columns) go to different ranks: a pipelined 1D distribution of the top chain over every
/// rank. Deterministic: the same on every rank.
inline std::vector<int> separator_owners(const Symbolic& S, const std::vector<int>& home, int P) {
  const size_type ns = size_type(S.snodes.size());
  std::vector<int> owner(home);
  std::vector<double> w(static_cast<size_t>(ns)), crit(static_cast<size_t>(ns)), local(static_cast<size_t>(P), 0.0),
      ready(static_cast<size_t>(ns), 0.0);
  std::vector<int> pending(size_t(ns), 0);
  for (size_type s = 0; s < ns; ++s) {
    const Supernode& sn = S.snodes[size_t(s)];
    const double m = double(sn.nrows()), k = double(sn.ncols);
    w[size_t(s)] = snode_work(sn);
    // potrf + trsm + the update into the parent (its rows of s: the block that targets it)
    double rp = 0;
    for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b)
      if (S.blocks[size_t(b)].target == sn.parent) rp = double(S.blocks[size_t(b)].nrows);
    crit[size_t(s)] = std::min(w[size_t(s)], k * k * k / 3 + k * k * (m - k) + k * rp * (m - k));
    if (home[size_t(s)] >= 0) local[size_t(home[size_t(s)])] += w[size_t(s)];
  }
  for (size_type s = 0; s < ns; ++s) {
    const size_type p = S.snodes[size_t(s)].parent;
    if (p < 0 || home[size_t(p)] >= 0) continue;
    if (home[size_t(s)] >= 0) ready[size_t(p)] = std::max(ready[size_t(p)], local[size_t(home[size_t(s)])]);
    else ++pending[size_t(p)];
  }
  using Item = std::pair<double, size_type>;  // (ready time, supernode)
  std::priority_queue<Item, std::vector<Item>, std::greater<>> q;
  for (size_type s = 0; s < ns; ++s)
    if (home[size_t(s)] < 0 && pending[size_t(s)] == 0) q.emplace(ready[size_t(s)], s);
  std::vector<double> avail(local);
  while (!q.empty()) {
    const auto [t0, s] = q.top();
    q.pop();
    int best = 0;
    double best_end = std::numeric_limits<double>::infinity();
    for (int r = 0; r < P; ++r) {
      const double end = std::max(avail[size_t(r)], t0) + w[size_t(s)];
      if (end < best_end || (end == best_end && avail[size_t(r)] < avail[size_t(best)])) {
        best = r;
        best_end = end;
      }
    }
    owner[size_t(s)] = best;
    avail[size_t(best)] = best_end;
    const size_type p = S.snodes[size_t(s)].parent;
    if (p >= 0 && home[size_t(p)] < 0) {
      ready[size_t(p)] = std::max(ready[size_t(p)], best_end - w[size_t(s)] + crit[size_t(s)]);
      if (--pending[size_t(p)] == 0) q.emplace(ready[size_t(p)], p);
    }
  }
  return owner;
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
  /// separator on kTopRank (top_rank), else by DistributedOptions::map, or by
  /// separator_owners (file comment); without local subtrees every supernode cyclic over
  /// the ranks. With groups (device groups; null: every rank its own) the map is over the
  /// groups (subtree_map's and a given map's "ranks" are groups) and each group's part goes
  /// to its leader.
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
    if (opt.local_subtrees) home = subtree_map(S, G);
    else home.assign(size_t(ns), -1);
    owner.assign(size_t(ns), 0);
    map_hash = 0;
    const std::vector<int> scheduled = top || opt.map || !opt.local_subtrees ? home : separator_owners(S, home, G);
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
        // no local subtrees (tests of the fan-in): every supernode cyclic over the ranks
        r = opt.local_subtrees ? scheduled[size_t(s)] : int(s % size_type(G));
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
