#ifndef KSPD_DENSE_HPP
#define KSPD_DENSE_HPP
/// \file kspd_dense.hpp
/// Dense BLAS-3 and LAPACK operations on rank-2 Kokkos Views (column-major, row-major or
/// strided; float, double, Kokkos::complex<float> and Kokkos::complex<double>: for complex
/// scalars gemm, herk, trsm, trmm and the Hermitian factorizations), every one taking an execution-space instance first and
/// enqueueing its work there. CUDA builds call cuBLAS/cuSOLVER on exec's stream (or the
/// recursive kernels, where they are faster); host spaces call host BLAS/LAPACK; other
/// backends run the recursive algorithms on KokkosBlas::gemm with portable leaves.
///
/// Numerical breakdown is reported as LAPACK's info, not thrown (kspd::require_spd turns
/// it into kspd::NotPositiveDefinite). Bad arguments throw kspd::InvalidArgument /
/// kspd::DimensionMismatch naming the argument.

#include <algorithm>
#include <cstdint>
#include <string>
#include <type_traits>

#include "kspd_compat.hpp"
#include "kspd_dense_recursive.hpp"
#include "kspd_error.hpp"
#include "kspd_stream_scratch.hpp"
#include "kspd_tags.hpp"
#include "kspd_types.hpp"

