#ifndef KSPD_SPARSE_MPI_CHUNKED_HPP
#define KSPD_SPARSE_MPI_CHUNKED_HPP
/// \file kspd_sparse_mpi_chunked.hpp
/// 64-bit counts over MPI's int counts: every transfer of the distributed solver whose
/// size depends on the problem goes through for_each_chunk, which splits a count into
/// pieces of at most mpi_chunk_elements() elements (default 2^30; tests set it small so
/// that every path splits). Both sides of a transfer compute the same pieces from the
/// same 64-bit count, and the pieces of one point-to-point transfer are sent in order on
/// one (source, tag): MPI's non-overtaking rule matches them in order.
///
/// Patterns: bcast_n, isend_n / irecv_n (requests appended), recv_n,
/// scatterv_n / gatherv_n (rooted, 64-bit counts and displacements, point to point),
/// allgatherv_n (a chunked broadcast per rank), alltoallv_n (pairwise point to point).
/// Collectives are entered by every rank of the communicator with consistent counts.

#include <mpi.h>

#include <algorithm>
#include <atomic>
#include <climits>
#include <cstdint>
#include <cstring>
#include <type_traits>
#include <deque>
#include <vector>

#include "kspd_sparse_mpi_error.hpp"

namespace kspd::sparse::Impl {

/// The largest count (in elements of the transfer's datatype) of one MPI call: internal,
/// settable from tests (any value in [1, INT_MAX]).
inline std::int64_t& mpi_chunk_elements() {
  static std::int64_t c = std::int64_t(1) << 30;
  return c;
}

/// How many transfers were split into more than one piece, per pattern (tests read it).
struct MpiChunkStats {
  enum Pattern { Bcast, Send, Recv, Scatter, Gather, Allgather, Alltoall, Count };
  std::atomic<std::int64_t> split[Count] = {};
  void reset() {
    for (auto& s : split) s = 0;
  }
};
inline MpiChunkStats& mpi_chunk_stats() {
  static MpiChunkStats s;
  return s;
}

/// Message tag of the point-to-point pieces of the rooted/pairwise collectives below (no
/// other traffic is in flight on the library's communicator while they run).
constexpr int kTagChunked = 120;

inline std::int64_t mpi_chunk() { return std::clamp<std::int64_t>(mpi_chunk_elements(), 1, INT_MAX); }
/// Counts a transfer of the pattern p as split when count needs more than one piece.
inline void note_split(MpiChunkStats::Pattern p, std::int64_t count) {
  if (count > mpi_chunk()) ++mpi_chunk_stats().split[p];
}

/// f(offset, int count) for the pieces of [0, count); nothing for count 0.
template <class F>
void for_each_chunk(std::int64_t count, MpiChunkStats::Pattern p, F&& f) {
  const std::int64_t c = mpi_chunk();
  note_split(p, count);
  for (std::int64_t o = 0; o < count; o += c) f(o, int(std::min(c, count - o)));
}

template <class T>
inline MPI_Datatype mpi_datatype() {
  if constexpr (std::is_same<T, double>::value) return MPI_DOUBLE;
  else if constexpr (std::is_same<T, float>::value) return MPI_FLOAT;
  else if constexpr (std::is_same<T, std::int64_t>::value || std::is_same<T, long long>::value) return MPI_INT64_T;
  else if constexpr (std::is_same<T, int>::value) return MPI_INT;
  else {
    static_assert(sizeof(T) == 1, "kspd::sparse: unsupported MPI type");
    return MPI_BYTE;
  }
}

template <class T>
void bcast_n(T* buf, std::int64_t count, int root, MPI_Comm comm) {
  for_each_chunk(count, MpiChunkStats::Bcast, [&](std::int64_t o, int n) {
    KSPD_MPI_SAFE_CALL(MPI_Bcast(buf + o, n, mpi_datatype<T>(), root, comm));
  });
}

/// Nonblocking send of count elements in pieces; their requests are appended to reqs.
template <class T, class Reqs>
void isend_n(const T* buf, std::int64_t count, int dst, int tag, MPI_Comm comm, Reqs& reqs) {
  for_each_chunk(count, MpiChunkStats::Send, [&](std::int64_t o, int n) {
    reqs.emplace_back(MPI_REQUEST_NULL);
    KSPD_MPI_SAFE_CALL(MPI_Isend(const_cast<T*>(buf + o), n, mpi_datatype<T>(), dst, tag, comm, &reqs.back()));
  });
}
template <class T, class Reqs>
void irecv_n(T* buf, std::int64_t count, int src, int tag, MPI_Comm comm, Reqs& reqs) {
  for_each_chunk(count, MpiChunkStats::Recv, [&](std::int64_t o, int n) {
    reqs.emplace_back(MPI_REQUEST_NULL);
    KSPD_MPI_SAFE_CALL(MPI_Irecv(buf + o, n, mpi_datatype<T>(), src, tag, comm, &reqs.back()));
  });
}
/// Blocking receive of count elements in pieces.
template <class T>
void recv_n(T* buf, std::int64_t count, int src, int tag, MPI_Comm comm) {
  for_each_chunk(count, MpiChunkStats::Recv, [&](std::int64_t o, int n) {
    KSPD_MPI_SAFE_CALL(MPI_Recv(buf + o, n, mpi_datatype<T>(), src, tag, comm, MPI_STATUS_IGNORE));
  });
}
template <class Reqs>
void wait_all(Reqs& reqs) {
  for (auto& r : reqs) KSPD_MPI_SAFE_CALL(MPI_Wait(&r, MPI_STATUS_IGNORE));
  reqs.clear();
}

/// Rooted scatter: rank r receives counts[r] elements from the root's send + displs[r]
/// (counts and displs significant on the root; recvcount on every rank).
template <class T>
void scatterv_n(const T* send, const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& displs, T* recv,
                std::int64_t recvcount, int root, MPI_Comm comm) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  std::deque<MPI_Request> reqs;
  if (rank == root) {
    for (int r = 0; r < P; ++r)
      if (r != root) isend_n(send + displs[size_t(r)], counts[size_t(r)], r, kTagChunked, comm, reqs);
    if (recvcount > 0) std::memmove(recv, send + displs[size_t(root)], size_t(recvcount) * sizeof(T));
  } else {
    irecv_n(recv, recvcount, root, kTagChunked, comm, reqs);
  }
  note_split(MpiChunkStats::Scatter, recvcount);
  wait_all(reqs);
}

