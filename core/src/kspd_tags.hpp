#ifndef KSPD_TAGS_HPP
#define KSPD_TAGS_HPP
/// \file kspd_tags.hpp
/// Mode tags shared by host and device code, with the LAPACK character each stands for.

#include <Kokkos_Macros.hpp>

namespace kspd {

enum class Uplo : char { Lower = 'L', Upper = 'U' };
enum class Trans : char { NoTranspose = 'N', Transpose = 'T', ConjTranspose = 'C' };
enum class Side : char { Left = 'L', Right = 'R' };
enum class Diag : char { NonUnit = 'N', Unit = 'U' };
enum class Norm : char { Max = 'M', One = '1', Inf = 'I', Frobenius = 'F' };

/// Which implementation runs a dense operation.
/// Auto: the backend's best (measured) choice. Vendor: cuBLAS/cuSOLVER on CUDA, host
/// BLAS/LAPACK on host spaces. Recursive: the recursive algorithm, GEMM for the off-diagonal
/// blocks, a vendor leaf below the cutoff. Native: the recursive algorithm on KokkosBlas::gemm
/// with our own Kokkos kernels at the leaves (no TPL at all; what non-CUDA GPUs run).
enum class Algo { Auto, Vendor, Recursive, Native };

/// How the RFP factorization is blocked across its blocks (benchmark override; Auto is the
/// backend's measured choice). Split: LAPACK's four calls (potrf, trsm, syrk, potrf on the
/// halves). Blocked: a right-looking blocked Cholesky across the RFP blocks, block_size
/// columns a step. LookAhead: Blocked, with the next panel's update and potrf on a second
/// instance of the backend, overlapping the trailing GEMM/SYRK (CUDA; one lane on the host).
/// Dense: unpacked into a dense n x n workspace (twice the RFP storage; kept per stream up to
/// 256 MB), one potrf of order n, packed back (real scalars; Split for complex ones and
/// where the workspace does not fit).
enum class Blocking { Auto, Split, Blocked, LookAhead, Dense };

/// A yes/no choice that Auto leaves to the backend's measured table.
enum class Toggle { Auto, Off, On };

/// Options of the recursive triangular and factorization kernels.
struct DenseOptions {
  Algo algo = Algo::Auto;
  long long leaf_size = 0;  ///< recursion cutoff; 0 = the backend's default
  Blocking blocking = Blocking::Auto;
  long long block_size = 0;  ///< Blocked / LookAhead columns per step; 0 = the backend's default
  /// potrf/trtri/lauum/potri of a triangle that the vendor would see as 'U' through a
  /// transposed copy in 'L' (a workspace of the triangle's square; kspd_dense_transposed.hpp).
  /// Auto: the measured table (CUDA, where cuSOLVER's 'U' is the slow one, when it fits).
  Toggle upper_via_lower = Toggle::Auto;
  /// trtri (non-unit) and lauum as ONE trsm / trmm on an n x n workspace (3x the flops in
  /// one large vendor call instead of a latency-bound small-n kernel; potri: both).
  /// Auto: the measured table (kspd_dense_blas3_inverse.hpp).
  Toggle blas3_inverse = Toggle::Auto;
};

KOKKOS_INLINE_FUNCTION constexpr char to_char(Uplo u) { return static_cast<char>(u); }
KOKKOS_INLINE_FUNCTION constexpr char to_char(Trans t) { return static_cast<char>(t); }
KOKKOS_INLINE_FUNCTION constexpr char to_char(Side s) { return static_cast<char>(s); }
KOKKOS_INLINE_FUNCTION constexpr char to_char(Diag d) { return static_cast<char>(d); }
KOKKOS_INLINE_FUNCTION constexpr char to_char(Norm n) { return static_cast<char>(n); }

KOKKOS_INLINE_FUNCTION constexpr Uplo flip(Uplo u) {
  return u == Uplo::Lower ? Uplo::Upper : Uplo::Lower;
}
KOKKOS_INLINE_FUNCTION constexpr Side flip(Side s) {
  return s == Side::Left ? Side::Right : Side::Left;
}
/// For real scalars ConjTranspose is Transpose; toggling maps both to NoTranspose.
KOKKOS_INLINE_FUNCTION constexpr Trans toggle(Trans t) {
  return t == Trans::NoTranspose ? Trans::Transpose : Trans::NoTranspose;
}
KOKKOS_INLINE_FUNCTION constexpr bool is_trans(Trans t) { return t != Trans::NoTranspose; }
KOKKOS_INLINE_FUNCTION constexpr bool is_conj(Trans t) { return t == Trans::ConjTranspose; }

}  // namespace kspd

#endif
