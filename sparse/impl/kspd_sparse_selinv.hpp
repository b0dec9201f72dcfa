#ifndef KSPD_SPARSE_SELINV_HPP
#define KSPD_SPARSE_SELINV_HPP
/// \file kspd_sparse_selinv.hpp
/// Selected inversion: Z = A^-1 (of the permuted matrix P A P^T = L L^T) on the pattern of L,
/// by the supernodal Takahashi recurrences (Lin et al.'s SelInv, PEXSI). For a supernode
/// with columns J (k of them) and rows I below its diagonal block (m of them):
///   U    = L(I,J) L(J,J)^-1                      (trsm)
///   Z(I,J) = -Z(I,I) U                           (Z(I,I) gathered from the ancestors, gemm)
///   Z(J,J) = L(J,J)^-T L(J,J)^-1 - U^T Z(I,J)    (gemm)
/// Z(I,I) lies in the ancestors' panels at the positions where the factorization scattered
/// the supernode's update (scatter_index of kspd_sparse_device_plan.hpp: the same map,
/// read instead of written), so the tree is swept from the roots down, level by level: the
/// supernodes of one level read only their ancestors, already done. Z has the factor's
/// layout (Supernode::value_offset, ld = nrows); the diagonal blocks are written in full.
///  - Host placement: the supernodes of a level on host workers, each through core's
///    trsm / gemm on its own workspace (U, the gathered Z(I,I)).
///  - Resident placement: where the factor lives, per level one team kernel for the small
///    supernodes (U by substitution, then Z(I,J) and Z(J,J) entry by entry, gathering as
///    it goes) and core's trsm / gemm (cuBLAS on CUDA) for the large ones.

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <mutex>
#include <system_error>
#include <thread>
#include <vector>

#include "kspd_core.hpp"
#include "kspd_sparse_device_plan.hpp"
#include "kspd_sparse_resident.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// One supernode of the host sweep; work buffers are the worker's own.
template <class Scalar>
struct SelinvHostWork {
  std::vector<Scalar> u, g;
  std::vector<ScatterCol> cols;
  std::vector<std::int32_t> rel;

  void snode(const Symbolic& S, const Scalar* L, Scalar* Z, size_type s) {
    using HMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using CMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    const auto mat = [](Scalar* p, size_type r, size_type c, size_type ld) {
      return HMat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(ld)));
    };
    const auto cmat = [](const Scalar* p, size_type r, size_type c, size_type ld) {
      return CMat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(ld)));
    };
    const Supernode& sn = S.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const Scalar* p = L + sn.value_offset;
    Scalar* z = Z + sn.value_offset;
    // u: L(J,J)^-1 on top, U = L(I,J) L(J,J)^-1 below (ld = ld)
    u.assign(size_t(ld * k), Scalar(0));
    for (size_type j = 0; j < k; ++j) {
      u[size_t(j + j * ld)] = Scalar(1);
      std::copy(p + k + j * ld, p + ld + j * ld, u.data() + k + j * ld);
    }
    Kokkos::DefaultHostExecutionSpace ex;
    const auto Ljj = cmat(p, k, k, ld);
    kspd::trsm(ex, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), Ljj, mat(u.data(), k, k, ld));
    if (m > 0) {
      kspd::trsm(ex, Side::Right, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), Ljj,
                 mat(u.data() + k, m, k, ld));
      cols.resize(size_t(m));
      rel.resize(size_t(scatter_rel_count(S, s)));
      scatter_map(S, s, cols.data(), rel.data(), 0);
      g.resize(size_t(m * m));
      for (size_type l = 0; l < m; ++l) {
        const ScatterCol c = cols[size_t(l)];
        const Scalar* zt = Z + S.snodes[size_t(c.target)].value_offset + c.col;
        for (size_type i = l; i < m; ++i) g[size_t(i + l * m)] = g[size_t(l + i * m)] = zt[rel[size_t(c.rel + i)]];
      }
      kspd::gemm(ex, Trans::NoTranspose, Trans::NoTranspose, Scalar(-1), cmat(g.data(), m, m, m),
                 cmat(u.data() + k, m, k, ld), Scalar(0), mat(z + k, m, k, ld));
    }
    kspd::gemm(ex, Trans::Transpose, Trans::NoTranspose, Scalar(1), cmat(u.data(), k, k, ld), cmat(u.data(), k, k, ld),
               Scalar(0), mat(z, k, k, ld));
    if (m > 0)
      kspd::gemm(ex, Trans::Transpose, Trans::NoTranspose, Scalar(-1), cmat(u.data() + k, m, k, ld),
                 cmat(z + k, m, k, ld), Scalar(1), mat(z, k, k, ld));
  }
};

