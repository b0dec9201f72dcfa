#ifndef KSPD_SPARSE_MPI_TOP_HPP
#define KSPD_SPARSE_MPI_TOP_HPP
/// \file kspd_sparse_mpi_top.hpp
/// The distributed factorization with device offload (MpiLayout::top): the separators
/// factored on the device of one rank, the "top rank" (MpiLayout::kTopRank, rank 0), not
/// on host workers.
///  - Every other rank factors its local subtrees in one resident run (ResidentFactor,
///    subset = its subtrees; the separators' panels receive their updates on its device),
///    then packs its contributions to the separators (FanInPlan: the blocks of separator
///    panels its updates touched, for every target, in one order both sides compute) on
///    the device, one gather kernel into a contiguous device buffer, and sends it once to
///    the top rank: a header {1, words} (kTagTop) and the payload in int-sized pieces
///    (kTagTopData, kspd_sparse_mpi_chunked.hpp), from the device buffer itself with a
///    device-aware MPI, else through one copy to (pinned, on CUDA) host memory
///    (kspd_sparse_mpi_device_aware.hpp: DistributedOptions::device_aware_mpi). A rank whose run failed (pivot or exception) sends
///    {-1, 0} instead, so the top rank never waits for a message that will not come.
///  - The top rank runs ONE resident factorization over its subtrees and every separator.
///    Its level hook (ResidentFactor::LevelHook), before the first level holding a
///    separator that a rank contributes to, receives that rank's message (blocking: the
///    other ranks never wait for the top rank during the factorization) into the device
///    buffer (directly, or through the host staging buffer and a copy) and adds it into the target panels with one kernel, all queued on the level
///    loop's instance (stream-ordered, no host wait of the stream). An abort header stops
///    the top rank's run (RemoteAbort): the failure is the other rank's, agreed after.
///  - top_drain() receives every header not yet received (and drops the payload), after
///    any outcome, so no message is left behind before the collectives that agree on the
///    result.
/// With device groups (kspd_sparse_mpi_groups.hpp) only the leaders take part: a rank
/// that shares its leader's device owns nothing, runs nothing and sends nothing.
/// Fault injection of tests (mpi_fault_injection: rank, after_tasks) throws before level
/// after_tasks of that rank's run.

#include <mpi.h>

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <string>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_device_factor.hpp"
#include "kspd_sparse_device_plan.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_device_aware.hpp"
#include "kspd_sparse_mpi_error.hpp"
#include "kspd_sparse_mpi_factor.hpp"
#include "kspd_sparse_mpi_layout.hpp"

namespace kspd::sparse::Impl {

/// A block of a target panel and its place in a contiguous buffer: rows x (its panel's
/// columns), column-major on both sides (ld in the panel; rows in the buffer).
struct BlockCopy {
  std::int64_t panel = 0;  ///< offset of the block's first entry in the values
  std::int64_t buf = 0;    ///< offset of its first entry in the buffer (ascending)
  std::int64_t rows = 0, ld = 0;
};

/// The top rank's run stopped: rank `rank` sent an abort header.
struct RemoteAbort {
  int rank = 0;
};

/// Add = false: buf[w0, w1) = the blocks d[d0, d1) of vals; Add = true: those blocks of vals
/// += buf[w0, w1). One thread per word (a binary search finds its block): balanced whatever
/// the blocks' shapes. A block appears once in a range, so the adds do not race.
template <bool Add, class Exec, class Scalar>
void copy_blocks(const Exec& exec, Scalar* vals, Scalar* buf, const BlockCopy* d, std::int64_t d0, std::int64_t d1,
                 std::int64_t w0, std::int64_t w1) {
  if (w1 <= w0) return;
  Kokkos::parallel_for(
      Add ? "kspd::sparse::mpi_top::add_blocks" : "kspd::sparse::mpi_top::gather_blocks",
      Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, w0, w1), KOKKOS_LAMBDA(const std::int64_t q) {
        std::int64_t lo = d0, hi = d1 - 1;  // the last block with buf <= q
        while (lo < hi) {
          const std::int64_t mid = (lo + hi + 1) / 2;
          if (d[mid].buf <= q) lo = mid;
          else hi = mid - 1;
        }
        const BlockCopy b = d[lo];
        const std::int64_t l = q - b.buf, i = l % b.rows, j = l / b.rows;
        Scalar& v = vals[b.panel + i + j * b.ld];
        if (Add) v += buf[q];
        else buf[q] = v;
      });
}

/// Another rank whose run failed (or that has no plan): the abort header to the top rank.
inline void top_send_abort(MPI_Comm comm) {
  std::int64_t hdr[2] = {-1, 0};
  KSPD_MPI_SAFE_CALL(MPI_Send(hdr, 2, MPI_INT64_T, MpiLayout::kTopRank, kTagTop, comm));
}

