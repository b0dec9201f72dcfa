#ifndef KSPD_SPARSE_MPI_GROUPS_HPP
#define KSPD_SPARSE_MPI_GROUPS_HPP
/// \file kspd_sparse_mpi_groups.hpp
/// Device groups of the distributed solver: the ranks that share one device.
/// Two processes on one GPU (no MPS) time-slice it: their device work adds up to one
/// rank's, and everything a split of the tree between them adds (A's values to the other
/// rank, its contributions back through the host, context switches) is pure overhead. So
/// when the factorization runs resident on the device, the block map (MpiLayout::build) is
/// over the devices, not the ranks: the ranks on one node whose execution space runs on
/// one device form a group, its leader is the lowest rank, and only leaders own
/// supernodes. The other ranks own nothing: they send their input entries to the owners,
/// take part in the collectives that agree on the result and errors, and in the solve
/// (their rows: none).
/// The device's identity is kspd::compat::device_identity (CUDA: PCI location); a host
/// execution space has none, so on a host build every rank is its own group. Tests give
/// per-rank device ids instead (device_ids_for_testing: internal, not an option).

#include <mpi.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <thread>
#include <utility>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_error.hpp"
#include "kspd_sparse_mpi_error.hpp"

namespace kspd::sparse::Impl {

/// The ranks' device groups: groups are numbered by their leaders (ascending).
struct DeviceGroups {
  std::vector<int> group;    ///< per rank: its group
  std::vector<int> leaders;  ///< per group: its leader, the group's lowest rank (ascending)

  int size() const { return int(leaders.size()); }
  int leader_of(int r) const { return leaders[size_t(group[size_t(r)])]; }
  bool leader(int r) const { return leader_of(r) == r; }
  /// Every rank its own group (no device, or a map over the ranks).
  static DeviceGroups identity(int P) {
    DeviceGroups g;
    for (int r = 0; r < P; ++r) {
      g.group.push_back(r);
      g.leaders.push_back(r);
    }
    return g;
  }
};

/// The groups of ranks with per-rank node and device ids: ranks with the same node and
/// the same device id >= 0 share a group; a rank with device id < 0 (no device) is alone.
inline DeviceGroups group_ranks(const std::vector<std::int64_t>& node, const std::vector<std::int64_t>& device) {
  KSPD_REQUIRE(node.size() == device.size() && !node.empty(), InvalidArgument,
               "kspd::sparse: device groups need one node and one device id per rank (" << node.size() << " and "
                                                                                        << device.size() << ")");
  DeviceGroups g;
  std::map<std::pair<std::int64_t, std::int64_t>, int> seen;  // (node, device) -> group
  for (size_t r = 0; r < node.size(); ++r) {
    int k = -1;
    if (device[r] >= 0) {
      const auto it = seen.find({node[r], device[r]});
      if (it != seen.end()) k = it->second;
    }
    if (k < 0) {  // a new group led by r (ranks ascend: r is its lowest rank)
      k = int(g.leaders.size());
      g.leaders.push_back(int(r));
      if (device[r] >= 0) seen[{node[r], device[r]}] = k;
    }
    g.group.push_back(k);
  }
  return g;
}

/// Tests only (internal): per-rank device ids that replace the detected ones when not
/// empty (one per rank of the communicator), so a host build can run "2 ranks share one
/// device" or "4 ranks on 2 devices".
inline std::vector<std::int64_t>& device_ids_for_testing() {
  static std::vector<std::int64_t> ids;
  return ids;
}

/// Collective: the device groups of comm's ranks for execution space instance `exec`.
/// The node is the lowest rank of the node's shared-memory communicator.
template <class Exec>
DeviceGroups find_device_groups(MPI_Comm comm, const Exec& exec) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  MPI_Comm node = MPI_COMM_NULL;
  KSPD_MPI_SAFE_CALL(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, &node));
  int lowest = rank;
  const int rc = MPI_Allreduce(&rank, &lowest, 1, MPI_INT, MPI_MIN, node);
  KSPD_MPI_SAFE_CALL(MPI_Comm_free(&node));
  KSPD_MPI_SAFE_CALL(rc);
  const std::vector<std::int64_t>& given = device_ids_for_testing();
  std::int64_t mine[2] = {lowest, kspd::compat::device_identity(exec)};
  int bad = !given.empty() && int(given.size()) != P;
  if (!given.empty() && !bad) mine[1] = given[size_t(rank)];
  KSPD_MPI_SAFE_CALL(MPI_Allreduce(MPI_IN_PLACE, &bad, 1, MPI_INT, MPI_MAX, comm));
  KSPD_REQUIRE(!bad, InvalidArgument,
               "kspd::sparse: device_ids_for_testing has " << given.size() << " ids for " << P << " ranks");
  std::vector<std::int64_t> all(size_t(2 * P));
  KSPD_MPI_SAFE_CALL(MPI_Allgather(mine, 2, MPI_INT64_T, all.data(), 2, MPI_INT64_T, comm));
  std::vector<std::int64_t> nodes(static_cast<size_t>(P)), devs(static_cast<size_t>(P));
  for (int r = 0; r < P; ++r) {
    nodes[size_t(r)] = all[size_t(2 * r)];
    devs[size_t(r)] = all[size_t(2 * r + 1)];
  }
  return group_ranks(nodes, devs);
}

/// Collective: a barrier in which a rank that owns nothing (sleep) waits in 100 us sleeps
/// instead of polling, so it takes no CPU from its leader's host thread, which launches the
/// device work (the ranks of a group share a node, often a core; an MPI wait polls). The
/// other ranks wait as usual. Returns after every rank arrived.
inline void quiet_barrier(MPI_Comm comm, bool sleep) {
  MPI_Request req = MPI_REQUEST_NULL;
  KSPD_MPI_SAFE_CALL(MPI_Ibarrier(comm, &req));
  if (!sleep) {
    KSPD_MPI_SAFE_CALL(MPI_Wait(&req, MPI_STATUS_IGNORE));
    return;
  }
  for (int done = 0;;) {
    KSPD_MPI_SAFE_CALL(MPI_Test(&req, &done, MPI_STATUS_IGNORE));
    if (done) return;
    std::this_thread::sleep_for(std::chrono::microseconds(100));
  }
}

}  // namespace kspd::sparse::Impl
#endif
