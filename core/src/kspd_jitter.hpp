#ifndef KSPD_JITTER_HPP
#define KSPD_JITTER_HPP
/// \file kspd_jitter.hpp
/// The jitter schedule of the retrying Cholesky factorizations (kspd::rfp::pftrf_jitter,
/// kspd::batched::potrf_jitter), after GPyTorch's psd_safe_cholesky: the first attempt adds
/// nothing; retry r = 1, 2, ..., max_retries factors A + j_r I with
///   j_r = j_1 growth^(r-1),  j_1 = rel_jitter * |mean(diag(A))|  (or abs_jitter when > 0).

namespace kspd {

struct JitterOptions {
  double rel_jitter = 1e-6;  ///< first jitter relative to the mean diagonal of A
  double abs_jitter = 0;     ///< > 0: the first jitter, absolute (rel_jitter is then ignored)
  double growth = 10;        ///< factor between consecutive jitters
  int max_retries = 3;       ///< retries after the first attempt (attempts <= 1 + max_retries)
  /// In-place undo path only: the recursion's leaf (a leaf x leaf workspace holds the leaf
  /// being factored); 0: 512 on host backends, 2048 on GPUs.
  long long leaf_size = 0;
};

/// What a retrying factorization did.
struct JitterResult {
  int info = 0;         ///< 0: factored; else the info of the last attempt (LAPACK meaning)
  double jitter = 0;    ///< total jitter on the diagonal of the factored matrix (0: none needed)
  int attempts = 0;     ///< factorizations tried (1: the first succeeded)
};

/// The jitter of retry r >= 1 for a first jitter j1.
inline double jitter_of_retry(const JitterOptions& o, double j1, int r) {
  double j = j1;
  for (int i = 1; i < r; ++i) j *= o.growth;
  return j;
}

}  // namespace kspd
#endif