namespace kspd {
namespace Impl {

enum class DenseOp { Gemm, Syrk, Symm, Trxm, Potrf, Trtri, Lauum, Potri };

/// Recursion cutoffs (DenseOptions::leaf_size overrides). On GPUs LAUUM has no vendor leaf:
/// its native leaf runs in one team's scratch memory, so its cutoff stays small.
template <class ExecSpace>
size_type default_leaf(Algo algo, DenseOp op = DenseOp::Trxm) {
  if (algo == Algo::Native) return 64;
  if constexpr (compat::is_host_exec_v<ExecSpace>) return 512;  // OpenBLAS leaves: 0.92-1.0x of its TRSM/TRMM
  else return op == DenseOp::Lauum ? 64 : 512;
}

/// The algorithm `Auto` stands for, per backend and operation (the choices the perf tests
/// measured; see perf_tests/results/).
template <class ExecSpace, class T>
Algo resolve(Algo requested, DenseOp op, size_type size) {
  if (requested != Algo::Auto) {
    if (requested != Algo::Native && !has_vendor_v<ExecSpace, T>) return Algo::Native;
    return requested;
  }
  if constexpr (!has_vendor_v<ExecSpace, T>) {
    return Algo::Native;
  } else if constexpr (compat::is_host_exec_v<ExecSpace>) {
    return Algo::Vendor;
  } else if constexpr (is_complex_v<T>) {
    // CUDA, complex: not measured yet; the recursion reaches Upper and transposed operands
    // through transposed views, which cuBLAS cannot take for Hermitian operations (they fall
    // back to the native leaves), so the vendor call wherever one exists
    return op == DenseOp::Lauum ? Algo::Recursive : Algo::Vendor;
  } else {  // CUDA: the recursive kernels win on large triangular work, and CUDA has no lauum
    switch (op) {
      case DenseOp::Trxm: return size >= 4096 ? Algo::Recursive : Algo::Vendor;
      // H100 (h100-rfp-blocking-2026-11-24): recursive TRTRI (TRMM-based, vendor leaves) wins
      // from 4K (pftri's halves: 1.03-1.37x over the vendor leaves from n = 8K, 0.84-0.94x at
      // 2K halves). POTRI: fp64 recursion 1.15x at 8K, 1.55x at 16K, cuSOLVER's at 2K-4K
      // (0.61x, 0.78x); fp32 cuSOLVER's everywhere (recursion 0.56-0.84x at 2K-16K).
      case DenseOp::Trtri: return size >= 4096 ? Algo::Recursive : Algo::Vendor;
      case DenseOp::Potri:
        return std::is_same<T, double>::value && size >= 8192 ? Algo::Recursive : Algo::Vendor;
      case DenseOp::Lauum: return Algo::Recursive;
      // cuBLAS DSYRK falls to 38.6 TF at n = k = 16K, the GEMM-based recursion runs 48.9
      // (1.27x; 1.00x at 8K, 0.79x at 4K); SSYRK wins everywhere (h100-rfp-blocking-*)
      case DenseOp::Syrk: return std::is_same<T, double>::value && size >= 12288 ? Algo::Recursive : Algo::Vendor;
      default: return Algo::Vendor;
    }
  }
}

/// A resolved Blocking: split (LAPACK's four calls) or `nb` columns a step, with or without
/// look-ahead.
struct BlockingChoice {
  Blocking kind = Blocking::Split;
  size_type nb = 0;
};

/// The blocking `Auto` stands for (pftrf over RFP blocks of order n), per backend; an
/// explicit choice passes through with the default block size filled in.
template <class ExecSpace, class T>
BlockingChoice resolve_blocking(const DenseOptions& opt, size_type n) {
  BlockingChoice c;
  c.kind = opt.blocking;
  if (c.kind == Blocking::Auto) {
    if constexpr (compat::is_host_exec_v<ExecSpace> || !has_vendor_v<ExecSpace, T>) {
      c.kind = Blocking::Split;  // host: LAPACK's own structure (perf_tests/results/cpu-rfp-*)
    } else {
      // H100, perf_rfp_blocking against Split in the same run (h100-rfp-*-2026-11-24-s4.md): the
      // nb-column look-ahead (panels on the urgent lane) loses to the four large calls at
      // 8K-32K in fp32/fp64 (1.01-1.35x of Split at nb 512-2048), wins at 4K with nb 2048 (one
      // step a half, on the urgent lane: 0.93-1.0x fp64, 0.89-0.99x fp32), and in complex
      // double at 16K with nb 1024 (0.92-0.97x); from 48K (fp32 64K: 1.04x cuSOLVER against
      // Split's 1.72x, h100-rfp-blocking-2026-11-24.md) look-ahead with nb 2048 everywhere
      // Dense (s7, h100-rfp-overheads-2026-11-24-s7.md, fp64): the RFP matrix unpacked into a
      // dense workspace and ONE potrf of order n runs 1.03-1.13x cuSOLVER's dense potrf at
      // n = 256-4096 against Split's 1.5-2.4x: cuSOLVER's potrf is latency-bound there
      // (potrf(2048) 0.95 ms, half of potrf(4096)), so two half-size calls cost as much as the
      // whole one before the trsm and syrk. It is NOT Auto's choice: the workspace (twice the
      // RFP storage, kept per stream) undoes the format's point, half the memory; a caller who
      // has the memory asks for it (Blocking::Dense), or factors the dense matrix.
      // s8 (h100-rfp-pftrf-2026-11-25-s8.md): NOT the nb = 64-128 look-ahead with diagonal
      // panels factored in shared memory either: 2.1-2.6x cuSOLVER at 4K, 1.8-2.4x at 6K-8K
      // (Split 1.07-1.62x in the same run): a step's chain (panel potrf 57-67 us, panel trsm
      // 55-98 us, next-panel update 32-56 us) times n / nb steps is 4.5-7 ms at 4K alone.
      if (n >= 49152) c.kind = Blocking::LookAhead;
      else if (!is_complex_v<T> && n >= 3072 && n < 6144) c.kind = Blocking::LookAhead;
      else if (std::is_same<T, Kokkos::complex<double>>::value && n >= 12288) c.kind = Blocking::LookAhead;
      else c.kind = Blocking::Split;
    }
  }
  if (opt.block_size > 0) c.nb = size_type(opt.block_size);
  else if constexpr (compat::is_host_exec_v<ExecSpace>) c.nb = 256;
  // below 6144: one step a half (ceil(n/2)); nb 2048 at n = 4097 left a 1-column step, 1.17-1.26x
  // of Split in NL/TU (run 2, h100-rfp-auto-2026-11-24-s4.md)
  else c.nb = n < 6144 ? (n + 1) / 2 : n >= 49152 ? 2048 : 1024;
  return c;
}

template <class ExecSpace, class T>
Recursive<ExecSpace, T> recursive(const ExecSpace& exec, Algo algo, const DenseOptions& opt,
                                  DenseOp op = DenseOp::Trxm) {
  return Recursive<ExecSpace, T>{exec, algo != Algo::Native,
                                 opt.leaf_size > 0 ? size_type(opt.leaf_size)
                                                   : default_leaf<ExecSpace>(algo, op)};
}

inline const char* trans_name(Trans t) { return is_trans(t) ? "op(.) = transpose" : "op(.) = identity"; }

template <class ExecSpace, class V>
void check_matrix(const char* op, const char* name, const V&) {
  static_assert(Kokkos::is_view<V>::value, "kspd: operands must be Kokkos::Views");
  static_assert(V::rank == 2, "kspd: dense operands must be rank-2 Views");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename V::memory_space>::accessible,
                "kspd: the execution space cannot access an operand's memory space");
  (void)op;
  (void)name;
}

template <class V>
void require_square(const char* op, const char* name, const V& A) {
  KSPD_REQUIRE(A.extent(0) == A.extent(1), DimensionMismatch,
               op << ": " << name << " must be square, got " << A.extent(0) << " x " << A.extent(1));
}

/// The memory a rank-2 View touches, as `count` runs of `run` consecutive elements whose
/// starts are `ld` elements apart (ld = 0: one run). known = false: no unit stride.
struct MemoryPattern {
  std::uintptr_t begin = 0;
  size_type run = 0, count = 0, ld = 0;
  bool known = true;
};
template <class V>
MemoryPattern memory_pattern(const V& X) {
  MemoryPattern p;
  p.begin = reinterpret_cast<std::uintptr_t>(X.data());
  const size_type e[2] = {size_type(X.extent(0)), size_type(X.extent(1))};
  const size_type s[2] = {size_type(X.stride(0)), size_type(X.stride(1))};
  // The run dimension: a unit stride, or an extent of 1; the longer one when both qualify.
  const bool ok0 = e[0] == 1 || s[0] == 1, ok1 = e[1] == 1 || s[1] == 1;
  if (!ok0 && !ok1) return p.known = false, p;
  const int u = ok0 && (!ok1 || e[0] >= e[1]) ? 0 : 1;
  p.run = e[u];
  p.count = e[1 - u];
  p.ld = p.count > 1 ? s[1 - u] : 0;
  return p;
}

/// Whether two Views share an element. Exact for Views with a unit stride that share their
/// leading dimension (the blocks of one matrix: L11 and L21 of a panel do not overlap);
/// other strided Views count as overlapping when their address ranges do.
template <class XV, class YV>
bool views_overlap(const XV& X, const YV& Y) {
  if (X.size() == 0 || Y.size() == 0) return false;
  if (!std::is_same<typename XV::memory_space, typename YV::memory_space>::value) return false;
  constexpr std::uintptr_t sx = sizeof(typename XV::value_type), sy = sizeof(typename YV::value_type);
  const std::uintptr_t x0 = reinterpret_cast<std::uintptr_t>(X.data()), y0 = reinterpret_cast<std::uintptr_t>(Y.data());
  // One past the last element (View::span() of a LayoutStride View may reach further).
  auto last = [](const auto& V) {
    return std::uintptr_t(1 + (V.extent(0) - 1) * V.stride(0) + (V.extent(1) - 1) * V.stride(1));
  };
  const std::uintptr_t x1 = x0 + last(X) * sx, y1 = y0 + last(Y) * sy;
  if (x1 <= y0 || y1 <= x0) return false;  // disjoint address ranges: the common case
  const MemoryPattern px = memory_pattern(X), py = memory_pattern(Y);
  if (sx != sy || !px.known || !py.known || (px.ld && py.ld && px.ld != py.ld)) return true;
  const std::uintptr_t base = std::min(x0, y0);
  if ((x0 - base) % sx || (y0 - base) % sx) return true;
  const size_type ld = px.ld ? px.ld : py.ld;
  if (ld == 0) return true;  // two contiguous runs whose ranges meet
  // Positions in the lattice of leading dimension ld: (offset mod ld, offset div ld).
  auto rect = [&](const MemoryPattern& p, std::uintptr_t b, size_type r[4]) {
    const size_type off = size_type((b - base) / sx);
    r[0] = off % ld, r[1] = r[0] + p.run, r[2] = off / ld, r[3] = r[2] + p.count;
    return r[1] <= ld;  // a run that wraps past ld: not a block of that lattice
  };
  size_type a[4], b[4];
  if (!rect(px, x0, a) || !rect(py, y0, b)) return true;
  return a[0] < b[1] && b[0] < a[1] && a[2] < b[3] && b[2] < a[3];
}

/// InvalidArgument when output `out` shares memory with input `in` (an operation that is not
/// defined in place).
template <class OV, class IV>
void require_no_alias(const char* op, const char* out, const OV& O, const char* in, const IV& I) {
  KSPD_REQUIRE(!views_overlap(O, I), InvalidArgument,
               op << ": the output " << out << " overlaps the input " << in
                  << " (aliased operands; the operation is not defined in place: pass a copy of " << in << ")");
}

}  // namespace Impl

