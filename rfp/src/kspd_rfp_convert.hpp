#ifndef KSPD_RFP_CONVERT_HPP
#define KSPD_RFP_CONVERT_HPP
/// \file kspd_rfp_convert.hpp
/// Conversions between RFP and full (?trttf, ?tfttr) or standard packed (?tpttf, ?tfttp)
/// storage, the diagonal's indices and A += alpha I. Complex Hermitian matrices follow
/// LAPACK's c/z routines: an entry stored in the other triangle is the conjugate. One Kokkos kernel each, over the RFP
/// entries (writes to the RFP array are contiguous), 64-bit indices throughout.

#include <Kokkos_Core.hpp>

#include "kspd_compat.hpp"
#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_rfp_matrix.hpp"

namespace kspd::rfp {
namespace Impl {
template <class ExecSpace>
using Range64 = Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>;

/// Offset of (i,j) of the `uplo` triangle in standard packed storage (?pptrf's AP).
KOKKOS_INLINE_FUNCTION offset_type packed_index(bool lower, size_type n, size_type i, size_type j) {
  return lower ? offset_type(i) + offset_type(j) * (2 * offset_type(n) - j - 1) / 2
               : offset_type(i) + offset_type(j) * (j + 1) / 2;
}

template <class ExecSpace, class PV>
void check_packed(const char* op, const char* name, const PV& AP, size_type n) {
  static_assert(Kokkos::is_view<PV>::value && PV::rank == 1, "kspd::rfp: a packed matrix must be a rank-1 View");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename PV::memory_space>::accessible,
                "kspd::rfp: the execution space cannot access the packed View");
  KSPD_REQUIRE(offset_type(AP.extent(0)) >= packed_size(n), DimensionMismatch,
               op << ": " << name << " has " << AP.extent(0) << " entries, n = " << n << " needs " << packed_size(n));
}

template <class ExecSpace, class FV>
void check_full(const char* op, const char* name, const FV& A, size_type n) {
  check_dense<ExecSpace>(op, name, A);
  KSPD_REQUIRE(size_type(A.extent(0)) == n && size_type(A.extent(1)) == n, DimensionMismatch,
               op << ": " << name << " is " << A.extent(0) << " x " << A.extent(1) << " but the RFP matrix is " << n
                  << " x " << n);
}
}  // namespace Impl

/// Full -> RFP (?trttf): copies the `ARF.uplo()` triangle of the n x n View A into ARF.
template <class ExecSpace, class FV, class T, class Mem>
void trttf(const ExecSpace& exec, const FV& A, const Matrix<T, Mem>& ARF) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::trttf", ARF);
  Impl::check_full<ExecSpace>("kspd::rfp::trttf", "A", A, ARF.n());
  compat::ScopedRegion region("kspd::rfp::trttf");
  const Layout L = ARF.layout();
  const bool herm = is_complex_v<T>;
  auto arf = ARF.data();
  Kokkos::parallel_for(
      "kspd::rfp::trttf", Impl::Range64<ExecSpace>(exec, 0, L.size()), KOKKOS_LAMBDA(std::int64_t p) {
        size_type i, j;
        bool cj;  // the `uplo` triangle's value, conjugated where c/ztrttf does
        L.decode_uplo(p, herm, i, j, cj);
        arf(p) = kspd::Impl::conj_if(cj, T(A(i, j)));
      });
}

/// RFP -> full (?tfttr): writes the `ARF.uplo()` triangle of A; the other is not touched.
template <class ExecSpace, class T, class Mem, class FV>
void tfttr(const ExecSpace& exec, const Matrix<T, Mem>& ARF, const FV& A) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::tfttr", ARF);
  Impl::check_full<ExecSpace>("kspd::rfp::tfttr", "A", A, ARF.n());
  compat::ScopedRegion region("kspd::rfp::tfttr");
  const Layout L = ARF.layout();
  const bool herm = is_complex_v<T>;
  auto arf = ARF.data();
  Kokkos::parallel_for(
      "kspd::rfp::tfttr", Impl::Range64<ExecSpace>(exec, 0, L.size()), KOKKOS_LAMBDA(std::int64_t p) {
        size_type i, j;
        bool cj;
        L.decode_uplo(p, herm, i, j, cj);
        A(i, j) = kspd::Impl::conj_if(cj, arf(p));
      });
}

