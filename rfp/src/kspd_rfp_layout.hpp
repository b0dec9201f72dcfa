#ifndef KSPD_RFP_LAYOUT_HPP
#define KSPD_RFP_LAYOUT_HPP
/// \file kspd_rfp_layout.hpp
/// LAPACK's Rectangular Full Packed layout (LAWN 199; ?trttf, ?pftrf) as a descriptor.
///
/// The n x n symmetric (or triangular) matrix is split at n1 into
///   A = [ A11  A12 ]   A11: n1 x n1, A22: n2 x n2, A21 = A12^T: n2 x n1,
///       [ A21  A22 ]
/// with n1 = ceil(n/2) for uplo = Lower and n1 = floor(n/2) for uplo = Upper (LAPACK's
/// choice). The RFP array is column-major with leading dimension ld; it holds one triangle
/// of A11 (block t1), one triangle of A22 (block t2) and the rectangle (block s), which is
/// A21 (n2 x n1) or A12 (n1 x n2). For each of the 8 variants (transr N/T x uplo L/U x n
/// odd/even) the offsets, dimensions and stored triangles are exactly LAPACK's:
///
///   n odd   transr uplo  ld   t1 (off, tri)   s (off, holds)   t2 (off, tri)
///           N      L     n    0       L       n1      A21      n       U
///           N      U     n    n2      L       0       A12      n1      U
///           T      L     n1   0       U       n1*n1   A12      1       L
///           T      U     n2   n2*n2   U       0       A21      n1*n2   L
///   n even (k = n/2)
///           N      L     n+1  1       L       k+1     A21      0       U
///           N      U     n+1  k+1     L       0       A12      k       U
///           T      L     k    k       U       k*(k+1) A12      0       L
///           T      U     k    k*(k+1) U       0       A21      k*k     L
///
/// A stored triangle of a diagonal block is a triangle of a symmetric matrix, so which one
/// it is does not change the values; the factor of pftrf is unique (U = L^T), so one set of
/// block operations serves all variants. Offsets are 64-bit: n(n+1)/2 passes 2^31 at
/// n = 65,536.

#include <Kokkos_Macros.hpp>

#include "kspd_error.hpp"
#include "kspd_tags.hpp"
#include "kspd_types.hpp"

namespace kspd::rfp {

/// One block of the RFP array: a column-major rows x cols matrix at `offset` with leading
/// dimension `ld`. For the diagonal blocks `uplo` is the stored triangle; for the rectangle
/// `holds_a12` says whether it stores A12 (n1 x n2) or A21 (n2 x n1).
struct Block {
  offset_type offset = 0;
  size_type rows = 0, cols = 0;
  offset_type ld = 1;
  Uplo uplo = Uplo::Lower;
  bool holds_a12 = false;
};

struct Layout {
  size_type n = 0, n1 = 0, n2 = 0;
  Trans transr = Trans::NoTranspose;
  Uplo uplo = Uplo::Lower;
  offset_type ld = 1;            ///< leading dimension of the RFP array
  size_type rows = 0, cols = 0;  ///< the RFP array is rows x cols, column-major
  Block t1, t2, s;

  /// Number of entries: n(n+1)/2.
  KOKKOS_INLINE_FUNCTION offset_type size() const { return offset_type(n) * (n + 1) / 2; }

  /// Offset of the diagonal entry (i,i), 0-based.
  KOKKOS_INLINE_FUNCTION offset_type diag(size_type i) const {
    return i < n1 ? t1.offset + offset_type(i) * (ld + 1) : t2.offset + offset_type(i - n1) * (ld + 1);
  }

  /// Offset of the entry holding A(i,j) = A(j,i), 0-based, any i, j < n.
  KOKKOS_INLINE_FUNCTION offset_type index(size_type i, size_type j) const {
    if (i < n1 && j < n1) return tri_index(t1, i, j);
    if (i >= n1 && j >= n1) return tri_index(t2, i - n1, j - n1);
    size_type p = i >= n1 ? i - n1 : j - n1;  // row in A21
    size_type q = i >= n1 ? j : i;            // column in A21
    return s.holds_a12 ? s.offset + q + offset_type(p) * ld : s.offset + p + offset_type(q) * ld;
  }

  /// The inverse of index(): the entry at offset `pos` holds A(i,j) with i >= j.
  KOKKOS_INLINE_FUNCTION void decode(offset_type pos, size_type& i, size_type& j) const {
    const size_type r = size_type(pos % ld), c = size_type(pos / ld);
    size_type a, b;
    if (in_tri(t1, r, c, a, b)) {
      i = a > b ? a : b;
      j = a > b ? b : a;
      return;
    }
    if (in_tri(t2, r, c, a, b)) {
      i = n1 + (a > b ? a : b);
      j = n1 + (a > b ? b : a);
      return;
    }
    a = r - size_type(s.offset % ld);
    b = c - size_type(s.offset / ld);
    if (s.holds_a12) {
      i = n1 + b;
      j = a;
    } else {
      i = n1 + a;
      j = b;
    }
  }

