#ifndef KSPD_BATCHED_TRSM_DISPATCH_HPP
#define KSPD_BATCHED_TRSM_DISPATCH_HPP
/// \file kspd_batched_trsm_dispatch.hpp
/// Dispatch of batched TRSM (the kernels it chooses between and when); the public entry points
/// are in kspd_batched_trsm.hpp.

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_gemm_dispatch.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_repack_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_smem_trsm_cuda.hpp"
#include "kspd_batched_team.hpp"
#include "kspd_batched_trsm_operands.hpp"

namespace kspd::batched::Impl {
template <class T>
struct TrsmOp {
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Trsm;
  TrsmOperands<T, Dims> op;
  const int* skip = nullptr;  // skip[b] != 0: matrix b's factorization failed, B_b is left alone
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    serial_trsm(op.side, op.uplo, op.trans, op.diag, op.alpha, op.mat_a(b), op.mat_b(b));
    return 0;
  }
  int host(size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    host_solves(op.mat_a(b), op.mat_b(b), is_conj(op.trans), [&](const auto& am, const auto& xm) {
      host_trsm(op.side, op.uplo, op.trans, op.diag, op.alpha, am, xm);
    });
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    team_trsm(m, op.side, op.uplo, op.trans, op.diag, op.alpha, op.mat_a(b), op.mat_b(b));
    return 0;
  }
};

/// The non-recursive TRSM kernels (register / streaming on GPUs for k <= 32, or <= 64 with
/// BatchOptions::stream_trsm_max; else TrsmOp's).
template <class ExecSpace, class T>
void trsm_kernel(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch,
                 size_type m, size_type n, const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts) {
  const size_type k = side == Side::Left ? m : n;
  if constexpr (real_kernels_v<T>) {
    const bool smem = use_smem_trsm<ExecSpace, T>(opts.algo, k, side == Side::Left ? n : m, B.batch_unit_stride());
    if (smem || use_register<ExecSpace, T>(opts.algo, k, HostOp::Trsm) || use_stream_trsm<ExecSpace, T>(opts, k)) {
      const TrsmOperands<T> op{side, uplo, trans, diag, alpha, A, B, fixed_dims(m, n, "kspd::batched::trsm")};
      if (smem) smem_trsm(exec, op, nbatch);
      else register_trsm(exec, op, nbatch, opts);
      return;
    }
  }
  Dims d;
  d.m = m;
  d.n = n;
  launch(exec, "kspd::batched::trsm", nbatch, TrsmOp<T>{{side, uplo, trans, diag, alpha, A, B, d}}, nullptr, opts, k);
}
/// Two-sided recursive A X = alpha B (Left, NoTranspose; A m x m, B m x n). Lower:
/// X1 = A11^-1 alpha B1, B2 = alpha B2 - A21 X1 (GEMM), X2 = A22^-1 B2; Upper mirrored.
/// Shared-memory leaves only up to order `cap` (smem_trsm_leaf_cap of the caller's k).
template <class ExecSpace, class T>
void trsm_rec(const ExecSpace& exec, bool lower, Diag diag, T alpha, size_type nbatch, size_type m, size_type n,
              const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts, size_type cap) {
  if (m <= leaf_size(opts) || (m <= cap && use_smem_trsm<ExecSpace, T>(opts.algo, m, n, B.batch_unit_stride()))) {
    trsm_kernel(exec, Side::Left, lower ? Uplo::Lower : Uplo::Upper, Trans::NoTranspose, diag, alpha, nbatch, m, n, A, B,
                opts);
    return;
  }
  const size_type m1 = rec_split(m), m2 = m - m1;
  const BatchMat<const T> A22 = A.sub(m1, m1);
  const BatchMat<T> B2 = B.sub(m1, 0);
  if (lower) {
    trsm_rec(exec, true, diag, alpha, nbatch, m1, n, A, B, opts, cap);
    batch_gemm(exec, Trans::NoTranspose, Trans::NoTranspose, nbatch, m2, n, m1, T(-1), A.sub(m1, 0),
               BatchMat<const T>(B), alpha, B2, opts);
    trsm_rec(exec, true, diag, T(1), nbatch, m2, n, A22, B2, opts, cap);
  } else {
    trsm_rec(exec, false, diag, alpha, nbatch, m2, n, A22, B2, opts, cap);
    batch_gemm(exec, Trans::NoTranspose, Trans::NoTranspose, nbatch, m1, n, m2, T(-1), A.sub(0, m1),
               BatchMat<const T>(B2), alpha, B, opts);
    trsm_rec(exec, false, diag, T(1), nbatch, m1, n, A, B, opts, cap);
  }
}
/// TRSM on a fixed-size batch: batch-first operands chunk by chunk through column-major copies
/// where the tuning table says (bf_chunked);
/// recursive above the leaf size (every variant reduced to
/// Left / NoTranspose by transposing the batch descriptors), else trsm_kernel.
template <class ExecSpace, class T>
void trsm_fixed(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch,
                size_type m, size_type n, BatchMat<const T> A, BatchMat<T> B, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::trsm");
  check_algo<T>(opts.algo, "kspd::batched::trsm");
  const size_type k = side == Side::Left ? m : n;
  if constexpr (real_kernels_v<T>) {
    const std::array<RepackOperand<T>, 2> ops{{{A, k, k, false, tri_of(uplo)}, {BatchMat<const T>(B), m, n, true}}};
    // Only with at least k right-hand sides (H100 run 2: nrhs = k wins at k = 192 / 256, while
    // POTRS's two TRSMs with nrhs = 1 lose, 1.32x / 0.93x -> 0.71x / 0.65x cuSOLVER).
    const size_type ncols = side == Side::Left ? n : m;
    if (const size_type kib = ncols >= k ? bf_repack_kib<ExecSpace, T>(HostOp::Trsm, k, opts, ops) : 0) {
      bf_chunked(exec, nbatch, kib, ops, [&](size_type, size_type nb, const std::array<BatchMat<T>, 2>& cm) {
        trsm_fixed(exec, side, uplo, trans, diag, alpha, nb, m, n, BatchMat<const T>(cm[0]), cm[1], opts);
      });
      return;
    }
    const size_type cap = smem_trsm_leaf_cap<ExecSpace, T>(k, B.batch_unit_stride());
    if (use_recursion<ExecSpace, T>(opts, k) && !use_stream_trsm<ExecSpace, T>(opts, k) &&
        !(k <= cap && use_smem_trsm<ExecSpace, T>(opts.algo, k, side == Side::Left ? n : m, B.batch_unit_stride())) &&
        A.splittable() && B.splittable()) {
      if (side == Side::Right) {  // X op(A) = alpha B  <=>  op(A)^T X^T = alpha B^T
        B = B.t();
        std::swap(m, n);
        trans = toggle(trans);
      }
      if (is_trans(trans)) {
        A = A.t();
        uplo = flip(uplo);
      }
      trsm_rec(exec, uplo == Uplo::Lower, diag, alpha, nbatch, m, n, A, B, opts, cap);
      return;
    }
  }
  trsm_kernel(exec, side, uplo, trans, diag, alpha, nbatch, m, n, A, B, opts);
}
}  // namespace kspd::batched::Impl
#endif