/// Host placement: Z (S.nvalues entries) from the host factor L, level by level from the
/// roots, `nthreads` workers started once (a barrier between levels: starting threads per
/// level cost more than the selected inversion of a small matrix).
template <class Scalar>
void selinv_host(const Symbolic& S, const LevelSchedule& sched, const Scalar* L, Scalar* Z, int nthreads) {
  const size_type nlev = sched.levels();
  size_type widest = 0;
  for (size_type l = 0; l < nlev; ++l) widest = std::max(widest, sched.level_begin[size_t(l + 1)] - sched.level_begin[size_t(l)]);
  int nt = int(std::max<size_type>(1, std::min<size_type>(std::max(nthreads, 1), widest)));
  std::vector<SelinvHostWork<Scalar>> work(static_cast<size_t>(nt));
  if (nt == 1) {
    for (size_type l = nlev - 1; l >= 0; --l)
      for (size_type q = sched.level_begin[size_t(l)]; q < sched.level_begin[size_t(l + 1)]; ++q)
        work[0].snode(S, L, Z, sched.order[size_t(q)]);
    return;
  }
  // next[l]: the next unclaimed position of level l; a worker waits at the barrier after
  // each level until all have finished it
  std::vector<std::atomic<size_type>> next(static_cast<size_t>(std::max<size_type>(nlev, 1)));
  for (size_type l = 0; l < nlev; ++l) next[size_t(l)] = sched.level_begin[size_t(l)];
  std::mutex m;
  std::condition_variable cv;
  int arrived = 0;
  std::int64_t generation = 0;
  std::exception_ptr err;
  std::atomic<bool> failed{false};
  auto barrier = [&]() {
    std::unique_lock<std::mutex> lk(m);
    const std::int64_t g = generation;
    if (++arrived == nt) {
      arrived = 0;
      ++generation;
      cv.notify_all();
    } else {
      cv.wait(lk, [&] { return generation != g; });
    }
  };
  bool go = false;  // the workers start once nt is final (the system may refuse a thread)
  auto worker = [&](int w) {
    {
      std::unique_lock<std::mutex> lk(m);
      cv.wait(lk, [&] { return go; });
    }
    for (size_type l = nlev - 1; l >= 0; --l) {
      const size_type e = sched.level_begin[size_t(l + 1)];
      for (size_type q = next[size_t(l)]++; q < e && !failed; q = next[size_t(l)]++) {
        try {
          work[size_t(w)].snode(S, L, Z, sched.order[size_t(q)]);
        } catch (...) {
          std::lock_guard<std::mutex> lk(m);
          if (!err) err = std::current_exception();
          failed = true;
        }
      }
      barrier();
    }
  };
  std::vector<std::thread> threads;
  try {
    for (int w = 1; w < nt; ++w) threads.emplace_back(worker, w);
  } catch (const std::system_error&) {  // run with the threads there are
  }
  {
    std::lock_guard<std::mutex> lk(m);
    nt = int(threads.size()) + 1;
    go = true;
  }
  cv.notify_all();
  worker(0);
  for (auto& t : threads) t.join();
  if (err) std::rethrow_exception(err);
}

/// Resident placement: Z (a pointer into Exec's memory, S.nvalues entries) from the
/// resident factor, queued on exec. The kernels are members of a struct because CUDA's
/// extended lambdas cannot live in private member functions.
template <class Scalar, class Exec>
struct ResidentSelinv {
  using Mem = typename Exec::memory_space;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CDMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  static constexpr int kCols = 8;  ///< columns of Z(I,J) per thread in the small kernel

  const Scalar* L;
  Scalar* U;  ///< the factor's layout: L(J,J)^-1 and L(I,J) L(J,J)^-1
  Scalar* Z;
  Scalar* G;  ///< gathered Z(I,I) of a large supernode
  const DevSnode* sns;
  const std::int64_t* order;
  const std::int64_t* off;
  const ScatterCol* cols;
  const std::int32_t* rel;

  /// Z(I,I)(i, l) of supernode sn, any i, l < m.
  KOKKOS_INLINE_FUNCTION Scalar zii(const DevSnode& sn, int i, int l) const {
    return i >= l ? Z[scatter_index(off, cols[sn.map_begin + l], rel, i)]
                  : Z[scatter_index(off, cols[sn.map_begin + i], rel, l)];
  }