  /// Complex Hermitian (LAPACK's c/z RFP): the entry at `pos` holds A(i,j) of the `uplo`
  /// triangle (i >= j for Lower, i <= j for Upper), conjugated when `cj`. Every entry holds
  /// the value of its own position in the blocks (A11, A21 or A12, A22); the positions
  /// outside the `uplo` triangle hold conjugates, and so do the diagonals of the blocks
  /// stored in the other triangle (as ?trttf copies them).
  KOKKOS_INLINE_FUNCTION void decode_herm(offset_type pos, size_type& i, size_type& j, bool& cj) const {
    const size_type r = size_type(pos % ld), c = size_type(pos / ld);
    size_type a, b, ri, ci;
    bool other = false;
    if (in_tri(t1, r, c, a, b)) {
      ri = a;
      ci = b;
      other = t1.uplo != uplo;
    } else if (in_tri(t2, r, c, a, b)) {
      ri = n1 + a;
      ci = n1 + b;
      other = t2.uplo != uplo;
    } else {
      a = r - size_type(s.offset % ld);
      b = c - size_type(s.offset / ld);
      ri = s.holds_a12 ? a : n1 + a;
      ci = s.holds_a12 ? n1 + b : b;
    }
    const bool inside = uplo == Uplo::Lower ? ri > ci : ri < ci;
    if (ri == ci || inside) {
      i = ri;
      j = ci;
      cj = ri == ci && other;
    } else {
      i = ci;
      j = ri;
      cj = true;
    }
  }

  /// The entry at `pos` holds A(i,j) of the `uplo` triangle, conjugated when `cj`:
  /// decode_herm for complex Hermitian matrices (herm), decode oriented to `uplo` otherwise.
  KOKKOS_INLINE_FUNCTION void decode_uplo(offset_type pos, bool herm, size_type& i, size_type& j, bool& cj) const {
    if (herm) {
      decode_herm(pos, i, j, cj);
      return;
    }
    size_type a, b;
    decode(pos, a, b);
    cj = false;
    i = uplo == Uplo::Lower ? a : b;
    j = uplo == Uplo::Lower ? b : a;
  }

 private:
  KOKKOS_INLINE_FUNCTION offset_type tri_index(const Block& t, size_type a, size_type b) const {
    const bool swap = t.uplo == Uplo::Lower ? a < b : a > b;
    return swap ? t.offset + b + offset_type(a) * ld : t.offset + a + offset_type(b) * ld;
  }
  KOKKOS_INLINE_FUNCTION bool in_tri(const Block& t, size_type r, size_type c, size_type& a, size_type& b) const {
    a = r - size_type(t.offset % ld);
    b = c - size_type(t.offset / ld);
    if (a < 0 || b < 0 || a >= t.rows || b >= t.rows) return false;
    return t.uplo == Uplo::Lower ? a >= b : a <= b;
  }
};

/// The layout of an n x n matrix in RFP format (transr: NoTranspose or Transpose, which is
/// ConjTranspose for complex scalars: LAPACK's 'C'; the offsets are the same).
inline Layout make_layout(size_type n, Trans transr, Uplo uplo) {
  KSPD_REQUIRE(n >= 0, InvalidArgument, "kspd::rfp: n must be >= 0, got " << n);
  KSPD_REQUIRE(uplo == Uplo::Lower || uplo == Uplo::Upper, InvalidArgument, "kspd::rfp: uplo must be Lower or Upper");
  KSPD_REQUIRE(transr == Trans::NoTranspose || transr == Trans::Transpose || transr == Trans::ConjTranspose,
               InvalidArgument, "kspd::rfp: transr must be NoTranspose or Transpose");
  Layout L;
  L.n = n;
  L.uplo = uplo;
  L.transr = is_trans(transr) ? Trans::Transpose : Trans::NoTranspose;
  const bool lower = uplo == Uplo::Lower, normal = !is_trans(transr), odd = n % 2 == 1;
  L.n2 = lower ? n / 2 : n - n / 2;
  L.n1 = n - L.n2;
  const size_type n1 = L.n1, n2 = L.n2, k = n / 2;
  offset_type o1, o2, os;
  if (odd) {
    L.ld = normal ? n : (lower ? n1 : n2);
    if (normal) {
      o1 = lower ? 0 : n2;
      os = lower ? n1 : 0;
      o2 = lower ? n : n1;
    } else {
      o1 = lower ? 0 : offset_type(n2) * n2;
      os = lower ? offset_type(n1) * n1 : 0;
      o2 = lower ? 1 : offset_type(n1) * n2;
    }
  } else {
    L.ld = normal ? n + 1 : k;
    if (normal) {
      o1 = lower ? 1 : k + 1;
      os = lower ? k + 1 : 0;
      o2 = lower ? 0 : k;
    } else {
      o1 = lower ? k : offset_type(k) * (k + 1);
      os = lower ? offset_type(k) * (k + 1) : 0;
      o2 = lower ? 0 : offset_type(k) * k;
    }
  }
  if (L.ld < 1) L.ld = 1;
  const Uplo t1u = normal ? Uplo::Lower : Uplo::Upper, t2u = normal ? Uplo::Upper : Uplo::Lower;
  L.t1 = Block{o1, n1, n1, L.ld, t1u, false};
  L.t2 = Block{o2, n2, n2, L.ld, t2u, false};
  // The rectangle holds A21 when the variant stores the lower triangle and is not
  // transposed, or stores the upper one and is transposed.
  const bool a12 = lower != normal;
  L.s = a12 ? Block{os, n1, n2, L.ld, Uplo::Lower, true} : Block{os, n2, n1, L.ld, Uplo::Lower, false};
  L.rows = L.ld;
  L.cols = n == 0 ? 0 : L.size() / L.ld;
  return L;
}

}  // namespace kspd::rfp
#endif
