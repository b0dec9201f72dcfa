#ifndef KSPD_SPARSE_UPDATE_HOST_HPP
#define KSPD_SPARSE_UPDATE_HOST_HPP
/// \file kspd_sparse_update_host.hpp
/// The rank-k modification of a host factor (kspd_sparse_update_impl.hpp has the method):
/// the path level by level; the supernodes of a level (different branches, disjoint W
/// columns) on host workers, each with its own workspace. Inside a supernode the columns
/// go in blocks of kBlockCols: the panels of a block one after the other (panel_transform
/// on the worker, then the block's rows below the panel by gemm), then all the rows below
/// the block through the block's panels, in pieces shared by the supernode's threads. So
/// only a block's diagonal part is sequential, and a wide supernode (the root separator)
/// is spread over all the threads.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_runtime.hpp"
#include "kspd_sparse_update_impl.hpp"

namespace kspd::sparse::Impl {

/// One host worker's buffers.
template <class Scalar>
struct UpdateHostWork {
  std::vector<Scalar> ws, q, small, x;
};

/// Columns per block: the diagonal part of a block (kBlockCols^2 / 2 entries) is the
/// sequential part of a supernode.
inline constexpr size_type kUpdateBlockCols = 256;

/// Path supernode q modified in place with `threads` threads for the rows below its blocks.
/// wc: the compact W (ncompact x P.k, ld ncompact); infos: two per panel (panel_numbering).
template <class Scalar>
void update_snode_host(const Symbolic& S, Scalar* vals, const UpdatePlan& P, size_t q, Scalar* wc, Scalar sg, int threads,
                       const std::vector<size_type>& pnum, int* infos, UpdateHostWork<Scalar>& w) {
  using Mat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  auto mat = [](Scalar* p, size_type r, size_type c, size_type ld) {
    return Mat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(std::max<size_type>(ld, 1))));
  };
  const Supernode& sn = S.snodes[size_t(P.path[q])];
  const size_type m = sn.nrows(), c = sn.ncols, r0 = P.row_begin[q], a0 = P.act_begin[q];
  const size_type k = P.act_begin[q + 1] - a0, nb = update_panel_width(k, false), kb = nb + k, nc = P.ncompact;
  const size_type block = std::max(nb, kUpdateBlockCols / nb * nb);
  Scalar* panel = vals + sn.value_offset;
  w.ws.resize(size_t(m * k));
  w.q.resize(size_t((block / nb) * kb * kb));
  w.small.resize(size_t(nb * k + 2 * nb * nb + k * k));
  w.x.resize(size_t(std::min(block, c) * kb));
  Scalar* ws = w.ws.data();
  for (size_type j = 0; j < k; ++j)  // W's rows of this supernode, active columns (m x k, ld m)
    for (size_type i = 0; i < m; ++i)
      ws[i + j * m] = wc[size_t(P.rmap[size_t(r0 + i)] + P.act[size_t(a0 + j)] * nc)];
  Scalar* zp = w.small.data();
  Scalar* gp = zp + nb * k;
  Scalar* rp = gp + nb * nb;
  Scalar* tp = rp + k * k;
  std::vector<PanelQ> pq;
  for (size_type c0 = 0; c0 < c; c0 += block) {
    const size_type c1 = std::min(c, c0 + block);
    pq.clear();
    for (size_type p = c0; p < c1; p += nb) {
      const size_type bw = std::min(nb, c1 - p), qo = size_type(pq.size()) * kb * kb;
      pq.push_back(PanelQ{p, bw, qo});
      Mat Q = mat(w.q.data() + qo, bw + k, bw + k, bw + k);
      panel_transform(HostTeam{}, mat(panel + p + p * m, bw, bw, m), mat(ws + p, bw, k, m), sg, mat(zp, bw, k, bw),
                      mat(gp, bw, bw, bw), mat(rp, k, k, k), mat(tp, bw, bw, bw), Q, infos + 2 * (pnum[q] + p / nb));
      // the block's rows below the panel now: the block's later panels need them
      below_rows(panel, ws, m, k, std::vector<PanelQ>{PanelQ{p, bw, 0}}, Q.data(), p + bw, c1, w.x.data());
    }
    // the rows below the block through all its panels, in pieces (rows are independent; a
    // piece stays in cache through the panels)
    if (m > c1) below_rows_threaded(threads, panel, ws, m, k, pq, w.q.data(), c1, m, kb);
  }
  for (size_type j = 0; j < k; ++j)  // W'_B back to the compact W, for the ancestors
    for (size_type i = c; i < m; ++i) wc[size_t(P.rmap[size_t(r0 + i)] + P.act[size_t(a0 + j)] * nc)] = ws[i + j * m];
}

/// The modification of the host factor `vals` by `threads` >= 1 host threads. Returns the
/// first failure of a downdate (supernode, column within it; pivot NaN), after which the
/// factor is modified past it and unusable.
template <class Scalar>
PivotFailure update_host(const Symbolic& S, Scalar* vals, const UpdatePlan& P, const SparseColumns<Scalar>& W, Sign sign,
                         int threads) {
  if (P.path.empty() || P.k == 0) return {};
  const Scalar sg = sign == Sign::Plus ? Scalar(1) : Scalar(-1);
  threads = std::max(threads, 1);
  std::vector<Scalar> wc(size_t(P.ncompact * P.k), Scalar(0));
  for (size_type j = 0; j < P.k; ++j)
    for (size_type p = W.colptr[size_t(j)]; p < W.colptr[size_t(j + 1)]; ++p)
      wc[size_t(P.w_row[size_t(p)] + j * P.ncompact)] = W.values[size_t(p)];
  const std::vector<size_type> pnum = panel_numbering(S, P, false);
  std::vector<int> infos(size_t(2 * pnum.back()), 0);
  std::vector<UpdateHostWork<Scalar>> work(static_cast<size_t>(threads));
  for (size_type l = 0; l < P.levels(); ++l) {
    const size_type b = P.level_begin[size_t(l)], e = P.level_begin[size_t(l + 1)];
    const int nw = int(std::min<size_type>(threads, e - b));
    if (nw == 1) {  // one supernode (near the root) or one thread: all threads inside it
      for (size_type i = b; i < e; ++i)
        update_snode_host(S, vals, P, size_t(P.level_order[size_t(i)]), wc.data(), sg, threads, pnum, infos.data(), work[0]);
      continue;
    }
    const int inner = std::max(1, threads / nw);
    std::atomic<size_type> next{b};
    std::exception_ptr error;
    std::mutex em;
    auto worker = [&](int t) {
      try {
        for (size_type i; (i = next.fetch_add(1)) < e;)
          update_snode_host(S, vals, P, size_t(P.level_order[size_t(i)]), wc.data(), sg, inner, pnum, infos.data(),
                            work[size_t(t)]);
      } catch (...) {
        std::lock_guard<std::mutex> lk(em);
        if (!error) error = std::current_exception();
        next = e;
      }
    };
    std::vector<std::thread> pool;
    try {
      for (int t = 1; t < nw; ++t) pool.push_back(kspd::Impl::start_thread(worker, t));
    } catch (const std::system_error&) {  // fewer threads: the started ones and this one finish
    }
    worker(0);
    for (auto& th : pool) th.join();
    if (error) std::rethrow_exception(error);
  }
  return first_failure(S, P, false, [&](size_t i) { return infos[i]; });
}

}  // namespace kspd::sparse::Impl
#endif
