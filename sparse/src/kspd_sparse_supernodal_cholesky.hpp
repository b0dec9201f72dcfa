#ifndef KSPD_SPARSE_SUPERNODAL_CHOLESKY_HPP
#define KSPD_SPARSE_SUPERNODAL_CHOLESKY_HPP
/// \file kspd_sparse_supernodal_cholesky.hpp
/// Supernodal sparse Cholesky P A P^T = L L^T of a symmetric positive definite matrix.
///
/// \code
///   kspd::sparse::SupernodalCholesky<double> chol(opts);
///   chol.analyze(A);                          // ordering + symbolic, pattern only
///   int info = chol.factorize(exec, A);       // numeric; again with new values (same pattern)
///   kspd::require_spd(info, "my app");        // or chol.require_spd(): the pivot, both columns
///   chol.solve(exec, B, X);                   // host or device Views, n or n x nrhs
///   info = chol.update(exec, W, Sign::Minus); // L L^T - W W^T in place (W: n x k, k <= 64)
/// \endcode
/// Placement (Options::offload): on the host workers; or, with offload on, every supernode
/// on the device when the factor fits (factored by tree level, L kept there for the solve);
/// else the top of the tree on the device and the rest on the host workers.
/// Not positive definite: factorize returns info = the 1-based column, in the input's
/// numbering, of the first failing pivot (the failing supernode first in postorder);
/// require_spd() throws kspd::NotPositiveDefinite with that column() and pivot().

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <memory>
#include <optional>
#include <thread>
#include <sstream>
#include <thread>
#include <type_traits>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_runtime.hpp"
#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_numeric.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_selected_inverse.hpp"
#include "kspd_sparse_selinv.hpp"
#include "kspd_sparse_solve.hpp"
#include "kspd_sparse_solve_views.hpp"
#include "kspd_sparse_symbolic.hpp"
#include "kspd_sparse_update.hpp"
#include "kspd_sparse_update_batched.hpp"
#include "kspd_sparse_update_host.hpp"

namespace kspd::sparse {

/// \tparam Scalar float or double
/// \tparam ExecSpace the execution space whose instance factorize and solve take: the
///         device-resident factorization and solve run there (CUDA on GPU builds; on CPU
///         builds a host space, where the host workers factor unless offload is forced)
template <class Scalar, class ExecSpace = Kokkos::DefaultExecutionSpace>
class SupernodalCholesky {
  static_assert(std::is_same<Scalar, float>::value || std::is_same<Scalar, double>::value,
                "kspd::sparse::SupernodalCholesky: Scalar must be float or double");

 public:
  using scalar_type = Scalar;
  using execution_space = ExecSpace;
  explicit SupernodalCholesky(const Options& opt = {}) : opt_(opt) {
    kspd::Impl::require_kokkos_initialized("kspd::sparse::SupernodalCholesky");
  }

  /// Ordering and symbolic analysis of A's pattern (lower triangle, CSC).
  void analyze(const CscMatrix<Scalar>& A) {
    check(A);
    numeric_.reset();
    factored_ = false;
    symbolic_ = std::make_shared<const Impl::Symbolic>(Impl::analyse(Impl::PatternRef{A.n, A.colptr.data(), A.rowind.data()}, opt_));
    dperm_ = {};
  }

  /// Adopts the analysis of another solver of the same pattern (e.g. the fp32 and the fp64
  /// solver of one matrix) instead of ordering and analysing again; the analysis is shared.
  template <class OtherScalar>
  void analyze_like(const SupernodalCholesky<OtherScalar, ExecSpace>& other) {
    KSPD_REQUIRE(other.symbolic_ != nullptr, InvalidArgument,
                 "kspd::sparse::SupernodalCholesky::analyze_like: the other solver has no analysis");
    numeric_.reset();
    factored_ = false;
    symbolic_ = other.symbolic_;
    dperm_ = {};
  }

