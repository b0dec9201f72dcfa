#ifndef KSPD_RFP_PFTRF_JITTER_HPP
#define KSPD_RFP_PFTRF_JITTER_HPP
/// \file kspd_rfp_pftrf_jitter.hpp
/// pftrf that retries with growing jitter on the diagonal when A is numerically indefinite
/// (GPyTorch's psd_safe_cholesky; see kspd_jitter.hpp for the schedule), without a second
/// copy of A: either the failed attempt is undone in place, or the caller's functor
/// re-fills A.

#include <cmath>
#include <type_traits>

#include "kspd_jitter.hpp"
#include "kspd_rfp_convert.hpp"
#include "kspd_rfp_pftrf.hpp"
#include "kspd_rfp_pftrf_jitter_impl.hpp"

namespace kspd::rfp {

/// \brief A + j I = L L^T (or U^T U) in place for the smallest j of the schedule
/// {0, j_1, j_1 growth, ...} (at most 1 + max_retries attempts) that is positive definite.
/// After a failed attempt the partial factorization is undone in place (A11 = L11 L11^T,
/// A21 = L21 L11^T, A22 += L21 L21^T on the blocks it had reached, recursively, at no more
/// cost than the attempt), so no copy of A is kept; the workspace is one leaf x leaf block
/// (JitterOptions::leaf_size). The attempts run a recursive right-looking Cholesky with a
/// fence per leaf (the vendor potrf at the leaves), not pftrf's four calls.
/// \param A [in,out] SPD (or nearly) in RFP format; on success the factor of A + jitter I,
///        as pftrf writes it; when every attempt fails, A is restored to its input (up to
///        rounding: the undo recomputes A from the partial factor).
/// \return {info, jitter, attempts}: info 0 on success, else the last attempt's pftrf info.
/// Fences `exec`.
template <class ExecSpace, class T, class Mem>
[[nodiscard]] JitterResult pftrf_jitter(const ExecSpace& exec, const Matrix<T, Mem>& A,
                                        const JitterOptions& jopt = {}, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf_jitter", A);
  KSPD_REQUIRE(jopt.max_retries >= 0 && jopt.growth > 0, InvalidArgument,
               "kspd::rfp::pftrf_jitter: max_retries must be >= 0 and growth > 0");
  JitterResult res;
  if (A.n() == 0) {
    res.attempts = 1;
    return res;
  }
  compat::ScopedRegion region("kspd::rfp::pftrf_jitter");
  const double j1 = jopt.abs_jitter > 0 ? jopt.abs_jitter : jopt.rel_jitter * std::fabs(Impl::mean_diagonal(exec, A));
  const auto b = Impl::blocks(A);
  Impl::UndoableCholesky<ExecSpace, T, Mem> chol(exec, opt, size_type(jopt.leaf_size), A.n());
  double added = 0;  // what the diagonal holds on top of A now
  for (int r = 0; r <= jopt.max_retries; ++r) {
    const double j = r == 0 ? 0.0 : jitter_of_retry(jopt, j1, r);
    if (j != added) add_to_diagonal(exec, A, T(j - added));
    added = j;
    int info = 0;
    const size_type f = chol.factor_split(b.t1, b.s, b.t2, info);
    ++res.attempts;
    if (f == A.n()) {
      res.info = 0;
      res.jitter = j;
      compat::fence(exec, "kspd::rfp::pftrf_jitter");
      return res;
    }
    res.info = info;
    chol.undo_split(b.t1, b.s, b.t2, f);
  }
  if (added != 0) add_to_diagonal(exec, A, T(-added));
  res.jitter = added;
  compat::fence(exec, "kspd::rfp::pftrf_jitter");
  return res;
}

/// \brief As above, but each retry first re-fills A through the caller's functor
/// `fill(exec, A)` (e.g. a kernel recomputing the kernel matrix into A's RFP array; it must
/// write all n(n+1)/2 entries, as the failed factorization left garbage there), then adds
/// the jitter; every attempt is one plain pftrf (pftrf's speed, no undo work).
/// \return {info, jitter, attempts}; when every attempt fails, A holds the failed factor of
/// the last attempt. Fences `exec`.
template <class ExecSpace, class T, class Mem, class Fill,
          std::enable_if_t<!std::is_same<std::decay_t<Fill>, JitterOptions>::value, int> = 0>
[[nodiscard]] JitterResult pftrf_jitter(const ExecSpace& exec, const Matrix<T, Mem>& A, Fill&& fill,
                                        const JitterOptions& jopt = {}, const DenseOptions& opt = {}) {
  Impl::check_matrix<ExecSpace>("kspd::rfp::pftrf_jitter", A);
  KSPD_REQUIRE(jopt.max_retries >= 0 && jopt.growth > 0, InvalidArgument,
               "kspd::rfp::pftrf_jitter: max_retries must be >= 0 and growth > 0");
  JitterResult res;
  if (A.n() == 0) {
    res.attempts = 1;
    return res;
  }
  compat::ScopedRegion region("kspd::rfp::pftrf_jitter");
  const double j1 = jopt.abs_jitter > 0 ? jopt.abs_jitter : jopt.rel_jitter * std::fabs(Impl::mean_diagonal(exec, A));
  for (int r = 0; r <= jopt.max_retries; ++r) {
    const double j = r == 0 ? 0.0 : jitter_of_retry(jopt, j1, r);
    if (r > 0) {
      fill(exec, A);
      add_to_diagonal(exec, A, T(j));
    }
    const int info = pftrf(exec, A, opt);
    ++res.attempts;
    res.info = info;
    res.jitter = j;
    if (info == 0) break;
  }
  return res;
}

}  // namespace kspd::rfp
#endif
