#ifndef KSPD_SPARSE_SELECTED_INVERSE_HPP
#define KSPD_SPARSE_SELECTED_INVERSE_HPP
/// \file kspd_sparse_selected_inverse.hpp
/// The entries of A^-1 on the pattern of the Cholesky factor L (which contains A's pattern),
/// as SupernodalCholesky::selected_inverse(exec) computes them (kspd_sparse_selinv.hpp),
/// kept where the factor lives (host memory, or the execution space's memory for the
/// resident placement).
///
/// \code
///   auto Z = chol.selected_inverse(exec);
///   double zij = Z(i, j);                    // input numbering; throws outside the pattern
///   Z.diagonal(exec, d);                     // diag(A^-1), d in any memory space
///   double t = Z.trace_product(exec, dA);    // trace(A^-1 dA), dA on A's pattern
/// \endcode

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cstdint>
#include <memory>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_solve_views.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

template <class Scalar, class ExecSpace>
class SupernodalCholesky;

template <class Scalar, class ExecSpace = Kokkos::DefaultExecutionSpace>
class SelectedInverse {
 public:
  using scalar_type = Scalar;
  using memory_space = typename ExecSpace::memory_space;

  SelectedInverse() = default;
  size_type n() const { return S_ ? S_->n : 0; }
  /// True when the values live in ExecSpace's memory (the factor was resident).
  bool resident() const { return resident_; }

  /// The position of (A^-1)(i, j) (0-based, the input's numbering, either triangle) in the
  /// values, or -1 when (i, j) is outside the pattern of L.
  std::int64_t index(size_type i, size_type j) const {
    KSPD_REQUIRE(S_ != nullptr, InvalidArgument, "kspd::sparse::SelectedInverse: empty (use SupernodalCholesky::selected_inverse)");
    KSPD_REQUIRE(i >= 0 && j >= 0 && i < S_->n && j < S_->n, InvalidArgument,
                 "kspd::sparse::SelectedInverse: entry (" << i << ", " << j << ") is out of range for n = " << S_->n);
    size_type a = S_->iperm[size_t(i)], b = S_->iperm[size_t(j)];
    if (a < b) std::swap(a, b);
    const Impl::Supernode& sn = S_->snodes[size_t(S_->col_snode[size_t(b)])];
    const size_type* r0 = S_->rows.data() + sn.row_begin + (b - sn.first_col);
    const size_type* r1 = S_->rows.data() + sn.row_end;
    const size_type* r = std::lower_bound(r0, r1, a);
    if (r == r1 || *r != a) return -1;
    return std::int64_t(sn.value_offset + (b - sn.first_col) * sn.nrows() + (r - (S_->rows.data() + sn.row_begin)));
  }
  bool contains(size_type i, size_type j) const { return index(i, j) >= 0; }

  /// (A^-1)(i, j), input numbering; InvalidArgument when (i, j) is outside the pattern of L.
  /// From a resident selected inverse the first call copies the values to the host.
  Scalar operator()(size_type i, size_type j) const {
    const std::int64_t p = index(i, j);
    KSPD_REQUIRE(p >= 0, InvalidArgument,
                 "kspd::sparse::SelectedInverse: entry (" << i << ", " << j
                                                          << ") (0-based, input numbering) is outside the pattern of L");
    return host_values()(size_t(p));
  }