  /// Numeric factorization on `exec`; analyses first if needed. A later call with new values
  /// of the same pattern reuses the analysis (refactorization). Fences exec.
  /// \return 0, or the 1-based column (the input's numbering) of the first failing pivot.
  [[nodiscard]] int factorize(const ExecSpace& exec, const CscMatrix<Scalar>& A) {
    if (!symbolic_) analyze(A);
    check(A);
    KSPD_REQUIRE(symbolic_->same_pattern(A.n, A.colptr, A.rowind),
                 InvalidArgument,
                 "kspd::sparse::SupernodalCholesky::factorize: A's pattern differs from the analysed one; call analyze(A)");
    if (!numeric_) numeric_ = std::make_unique<Impl::Numeric<Scalar, ExecSpace>>(*symbolic_, opt_);
    factored_ = false;
    failure_.reset();
    const Impl::PivotFailure f = numeric_->factorize(exec, A.values.data());
    if (f.failed()) {
      failure_ = not_positive_definite(f);
      return int(failure_->column());
    }
    factored_ = true;
    return 0;
  }

  /// Rank-k modification in place: the factor of P (A + W W^T) P^T (Sign::Plus, an update)
  /// or of P (A - W W^T) P^T (Sign::Minus, a downdate), on L's pattern, where the factor
  /// lives (host, or the device for the resident placement), at a cost proportional to
  /// the supernodes on the paths of W's columns in the elimination tree. Fences exec.
  /// \param[in] W n x k, k <= 64, sparse columns in the input's numbering. Each column's rows
  ///   must lie in the structure of L's column at its first row (true when W W^T's pattern
  ///   lies in A's): otherwise InvalidArgument naming the first entry outside; the pattern
  ///   is not grown (factorize A +/- W W^T after analyze() of a pattern holding W W^T).
  /// \return 0, or for a downdate that is not positive definite the 1-based column (the
  ///   input's numbering) where definiteness is lost, the column factorize(A - W W^T) would
  ///   report; the factor is then unusable (solve throws) until factorize is called again.
  [[nodiscard]] int update(const ExecSpace& exec, const SparseColumns<Scalar>& W, Sign sign) {
    const char* who = "kspd::sparse::SupernodalCholesky::update";
    KSPD_REQUIRE(factored_, InvalidArgument, who << ": call factorize first (and succeed)");
    const bool resident = numeric_->resident();
    const Impl::UpdatePlan plan = Impl::plan_update(*symbolic_, W, who, !resident);  // the compact maps: host only
    compat::ScopedRegion region("kspd::sparse::SupernodalCholesky::update");
    const Impl::PivotFailure f =
        resident
            ? Impl::update_batched(exec, *symbolic_, numeric_->values_in_place(), numeric_->resident_factor().rows().data(),
                                   plan, W, sign)
            : Impl::update_host(*symbolic_, numeric_->values_in_place(), plan, W, sign,
                                std::max(1, opt_.threads > 0 ? opt_.threads : int(std::thread::hardware_concurrency())));
    exec.fence();
    if (!f.failed()) return 0;
    factored_ = false;
    const Impl::Symbolic& S = *symbolic_;
    const size_type col = S.snodes[size_t(f.snode)].first_col + f.col, orig = S.perm[size_t(col)];
    std::ostringstream os;
    os << who << ": the downdate L L^T - W W^T is not positive definite: definiteness is lost at column " << orig + 1
       << " (1-based, the input's numbering; " << col + 1
       << " after ordering); the factor is partly modified and unusable: factorize again";
    failure_ = NotPositiveDefinite(os.str(), orig + 1, f.pivot);
    return int(orig + 1);
  }
  /// update() with a dense host W (n x k): its nonzero entries.
  template <class WView, class = std::enable_if_t<Kokkos::is_view<WView>::value>>
  [[nodiscard]] int update(const ExecSpace& exec, const WView& W, Sign sign) {
    return update(exec, sparse_columns(W), sign);
  }