/// C = alpha op(A) op(B) + beta C (?gemm). beta == 0 does not read C.
template <class ExecSpace, class AV, class BV, class CV>
void gemm(const ExecSpace& exec, Trans ta, Trans tb, typename CV::const_value_type alpha, const AV& A,
          const BV& B, typename CV::const_value_type beta, const CV& C) {
  using T = typename CV::non_const_value_type;
  Impl::check_matrix<ExecSpace>("kspd::gemm", "A", A);
  Impl::check_matrix<ExecSpace>("kspd::gemm", "B", B);
  Impl::check_matrix<ExecSpace>("kspd::gemm", "C", C);
  const size_type am = is_trans(ta) ? A.extent(1) : A.extent(0), ak = is_trans(ta) ? A.extent(0) : A.extent(1);
  const size_type bk = is_trans(tb) ? B.extent(1) : B.extent(0), bn = is_trans(tb) ? B.extent(0) : B.extent(1);
  KSPD_REQUIRE(am == size_type(C.extent(0)) && bn == size_type(C.extent(1)) && ak == bk, DimensionMismatch,
               "kspd::gemm: op(A) is " << am << " x " << ak << ", op(B) is " << bk << " x " << bn
                                       << ", C is " << C.extent(0) << " x " << C.extent(1));
  Impl::require_no_alias("kspd::gemm", "C", C, "A", A);
  Impl::require_no_alias("kspd::gemm", "C", C, "B", B);
  compat::ScopedRegion region("kspd::gemm");
  Impl::Recursive<ExecSpace, T>{exec, true, 0}.gemm(ta, tb, alpha, Impl::make_mat(A), Impl::make_mat(B),
                                                    beta, Impl::make_mat(C));
}

