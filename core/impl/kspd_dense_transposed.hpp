#ifndef KSPD_DENSE_TRANSPOSED_HPP
#define KSPD_DENSE_TRANSPOSED_HPP
/// \file kspd_dense_transposed.hpp
/// The factorizations of a triangle that the vendor library would see as 'U' (an upper
/// triangle stored column-major, or a lower one stored row-major), run in 'L' on a
/// transposed copy: cuSOLVER's POTRF 'U' runs at about half the rate of its 'L' in fp64 and
/// at a fifth in complex (H100, perf_tests/results/h100-rfp-blocking-2026-11-24.md), which
/// is the whole gap of the RFP variants with an upper-stored diagonal block. With W = A^H
/// (Hermitian A = A^H, so W's lower triangle holds the same matrix): potrf gives
/// W = L L^H with U = L^H; inv(U) = inv(L)^H (trtri, potri); U U^H = L^H L (lauum). The copy
/// costs two passes over the triangle and a workspace of its square, whose release (Kokkos)
/// synchronizes the device.

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_dense_mat.hpp"
#include "kspd_dense_vendor.hpp"
#include "kspd_tags.hpp"

namespace kspd::Impl {

/// D(r, c) = S(r, c) (conjugated when `conj`) for r >= c: the lower triangle of the n x n S,
/// any strides. On GPUs through 32 x 32 tiles in team scratch, so both the reads and the
/// writes run along each operand's unit stride whatever the two layouts are.
template <class ExecSpace, class T>
void copy_lower(const ExecSpace& exec, CMat<T> S, Mat<T> D, bool conj) {
  const size_type n = S.n;
  if (n == 0) return;
  if constexpr (compat::is_host_exec_v<ExecSpace>) {
    Kokkos::parallel_for(
        "kspd::transposed::copy_lower", Kokkos::RangePolicy<ExecSpace>(exec, 0, n), KOKKOS_LAMBDA(const size_type c) {
          for (size_type r = c; r < n; ++r) D(r, c) = conj_if(conj, S(r, c));
        });
  } else {
    // the tile edge, a plain int so no constexpr local is odr-used in device code
    const int B = 32;
    using Scratch = Kokkos::View<T*, typename ExecSpace::scratch_memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    using Policy = Kokkos::TeamPolicy<ExecSpace>;
    using Member = typename Policy::member_type;
    const size_type nt = (n + B - 1) / B, tiles = nt * (nt + 1) / 2;
    const bool s_rows = S.rs == 1, d_rows = D.rs == 1;  // which index is the unit stride
    Policy policy(exec, tiles, 8, B);
    policy.set_scratch_size(0, Kokkos::PerTeam(Scratch::shmem_size(B * (B + 1))));
    Kokkos::parallel_for(
        "kspd::transposed::copy_lower", policy, KOKKOS_LAMBDA(const Member& team) {
          // tile t = ti (ti + 1) / 2 + tj, tj <= ti: the lower triangle of tiles
          const size_type t = team.league_rank();
          size_type ti = size_type((compat::sqrt(8.0 * double(t) + 1.0) - 1.0) / 2.0);
          while (ti * (ti + 1) / 2 > t) --ti;
          while ((ti + 1) * (ti + 2) / 2 <= t) ++ti;
          const size_type tj = t - ti * (ti + 1) / 2, r0 = ti * B, c0 = tj * B;
          Scratch buf(team.team_scratch(0), B * (B + 1));
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, B), [&](const int a) {
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, B), [&](const int b) {
              const int i = s_rows ? b : a, j = s_rows ? a : b;
              const size_type r = r0 + i, c = c0 + j;
              if (r < n && c < n && r >= c) buf(i * (B + 1) + j) = S(r, c);
            });
          });
          team.team_barrier();
          Kokkos::parallel_for(Kokkos::TeamThreadRange(team, B), [&](const int a) {
            Kokkos::parallel_for(Kokkos::ThreadVectorRange(team, B), [&](const int b) {
              const int i = d_rows ? b : a, j = d_rows ? a : b;
              const size_type r = r0 + i, c = c0 + j;
              if (r < n && c < n && r >= c) D(r, c) = conj_if(conj, buf(i * (B + 1) + j));
            });
          });
        });
  }
}