  /// Throws the last factorization's NotPositiveDefinite (column, pivot, both numberings).
  void require_spd() const {
    if (failure_) throw *failure_;
  }

  /// X = A^-1 B (part Both), or one of the triangular solves (SolvePart). B and X: rank 1
  /// or 2 (n x nrhs, any layout), in host or device memory; X may be B (in place). The work
  /// runs where the factor lives (the device for the resident placement). Fences exec.
  template <class BView, class XView>
  void solve(const ExecSpace& exec, const BView& B, const XView& X, SolvePart part = SolvePart::Both) const {
    static_assert(Kokkos::is_view<BView>::value && Kokkos::is_view<XView>::value,
                  "kspd::sparse::solve: B and X must be Kokkos::Views");
    static_assert((BView::rank == 1 || BView::rank == 2) && int(BView::rank) == int(XView::rank),
                  "kspd::sparse::solve: B and X must both be rank 1 or both rank 2");
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::solve: call factorize first (and succeed)");
    const size_type n = symbolic_->n;
    const size_type nrhs = BView::rank == 1 ? 1 : size_type(B.extent(1));
    KSPD_REQUIRE(size_type(B.extent(0)) == n && size_type(X.extent(0)) == n, DimensionMismatch,
                 "kspd::sparse::SupernodalCholesky::solve: B has " << B.extent(0) << " rows and X " << X.extent(0)
                                                                  << ", A has " << n);
    KSPD_REQUIRE(XView::rank == 1 || size_type(X.extent(XView::rank - 1)) == nrhs, DimensionMismatch,
                 "kspd::sparse::SupernodalCholesky::solve: B has " << nrhs << " columns, X " << X.extent(XView::rank - 1));
    if (n == 0 || nrhs == 0) return;
    const bool in_perm = part != SolvePart::Backward, out_perm = part != SolvePart::Forward;
    if (numeric_->resident()) {
      using Mem = typename ExecSpace::memory_space;
      if (dperm_.extent(0) == 0) {
        dperm_ = Kokkos::View<size_type*, Mem>("kspd::sparse::permutation", size_t(n));
        Kokkos::deep_copy(dperm_, Kokkos::View<const size_type*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(
                                      symbolic_->perm.data(), size_t(n)));
      }
      Kokkos::View<Scalar*, Mem> W(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::solve::W"), size_t(n * nrhs));
      Impl::gather_rhs(exec, B, W.data(), n, nrhs, in_perm ? dperm_.data() : nullptr);
      numeric_->solve(exec, W.data(), nrhs, n, part);
      Impl::scatter_rhs(exec, W.data(), X, n, nrhs, out_perm ? dperm_.data() : nullptr);
    } else {
      Kokkos::DefaultHostExecutionSpace host;
      std::vector<Scalar> W(static_cast<size_t>(n * nrhs));
      Impl::gather_rhs(host, B, W.data(), n, nrhs, in_perm ? symbolic_->perm.data() : nullptr);
      host.fence();
      numeric_->solve(exec, W.data(), nrhs, n, part);
      Impl::scatter_rhs(host, W.data(), X, n, nrhs, out_perm ? symbolic_->perm.data() : nullptr);
    }
    exec.fence();
  }
  /// In place: B is overwritten by A^-1 B.
  template <class BView>
  void solve(const ExecSpace& exec, const BView& B) const {
    solve(exec, B, B);
  }
  /// One right-hand side in a std::vector, in place.
  void solve(std::vector<Scalar>& b) const {
    Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>> v(b.data(), b.size());
    solve(ExecSpace(), v, v);
  }

  /// d(k) = L(k, k), the factor's diagonal in the factor's numbering (A's row perm[k]), into
  /// a View of n entries in any memory space; read where the factor lives, L not copied.
  template <class DView>
  void factor_diagonal(const ExecSpace& exec, const DView& d) const {
    static_assert(Kokkos::is_view<DView>::value && DView::rank == 1, "kspd::sparse::factor_diagonal: d must be a rank-1 View");
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::factor_diagonal: call factorize first");
    KSPD_REQUIRE(size_type(d.extent(0)) == symbolic_->n, DimensionMismatch,
                 "kspd::sparse::SupernodalCholesky::factor_diagonal: d has " << d.extent(0) << " entries, A has n = "
                                                                             << symbolic_->n);
    if (!numeric_->resident()) {
      auto h = Impl::reachable<Kokkos::DefaultHostExecutionSpace>(d, false);
      const Scalar* v = numeric_->values();
      for (const auto& sn : symbolic_->snodes)
        for (size_type j = 0; j < sn.ncols; ++j) h(sn.first_col + j) = v[sn.value_offset + j * (sn.nrows() + 1)];
      if constexpr (!Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename DView::memory_space>::accessible)
        Kokkos::deep_copy(d, h);
      return;
    }
    const auto& F = numeric_->resident_factor();
    const Impl::DevSnode* sns = F.snodes().data();
    const Scalar* vals = F.values().data();
    auto dd = Impl::reachable<ExecSpace>(d, false);
    Kokkos::parallel_for(
        "kspd::sparse::factor_diagonal", Kokkos::RangePolicy<ExecSpace>(exec, 0, symbolic_->snodes.size()),
        KOKKOS_LAMBDA(const size_t q) {
          const Impl::DevSnode sn = sns[q];
          for (int j = 0; j < sn.ncols; ++j) dd(sn.first_col + j) = vals[sn.voff + std::int64_t(j) * (sn.nrows + 1)];
        });
    exec.fence();
    if constexpr (!Kokkos::SpaceAccessibility<ExecSpace, typename DView::memory_space>::accessible) Kokkos::deep_copy(d, dd);
  }

  /// log det(A) = 2 sum log L(j, j), computed where the factor lives.
  double log_determinant(const ExecSpace& exec) const {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::log_determinant: call factorize first");
    if (!numeric_->resident()) {
      double s = 0;
      const Scalar* v = numeric_->values();
      for (const auto& sn : symbolic_->snodes)
        for (size_type j = 0; j < sn.ncols; ++j) s += std::log(double(v[sn.value_offset + j * (sn.nrows() + 1)]));
      return 2 * s;
    }
    const auto& F = numeric_->resident_factor();
    const Impl::DevSnode* sns = F.snodes().data();
    const Scalar* vals = F.values().data();
    double s = 0;
    Kokkos::parallel_reduce(
        "kspd::sparse::log_determinant", Kokkos::RangePolicy<ExecSpace>(exec, 0, symbolic_->snodes.size()),
        KOKKOS_LAMBDA(const size_t q, double& acc) {
          const Impl::DevSnode sn = sns[q];
          for (int j = 0; j < sn.ncols; ++j) acc += compat::log(double(vals[sn.voff + std::int64_t(j) * (sn.nrows + 1)]));
        },
        s);
    exec.fence();
    return 2 * s;
  }

  /// \brief The entries of A^-1 on the pattern of L (selected inversion: the supernodal
  /// Takahashi recurrences swept from the root down by tree level, kspd_sparse_selinv.hpp),
  /// computed and kept where the factor lives (the resident placement: on `exec`, in its
  /// memory; else on host workers). Look entries up in the input numbering (Z(i, j)), or take
  /// diag(A^-1) and trace(A^-1 B) from it. Memory: one more factor-sized array, and while it
  /// runs (resident) a second one. Fences exec.
  SelectedInverse<Scalar, ExecSpace> selected_inverse(const ExecSpace& exec) const {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::selected_inverse: call factorize first (and succeed)");
    SelectedInverse<Scalar, ExecSpace> Z(symbolic_, numeric_->resident());
    if (numeric_->resident()) {
      Impl::selinv_resident(exec, *symbolic_, numeric_->resident_factor(), Z.dvals_.data());
    } else {
      const int nt = opt_.threads > 0 ? opt_.threads : int(std::thread::hardware_concurrency());
      Impl::selinv_host(*symbolic_, Impl::LevelSchedule(*symbolic_), numeric_->values(), Z.hvals_.data(), nt);
    }
    return Z;
  }

  /// d(i) = (A^-1)(i, i) in the input numbering, into a rank-1 View of n entries in any
  /// memory space (the selected inversion runs, then its diagonal is read). Fences exec.
  template <class DView>
  void inverse_diagonal(const ExecSpace& exec, const DView& d) const {
    static_assert(Kokkos::is_view<DView>::value && DView::rank == 1, "kspd::sparse::inverse_diagonal: d must be a rank-1 View");
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::inverse_diagonal: call factorize first");
    KSPD_REQUIRE(size_type(d.extent(0)) == symbolic_->n, DimensionMismatch,
                 "kspd::sparse::SupernodalCholesky::inverse_diagonal: d has " << d.extent(0) << " entries, A has n = "
                                                                              << symbolic_->n);
    selected_inverse(exec).diagonal(exec, d);
  }

  /// trace(A^-1 B) for a symmetric B given by its lower triangle (CSC, input numbering) on
  /// A's pattern (any entry outside L's pattern is an InvalidArgument naming it). Fences exec.
  template <class BScalar>
  double trace_inverse_product(const ExecSpace& exec, const CscMatrix<BScalar>& B) const {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::sparse::SupernodalCholesky::trace_inverse_product: call factorize first");
    return selected_inverse(exec).trace_product(exec, B);
  }

  /// The factor L of P A P^T as a CSC lower triangle (explicit zeros of relaxed supernodes
  /// included); permutation() maps its rows/columns to A's: new k is A's perm[k]. From a
  /// device-resident factor this copies L to the host.
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
  /// True once analyze (or analyze_like, or factorize) has run.
  bool analyzed() const { return symbolic_ != nullptr; }
  const Impl::Symbolic& symbolic() const {
    KSPD_REQUIRE(symbolic_ != nullptr, InvalidArgument, "kspd::sparse::SupernodalCholesky: call analyze first");
    return *symbolic_;
  }
  const Impl::AnalysisStats& analysis_stats() const { return symbolic().stats; }
  const FactorStats& factor_stats() const {
    KSPD_REQUIRE(numeric_ != nullptr, InvalidArgument, "kspd::sparse::SupernodalCholesky: call factorize first");
    return numeric_->stats();
  }
  /// Where the last device-resident solve spent its time (with Offload::timeline).
  SolveTimeline solve_timeline() const { return numeric_ ? numeric_->solve_timeline() : SolveTimeline{}; }
  /// True when the factor lives in ExecSpace's memory (the resident placement).
  bool resident() const { return numeric_ && numeric_->resident(); }
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

  /// The error of a failed factorization: both numberings, 1-based as column().
  NotPositiveDefinite not_positive_definite(const Impl::PivotFailure& f) const {
    const Impl::Symbolic& S = *symbolic_;
    const size_type col = S.snodes[size_t(f.snode)].first_col + f.col, orig = S.perm[size_t(col)];
    std::ostringstream os;
    os << "kspd::sparse::SupernodalCholesky::factorize: the matrix is not positive definite: pivot " << f.pivot
       << " at column " << orig + 1 << " (1-based, the input's numbering; " << col + 1 << " after ordering)";
    return NotPositiveDefinite(os.str(), orig + 1, f.pivot);
  }

  Options opt_;
  template <class, class>
  friend class SupernodalCholesky;
  std::shared_ptr<const Impl::Symbolic> symbolic_;
  std::unique_ptr<Impl::Numeric<Scalar, ExecSpace>> numeric_;
  std::optional<NotPositiveDefinite> failure_;
  mutable Kokkos::View<size_type*, typename ExecSpace::memory_space> dperm_;
  bool factored_ = false;
};

}  // namespace kspd::sparse
#endif