/// Triangular solve in place: B = alpha op(A)^{-1} B (Left) or alpha B op(A)^{-1} (Right).
template <class ExecSpace, class AV, class BV>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BV::const_value_type alpha, const AV& A, const BV& B, const DenseOptions& opt = {});
/// Triangular multiply in place: B = alpha op(A) B (Left) or alpha B op(A) (Right).
template <class ExecSpace, class AV, class BV>
void trmm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BV::const_value_type alpha, const AV& A, const BV& B, const DenseOptions& opt = {});

namespace Impl {
template <class ExecSpace, class AV, class BV>
void trxm(const char* name, bool solve, const ExecSpace& exec, Side side, Uplo uplo, Trans trans,
          Diag diag, typename BV::const_value_type alpha, const AV& A, const BV& B,
          const DenseOptions& opt) {
  using T = typename BV::non_const_value_type;
  check_matrix<ExecSpace>(name, "A", A);
  check_matrix<ExecSpace>(name, "B", B);
  require_square(name, "A", A);
  const size_type k = side == Side::Left ? B.extent(0) : B.extent(1);
  KSPD_REQUIRE(size_type(A.extent(0)) == k, DimensionMismatch,
               name << ": A is " << A.extent(0) << " x " << A.extent(1) << " but B is " << B.extent(0)
                    << " x " << B.extent(1) << " (side " << to_char(side) << ")");
  require_no_alias(name, "B", B, "A", A);
  compat::ScopedRegion region(name);
  const Algo algo = resolve<ExecSpace, T>(opt.algo, DenseOp::Trxm,
                                          std::min<size_type>(B.extent(0), B.extent(1)));
  auto a = make_mat(A);
  auto b = make_mat(B);
  if (algo == Algo::Vendor && vendor_trxm(exec, solve, side, uplo, trans, diag, T(alpha), a, b)) return;
  recursive<ExecSpace, T>(exec, algo, opt).trxm(solve, side, uplo, trans, diag, alpha, a, b);
}
}  // namespace Impl

template <class ExecSpace, class AV, class BV>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BV::const_value_type alpha, const AV& A, const BV& B, const DenseOptions& opt) {
  Impl::trxm("kspd::trsm", true, exec, side, uplo, trans, diag, alpha, A, B, opt);
}
template <class ExecSpace, class AV, class BV>
void trmm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BV::const_value_type alpha, const AV& A, const BV& B, const DenseOptions& opt) {
  Impl::trxm("kspd::trmm", false, exec, side, uplo, trans, diag, alpha, A, B, opt);
}

