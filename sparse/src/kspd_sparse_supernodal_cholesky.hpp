#ifndef KSPD_SPARSE_SUPERNODAL_CHOLESKY_HPP
#define KSPD_SPARSE_SUPERNODAL_CHOLESKY_HPP
/// \file kspd_sparse_supernodal_cholesky.hpp
/// Supernodal sparse Cholesky P A P^T = L L^T of a symmetric positive definite matrix, with
/// a fan-out task graph (symPACK's blocks and tasks) and per-operation device offload.
///
/// \code
///   kspd::sparse::SupernodalCholesky<double> chol(opts);
///   chol.analyze(A);          // ordering + symbolic, pattern only
///   chol.factorize(A);        // numeric; call again with new values (same pattern)
///   chol.solve(B);            // B: host View n x nrhs (or n), overwritten by X
/// \endcode
/// Not positive definite: factorize throws kspd::NotPositiveDefinite whose column() is the
/// 1-based column in the input's numbering and pivot() the failing pivot.

#include <Kokkos_Core.hpp>

#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_numeric.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_solve.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse {

/// \tparam Scalar float or double
/// \tparam OffloadExec the execution space of offloaded operations (the default space:
///         CUDA on GPU builds, a host space otherwise)
template <class Scalar, class OffloadExec = Kokkos::DefaultExecutionSpace>
class SupernodalCholesky {
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "kspd::sparse::SupernodalCholesky: Scalar must be float or double");

 public:
  using scalar_type = Scalar;
  explicit SupernodalCholesky(const Options& opt = {}) : opt_(opt) {}

  /// Ordering and symbolic analysis of A's pattern (lower triangle, CSC).
  void analyze(const CscMatrix<Scalar>& A) {
    check(A);
    numeric_.reset();
    symbolic_ = std::make_unique<Impl::Symbolic>(Impl::analyse(Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, opt_));
  }

  /// Numeric factorization; analyses first if needed. A later call with new values of the
  /// same pattern reuses the analysis (refactorization).
  void factorize(const CscMatrix<Scalar>& A) {
    if (!symbolic_) analyze(A);
    check(A);
    KSPD_REQUIRE(A.n == symbolic_->n && A.colptr == symbolic_->a_colptr && A.rowind == symbolic_->a_rowind,
                 InvalidArgument,
                 "kspd::sparse::SupernodalCholesky::factorize: A's pattern differs from the analysed one; call analyze(A)");
    if (!numeric_) numeric_ = std::make_unique<Impl::Numeric<Scalar, OffloadExec>>(*symbolic_, opt_);
    factored_ = false;
    numeric_->factorize(A.values.data());
    factored_ = true;
  }

  /// Solves A X = B in place; B is a host View (rank 1 or rank 2, n x nrhs, any layout).
  template <class BView>
  void solve(const BView& B) const {
    static_assert(Kokkos::is_view<BView>::value, "kspd::sparse::solve: B must be a Kokkos::View");
    static_assert(BView::rank == 1 || BView::rank == 2, "kspd::sparse::solve: B must be rank 1 or 2");
    static_assert(Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename BView::memory_space>::accessible,
                  "kspd::sparse::solve: B must be accessible from the host");
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::solve: call factorize first");
    const size_type n = symbolic_->n;
    KSPD_REQUIRE(size_type(B.extent(0)) == n, DimensionMismatch,
                 "kspd::sparse::SupernodalCholesky::solve: B has " << B.extent(0) << " rows, A has " << n);
    const size_type nrhs = BView::rank == 1 ? 1 : size_type(B.extent(1));
    if (n == 0 || nrhs == 0) return;
    std::vector<Scalar> W(static_cast<size_t>(n * nrhs));
    const auto& perm = symbolic_->perm;
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type k = 0; k < n; ++k) W[size_t(k + r * n)] = at(B, perm[size_t(k)], r);
    Impl::supernodal_solve(*symbolic_, numeric_->values(), W.data(), nrhs, n);
    for (size_type r = 0; r < nrhs; ++r)
      for (size_type k = 0; k < n; ++k) at(B, perm[size_t(k)], r) = W[size_t(k + r * n)];
  }
  /// One right-hand side in a std::vector, in place.
  void solve(std::vector<Scalar>& b) const {
    solve(Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(b.data(), b.size()));
  }

  /// The factor L of P A P^T as a CSC lower triangle (explicit zeros of relaxed supernodes
  /// included); permutation() maps its rows/columns to A's: new k is A's perm[k].
  CscMatrix<Scalar> factor_csc() const {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::factor_csc: call factorize first");
    const Impl::Symbolic& S = *symbolic_;
    CscMatrix<Scalar> L;
    L.n = S.n;
    L.name = "L";
    L.colptr.assign(static_cast<size_t>(S.n + 1), 0);
    const Scalar* v = numeric_->values();
    for (const auto& sn : S.snodes)
      for (size_type c = 0; c < sn.ncols; ++c) {
        const Scalar* col = v + sn.value_offset + c * sn.nrows();
        for (size_type q = c; q < sn.nrows(); ++q) {
          L.rowind.push_back(S.rows[size_t(sn.row_begin + q)]);
          L.values.push_back(col[q]);
        }
        L.colptr[size_t(sn.first_col + c + 1)] = size_type(L.rowind.size());
      }
    return L;
  }

  const std::vector<size_type>& permutation() const { return symbolic().perm; }
  const Impl::Symbolic& symbolic() const {
    KSPD_REQUIRE(symbolic_ != nullptr, InvalidArgument, "kspd::sparse::SupernodalCholesky: call analyze first");
    return *symbolic_;
  }
  const Impl::AnalysisStats& analysis_stats() const { return symbolic().stats; }
  const FactorStats& factor_stats() const {
    KSPD_REQUIRE(numeric_ != nullptr, InvalidArgument, "kspd::sparse::SupernodalCholesky: call factorize first");
    return numeric_->stats();
  }
  Options& options() { return opt_; }

 private:
  static void check(const CscMatrix<Scalar>& A) {
    KSPD_REQUIRE(A.n >= 0 && size_type(A.colptr.size()) == A.n + 1 && A.colptr[0] == 0 &&
                     size_type(A.rowind.size()) == A.nnz() && size_type(A.values.size()) == A.nnz(),
                 InvalidArgument,
                 "kspd::sparse::SupernodalCholesky: A is inconsistent (n = " << A.n << ", colptr " << A.colptr.size()
                                                                           << ", rowind " << A.rowind.size() << ", values "
                                                                           << A.values.size() << ")");
  }
  template <class BView>
  static auto& at(const BView& B, size_type i, size_type r) {
    if constexpr (BView::rank == 1) {
      (void)r;
      return B(i);
    } else {
      return B(i, r);
    }
  }

  Options opt_;
  std::unique_ptr<Impl::Symbolic> symbolic_;
  std::unique_ptr<Impl::Numeric<Scalar, OffloadExec>> numeric_;
  bool factored_ = false;
};

}  // namespace kspd::sparse
#endif
