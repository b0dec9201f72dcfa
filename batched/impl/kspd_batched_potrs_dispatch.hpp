#ifndef KSPD_BATCHED_POTRS_DISPATCH_HPP
#define KSPD_BATCHED_POTRS_DISPATCH_HPP
/// \file kspd_batched_potrs_dispatch.hpp
/// Dispatch of batched POTRS (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_potrs.hpp.

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf_dispatch.hpp"
#include "kspd_batched_trsm_dispatch.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_repack_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched::Impl {
template <class T>
struct PotrsOp {
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Potrs;
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  Dims d;  // A is N(b) x N(b), B is N(b) x K(b)
  const int* skip = nullptr;  // skip[b] != 0: matrix b's factorization failed, B_b is left alone
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    serial_potrs(uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
    return 0;
  }
  int host(size_type b) const {  // A = L L^H or U^H U: two host TRSMs, as ?potrs does
    if (skip != nullptr && skip[b] != 0) return 0;
    const auto a = A.get(b, d.N(b), d.N(b));
    const auto x = B.get(b, d.N(b), d.K(b));
    const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : herm_trans<T>();
    const Trans second = uplo == Uplo::Lower ? herm_trans<T>() : Trans::NoTranspose;
    host_solves(a, x, true, [&](const auto& am, const auto& xm) {
      host_trsm(Side::Left, uplo, first, Diag::NonUnit, T(1), am, xm);
      host_trsm(Side::Left, uplo, second, Diag::NonUnit, T(1), am, xm);
    });
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    team_potrs(m, uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
    return 0;
  }
};
template <class T>
struct PosvOp {
  Uplo uplo;
  BatchMat<T> A;
  BatchMat<T> B;
  Dims d;
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    return serial_posv(uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    return team_posv(m, uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
  }
};

template <class ExecSpace, class T>
void potrs_fixed(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                 const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::potrs");
  check_algo<T>(opts.algo, "kspd::batched::potrs");
  if constexpr (real_kernels_v<T>) {
    const std::array<RepackOperand<T>, 2> ops{{{A, n, n, false, tri_of(uplo)}, {BatchMat<const T>(B), n, nrhs, true}}};
    if (const size_type kib = bf_repack_kib<ExecSpace, T>(HostOp::Potrs, n, opts, ops)) {
      bf_chunked(exec, nbatch, kib, ops, [&](size_type, size_type nb, const std::array<BatchMat<T>, 2>& cm) {
        potrs_fixed(exec, uplo, nb, n, nrhs, BatchMat<const T>(cm[0]), cm[1], opts);
      });
      return;
    }
    // Two TRSMs: recursive, or (CUDA, column-major matrices, n <= 32, by the table) the
    // warp-per-matrix shared-memory kernel.
    if ((use_recursion<ExecSpace, T>(opts, n) && A.splittable() && B.splittable()) ||
        (n <= 32 && !B.batch_unit_stride() && tuning<ExecSpace, T>(n).smem_trsm_warp_cols_cm > 0 &&
         use_smem_trsm<ExecSpace, T>(opts.algo, n, nrhs, false))) {
      const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : Trans::Transpose;
      trsm_fixed(exec, Side::Left, uplo, first, Diag::NonUnit, T(1), nbatch, n, nrhs, A, B, opts);
      trsm_fixed(exec, Side::Left, uplo, toggle(first), Diag::NonUnit, T(1), nbatch, n, nrhs, A, B, opts);
      return;
    }
    if (use_register<ExecSpace, T>(opts.algo, n, HostOp::Potrs) || use_stream_potrs<ExecSpace, T>(opts.algo, n)) {
      register_potrs(exec, uplo, nbatch, n, nrhs, A, B, opts);
      return;
    }
  }
  Dims d;
  d.n = n;
  d.k = nrhs;
  launch(exec, "kspd::batched::potrs", nbatch, PotrsOp<T>{uplo, A, B, d}, nullptr, opts, n);
}
/// POTRS that leaves B_b of the failed matrices (infos[b] != 0) untouched.
template <class ExecSpace, class T>
void potrs_guarded(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                   const BatchMat<const T>& A, const BatchMat<T>& B, const int* infos, const BatchOptions& opts) {
  const FailedGuard<ExecSpace, T> keep(exec, infos, nbatch, B, n, nrhs);
  potrs_fixed(exec, uplo, nbatch, n, nrhs, A, B, opts);
  keep.restore();
}
/// POSV: potrf_fixed then potrs_fixed; recursive above the leaf size, where the solve runs
/// on every matrix (one batched GEMM cannot skip some), so the right-hand sides of the
/// failed matrices are kept aside and put back.
template <class ExecSpace, class T>
void posv_fixed(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs, const BatchMat<T>& A,
                const BatchMat<T>& B, int* infos, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::posv");
  check_algo<T>(opts.algo, "kspd::batched::posv");
  if (use_recursion<ExecSpace, T>(opts, n) && A.splittable() && B.splittable()) {
    potrf_fixed(exec, uplo, nbatch, n, A, infos, opts);
    if (nbatch <= 0 || nrhs <= 0) return;
    potrs_guarded(exec, uplo, nbatch, n, nrhs, BatchMat<const T>(A), B, infos, opts);
    return;
  }
  Dims d;
  d.n = n;
  d.k = nrhs;
  launch(exec, "kspd::batched::posv", nbatch, PosvOp<T>{uplo, A, B, d}, infos, opts, n);
}
template <class AView, class BView>
void check_potrs_shapes(const char* op, const AView& As, const BView& Bs) {
  static_assert(AView::rank == 3 && BView::rank == 3, "kspd::batched::potrs/posv: As and Bs must be rank-3 Views");
  KSPD_REQUIRE(As.extent(0) == Bs.extent(0), DimensionMismatch,
               op << ": As holds " << As.extent(0) << " matrices, Bs " << Bs.extent(0));
  KSPD_REQUIRE(As.extent(1) == As.extent(2) && Bs.extent(1) == As.extent(1), DimensionMismatch,
               op << ": As must be n x n and Bs n x nrhs (got As " << As.extent(1) << " x " << As.extent(2) << ", Bs "
                  << Bs.extent(1) << " x " << Bs.extent(2) << ")");
}
}  // namespace kspd::batched::Impl
#endif