/// C = alpha op(A) op(A)^T + beta C on the `uplo` triangle of C (?syrk); the other triangle
/// is not touched. trans = NoTranspose: A is n x k; otherwise k x n.
template <class ExecSpace, class AV, class CV>
void syrk(const ExecSpace& exec, Uplo uplo, Trans trans, typename CV::const_value_type alpha, const AV& A,
          typename CV::const_value_type beta, const CV& C, const DenseOptions& opt = {}) {
  using T = typename CV::non_const_value_type;
  static_assert(!is_complex_v<T>, "kspd::syrk: real scalars only; use kspd::herk for complex Hermitian C");
  Impl::check_matrix<ExecSpace>("kspd::syrk", "A", A);
  Impl::check_matrix<ExecSpace>("kspd::syrk", "C", C);
  Impl::require_square("kspd::syrk", "C", C);
  const size_type an = is_trans(trans) ? A.extent(1) : A.extent(0);
  KSPD_REQUIRE(an == size_type(C.extent(0)), DimensionMismatch,
               "kspd::syrk: op(A) has " << an << " rows but C is " << C.extent(0) << " x " << C.extent(1));
  Impl::require_no_alias("kspd::syrk", "C", C, "A", A);
  compat::ScopedRegion region("kspd::syrk");
  const Algo algo = Impl::resolve<ExecSpace, T>(opt.algo, Impl::DenseOp::Syrk, C.extent(0));
  auto a = Impl::make_mat(A);
  auto c = Impl::make_mat(C);
  if (algo == Algo::Vendor && Impl::vendor_syrk(exec, uplo, trans, T(alpha), Impl::Mat<const T>(a), T(beta), c))
    return;
  if (is_trans(trans)) a = a.t();
  if (uplo == Uplo::Upper) c = c.t();  // the upper triangle of C is the lower one of C^T
  Impl::recursive<ExecSpace, T>(exec, algo, opt).syrk(alpha, a, a, false, beta, c);
}

/// C = alpha op(A) op(A)^H + beta C on the `uplo` triangle of the Hermitian C (?herk), alpha
/// and beta real; trans = NoTranspose: A is n x k, ConjTranspose: k x n. As ?herk, the
/// imaginary parts of C's diagonal come out zero. For real scalars this is syrk.
template <class ExecSpace, class AV, class CV>
void herk(const ExecSpace& exec, Uplo uplo, Trans trans, real_t<typename CV::non_const_value_type> alpha,
          const AV& A, real_t<typename CV::non_const_value_type> beta, const CV& C,
          const DenseOptions& opt = {}) {
  using T = typename CV::non_const_value_type;
  if constexpr (!is_complex_v<T>) {
    syrk(exec, uplo, trans, alpha, A, beta, C, opt);
  } else {
    Impl::check_matrix<ExecSpace>("kspd::herk", "A", A);
    Impl::check_matrix<ExecSpace>("kspd::herk", "C", C);
    Impl::require_square("kspd::herk", "C", C);
    KSPD_REQUIRE(trans != Trans::Transpose, InvalidArgument,
                 "kspd::herk: trans must be NoTranspose or ConjTranspose for complex scalars");
    const size_type an = is_trans(trans) ? A.extent(1) : A.extent(0);
    KSPD_REQUIRE(an == size_type(C.extent(0)), DimensionMismatch,
                 "kspd::herk: op(A) has " << an << " rows but C is " << C.extent(0) << " x " << C.extent(1));
    compat::ScopedRegion region("kspd::herk");
    const Algo algo = Impl::resolve<ExecSpace, T>(opt.algo, Impl::DenseOp::Syrk, C.extent(0));
    auto a = Impl::make_mat(A);
    auto c = Impl::make_mat(C);
    if (algo == Algo::Vendor && Impl::vendor_syrk(exec, uplo, trans, T(alpha), Impl::Mat<const T>(a), T(beta), c))
      return;
    // The recursion computes lower(C) += a a^H. A^H A = conj(a a^H) with a = A^T, and the
    // upper triangle seen transposed is the conjugate of the lower one: each conjugation is
    // undone by conjugating C's triangle around the call (alpha and beta are real).
    bool cj = false;
    if (is_trans(trans)) {
      a = a.t();
      cj = !cj;
    }
    if (uplo == Uplo::Upper) {
      c = c.t();
      cj = !cj;
    }
    if (cj && beta != real_t<T>(0)) Impl::native::conj_lower(exec, c);
    Impl::recursive<ExecSpace, T>(exec, algo, opt).syrk(T(alpha), a, a, false, T(beta), c);
    if (cj) Impl::native::conj_lower(exec, c);
  }
}