/// The top rank, after its run whatever the outcome: the header (and payload, dropped) of
/// every other leader whose message was not received (received: per rank; empty: none).
/// A rank that owns nothing (MpiLayout::idle) sends nothing.
template <class Scalar>
void top_drain(MPI_Comm comm, const MpiLayout& L, std::vector<char> received) {
  received.resize(size_t(L.nranks), 0);
  std::vector<Scalar> drop;
  for (int r : L.leaders) {
    if (r == MpiLayout::kTopRank || received[size_t(r)]) continue;
    std::int64_t hdr[2] = {0, 0};
    KSPD_MPI_SAFE_CALL(MPI_Recv(hdr, 2, MPI_INT64_T, r, kTagTop, comm, MPI_STATUS_IGNORE));
    if (hdr[0] < 0 || hdr[1] <= 0) continue;
    drop.resize(size_t(hdr[1]));
    recv_n(drop.data(), hdr[1], r, kTagTopData, comm);
  }
}

template <class Scalar, class Exec>
class TopFanIn {
 public:
  using Mem = typename Exec::memory_space;
  using Staging = typename DeviceFactor<Scalar, Exec>::StagingSpace;  ///< pinned on CUDA

  /// The copy plan of this rank's contributions (another rank) or of every rank's (the top
  /// rank), from the analysis; `schedule` (the top rank's resident run) gives the levels;
  /// device_aware: DistributedOptions::device_aware_mpi.
  TopFanIn(const Symbolic& S, const MpiLayout& L, const FanInPlan& plan, MPI_Comm comm, const LevelSchedule& schedule,
           Toggle device_aware)
      : L_(L), comm_(comm), in_place_(mpi_sends_in_place<Exec>(device_aware)) {
    const int P = L.nranks;
    const size_type ns = size_type(S.snodes.size());
    std::vector<size_type> level(size_t(ns), std::numeric_limits<size_type>::max());
    for (size_type l = 0; l < schedule.levels(); ++l)
      for (size_type q = schedule.level_begin[size_t(l)]; q < schedule.level_begin[size_t(l + 1)]; ++q)
        level[size_t(schedule.order[size_t(q)])] = l;
    d_begin_.assign(size_t(P + 1), 0);
    w_begin_.assign(size_t(P + 1), 0);
    first_level_.assign(size_t(P), std::numeric_limits<size_type>::max());
    std::vector<BlockCopy> h;
    std::int64_t w = 0;
    for (int r = 0; r < P; ++r) {  // a source rank's blocks: targets ascending, their blocks ascending
      d_begin_[size_t(r)] = std::int64_t(h.size());
      w_begin_[size_t(r)] = w;
      const bool mine = L.rank == MpiLayout::kTopRank ? r != L.rank : r == L.rank;
      for (size_type t = 0; mine && t < ns; ++t)
        for (const FanInPlan::Contribution& c : plan.by_target[size_t(t)]) {
          if (c.rank != r) continue;
          const Supernode& tn = S.snodes[size_t(t)];
          for (size_type b : c.blocks) {
            const Block& blk = S.blocks[size_t(b)];
            h.push_back(BlockCopy{tn.value_offset + blk.row_offset, w, blk.nrows, tn.nrows()});
            w += blk.nrows * tn.ncols;
          }
          if (L.rank == MpiLayout::kTopRank) first_level_[size_t(r)] = std::min(first_level_[size_t(r)], level[size_t(t)]);
        }
    }
    d_begin_[size_t(P)] = std::int64_t(h.size());
    w_begin_[size_t(P)] = w;
    const auto noinit = [](const std::string& name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, name); };
    blocks_ = Kokkos::View<BlockCopy*, Mem>(noinit("kspd::sparse::mpi_top::blocks"), std::max<size_t>(h.size(), 1));
    if (!h.empty())
      Kokkos::deep_copy(Kokkos::subview(blocks_, Kokkos::make_pair(size_t(0), h.size())),
                        Kokkos::View<const BlockCopy*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    dbuf_ = Kokkos::View<Scalar*, Mem>(noinit("kspd::sparse::mpi_top::buffer"), size_t(std::max<std::int64_t>(w, 1)));
    if (!in_place_)
      hbuf_ = Kokkos::View<Scalar*, Staging>(noinit("kspd::sparse::mpi_top::staging"), size_t(std::max<std::int64_t>(w, 1)));
    received_.assign(size_t(P), 0);
  }
  TopFanIn(const TopFanIn&) = delete;
  TopFanIn& operator=(const TopFanIn&) = delete;

  /// Before a factorization: nothing received yet.
  void begin() { std::fill(received_.begin(), received_.end(), 0); }

