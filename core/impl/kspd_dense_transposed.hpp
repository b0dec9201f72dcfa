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
/// costs two passes over the triangle and a workspace of its square (SquareWorkspace: kept
/// per stream in core's scratch up to kScratchKeepBytes, so a repeated call neither
/// allocates nor synchronizes; a larger one is allocated per call and fenced before its free).

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_dense_mat.hpp"
#include "kspd_dense_vendor.hpp"
#include "kspd_stream_scratch.hpp"
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

/// Whether an n x n workspace in `slot` fits: held already on exec's stream (no query), or
/// in the free device memory with 512 MB to spare (always on the host: an allocation
/// failure throws).
template <class ExecSpace, class T>
bool workspace_fits(const ExecSpace& exec, ScratchSlot slot, size_type n) {
#ifdef KSPD_ENABLE_CUDA_TPLS
  if constexpr (!compat::is_host_exec_v<ExecSpace>) {
    const size_t bytes = square_workspace_bytes<T>(n);
    if (Scratch<ExecSpace>::held(exec, slot) >= bytes) return true;
    size_type free_b = 0, total_b = 0;
    cuda::mem_get_info(free_b, total_b);
    return bytes + (size_t(512) << 20) <= size_t(free_b);
  }
#endif
  (void)exec, (void)slot, (void)n;
  return true;
}

/// Toggle::Auto's table: where the copy beats the vendor's 'U', per backend and operation.
template <class ExecSpace, class T>
bool upper_via_lower_pays([[maybe_unused]] FactorOp fop, [[maybe_unused]] size_type n) {
  if constexpr (compat::is_host_exec_v<ExecSpace>) {
    // OpenBLAS's DPOTRF 'U' runs 0.89x of its 'L' at n = 2000 on the 2-core VM, less than
    // the copy costs: only when asked for
    return false;
  } else {
    // H100 (h100-rfp-upper-2026-11-24.md), pftrf's upper-stored half through the copy:
    // fp64 0.75-0.93x of cuSOLVER's POTRF 'U' for blocks of 2K-16K, fp32 0.76-0.96x; complex
    // double 0.72-0.97x for 4K blocks but 0.98-1.05x for 8K ones. POTRF only: TRTRI/LAUUM of
    // an upper triangle go through blas3_inverse (with it, the copy gains nothing: 0.97-1.05x)
    if (!has_vendor_v<ExecSpace, T> || fop != FactorOp::Potrf || n < 2048) return false;
    return !is_complex_v<T> || n < 8192;
  }
}

/// Whether potrf/trtri/lauum/potri of `a`'s `uplo` triangle runs through the transposed copy.
template <class ExecSpace, class T>
bool upper_via_lower(const ExecSpace& exec, const DenseOptions& opt, FactorOp fop, Uplo uplo, const Mat<T>& a) {
  if (opt.upper_via_lower == Toggle::Off || a.n < 2 || !vendor_sees_upper(uplo, a)) return false;
  if (opt.upper_via_lower != Toggle::On && !upper_via_lower_pays<ExecSpace, T>(fop, a.n)) return false;
  // only where the workspace fits with room to spare (RFP is chosen to save memory)
  return workspace_fits<ExecSpace, T>(exec, ScratchSlot::TransposedCopy, a.n);
}

/// The same for the nb x nb diagonal panels of a blocked Cholesky (pftrf's nb-column steps),
/// which keeps ONE panel workspace for the whole factorization (no free, so no device sync
/// between panels, and look-ahead keeps its overlap; its own scratch slot, RfpPanelCopy).
/// Auto: on CUDA (cuSOLVER's POTRF 'U' is the slow one on the look-ahead's critical path),
/// not on the host (OpenBLAS 'U' ~ 'L').
template <class ExecSpace, class T>
bool panel_upper_via_lower(const DenseOptions& opt) {
  if (opt.upper_via_lower != Toggle::Auto) return opt.upper_via_lower == Toggle::On;
  return !compat::is_host_exec_v<ExecSpace> && has_vendor_v<ExecSpace, T>;
}

/// An n x n column-major workspace on exec (leading dimension rounded up to 64 elements) in
/// `slot` of core's scratch: view() is n x n, full() ld x n. Kept per stream up to
/// kScratchKeepBytes; release_after() before the last use's return fences exec only for a
/// workspace that is not kept (it is freed with the handle).
template <class ExecSpace, class T>
class SquareWorkspace {
 public:
  using W = Kokkos::View<T**, Kokkos::LayoutLeft, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  SquareWorkspace(const ExecSpace& exec, size_type n, ScratchSlot slot)
      : s_(exec, square_workspace_bytes<T>(n), slot, "kspd::square_workspace"),
        full_(reinterpret_cast<T*>(s_.data()), size_t((n + 63) / 64 * 64), size_t(n)),
        n_(n) {}
  W full() const { return full_; }
  W view() const { return Kokkos::subview(full_, Kokkos::make_pair(size_t(0), size_t(n_)), Kokkos::ALL()); }
  void release_after() const { s_.release_after(); }

 private:
  Scratch<ExecSpace> s_;
  W full_;
  size_type n_;
};

}  // namespace kspd::Impl
#endif