/// Whether the vendor call on `a` with `uplo` would be 'U' (false: 'L', or no unit stride).
template <class T>
bool vendor_sees_upper(Uplo uplo, const Mat<T>& a) {
  Mat<T> b = a;
  bool transposed = false;
  if (!orient(b, transposed)) return false;
  return (transposed ? flip(uplo) : uplo) == Uplo::Upper;
}

/// Whether an n x n workspace (square_workspace) fits in the free device memory with 512 MB
/// to spare (always on the host: an allocation failure throws).
template <class ExecSpace, class T>
bool workspace_fits(size_type n) {
#ifdef KSPD_ENABLE_CUDA_TPLS
  if constexpr (!compat::is_host_exec_v<ExecSpace>) {
    size_type free_b = 0, total_b = 0;
    cuda::mem_get_info(free_b, total_b);
    return n * ((n + 63) / 64 * 64) * sizeof(T) + (size_type(512) << 20) <= free_b;
  }
#endif
  (void)n;
  return true;
}

/// The table behind Toggle::Auto: where the transposed copy pays, per backend and operation.
template <class ExecSpace, class T>
bool upper_via_lower(const DenseOptions& opt, FactorOp fop, Uplo uplo, const Mat<T>& a) {
  if (opt.upper_via_lower == Toggle::Off || a.n < 2 || !vendor_sees_upper(uplo, a)) return false;
  // only where the workspace fits with room to spare (RFP is chosen to save memory)
  if (!workspace_fits<ExecSpace, T>(a.n)) return false;
  if (opt.upper_via_lower == Toggle::On) return true;
  if constexpr (compat::is_host_exec_v<ExecSpace>) {
    // OpenBLAS's DPOTRF 'U' runs 0.89x of its 'L' at n = 2000 on the 2-core VM, less than
    // the copy costs: only when asked for
    (void)fop;
    return false;
  } else {
    // H100 (h100-rfp-upper-2026-11-24.md), pftrf's upper-stored half through the copy:
    // fp64 0.75-0.93x of cuSOLVER's POTRF 'U' for blocks of 2K-16K, fp32 0.76-0.96x; complex
    // double 0.72-0.97x for 4K blocks but 0.98-1.05x for 8K ones. POTRF only: TRTRI/LAUUM of
    // an upper triangle go through blas3_inverse (with it, the copy gains nothing: 0.97-1.05x)
    if (!has_vendor_v<ExecSpace, T> || fop != FactorOp::Potrf || a.n < 2048) return false;
    return !is_complex_v<T> || a.n < 8192;
  }
}

/// The same for the nb x nb diagonal panels of a blocked Cholesky (pftrf's nb-column steps),
/// which keeps ONE panel workspace for the whole factorization (no free, so no device sync
/// between panels, and look-ahead keeps its overlap). Auto: on CUDA (cuSOLVER's POTRF 'U' is
/// the slow one on the look-ahead's critical path), not on the host (OpenBLAS 'U' ~ 'L').
template <class ExecSpace, class T>
bool panel_upper_via_lower(const DenseOptions& opt) {
  if (opt.upper_via_lower != Toggle::Auto) return opt.upper_via_lower == Toggle::On;
  return !compat::is_host_exec_v<ExecSpace> && has_vendor_v<ExecSpace, T>;
}

/// An n x n column-major workspace, leading dimension rounded up to 64 elements.
template <class ExecSpace, class T>
auto square_workspace(size_type n) {
  using W = Kokkos::View<T**, Kokkos::LayoutLeft, typename ExecSpace::memory_space>;
  const size_type ld = (n + 63) / 64 * 64;
  W w(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::square_workspace"), ld, n);
  return w;
}

}  // namespace kspd::Impl
#endif
