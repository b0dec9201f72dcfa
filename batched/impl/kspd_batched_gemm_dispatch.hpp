#ifndef KSPD_BATCHED_GEMM_DISPATCH_HPP
#define KSPD_BATCHED_GEMM_DISPATCH_HPP
/// \file kspd_batched_gemm_dispatch.hpp
/// Dispatch of batched GEMM (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_gemm.hpp.

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_recursive_internal.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched::Impl {
template <class T>
struct GemmOp {
  KSPD_BATCHED_REAL_ONLY(T);
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Gemm;
  Trans ta, tb;
  T alpha, beta;
  BatchMat<const T> A, B;
  BatchMat<T> C;
  Dims d;  // C is M x N, op(A) M x K, op(B) K x N
  KOKKOS_INLINE_FUNCTION Mat<const T> a(size_type b) const {
    return is_trans(ta) ? A.get(b, d.K(b), d.M(b)) : A.get(b, d.M(b), d.K(b));
  }
  KOKKOS_INLINE_FUNCTION Mat<const T> bm(size_type b) const {
    return is_trans(tb) ? B.get(b, d.N(b), d.K(b)) : B.get(b, d.K(b), d.N(b));
  }
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_gemm(ta, tb, alpha, a(b), bm(b), beta, C.get(b, d.M(b), d.N(b)));
    return 0;
  }
  int host(size_type b) const {
    const auto c = C.get(b, d.M(b), d.N(b));
    const Kokkos::DefaultHostExecutionSpace h;
    // k = 0 leaves beta C, which the serial code does without reading C when beta = 0
    if ((is_trans(ta) ? a(b).m : a(b).n) == 0) return serial(b);
    if (unit_stride(a(b)) && unit_stride(bm(b)) && unit_stride(c)) {
      kspd::Impl::vendor_gemm(h, ta, tb, alpha, a(b), bm(b), beta, c);
    } else {  // BLAS does not read C when beta = 0, so its poison never reaches the result
      Packed<const T> pa(a(b)), pb(bm(b));
      Packed<T> pc(c);
      kspd::Impl::vendor_gemm(h, ta, tb, alpha, kspd::Impl::Mat<const T>(pa.m), kspd::Impl::Mat<const T>(pb.m), beta,
                              pc.m);
      pc.unpack(c);
    }
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_gemm(m, ta, tb, alpha, a(b), bm(b), beta, C.get(b, d.M(b), d.N(b)));
    return 0;
  }
};
template <class T>
struct SyrkOp {
  KSPD_BATCHED_REAL_ONLY(T);
  Uplo uplo;
  Trans trans;
  T alpha, beta;
  BatchMat<const T> A;
  BatchMat<T> C;
  Dims d;  // C is N x N, op(A) N x K
  KOKKOS_INLINE_FUNCTION Mat<const T> a(size_type b) const {
    return is_trans(trans) ? A.get(b, d.K(b), d.N(b)) : A.get(b, d.N(b), d.K(b));
  }
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_syrk(uplo, trans, alpha, a(b), beta, C.get(b, d.N(b), d.N(b)));
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_syrk(m, uplo, trans, alpha, a(b), beta, C.get(b, d.N(b), d.N(b)));
    return 0;
  }
};

/// C(lower) = alpha A A^T + beta C with A n x k (the normalised SYRK), non-recursive.
template <class ExecSpace, class T>
void syrk_kernel(const ExecSpace& exec, size_type nbatch, size_type n, size_type k, T alpha, const BatchMat<const T>& A,
                 T beta, const BatchMat<T>& C, const BatchOptions& opts) {
  if constexpr (is_gpu_v<ExecSpace>) {
    if (opts.algo == BatchAlgo::Auto && n > kMaxRegisterN) {  // the register-tiled GEMM, lower tiles only
      const Tuning tu = tuning<ExecSpace, T>(n);
      tile_gemm(exec, Trans::NoTranspose, Trans::Transpose, nbatch, n, n, k, alpha, A, A, beta, C, 1, tu.gemm_tile,
                tu.gemm_chunk);
      return;
    }
  }
  Dims d;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::syrk", nbatch, SyrkOp<T>{Uplo::Lower, Trans::NoTranspose, alpha, beta, A, C, d}, nullptr,
         opts, n);
}
/// Two-sided recursive SYRK on the normalised problem: C11 and C22 recurse, C21 is a GEMM.
template <class ExecSpace, class T>
void syrk_rec(const ExecSpace& exec, size_type nbatch, size_type n, size_type k, T alpha, const BatchMat<const T>& A,
              T beta, const BatchMat<T>& C, const BatchOptions& opts) {
  // Without a vendor GEMM for this layout, one tiled call over the lower tiles beats the
  // recursion's extra launches.
  const bool vendor = has_vendor_batch_gemm<ExecSpace, T>() && vendor_gemm_layout(A, A, C);
  if (n <= leaf_size(opts) || (is_gpu_v<ExecSpace> && !vendor)) {
    syrk_kernel(exec, nbatch, n, k, alpha, A, beta, C, opts);
    return;
  }
  const size_type n1 = rec_split(n), n2 = n - n1;
  syrk_rec(exec, nbatch, n1, k, alpha, A, beta, C, opts);
  batch_gemm(exec, Trans::NoTranspose, Trans::Transpose, nbatch, n2, n1, k, alpha, A.sub(n1, 0), A, beta, C.sub(n1, 0),
             opts);
  syrk_rec(exec, nbatch, n2, k, alpha, A.sub(n1, 0), beta, C.sub(n1, n1), opts);
}
/// SYRK on any batch: recursive (Lower, NoTranspose after transposing A and / or C) when
/// the options and the batch allow, else the kernels of SyrkOp.
template <class ExecSpace, class T>
void syrk_fixed(const ExecSpace& exec, Uplo uplo, Trans trans, size_type nbatch, size_type n, size_type k, T alpha,
                BatchMat<const T> A, T beta, BatchMat<T> C, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::syrk");
  const bool rec = use_recursion<ExecSpace, T>(opts, n) && A.splittable() && C.splittable();
  if (rec || (is_gpu_v<ExecSpace> && opts.algo == BatchAlgo::Auto && n > kMaxRegisterN)) {
    if (is_trans(trans)) A = A.t();
    if (uplo == Uplo::Upper) C = C.t();  // C^T = A A^T as well: its lower triangle is C's upper
    if (rec) syrk_rec(exec, nbatch, n, k, alpha, A, beta, C, opts);
    else syrk_kernel(exec, nbatch, n, k, alpha, A, beta, C, opts);
    return;
  }
  Dims d;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::syrk", nbatch, SyrkOp<T>{uplo, trans, alpha, beta, A, C, d}, nullptr, opts, n);
}
/// GEMM on a fixed-size batch: on GPUs (Auto, n > 8) the vendor's / the tiled batched GEMM.
template <class ExecSpace, class T>
void gemm_fixed(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k,
                T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta, const BatchMat<T>& C,
                const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::gemm");
  if (is_gpu_v<ExecSpace> && opts.algo == BatchAlgo::Auto && (m > n ? m : n) > kMaxRegisterN) {
    batch_gemm(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, opts);
    return;
  }
  Dims d;
  d.m = m;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::gemm", nbatch, GemmOp<T>{ta, tb, alpha, beta, A, B, C, d}, nullptr, opts, m > n ? m : n);
}
}  // namespace kspd::batched::Impl
#endif
