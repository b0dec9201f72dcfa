#ifndef KSPD_SPARSE_RESIDENT_SOLVE_HPP
#define KSPD_SPARSE_RESIDENT_SOLVE_HPP
/// \file kspd_sparse_resident_solve.hpp
/// Triangular solves with the device-resident factor, by tree level, where the factor
/// lives: forward L Y = B from the leaves up (per supernode: the diagonal block's solve,
/// then its rows below times the solved part subtracted from the ancestors' rows,
/// atomically), backward L^T X = Y from the root down (gather the ancestors' rows, subtract,
/// then the transposed diagonal solve). Small supernodes: one launch per level, one team
/// each; large ones: core's trsm / gemm plus a row scatter/gather kernel.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kspd_core.hpp"
#include "kspd_sparse_resident.hpp"

namespace kspd::sparse::Impl {

/// W's rows r[0, m) <-> T (m x nrhs, ld m): scatter subtracts T from W (atomically),
/// else gathers W into T.
template <class Exec, class Scalar>
void solve_rows(const Exec& exec, Scalar* W, Scalar* T, const std::int64_t* r, std::int64_t m, int nr,
                std::int64_t ld_w, bool scatter) {
  Kokkos::parallel_for(
      scatter ? "kspd::sparse::resident::solve_scatter" : "kspd::sparse::resident::solve_gather",
      Kokkos::RangePolicy<Exec>(exec, 0, m * nr), KOKKOS_LAMBDA(const std::int64_t q) {
        const std::int64_t i = q % m, c = q / m;
        if (scatter) Kokkos::atomic_add(&W[r[i] + c * ld_w], -T[q]);
        else T[q] = W[r[i] + c * ld_w];
      });
}

/// Solves in place on W (n x nrhs, column-major, leading dimension ldw, the permuted
/// numbering), a pointer into the execution space's memory. Queued on exec.
template <class Scalar, class Exec>
void resident_solve(const Exec& exec, const Symbolic& S, const ResidentFactor<Scalar, Exec>& F, Scalar* W,
                    size_type nrhs, size_type ldw, SolvePart part = SolvePart::Both) {
  using Mem = typename Exec::memory_space;
  using Team = Kokkos::TeamPolicy<Exec>;
  using Member = typename Team::member_type;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CDMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  if (S.n == 0 || nrhs == 0) return;
  const LevelSchedule& L = F.schedule();
  const Scalar* vals = F.values().data();
  const DevSnode* sns = F.snodes().data();
  const std::int64_t* rows = F.rows().data();
  const std::int64_t* order = F.order().data();
  const int nr = int(nrhs);
  const std::int64_t ld_w = ldw;
  Kokkos::View<Scalar*, Mem> tmp(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::resident::solve_work"),
                                 size_t(std::max<size_type>(L.max_large_below * nrhs, 1)));
  Scalar* T = tmp.data();
  auto pieces = [&](size_type s, CDMat& D, CDMat& B, DMat& X) {
    const Supernode& sn = S.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    const Scalar* p = vals + sn.value_offset;
    D = CDMat(p, Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(ld)));
    B = CDMat(p + k, Kokkos::LayoutStride(size_t(m), 1, size_t(k), size_t(ld)));
    X = DMat(W + sn.first_col, Kokkos::LayoutStride(size_t(k), 1, size_t(nrhs), size_t(ldw)));
  };
  auto rows_op = [&](size_type s, bool scatter) {
    const Supernode& sn = S.snodes[size_t(s)];
    solve_rows(exec, W, T, rows + sn.row_begin + sn.ncols, sn.nrows() - sn.ncols, nr, ld_w, scatter);
  };

