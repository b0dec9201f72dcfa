#ifndef KSPD_SPARSE_MIXED_CHOLESKY_HPP
#define KSPD_SPARSE_MIXED_CHOLESKY_HPP
/// \file kspd_sparse_mixed_cholesky.hpp
/// Mixed-precision sparse SPD solve (the sparse counterpart of kspd::rfp::pfsv_mixed, with
/// its MixedOptions and MixedResult): the supernodal factor in fp32 (half the memory of the
/// fp64 one), then refinement with the residual in fp64 (the fp64 matrix, where the factor
/// lives) and the corrections from the fp32 factor, accelerated by conjugate gradients (the
/// fp32 factor as preconditioner: Carson & Higham's GMRES-IR in its CG form for SPD A), until
/// the normwise backward error
/// |b - A x|_inf / (|A|_inf |x|_inf + |b|_inf) reaches the tolerance. When the fp32
/// factorization fails or refinement stalls, it falls back to an fp64 factor (the analysis
/// reused) and says so in the result; later solves use that factor.
///
/// By default (MixedFactor::Auto) a factorization too small for the fp32 factor to pay for
/// its refinement is done in fp64 at once (fp32_pays: a rule on the analysis' flops and
/// nnz(L), measured on the CPU); the result's fp64_chosen
/// says so. MixedFactor::Fp32 always starts in fp32, for the memory saving.
///
/// \code
///   kspd::sparse::MixedCholesky<> mc(opts);        // Options as SupernodalCholesky's
///   int info = mc.factorize(exec, A);              // CscMatrix<double>; fp32 factor
///   kspd::MixedResult r = mc.solve(exec, B, X);    // fp64 B, X: iterations, backward_error, fell_back
/// \endcode

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <limits>
#include <memory>

#include "kspd_mixed_refinement.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"

namespace kspd::sparse {

template <class ExecSpace = Kokkos::DefaultExecutionSpace>
class MixedCholesky {
 public:
  using execution_space = ExecSpace;
  using Mem = typename ExecSpace::memory_space;

  explicit MixedCholesky(const Options& opt = {}, const MixedOptions& mopt = {}) : opt_(opt), mopt_(mopt) {
    f32_ = std::make_unique<SupernodalCholesky<float, ExecSpace>>(opt_);
  }

  /// Ordering and symbolic analysis of A's pattern (shared by the fp32 and fp64 factors).
  void analyze(const CscMatrix<double>& A) {
    f32_ = std::make_unique<SupernodalCholesky<float, ExecSpace>>(opt_);
    f64_.reset();
    chosen_ = false;
    f32_->analyze(cast_values<float>(A));
  }

  /// Factors A in fp32 (analyses first if needed; in fp64 where MixedFactor::Auto finds that
  /// fp32 cannot pay, and again on later calls) and keeps A (host and exec's memory) for the
  /// residuals. An fp32 failure falls back to the fp64 factor at once.
  /// \return 0, or the fp64 factorization's info: A is not positive definite. Fences exec.
  [[nodiscard]] int factorize(const ExecSpace& exec, const CscMatrix<double>& A) {
    if (f64_ && chosen_) {  // Auto chose fp64 on this analysis before: refactor that factor in place
      keep(A);
      info_ = f64_->factorize(exec, A);
      return info_;
    }
    if (!f32_) {  // fallen back before: the fp64 solver's analysis serves again
      f32_ = std::make_unique<SupernodalCholesky<float, ExecSpace>>(opt_);
      if (f64_) f32_->analyze_like(*f64_);
    }
    f64_.reset();
    if (!f32_->analyzed()) f32_->analyze(cast_values<float>(A));
    chosen_ = mopt_.factor == MixedFactor::Auto && !fp32_pays(f32_->analysis_stats());
    fp32_info_ = chosen_ ? 0 : f32_->factorize(exec, cast_values<float>(A));  // the fp32 copy only when it is factored
    keep(A);
    info_ = 0;
    if (chosen_ || fp32_info_ != 0) fall_back(exec);
    return info_;
  }

  /// The rule of MixedFactor::Auto: true where the fp32 factor + refinement is expected to
  /// beat the fp64 factor + solve end to end. The fp32 factor saves about half of the
  /// factorization (flops), refinement costs two to four extra solves (about 4 nnz(L)
  /// flops each, memory-bound) and fixed per-solve costs, so fp32 pays only for enough
  /// factorization work per factor entry and enough work in all. Measured on the CPU (one
  /// thread, process CPU time; perf_tests/results/cpu-vm-sparse-issue15-upd-2026-11-24.md):
  /// every collection matrix (all under 5e8 flops and 210 flops per entry) ran at 0.3-0.95x
  /// in fp32; 3-D elasticity 10^3 (1.6e8 flops, 260 per entry) at 1.07x, 14^3-26^3
  /// (1.2e9-5.2e10 flops, 460-1380 per entry) at 1.30-1.61x.
  static bool fp32_pays(const Impl::AnalysisStats& s) {
    constexpr double kMinFlops = 1e9, kMinFlopsPerEntry = 300;
    return s.flops_stored >= kMinFlops && s.flops_stored >= kMinFlopsPerEntry * double(s.nnz_l_stored);
  }