  /// The values in the factor's layout (Supernode::value_offset, ld = nrows, the permuted
  /// numbering), in host memory (copied once from a resident selected inverse).
  Kokkos::View<const Scalar*, Kokkos::HostSpace> host_values() const {
    if (hvals_.extent(0) == 0 && dvals_.extent(0) > 0) {
      hvals_ = Kokkos::View<Scalar*, Kokkos::HostSpace>(
          Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::selected_inverse::host"), dvals_.extent(0));
      Kokkos::deep_copy(hvals_, dvals_);
    }
    return hvals_;
  }
  /// The values in ExecSpace's memory (resident() only).
  Kokkos::View<const Scalar*, memory_space> device_values() const {
    KSPD_REQUIRE(resident_, InvalidArgument, "kspd::sparse::SelectedInverse::device_values: the values live on the host");
    return dvals_;
  }
  const Impl::Symbolic& symbolic() const { return *S_; }

  /// d(i) = (A^-1)(i, i), input numbering, into a rank-1 View of n entries in any memory
  /// space; computed where the values live. Fences exec.
  template <class DView>
  void diagonal(const ExecSpace& exec, const DView& d) const {
    static_assert(Kokkos::is_view<DView>::value && DView::rank == 1, "kspd::sparse::SelectedInverse::diagonal: d must be a rank-1 View");
    KSPD_REQUIRE(size_type(d.extent(0)) == n(), DimensionMismatch,
                 "kspd::sparse::SelectedInverse::diagonal: d has " << d.extent(0) << " entries, n = " << n());
    if (n() == 0) return;
    std::vector<std::int64_t> pos(static_cast<size_t>(n())), perm(S_->perm.begin(), S_->perm.end());
    for (const auto& sn : S_->snodes)
      for (size_type c = 0; c < sn.ncols; ++c) pos[size_t(sn.first_col + c)] = sn.value_offset + c * (sn.nrows() + 1);
    if (!resident_) {
      auto h = Impl::reachable<Kokkos::DefaultHostExecutionSpace>(d, false);
      for (size_type k = 0; k < n(); ++k) h(perm[size_t(k)]) = hvals_(size_t(pos[size_t(k)]));
      if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename DView::memory_space>::accessible)
        Kokkos::deep_copy(d, h);
      return;
    }
    const auto dpos = upload(pos, "pos"), dperm = upload(perm, "perm");
    const Scalar* z = dvals_.data();
    auto dd = Impl::reachable<ExecSpace>(d, false);
    Kokkos::parallel_for(
        "kspd::sparse::selected_inverse::diagonal", Kokkos::RangePolicy<ExecSpace>(exec, 0, size_t(n())),
        KOKKOS_LAMBDA(const size_t k) { dd(dperm(k)) = z[dpos(k)]; });
    exec.fence();
    if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, typename DView::memory_space>::accessible) Kokkos::deep_copy(d, dd);
  }

  /// trace(A^-1 B) = sum_ij (A^-1)_ij B_ji for a symmetric B given by its lower triangle
  /// (CSC, the input numbering) whose pattern lies in L's (A's pattern always does).
  /// InvalidArgument naming the first entry (column by column) outside the pattern, or above
  /// the diagonal. Accumulated in double, where the values live. Fences exec.
  template <class BScalar>
  double trace_product(const ExecSpace& exec, const CscMatrix<BScalar>& B) const {
    KSPD_REQUIRE(B.n == n(), DimensionMismatch,
                 "kspd::sparse::SelectedInverse::trace_product: B is " << B.n << " x " << B.n << ", A^-1 is " << n() << " x " << n());
    KSPD_REQUIRE(size_type(B.colptr.size()) == B.n + 1 && size_type(B.rowind.size()) == B.nnz() &&
                     size_type(B.values.size()) == B.nnz(),
                 InvalidArgument, "kspd::sparse::SelectedInverse::trace_product: B is inconsistent (colptr, rowind, values)");
    const size_t nnz = B.values.size();
    std::vector<std::int64_t> pos(nnz);
    std::vector<double> w(nnz);
    for (size_type j = 0; j < B.n; ++j)
      for (size_type q = B.colptr[size_t(j)]; q < B.colptr[size_t(j + 1)]; ++q) {
        const size_type i = B.rowind[size_t(q)];
        KSPD_REQUIRE(i >= j && i < B.n, InvalidArgument,
                     "kspd::sparse::SelectedInverse::trace_product: B's entry (" << i << ", " << j
                         << ") (0-based) is not in the lower triangle; give B's lower triangle");
        pos[size_t(q)] = index(i, j);
        KSPD_REQUIRE(pos[size_t(q)] >= 0, InvalidArgument,
                     "kspd::sparse::SelectedInverse::trace_product: B's entry (" << i << ", " << j
                         << ") (0-based, input numbering) lies outside the pattern of L, so outside A's: A^-1 is not "
                            "known there");
        w[size_t(q)] = (i == j ? 1.0 : 2.0) * double(B.values[size_t(q)]);
      }
    double t = 0;
    if (!resident_) {
      for (size_t q = 0; q < nnz; ++q) t += w[q] * double(hvals_(size_t(pos[q])));
      return t;
    }
    if (nnz == 0) return 0;
    const auto dpos = upload(pos, "trace_pos");
    const auto dw = upload(w, "trace_weights");
    const Scalar* z = dvals_.data();
    Kokkos::parallel_reduce(
        "kspd::sparse::selected_inverse::trace_product", Kokkos::RangePolicy<ExecSpace>(exec, 0, nnz),
        KOKKOS_LAMBDA(const size_t q, double& acc) { acc += dw(q) * double(z[dpos(q)]); }, t);
    exec.fence();
    return t;
  }

 private:
  friend class SupernodalCholesky<Scalar, ExecSpace>;
  SelectedInverse(std::shared_ptr<const Impl::Symbolic> S, bool resident) : S_(std::move(S)), resident_(resident) {
    const size_t nv = size_t(std::max<size_type>(S_->nvalues, 1));
    const auto alloc = Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::selected_inverse");
    if (resident_) dvals_ = Kokkos::View<Scalar*, memory_space>(alloc, nv);
    else hvals_ = Kokkos::View<Scalar*, Kokkos::HostSpace>(alloc, nv);
  }
  template <class T>
  static Kokkos::View<T*, memory_space> upload(const std::vector<T>& h, const char* what) {
    Kokkos::View<T*, memory_space> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kspd::sparse::selected_inverse::") + what),
                                     h.size());
    Kokkos::deep_copy(d, Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    return d;
  }

  std::shared_ptr<const Impl::Symbolic> S_;
  bool resident_ = false;
  Kokkos::View<Scalar*, memory_space> dvals_;
  mutable Kokkos::View<Scalar*, Kokkos::HostSpace> hvals_;
};

}  // namespace kspd::sparse
#endif