  /// The small supernodes order[b, e), one team each.
  void small(const Exec& exec, size_type b, size_type e) const {
    using Team = Kokkos::TeamPolicy<Exec>;
    const ResidentSelinv me = *this;
    Kokkos::parallel_for(
        "kspd::sparse::selinv::small", Team(exec, int(e - b), Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename Team::member_type& t) {
          const DevSnode sn = me.sns[me.order[b + t.league_rank()]];
          const int k = sn.ncols, ld = sn.nrows, m = ld - k;
          const Scalar* p = me.L + sn.voff;
          Scalar* u = me.U + sn.voff;
          Scalar* z = me.Z + sn.voff;
          // row r of u solves x L(J,J) = e_r (r < k: L^-1) or L(r,J) (below), from the right
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, ld), [&](const int r) {
            for (int c = k - 1; c >= 0; --c) {
              Scalar x = r < k ? Scalar(r == c ? 1 : 0) : p[r + std::int64_t(c) * ld];
              for (int l = c + 1; l < k; ++l) x -= u[r + std::int64_t(l) * ld] * p[l + std::int64_t(c) * ld];
              u[r + std::int64_t(c) * ld] = x / p[c + std::int64_t(c) * ld];
            }
          });
          t.team_barrier();
          // Z(I,J) = -Z(I,I) U: a thread per row and kCols columns
          const int nch = (k + kCols - 1) / kCols;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m * nch), [&](const int q) {
            const int i = q % m, c0 = (q / m) * kCols;
            Scalar acc[kCols] = {};
            for (int l = 0; l < m; ++l) {
              const Scalar g = me.zii(sn, i, l);
              for (int c = 0; c < kCols; ++c)
                if (c0 + c < k) acc[c] += g * u[k + l + std::int64_t(c0 + c) * ld];
            }
            for (int c = 0; c < kCols; ++c)
              if (c0 + c < k) z[k + i + std::int64_t(c0 + c) * ld] = -acc[c];
          });
          t.team_barrier();
          // Z(J,J)(a,b) = sum_l Linv(l,a) Linv(l,b) - sum_i U(i,a) Z(I,J)(i,b), both triangles
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k * k), [&](const int q) {
            const int a = q % k, c = q / k;
            if (a < c) return;
            Scalar acc = 0;
            for (int l = a; l < k; ++l) acc += u[l + std::int64_t(a) * ld] * u[l + std::int64_t(c) * ld];
            for (int i = 0; i < m; ++i) acc -= u[k + i + std::int64_t(a) * ld] * z[k + i + std::int64_t(c) * ld];
            z[a + std::int64_t(c) * ld] = acc;
            z[c + std::int64_t(a) * ld] = acc;
          });
        });
  }

  /// A large supernode through core's trsm / gemm.
  void large(const Exec& exec, const Supernode& sn, const DevSnode& dsn) const {
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const auto mat = [](Scalar* p, size_type r, size_type c, size_type l) {
      return DMat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(l)));
    };
    const auto cmat = [](const Scalar* p, size_type r, size_type c, size_type l) {
      return CDMat(p, Kokkos::LayoutStride(size_t(r), 1, size_t(c), size_t(l)));
    };
    Scalar* u = U + sn.value_offset;
    Scalar* z = Z + sn.value_offset;
    const Scalar* p = L + sn.value_offset;
    Kokkos::parallel_for(
        "kspd::sparse::selinv::identity", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, k * k),
        KOKKOS_LAMBDA(const std::int64_t q) { u[q % k + (q / k) * ld] = Scalar(q % k == q / k ? 1 : 0); });
    const auto Ljj = cmat(p, k, k, ld);
    kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), Ljj, mat(u, k, k, ld));
    if (m > 0) {
      kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), Ljj, mat(u + k, m, k, ld));
      const ResidentSelinv me = *this;
      Kokkos::parallel_for(
          "kspd::sparse::selinv::gather", Kokkos::RangePolicy<Exec, Kokkos::IndexType<std::int64_t>>(exec, 0, m * m),
          KOKKOS_LAMBDA(const std::int64_t q) { me.G[q] = me.zii(dsn, int(q % m), int(q / m)); });
      kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(-1), cmat(G, m, m, m), cmat(u + k, m, k, ld),
                 Scalar(0), mat(z + k, m, k, ld));
    }
    kspd::gemm(exec, Trans::Transpose, Trans::NoTranspose, Scalar(1), cmat(u, k, k, ld), cmat(u, k, k, ld), Scalar(0),
               mat(z, k, k, ld));
    if (m > 0)
      kspd::gemm(exec, Trans::Transpose, Trans::NoTranspose, Scalar(-1), cmat(u + k, m, k, ld), cmat(z + k, m, k, ld),
                 Scalar(1), mat(z, k, k, ld));
  }
};

template <class Scalar, class Exec>
void selinv_resident(const Exec& exec, const Symbolic& S, const ResidentFactor<Scalar, Exec>& F, Scalar* Z) {
  using Mem = typename Exec::memory_space;
  const LevelSchedule& sched = F.schedule();
  if (S.snodes.empty()) return;
  // U starts as a copy of L: the large supernodes' trsm works on it in place
  Kokkos::View<Scalar*, Mem> U(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::selinv::U"),
                               F.values().extent(0));
  Kokkos::deep_copy(exec, U, F.values());
  const size_type mb = sched.max_large_below;
  Kokkos::View<Scalar*, Mem> G(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::selinv::G"),
                               size_t(std::max<size_type>(mb * mb, 1)));
  const ResidentSelinv<Scalar, Exec> sel{F.values().data(), U.data(), Z, G.data(), F.snodes().data(), F.order().data(),
                                         F.offsets().data(), F.scatter_cols().data(), F.scatter_rel().data()};
  auto hsn = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), F.snodes());
  for (size_type l = sched.levels() - 1; l >= 0; --l) {
    const size_type b = sched.level_begin[size_t(l)], e = sched.small_end[size_t(l)];
    if (e > b) sel.small(exec, b, e);
    for (size_type q = e; q < sched.level_begin[size_t(l + 1)]; ++q) {
      const size_type s = sched.order[size_t(q)];
      sel.large(exec, S.snodes[size_t(s)], hsn(size_t(s)));
    }
  }
  exec.fence();  // U and G are freed on return
}

}  // namespace kspd::sparse::Impl
#endif
