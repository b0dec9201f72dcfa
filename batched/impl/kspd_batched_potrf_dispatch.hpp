#ifndef KSPD_BATCHED_POTRF_DISPATCH_HPP
#define KSPD_BATCHED_POTRF_DISPATCH_HPP
/// \file kspd_batched_potrf_dispatch.hpp
/// Dispatch of batched POTRF (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_potrf.hpp.

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_gemm_dispatch.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_trsm_dispatch.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_repack_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_smem_potrf_cuda.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched::Impl {
template <class T>
struct PotrfOp {
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Potrf;
  Uplo uplo;
  BatchMat<T> A;
  Dims d;
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const { return serial_potrf(uplo, A.get(b, d.N(b), d.N(b))); }
  int host(size_type b) const {
    const auto a = A.get(b, d.N(b), d.N(b));
    const Kokkos::DefaultHostExecutionSpace h;
    int info = 0;
    if (unit_stride(a)) {
      kspd::Impl::vendor_factor(h, kspd::Impl::FactorOp::Potrf, uplo, Diag::NonUnit, a, &info);
    } else {
      Packed<T> p(a);
      kspd::Impl::vendor_factor(h, kspd::Impl::FactorOp::Potrf, uplo, Diag::NonUnit, p.m, &info);
      p.unpack(a);
    }
    // ?potrf passes an infinite pivot (sqrt(Inf) = Inf, then zeros below it); the kernels'
    // complex convention reports it (good_pivot), so the LAPACK loop must too.
    if constexpr (is_complex_v<T>)
      for (size_type j = 0; info == 0 && j < a.n; ++j)
        if (!good_pivot<T>(real_part(a(j, j)))) info = int(j + 1);
    return info;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    return team_potrf(m, uplo, A.get(b, d.N(b), d.N(b)));
  }
};

/// The non-recursive POTRF kernels (CUDA: shared memory where the tuning table says; register /
/// group on GPUs for n <= 32; else PotrfOp's).
template <class ExecSpace, class T>
void potrf_kernel(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A, int* infos,
                  const BatchOptions& opts) {
  if constexpr (real_kernels_v<T>) {
    if (use_smem_potrf<ExecSpace, T>(opts.algo, n, A.batch_unit_stride())) {
      smem_potrf(exec, uplo, nbatch, n, A, infos);
      return;
    }
    if (use_register<ExecSpace, T>(opts.algo, n, HostOp::Potrf)) {
      register_potrf(exec, uplo, nbatch, n, A, infos, opts);
      return;
    }
  }
  BatchOptions o = opts;
  if constexpr (!real_kernels_v<T> && is_gpu_v<ExecSpace>)
    if (o.algo == BatchAlgo::Auto && n <= kGpuComplexPotrfSerialMax) o.algo = BatchAlgo::Serial;
  Dims d;
  d.n = n;
  launch(exec, "kspd::batched::potrf", nbatch, PotrfOp<T>{uplo, A, d}, infos, o, n);
}
/// Whether POTRF of order n on A recurses (real scalars).
template <class ExecSpace, class T>
bool potrf_recurses(size_type n, const BatchMat<T>& A, const BatchOptions& opts) {
  return use_recursion<ExecSpace, T>(opts, n) && !use_smem_potrf<ExecSpace, T>(opts.algo, n, A.batch_unit_stride()) &&
         A.splittable();
}
/// Two-sided recursive Cholesky of the lower triangle: L11 = chol(A11), L21 = A21 L11^-T
/// (TRSM), A22 -= L21 L21^T (SYRK), L22 = chol(A22). The leaf of global column col0 reports
/// col0 + its column, for the matrices that have not failed in an earlier leaf.
template <class ExecSpace, class T>
void potrf_rec(const ExecSpace& exec, size_type nbatch, size_type n, size_type col0, const BatchMat<T>& A,
               const RecInfo<ExecSpace>& info, const BatchOptions& opts) {
  if (n <= leaf_size(opts) || use_smem_potrf<ExecSpace, T>(opts.algo, n, A.batch_unit_stride())) {
    potrf_kernel(exec, Uplo::Lower, nbatch, n, A, info.leaf(col0), opts);
    info.merge(exec, nbatch, col0);
    return;
  }
  const size_type n1 = rec_split(n), n2 = n - n1;
  potrf_rec(exec, nbatch, n1, col0, A, info, opts);
  trsm_fixed(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, T(1), nbatch, n2, n1,
             BatchMat<const T>(A), A.sub(n1, 0), opts);
  syrk_fixed(exec, Uplo::Lower, Trans::NoTranspose, nbatch, n2, n1, T(-1), BatchMat<const T>(A.sub(n1, 0)), T(1),
             A.sub(n1, n1), opts);
  potrf_rec(exec, nbatch, n2, col0 + n1, A.sub(n1, n1), info, opts);
}

/// POTRF on a fixed-size batch, its recursion's infos in `info` (allocated by the caller).
template <class ExecSpace, class T>
void potrf_run(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A,
               const RecInfo<ExecSpace>& info, const BatchOptions& opts) {
  if constexpr (real_kernels_v<T>) {
    // Upper: U^T U = L L^T with L = U^T.
    if (potrf_recurses<ExecSpace, T>(n, A, opts)) {
      potrf_rec(exec, nbatch, n, 0, uplo == Uplo::Upper ? A.t() : A, info, opts);
      return;
    }
  }
  potrf_kernel(exec, uplo, nbatch, n, A, info.infos, opts);
}

/// POTRF on a fixed-size batch: batch-first operands chunk by chunk through column-major
/// copies where the tuning table says (bf_chunked), else potrf_run on the data.
template <class ExecSpace, class T>
void potrf_fixed(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, const BatchMat<T>& A, int* infos,
                 const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::potrf");
  check_algo<T>(opts.algo, "kspd::batched::potrf");
  if constexpr (real_kernels_v<T>) {  // complex scalars: neither the repack nor the recursion
    const std::array<RepackOperand<T>, 1> ops{{{A, n, n, true, tri_of(uplo)}}};
    if (const size_type kib = bf_repack_kib<ExecSpace, T>(HostOp::Potrf, n, opts, ops)) {
      const RecInfo<ExecSpace> info(infos, nbatch);
      bf_chunked(exec, nbatch, kib, ops, [&](size_type b0, size_type nb, const std::array<BatchMat<T>, 1>& cm) {
        potrf_run(exec, uplo, nb, n, cm[0], info.shifted(b0), opts);
      });
      return;
    }
    if (potrf_recurses<ExecSpace, T>(n, A, opts)) {
      potrf_run(exec, uplo, nbatch, n, A, RecInfo<ExecSpace>(infos, nbatch), opts);
      return;
    }
  }
  potrf_kernel(exec, uplo, nbatch, n, A, infos, opts);
}
}  // namespace kspd::batched::Impl
#endif