  if (int(part) & int(SolvePart::Forward)) {
    for (size_type l = 0; l < L.levels(); ++l) {
      const size_type b = L.level_begin[size_t(l)], e = L.small_end[size_t(l)];
      if (e > b)
        Kokkos::parallel_for(
            "kspd::sparse::resident::forward_small", Team(exec, int(e - b), Kokkos::AUTO),
            KOKKOS_LAMBDA(const Member& t) {
              const DevSnode sn = sns[order[b + t.league_rank()]];
              const Scalar* p = vals + sn.voff;
              const int k = sn.ncols, ld = sn.nrows, m = ld - k;
              Scalar* X = W + sn.first_col;
              for (int j = 0; j < k; ++j) {
                const Scalar d = p[j + std::int64_t(j) * ld];
                Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nr), [&](const int c) { X[j + c * ld_w] /= d; });
                t.team_barrier();
                const int below = k - j - 1;
                Kokkos::parallel_for(Kokkos::TeamThreadRange(t, below * nr), [&](const int q) {
                  const int i = j + 1 + q % below, c = q / below;
                  X[i + c * ld_w] -= p[i + std::int64_t(j) * ld] * X[j + c * ld_w];
                });
                t.team_barrier();
              }
              const std::int64_t* r = rows + sn.row_begin + k;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m * nr), [&](const int q) {
                const int i = q % m, c = q / m;
                Scalar y = 0;
                for (int j = 0; j < k; ++j) y += p[k + i + std::int64_t(j) * ld] * X[j + c * ld_w];
                Kokkos::atomic_add(&W[r[i] + c * ld_w], -y);
              });
            });
      for (size_type q = e; q < L.level_begin[size_t(l + 1)]; ++q) {
        const size_type s = L.order[size_t(q)];
        CDMat D, B;
        DMat X;
        pieces(s, D, B, X);
        kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, Scalar(1), D, X);
        const size_type m = B.extent(0);
        if (m == 0) continue;
        kspd::gemm(exec, Trans::NoTranspose, Trans::NoTranspose, Scalar(1), B, X, Scalar(0),
                   DMat(T, Kokkos::LayoutStride(size_t(m), 1, size_t(nrhs), size_t(m))));
        rows_op(s, true);
      }
    }
  }
  if (int(part) & int(SolvePart::Backward)) {
    for (size_type l = L.levels() - 1; l >= 0; --l) {
      const size_type b = L.level_begin[size_t(l)], e = L.small_end[size_t(l)];
      for (size_type q = e; q < L.level_begin[size_t(l + 1)]; ++q) {
        const size_type s = L.order[size_t(q)];
        CDMat D, B;
        DMat X;
        pieces(s, D, B, X);
        const size_type m = B.extent(0);
        if (m > 0) {
          rows_op(s, false);
          kspd::gemm(exec, Trans::Transpose, Trans::NoTranspose, Scalar(-1), B,
                     CDMat(T, Kokkos::LayoutStride(size_t(m), 1, size_t(nrhs), size_t(m))), Scalar(1), X);
        }
        kspd::trsm(exec, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), D, X);
      }
      if (e > b)
        Kokkos::parallel_for(
            "kspd::sparse::resident::backward_small", Team(exec, int(e - b), Kokkos::AUTO),
            KOKKOS_LAMBDA(const Member& t) {
              const DevSnode sn = sns[order[b + t.league_rank()]];
              const Scalar* p = vals + sn.voff;
              const int k = sn.ncols, ld = sn.nrows, m = ld - k;
              Scalar* X = W + sn.first_col;
              const std::int64_t* r = rows + sn.row_begin + k;
              Kokkos::parallel_for(Kokkos::TeamThreadRange(t, k * nr), [&](const int q) {
                const int j = q % k, c = q / k;
                Scalar y = 0;
                for (int i = 0; i < m; ++i) y += p[k + i + std::int64_t(j) * ld] * W[r[i] + c * ld_w];
                X[j + c * ld_w] -= y;
              });
              t.team_barrier();
              for (int j = k - 1; j >= 0; --j) {
                const Scalar d = p[j + std::int64_t(j) * ld];
                Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nr), [&](const int c) { X[j + c * ld_w] /= d; });
                t.team_barrier();
                if (j > 0)
                  Kokkos::parallel_for(Kokkos::TeamThreadRange(t, j * nr), [&](const int q) {
                    const int i = q % j, c = q / j;
                    X[i + c * ld_w] -= p[j + std::int64_t(i) * ld] * X[j + c * ld_w];
                  });
                t.team_barrier();
              }
            });
    }
  }
}

}  // namespace kspd::sparse::Impl
#endif