/// Rooted gather, the reverse of scatterv_n.
template <class T>
void gatherv_n(const T* send, std::int64_t sendcount, T* recv, const std::vector<std::int64_t>& counts,
               const std::vector<std::int64_t>& displs, int root, MPI_Comm comm) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  std::deque<MPI_Request> reqs;
  if (rank == root) {
    for (int r = 0; r < P; ++r)
      if (r != root) irecv_n(recv + displs[size_t(r)], counts[size_t(r)], r, kTagChunked, comm, reqs);
    if (sendcount > 0) std::memmove(recv + displs[size_t(root)], send, size_t(sendcount) * sizeof(T));
  } else {
    isend_n(send, sendcount, root, kTagChunked, comm, reqs);
  }
  note_split(MpiChunkStats::Gather, sendcount);
  wait_all(reqs);
}

/// Every rank's send (counts[r] elements from rank r) into every rank's recv + displs[r].
template <class T>
void allgatherv_n(const T* send, T* recv, const std::vector<std::int64_t>& counts, const std::vector<std::int64_t>& displs,
                  MPI_Comm comm) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  if (counts[size_t(rank)] > 0) std::memmove(recv + displs[size_t(rank)], send, size_t(counts[size_t(rank)]) * sizeof(T));
  note_split(MpiChunkStats::Allgather, counts[size_t(rank)]);
  for (int r = 0; r < P; ++r) bcast_n(recv + displs[size_t(r)], counts[size_t(r)], r, comm);
}

/// Personalized all-to-all: this rank sends scounts[r] elements from send + sdispls[r] to
/// rank r and receives rcounts[r] elements from rank r at recv + rdispls[r].
template <class T>
void alltoallv_n(const T* send, const std::vector<std::int64_t>& scounts, const std::vector<std::int64_t>& sdispls, T* recv,
                 const std::vector<std::int64_t>& rcounts, const std::vector<std::int64_t>& rdispls, MPI_Comm comm) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  std::deque<MPI_Request> reqs;
  for (int r = 0; r < P; ++r)
    if (r != rank) irecv_n(recv + rdispls[size_t(r)], rcounts[size_t(r)], r, kTagChunked, comm, reqs);
  for (int r = 0; r < P; ++r)
    if (r != rank) isend_n(send + sdispls[size_t(r)], scounts[size_t(r)], r, kTagChunked, comm, reqs);
  if (scounts[size_t(rank)] > 0)
    std::memmove(recv + rdispls[size_t(rank)], send + sdispls[size_t(rank)], size_t(scounts[size_t(rank)]) * sizeof(T));
  for (int r = 0; r < P; ++r)
    if (r != rank) note_split(MpiChunkStats::Alltoall, scounts[size_t(r)]);
  wait_all(reqs);
}

}  // namespace kspd::sparse::Impl
#endif
