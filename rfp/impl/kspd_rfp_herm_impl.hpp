#ifndef KSPD_RFP_HERM_IMPL_HPP
#define KSPD_RFP_HERM_IMPL_HPP
/// \file kspd_rfp_herm_impl.hpp
/// The block algorithms of complex Hermitian RFP matrices (LAPACK's c/z RFP routines).
///
/// The real algorithms view a stored upper triangle transposed; for complex scalars that
/// view is the conjugate of the lower triangle, which no BLAS call can take. Here every
/// block stays as LAPACK stores it, a column-major View with its stored triangle, and each
/// carries `h`: the logical block of the lower factor (L11, L21, L22) is the stored block's
/// conjugate transpose (a stored upper triangle, or A12 = A21^H). An operation op(L11) then
/// becomes op'(stored) with op' = op toggled by h, and every call stays one column-major
/// vendor call (cuBLAS/cuSOLVER, host BLAS/LAPACK) or the core's recursive kernels. The
/// same code is correct for real scalars (^H is ^T).

#include "kspd_rfp_blocks_impl.hpp"

namespace kspd::rfp::Impl {

template <class T, class Mem>
struct Stored {
  BlockView<T, Mem> v;      // column-major, as stored
  Uplo uplo = Uplo::Lower;  // the stored triangle (diagonal blocks)
  bool h = false;           // the logical block is v^H
};

template <class T, class Mem>
struct StoredBlocks {
  size_type n1 = 0, n2 = 0;
  Stored<T, Mem> t1, t2, s;  // A11's triangle, A22's triangle, A21 or A12
};

template <class T, class Mem>
StoredBlocks<T, Mem> stored_blocks(const Matrix<T, Mem>& A) {
  const Layout& L = A.layout();
  T* base = A.data().data();
  StoredBlocks<T, Mem> b;
  b.n1 = L.n1;
  b.n2 = L.n2;
  b.t1 = {block_view<T, Mem>(base, L.t1, false), L.t1.uplo, L.t1.uplo == Uplo::Upper};
  b.t2 = {block_view<T, Mem>(base, L.t2, false), L.t2.uplo, L.t2.uplo == Uplo::Upper};
  b.s = {block_view<T, Mem>(base, L.s, false), Uplo::Lower, L.s.holds_a12};
  return b;
}

/// op(logical) on the stored block: c says op = ^H.
template <class T>
Trans hop(bool h, bool c) {
  return h != c ? kspd::Impl::herm_trans<T>() : Trans::NoTranspose;
}

/// B = alpha op(T)^{-1} B / alpha op(T) B (side Left) or B op(T)^{-1} / B op(T) (Right), T the
/// logical lower triangular block held by t, op(T) = T^H when c.
template <class ExecSpace, class T, class Mem, class BV>
void tri(const ExecSpace& exec, bool solve, Side side, bool c, Diag diag, T alpha, const Stored<T, Mem>& t,
         const BV& B, const DenseOptions& opt) {
  const Trans op = hop<T>(t.h, c);
  if (solve) trsm(exec, side, t.uplo, op, diag, alpha, t.v, B, opt);
  else trmm(exec, side, t.uplo, op, diag, alpha, t.v, B, opt);
}

/// The same on the logical L21 block held by s: a stored A12 = L21^H is updated through
/// op(T) S = (S^H op(T)^H)^H, i.e. the other side, op toggled and alpha conjugated.
template <class ExecSpace, class T, class Mem>
void tri_s(const ExecSpace& exec, bool solve, Side side, bool c, Diag diag, T alpha, const Stored<T, Mem>& t,
           const Stored<T, Mem>& s, const DenseOptions& opt) {
  if (s.h) {
    side = flip(side);
    c = !c;
    alpha = kspd::Impl::conj_if(true, alpha);
  }
  tri(exec, solve, side, c, diag, alpha, t, s.v, opt);
}

/// B = alpha op(L)^{-1} B (Left) or alpha B op(L)^{-1} (Right), L the lower triangle of the
/// blocks, op(L) = L^H when tl.
template <class ExecSpace, class T, class Mem, class BV>
void tfsm_stored(const ExecSpace& exec, Side side, bool tl, Diag diag, T alpha, const StoredBlocks<T, Mem>& b,
                 const BV& B, const DenseOptions& opt) {
  const Trans N = Trans::NoTranspose;
  const size_type n1 = b.n1, n2 = b.n2;
  // the gemm coupling the halves is skipped when one half is empty; alpha goes to the second solve
  if (side == Side::Left) {
    auto B1 = rows(B, 0, n1);
    auto B2 = rows(B, n1, n2);
    if (!tl) {  // [L11 0; L21 L22] X = alpha B
      tri(exec, true, side, false, diag, alpha, b.t1, B1, opt);
      T a2 = T(1);
      if (n1 > 0) gemm(exec, hop<T>(b.s.h, false), N, T(-1), b.s.v, B1, alpha, B2);
      else a2 = alpha;
      tri(exec, true, side, false, diag, a2, b.t2, B2, opt);
    } else {  // [L11^H L21^H; 0 L22^H] X = alpha B
      tri(exec, true, side, true, diag, alpha, b.t2, B2, opt);
      T a1 = T(1);
      if (n2 > 0) gemm(exec, hop<T>(b.s.h, true), N, T(-1), b.s.v, B2, alpha, B1);
      else a1 = alpha;
      tri(exec, true, side, true, diag, a1, b.t1, B1, opt);
    }
  } else {
    auto B1 = cols(B, 0, n1);
    auto B2 = cols(B, n1, n2);
    if (!tl) {  // [X1 X2] [L11 0; L21 L22] = alpha [B1 B2]
      tri(exec, true, side, false, diag, alpha, b.t2, B2, opt);
      T a1 = T(1);
      if (n2 > 0) gemm(exec, N, hop<T>(b.s.h, false), T(-1), B2, b.s.v, alpha, B1);
      else a1 = alpha;
      tri(exec, true, side, false, diag, a1, b.t1, B1, opt);
    } else {  // [X1 X2] [L11^H L21^H; 0 L22^H] = alpha [B1 B2]
      tri(exec, true, side, true, diag, alpha, b.t1, B1, opt);
      T a2 = T(1);
      if (n1 > 0) gemm(exec, N, hop<T>(b.s.h, true), T(-1), B1, b.s.v, alpha, B2);
      else a2 = alpha;
      tri(exec, true, side, true, diag, a2, b.t2, B2, opt);
    }
  }
}

/// inv(L) in place: [W11 0; -W22 L21 W11  W22].
template <class ExecSpace, class T, class Mem>
int tftri_stored(const ExecSpace& exec, Diag diag, const StoredBlocks<T, Mem>& b, const DenseOptions& opt) {
  int info = trtri(exec, b.t1.uplo, diag, b.t1.v, opt);
  if (info != 0) return info;
  if (b.n2 == 0) return 0;
  if (b.n1 > 0) tri_s(exec, false, Side::Right, false, diag, T(-1), b.t1, b.s, opt);
  info = trtri(exec, b.t2.uplo, diag, b.t2.v, opt);
  if (info != 0) return int(b.n1) + info;
  if (b.n1 > 0) tri_s(exec, false, Side::Left, false, diag, T(1), b.t2, b.s, opt);
  return 0;
}

/// inv(A) = W^H W from W = inv(L): lauum, herk, trmm, lauum on the blocks.
template <class ExecSpace, class T, class Mem>
int pftri_stored(const ExecSpace& exec, const StoredBlocks<T, Mem>& b, const DenseOptions& opt) {
  const int info = tftri_stored(exec, Diag::NonUnit, b, opt);
  if (info != 0) return info;
  lauum(exec, b.t1.uplo, b.t1.v, opt);  // W11^H W11
  if (b.n2 > 0) {
    if (b.n1 > 0) {
      herk(exec, b.t1.uplo, b.s.h ? Trans::NoTranspose : kspd::Impl::herm_trans<T>(), real_t<T>(1), b.s.v,
           real_t<T>(1), b.t1.v, opt);                                           // + W21^H W21
      tri_s(exec, false, Side::Left, true, Diag::NonUnit, T(1), b.t2, b.s, opt);  // W22^H W21
    }
    lauum(exec, b.t2.uplo, b.t2.v, opt);  // W22^H W22
  }
  return 0;
}

}  // namespace kspd::rfp::Impl
#endif