/// Standard packed -> RFP (?tpttf): AP holds the `ARF.uplo()` triangle column by column.
template <class ExecSpace, class PV, class T, class Mem>
void tpttf(const ExecSpace& exec, const PV& AP, const Matrix<T, Mem>& ARF) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::tpttf", ARF);
  Impl::check_packed<ExecSpace>("kspd::rfp::tpttf", "AP", AP, ARF.n());
  compat::ScopedRegion region("kspd::rfp::tpttf");
  const Layout L = ARF.layout();
  const bool lower = L.uplo == Uplo::Lower, herm = is_complex_v<T>;
  auto arf = ARF.data();
  Kokkos::parallel_for(
      "kspd::rfp::tpttf", Impl::Range64<ExecSpace>(exec, 0, L.size()), KOKKOS_LAMBDA(std::int64_t p) {
        size_type i, j;
        bool cj;
        L.decode_uplo(p, herm, i, j, cj);
        arf(p) = kspd::Impl::conj_if(cj, T(AP(Impl::packed_index(lower, L.n, i, j))));
      });
}

/// RFP -> standard packed (?tfttp).
template <class ExecSpace, class T, class Mem, class PV>
void tfttp(const ExecSpace& exec, const Matrix<T, Mem>& ARF, const PV& AP) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::tfttp", ARF);
  Impl::check_packed<ExecSpace>("kspd::rfp::tfttp", "AP", AP, ARF.n());
  compat::ScopedRegion region("kspd::rfp::tfttp");
  const Layout L = ARF.layout();
  const bool lower = L.uplo == Uplo::Lower, herm = is_complex_v<T>;
  auto arf = ARF.data();
  Kokkos::parallel_for(
      "kspd::rfp::tfttp", Impl::Range64<ExecSpace>(exec, 0, L.size()), KOKKOS_LAMBDA(std::int64_t p) {
        size_type i, j;
        bool cj;
        L.decode_uplo(p, herm, i, j, cj);
        AP(Impl::packed_index(lower, L.n, i, j)) = kspd::Impl::conj_if(cj, arf(p));
      });
}

/// idx(i) = offset of A(i,i) in the RFP array, i = 0..n-1 (idx: a rank-1 View of >= n
/// integers).
template <class ExecSpace, class T, class Mem, class IV>
void diagonal_indices(const ExecSpace& exec, const Matrix<T, Mem>& A, const IV& idx) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::diagonal_indices", A);
  static_assert(Kokkos::is_view<IV>::value && IV::rank == 1, "kspd::rfp::diagonal_indices: idx must be a rank-1 View");
  KSPD_REQUIRE(size_type(idx.extent(0)) >= A.n(), DimensionMismatch,
               "kspd::rfp::diagonal_indices: idx has " << idx.extent(0) << " entries, n = " << A.n());
  const Layout L = A.layout();
  Kokkos::parallel_for(
      "kspd::rfp::diagonal_indices", Impl::Range64<ExecSpace>(exec, 0, L.n),
      KOKKOS_LAMBDA(std::int64_t i) { idx(i) = typename IV::non_const_value_type(L.diag(i)); });
}

/// A += alpha I, in place (the regularization of kernel ridge regression). alpha is real:
/// a Hermitian matrix stays Hermitian.
template <class ExecSpace, class T, class Mem>
void add_to_diagonal(const ExecSpace& exec, const Matrix<T, Mem>& A, real_t<T> alpha) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::add_to_diagonal", A);
  const Layout L = A.layout();
  auto a = A.data();
  Kokkos::parallel_for(
      "kspd::rfp::add_to_diagonal", Impl::Range64<ExecSpace>(exec, 0, L.n),
      KOKKOS_LAMBDA(std::int64_t i) { a(L.diag(i)) += T(alpha); });
}

}  // namespace kspd::rfp
#endif