  /// The level hook of this rank's resident run (vals: its device values): fault injection,
  /// and on the top rank the messages of the ranks that contribute to level `level` or
  /// below, added into vals on exec. Throws RemoteAbort when one of them aborted.
  void before_level(const Exec& exec, Scalar* vals, size_type level) {
    const MpiFaultInjection& f = mpi_fault_injection();
    if (f.rank == L_.rank && level >= f.after_tasks)
      throw Error("kspd::sparse (MPI): injected failure on rank " + std::to_string(L_.rank) + " before level " +
                  std::to_string(level) + " of its device run");
    if (L_.rank != MpiLayout::kTopRank) return;
    for (int r = 0; r < L_.nranks; ++r)
      if (r != L_.rank && !received_[size_t(r)] && first_level_[size_t(r)] <= level) receive(exec, vals, r);
  }

  /// Another rank, after its run (ok: it succeeded; vals: its device values): its
  /// contributions packed on the device and sent once to the top rank; else an abort header.
  void send(const Exec& exec, const Scalar* vals, bool ok, DistributedStats& st) {
    const int r = L_.rank, top = MpiLayout::kTopRank;
    const std::int64_t w0 = w_begin_[size_t(r)], w1 = w_begin_[size_t(r + 1)];
    std::int64_t hdr[2] = {ok ? 1 : -1, ok ? w1 - w0 : 0};
    if (ok && w1 > w0) {
      copy_blocks<false>(exec, const_cast<Scalar*>(vals), dbuf_.data(), blocks_.data(), d_begin_[size_t(r)],
                         d_begin_[size_t(r + 1)], w0, w1);
      const auto range = Kokkos::make_pair(size_t(w0), size_t(w1));
      if (!in_place_) Kokkos::deep_copy(exec, Kokkos::subview(hbuf_, range), Kokkos::subview(dbuf_, range));
      exec.fence();  // (in place: MPI reads the device buffer, so the gather must be done)
    }
    KSPD_MPI_SAFE_CALL(MPI_Send(hdr, 2, MPI_INT64_T, top, kTagTop, comm_));
    if (hdr[1] > 0) {
      std::vector<MPI_Request> reqs;
      isend_n(send_buffer() + w0, hdr[1], top, kTagTopData, comm_, reqs);
      wait_all(reqs);
      st.fanin_bytes += double(hdr[1]) * sizeof(Scalar);
      ++st.fanin_messages;
    }
  }

  /// The top rank: per rank, whether its message was received in this run.
  const std::vector<char>& received() const { return received_; }
  /// Whether the buffers go to MPI in place (device-aware MPI, or host memory).
  bool in_place() const { return in_place_; }

 private:
  void receive(const Exec& exec, Scalar* vals, int r) {
    std::int64_t hdr[2] = {0, 0};
    KSPD_MPI_SAFE_CALL(MPI_Recv(hdr, 2, MPI_INT64_T, r, kTagTop, comm_, MPI_STATUS_IGNORE));
    received_[size_t(r)] = 1;
    if (hdr[0] < 0) throw RemoteAbort{r};
    const std::int64_t w0 = w_begin_[size_t(r)], w1 = w_begin_[size_t(r + 1)];
    KSPD_REQUIRE(hdr[1] == w1 - w0, Error,
                 "kspd::sparse (MPI): internal error: rank " << r << " sent " << hdr[1] << " words to the top rank, expected "
                                                              << w1 - w0);
    if (hdr[1] == 0) return;
    recv_n(send_buffer() + w0, hdr[1], r, kTagTopData, comm_);  // (each range once per factorization)
    const auto range = Kokkos::make_pair(size_t(w0), size_t(w1));
    if (!in_place_) Kokkos::deep_copy(exec, Kokkos::subview(dbuf_, range), Kokkos::subview(hbuf_, range));
    copy_blocks<true>(exec, vals, dbuf_.data(), blocks_.data(), d_begin_[size_t(r)], d_begin_[size_t(r + 1)], w0, w1);
  }

  /// The buffer MPI reads and writes: the device buffer itself, or the host staging one.
  Scalar* send_buffer() const { return in_place_ ? dbuf_.data() : hbuf_.data(); }

  const MpiLayout& L_;
  MPI_Comm comm_;
  bool in_place_ = false;
  std::vector<std::int64_t> d_begin_, w_begin_;  ///< per source rank: its blocks and words
  std::vector<size_type> first_level_;           ///< top rank: per source rank, its first target's level
  std::vector<char> received_;
  Kokkos::View<BlockCopy*, Mem> blocks_;
  Kokkos::View<Scalar*, Mem> dbuf_;
  Kokkos::View<Scalar*, Staging> hbuf_;
};

}  // namespace kspd::sparse::Impl
#endif
