#ifndef KSPD_BATCHED_TRMM_DISPATCH_HPP
#define KSPD_BATCHED_TRMM_DISPATCH_HPP
/// \file kspd_batched_trmm_dispatch.hpp
/// Dispatch of batched TRMM (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_trmm.hpp.

#include "kspd_batched_gemm_dispatch.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"
#include "kspd_batched_trsm_operands.hpp"

namespace kspd::batched::Impl {
template <class T>
struct TrmmOp {
  KSPD_BATCHED_REAL_ONLY(T);
  TrsmOperands<T, Dims> op;
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_trmm(op.side, op.uplo, op.trans, op.diag, op.alpha, op.mat_a(b), op.mat_b(b));
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_trmm(m, op.side, op.uplo, op.trans, op.diag, op.alpha, op.mat_a(b), op.mat_b(b));
    return 0;
  }
};

template <class ExecSpace, class T>
void trmm_kernel(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch,
                 size_type m, size_type n, const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts) {
  Dims d;
  d.m = m;
  d.n = n;
  launch(exec, "kspd::batched::trmm", nbatch, TrmmOp<T>{{side, uplo, trans, diag, alpha, A, B, d}}, nullptr, opts,
         side == Side::Left ? m : n);
}
/// Two-sided recursive B = alpha A B (Left, NoTranspose; A m x m, B m x n). Lower:
/// B2 = alpha A22 B2, B2 += alpha A21 B1 (GEMM, B1 still the input), B1 = alpha A11 B1;
/// Upper mirrored.
template <class ExecSpace, class T>
void trmm_rec(const ExecSpace& exec, bool lower, Diag diag, T alpha, size_type nbatch, size_type m, size_type n,
              const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts) {
  if (m <= leaf_size(opts)) {
    trmm_kernel(exec, Side::Left, lower ? Uplo::Lower : Uplo::Upper, Trans::NoTranspose, diag, alpha, nbatch, m, n, A, B,
                opts);
    return;
  }
  const size_type m1 = rec_split(m), m2 = m - m1;
  const BatchMat<const T> A22 = A.sub(m1, m1);
  const BatchMat<T> B2 = B.sub(m1, 0);
  if (lower) {
    trmm_rec(exec, true, diag, alpha, nbatch, m2, n, A22, B2, opts);
    batch_gemm(exec, Trans::NoTranspose, Trans::NoTranspose, nbatch, m2, n, m1, alpha, A.sub(m1, 0),
               BatchMat<const T>(B), T(1), B2, opts);
    trmm_rec(exec, true, diag, alpha, nbatch, m1, n, A, B, opts);
  } else {
    trmm_rec(exec, false, diag, alpha, nbatch, m1, n, A, B, opts);
    batch_gemm(exec, Trans::NoTranspose, Trans::NoTranspose, nbatch, m1, n, m2, alpha, A.sub(0, m1),
               BatchMat<const T>(B2), T(1), B, opts);
    trmm_rec(exec, false, diag, alpha, nbatch, m2, n, A22, B2, opts);
  }
}
/// TRMM on a fixed-size batch: recursive above the leaf size (reduced to Left / NoTranspose
/// by transposing the descriptors: B op(A) = (op(A)^T B^T)^T), else TrmmOp's kernels.
template <class ExecSpace, class T>
void trmm_fixed(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch,
                size_type m, size_type n, BatchMat<const T> A, BatchMat<T> B, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::trmm");
  const size_type k = side == Side::Left ? m : n;
  if (use_recursion<ExecSpace, T>(opts, k) && A.splittable() && B.splittable()) {
    if (side == Side::Right) {
      B = B.t();
      std::swap(m, n);
      trans = toggle(trans);
    }
    if (is_trans(trans)) {
      A = A.t();
      uplo = flip(uplo);
    }
    trmm_rec(exec, uplo == Uplo::Lower, diag, alpha, nbatch, m, n, A, B, opts);
    return;
  }
  trmm_kernel(exec, side, uplo, trans, diag, alpha, nbatch, m, n, A, B, opts);
}
}  // namespace kspd::batched::Impl
#endif