/// C = alpha (op(A) op(B)^T + op(B) op(A)^T) + beta C on the `uplo` triangle (?syr2k).
template <class ExecSpace, class AV, class BV, class CV>
void syr2k(const ExecSpace& exec, Uplo uplo, Trans trans, typename CV::const_value_type alpha, const AV& A,
           const BV& B, typename CV::const_value_type beta, const CV& C, const DenseOptions& opt = {}) {
  using T = typename CV::non_const_value_type;
  static_assert(!is_complex_v<T>, "kspd::syr2k: real scalars only");
  Impl::check_matrix<ExecSpace>("kspd::syr2k", "A", A);
  Impl::check_matrix<ExecSpace>("kspd::syr2k", "B", B);
  Impl::check_matrix<ExecSpace>("kspd::syr2k", "C", C);
  Impl::require_square("kspd::syr2k", "C", C);
  KSPD_REQUIRE(A.extent(0) == B.extent(0) && A.extent(1) == B.extent(1), DimensionMismatch,
               "kspd::syr2k: A is " << A.extent(0) << " x " << A.extent(1) << " but B is " << B.extent(0)
                                    << " x " << B.extent(1));
  const size_type an = is_trans(trans) ? A.extent(1) : A.extent(0);
  KSPD_REQUIRE(an == size_type(C.extent(0)), DimensionMismatch,
               "kspd::syr2k: op(A) has " << an << " rows but C is " << C.extent(0) << " x " << C.extent(1));
  Impl::require_no_alias("kspd::syr2k", "C", C, "A", A);
  Impl::require_no_alias("kspd::syr2k", "C", C, "B", B);
  compat::ScopedRegion region("kspd::syr2k");
  const Algo algo = Impl::resolve<ExecSpace, T>(opt.algo, Impl::DenseOp::Syrk, C.extent(0));
  auto a = Impl::make_mat(A);
  auto b = Impl::make_mat(B);
  auto c = Impl::make_mat(C);
  if (algo == Algo::Vendor &&
      Impl::vendor_syr2k(exec, uplo, trans, T(alpha), Impl::Mat<const T>(a), Impl::Mat<const T>(b), T(beta), c))
    return;
  if (is_trans(trans)) {
    a = a.t();
    b = b.t();
  }
  if (uplo == Uplo::Upper) c = c.t();
  Impl::recursive<ExecSpace, T>(exec, algo, opt).syrk(alpha, a, b, true, beta, c);
}

/// C = alpha S B + beta C (Left) or alpha B S + beta C (Right), S symmetric with its `uplo`
/// triangle stored in A (?symm).
template <class ExecSpace, class AV, class BV, class CV>
void symm(const ExecSpace& exec, Side side, Uplo uplo, typename CV::const_value_type alpha, const AV& A,
          const BV& B, typename CV::const_value_type beta, const CV& C, const DenseOptions& opt = {}) {
  using T = typename CV::non_const_value_type;
  static_assert(!is_complex_v<T>, "kspd::symm: real scalars only");
  Impl::check_matrix<ExecSpace>("kspd::symm", "A", A);
  Impl::check_matrix<ExecSpace>("kspd::symm", "B", B);
  Impl::check_matrix<ExecSpace>("kspd::symm", "C", C);
  Impl::require_square("kspd::symm", "A", A);
  const size_type k = side == Side::Left ? C.extent(0) : C.extent(1);
  KSPD_REQUIRE(B.extent(0) == C.extent(0) && B.extent(1) == C.extent(1) && size_type(A.extent(0)) == k,
               DimensionMismatch,
               "kspd::symm: A is " << A.extent(0) << " x " << A.extent(1) << ", B is " << B.extent(0) << " x "
                                   << B.extent(1) << ", C is " << C.extent(0) << " x " << C.extent(1));
  Impl::require_no_alias("kspd::symm", "C", C, "A", A);
  Impl::require_no_alias("kspd::symm", "C", C, "B", B);
  compat::ScopedRegion region("kspd::symm");
  const Algo algo = Impl::resolve<ExecSpace, T>(opt.algo, Impl::DenseOp::Symm, C.extent(0));
  auto a = Impl::make_mat(A);
  auto b = Impl::make_mat(B);
  auto c = Impl::make_mat(C);
  if (algo == Algo::Vendor &&
      Impl::vendor_symm(exec, side, uplo, T(alpha), Impl::Mat<const T>(a), Impl::Mat<const T>(b), T(beta), c))
    return;
  if (uplo == Uplo::Upper) a = a.t();
  if (side == Side::Right) {  // C^T = S B^T
    b = b.t();
    c = c.t();
  }
  Impl::recursive<ExecSpace, T>(exec, algo, opt).symm(alpha, a, b, beta, c);
}

}  // namespace kspd

#endif