  /// Solves A X = B (fp64 B and X, rank 1 or 2, any layout and memory space; X may be B)
  /// with refinement on the fp32 factor, or with the fp64 factor once fallen back.
  /// \return {info, fp32_info, iterations (refinement steps with the fp32 factor),
  /// backward_error (max over columns), fell_back}. Fences exec.
  template <class BView, class XView>
  MixedResult solve(const ExecSpace& exec, const BView& B, const XView& X) {
    static_assert(std::is_same<typename BView::non_const_value_type, double>::value &&
                      std::is_same<typename XView::non_const_value_type, double>::value,
                  "kspd::sparse::MixedCholesky::solve: B and X must hold double");
    static_assert((BView::rank == 1 || BView::rank == 2) && int(BView::rank) == int(XView::rank),
                  "kspd::sparse::MixedCholesky::solve: B and X must both be rank 1 or both rank 2");
    KSPD_REQUIRE(f32_ || f64_, InvalidArgument, "kspd::sparse::MixedCholesky::solve: call factorize first");
    KSPD_REQUIRE(info_ == 0, InvalidArgument, "kspd::sparse::MixedCholesky::solve: the factorization failed (info " << info_ << ")");
    const size_type n = A_.n, nrhs = BView::rank == 1 ? 1 : size_type(B.extent(1));
    KSPD_REQUIRE(size_type(B.extent(0)) == n && size_type(X.extent(0)) == n &&
                     (XView::rank == 1 || size_type(X.extent(XView::rank - 1)) == nrhs),
                 DimensionMismatch, "kspd::sparse::MixedCholesky::solve: B is " << B.extent(0) << " x " << nrhs << ", X has "
                                                                               << X.extent(0) << " rows, A is " << n << " x " << n);
    MixedResult res;
    res.fp32_info = fp32_info_;
    if (n == 0 || nrhs == 0) {
      res.backward_error = 0;
      return res;
    }
    using M2 = Kokkos::View<double**, Kokkos::LayoutLeft, Mem>;
    using F2 = Kokkos::View<float**, Kokkos::LayoutLeft, Mem>;
    const auto noinit = [](const char* s) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string(s)); };
    M2 Bd(noinit("kspd::sparse::mixed::B"), size_t(n), size_t(nrhs)), Xd(noinit("kspd::sparse::mixed::X"), size_t(n), size_t(nrhs)),
        R(noinit("kspd::sparse::mixed::R"), size_t(n), size_t(nrhs));
    Impl::gather_rhs(exec, B, Bd.data(), n, nrhs, nullptr);
    const double tol = mopt_.tolerance > 0 ? mopt_.tolerance : std::sqrt(double(n)) * std::numeric_limits<double>::epsilon();
    if (!f64_) {
      // x_0 = A32^-1 b, then conjugate gradients on A preconditioned by the fp32 factor, with
      // the true fp64 residual r = b - A x every step (Carson & Higham's GMRES-IR, its CG
      // form for SPD A): one fp32 solve and two fp64 products with A per step; it converges
      // for kappa(A) u32 well above 1, where x += A32^-1 r (classical refinement) does not.
      F2 Zf(noinit("kspd::sparse::mixed::Zf"), size_t(n), size_t(nrhs));
      M2 Z(noinit("kspd::sparse::mixed::Z"), size_t(n), size_t(nrhs)), P(noinit("kspd::sparse::mixed::P"), size_t(n), size_t(nrhs)),
          Q(noinit("kspd::sparse::mixed::Q"), size_t(n), size_t(nrhs));
      const auto precondition = [&](const M2& from, const M2& to) {
        convert(exec, from, Zf);
        f32_->solve(exec, Zf);
        convert(exec, Zf, to);
      };
      precondition(Bd, Xd);
      double best = std::numeric_limits<double>::infinity();
      int bad = 0;
      bool done = false;
      std::vector<double> rz, rz_new, pq, alpha(static_cast<size_t>(nrhs)), beta(static_cast<size_t>(nrhs));
      for (int it = 0;; ++it) {
        residual(exec, Bd, Xd, R);
        const double be = kspd::Impl::backward_error(exec, anrm_, R, Xd, Bd);
        res.backward_error = be;
        res.iterations = it;
        if (be <= tol) {
          done = true;
          break;
        }
        bad = be < mopt_.stall_ratio * best ? 0 : bad + 1;  // NaN counts as no progress
        best = std::min(best, be);
        if (bad >= 2 || it >= mopt_.max_iterations) break;  // stalled
        precondition(R, Z);
        rz_new = dots(exec, R, Z);
        if (it == 0) {
          Kokkos::deep_copy(exec, P, Z);
        } else {
          for (size_t c = 0; c < size_t(nrhs); ++c) beta[c] = rz[c] != 0 ? rz_new[c] / rz[c] : 0.0;
          axpby(exec, Z, beta, P);  // P = Z + beta P
        }
        rz = rz_new;
        Kokkos::deep_copy(exec, Q, 0.0);
        apply(exec, P, Q, 1.0);
        pq = dots(exec, P, Q);
        for (size_t c = 0; c < size_t(nrhs); ++c) alpha[c] = pq[c] > 0 ? rz[c] / pq[c] : 0.0;
        axpy(exec, alpha, P, Xd);  // X += alpha P
      }
      if (!done) fall_back(exec);
      if (info_ != 0) {
        res.info = info_;
        res.fell_back = true;
        return res;
      }
    }
    if (f64_) {
      res.fell_back = !chosen_;
      res.fp64_chosen = chosen_;
      f64_->solve(exec, Bd, Xd);
      residual(exec, Bd, Xd, R);
      res.backward_error = kspd::Impl::backward_error(exec, anrm_, R, Xd, Bd);
    }
    Impl::scatter_rhs(exec, Xd.data(), X, n, nrhs, nullptr);
    exec.fence();
    return res;
  }

  /// True once the fp64 factor is in use because the fp32 one failed or stalled.
  bool fell_back() const { return f64_ != nullptr && !chosen_; }
  /// True when MixedFactor::Auto chose the fp64 factor up front (fp32_pays was false).
  bool fp64_chosen() const { return f64_ != nullptr && chosen_; }
  /// The analysis (shared by both factors).
  const Impl::AnalysisStats& analysis_stats() const { return f64_ ? f64_->analysis_stats() : f32_->analysis_stats(); }
  /// Bytes of the factor in use: the stored entries of L times 4 (fp32) or 8 (fp64).
  double factor_bytes() const {
    const auto& S = f64_ ? f64_->symbolic() : f32_->symbolic();
    return double(S.nvalues) * (f64_ ? sizeof(double) : sizeof(float));
  }
  /// The fp32 solver (its analysis, factor statistics, placement), null once fallen back;
  /// the fp64 solver, null until then.
  const SupernodalCholesky<float, ExecSpace>* fp32() const { return f32_.get(); }
  const SupernodalCholesky<double, ExecSpace>* fp64() const { return f64_.get(); }

  // public for CUDA's extended lambdas
  /// R = B - A X with the fp64 matrix, on exec.
  template <class BV, class XV, class RV>
  void residual(const ExecSpace& exec, const BV& B, const XV& X, const RV& R) const {
    Kokkos::deep_copy(exec, R, B);
    apply(exec, X, R, -1.0);
  }
  /// Y += s A X with the fp64 lower-triangle CSC A (both triangles applied; atomic).
  template <class XV, class YV>
  void apply(const ExecSpace& exec, const XV& X, const YV& Y, double s) const {
    const auto cp = colptr_;
    const auto ri = rowind_;
    const auto va = values_;
    const size_type n = A_.n, nr = size_type(Y.extent(1));
    Kokkos::parallel_for(
        "kspd::sparse::mixed::apply", Kokkos::RangePolicy<ExecSpace>(exec, 0, size_t(n * nr)),
        KOKKOS_LAMBDA(const size_t q) {
          const size_type j = size_type(q) % n, c = size_type(q) / n;
          const double xj = X(j, c);
          double acc = 0;
          for (size_type p = cp(j); p < cp(j + 1); ++p) {
            const size_type i = ri(p);
            const double a = va(p);
            if (i != j) {
              Kokkos::atomic_add(&Y(i, c), s * a * xj);
              acc += a * X(i, c);
            } else {
              acc += a * xj;
            }
          }
          Kokkos::atomic_add(&Y(j, c), s * acc);
        });
  }
  /// The column dot products U(:, c) . V(:, c), to the host.
  template <class UV, class VV>
  static std::vector<double> dots(const ExecSpace& exec, const UV& U, const VV& V) {
    using Team = Kokkos::TeamPolicy<ExecSpace>;
    const size_type n = size_type(U.extent(0));
    Kokkos::View<double*, Mem> d("kspd::sparse::mixed::dots", U.extent(1));
    Kokkos::parallel_for(
        "kspd::sparse::mixed::dots", Team(exec, int(U.extent(1)), Kokkos::AUTO),
        KOKKOS_LAMBDA(const typename Team::member_type& t) {
          const int c = t.league_rank();
          double s = 0;
          Kokkos::parallel_reduce(
              Kokkos::TeamThreadRange(t, n), [&](const size_type i, double& acc) { acc += U(i, c) * V(i, c); }, s);
          Kokkos::single(Kokkos::PerTeam(t), [&]() { d(c) = s; });
        });
    std::vector<double> h(U.extent(1));
    Kokkos::deep_copy(exec, Kokkos::View<double*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()), d);
    exec.fence();
    return h;
  }
  /// Y(:, c) += a[c] X(:, c).
  template <class XV, class YV>
  static void axpy(const ExecSpace& exec, const std::vector<double>& a, const XV& X, const YV& Y) {
    const auto da = upload(a, "alpha");
    Kokkos::parallel_for(
        "kspd::sparse::mixed::axpy", Kokkos::RangePolicy<ExecSpace>(exec, 0, X.extent(0) * X.extent(1)),
        KOKKOS_LAMBDA(const size_t q) {
          const size_t i = q % X.extent(0), c = q / X.extent(0);
          Y(i, c) += da(c) * X(i, c);
        });
  }
  /// Y(:, c) = X(:, c) + b[c] Y(:, c).
  template <class XV, class YV>
  static void axpby(const ExecSpace& exec, const XV& X, const std::vector<double>& b, const YV& Y) {
    const auto db = upload(b, "beta");
    Kokkos::parallel_for(
        "kspd::sparse::mixed::axpby", Kokkos::RangePolicy<ExecSpace>(exec, 0, X.extent(0) * X.extent(1)),
        KOKKOS_LAMBDA(const size_t q) {
          const size_t i = q % X.extent(0), c = q / X.extent(0);
          Y(i, c) = X(i, c) + db(c) * Y(i, c);
        });
  }
  template <class SV, class DV>
  static void convert(const ExecSpace& exec, const SV& S, const DV& D) {
    using T = typename DV::non_const_value_type;
    Kokkos::parallel_for(
        "kspd::sparse::mixed::convert", Kokkos::RangePolicy<ExecSpace>(exec, 0, S.extent(0) * S.extent(1)),
        KOKKOS_LAMBDA(const size_t q) { D(q % S.extent(0), q / S.extent(0)) = T(S(q % S.extent(0), q / S.extent(0))); });
  }

 private:
  template <class T>
  static Kokkos::View<T*, Mem> upload(const std::vector<T>& h, const char* what) {
    Kokkos::View<T*, Mem> d(Kokkos::view_alloc(Kokkos::WithoutInitializing, std::string("kspd::sparse::mixed::") + what),
                            std::max<size_t>(h.size(), 1));
    if (!h.empty())
      Kokkos::deep_copy(Kokkos::subview(d, Kokkos::make_pair(size_t(0), h.size())),
                        Kokkos::View<const T*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(h.data(), h.size()));
    return d;
  }
  /// A for the residuals: a host copy, |A|_inf and the CSC arrays in exec's memory.
  void keep(const CscMatrix<double>& A) {
    A_ = A;
    anrm_ = 0;
    std::vector<double> rs(static_cast<size_t>(A.n), 0.0);
    for (size_type j = 0; j < A.n; ++j)
      for (size_type p = A.colptr[size_t(j)]; p < A.colptr[size_t(j + 1)]; ++p) {
        const size_type i = A.rowind[size_t(p)];
        rs[size_t(i)] += std::fabs(A.values[size_t(p)]);
        if (i != j) rs[size_t(j)] += std::fabs(A.values[size_t(p)]);
      }
    for (double r : rs) anrm_ = std::max(anrm_, r);
    colptr_ = upload(A.colptr, "colptr");
    rowind_ = upload(A.rowind, "rowind");
    values_ = upload(A.values, "values");
  }
  /// The fp64 factor on the fp32 solver's analysis; the fp32 factor is freed first.
  void fall_back(const ExecSpace& exec) {
    f64_ = std::make_unique<SupernodalCholesky<double, ExecSpace>>(opt_);
    f64_->analyze_like(*f32_);
    f32_.reset();
    info_ = f64_->factorize(exec, A_);
  }

  Options opt_;
  MixedOptions mopt_;
  std::unique_ptr<SupernodalCholesky<float, ExecSpace>> f32_;
  std::unique_ptr<SupernodalCholesky<double, ExecSpace>> f64_;
  CscMatrix<double> A_;
  Kokkos::View<size_type*, Mem> colptr_, rowind_;
  Kokkos::View<double*, Mem> values_;
  double anrm_ = 0;
  int fp32_info_ = 0, info_ = 0;
  bool chosen_ = false;  ///< the fp64 factor was chosen up front (MixedFactor::Auto)
};

}  // namespace kspd::sparse
#endif
