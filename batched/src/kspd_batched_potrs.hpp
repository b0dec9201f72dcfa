#ifndef KSPD_BATCHED_POTRS_HPP
#define KSPD_BATCHED_POTRS_HPP
/// \file kspd_batched_potrs.hpp
/// Batched SPD solves from Cholesky factors (POTRS, any number of right-hand sides) and the
/// one-call factor-and-solve (POSV). Complex Hermitian: A_b = L_b L_b^H (U_b^H U_b) from potrf.

#include "kspd_batched_potrs_dispatch.hpp"
#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf.hpp"
#include "kspd_batched_trsm.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

/// \brief B_b = A_b^-1 B_b from potrf's factor in As (same uplo); Bs (batch, n, nrhs).
/// \param infos [in] potrf's infos: a matrix with infos(b) != 0 has no factor, so its B_b is
///        left untouched (and infos(b) keeps saying so). Non-blocking on `exec`, except that a
///        count of the failures is read back first (one reduction).
template <class ExecSpace, class AView, class BView, class InfoView,
          std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void potrs(const ExecSpace& exec, Uplo uplo, const AView& As, const BView& Bs, const InfoView& infos,
           const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("potrs", "As");
  Impl::check_batch_view<ExecSpace, BView>("potrs", "Bs");
  Impl::check_potrs_shapes("kspd::batched::potrs", As, Bs);
  using T = typename BView::non_const_value_type;
  const size_type nb = As.extent(0);
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nb, "kspd::batched::potrs");
  compat::ScopedRegion region("kspd::batched::potrs");
  Impl::potrs_guarded<ExecSpace, T>(exec, uplo, nb, size_type(As.extent(1)), size_type(Bs.extent(2)),
                                    Impl::BatchMat<const T>(Impl::strided_batch(As)), Impl::strided_batch(Bs), ip,
                                    opts);
}
/// \brief Pointer arrays: A_b n x n (lda), B_b n x nrhs (ldb), column-major; infos as above.
template <class ExecSpace, class T, class InfoView>
void potrs(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs, const T* const* Aptrs,
           offset_type lda, T* const* Bptrs, offset_type ldb, const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::check_pointers<ExecSpace>("kspd::batched::potrs", "Bptrs", Bptrs, nbatch, n, nrhs, ldb);
  Impl::check_pointers<ExecSpace>("kspd::batched::potrs", "Aptrs", Aptrs, nrhs > 0 ? nbatch : 0, n, n, lda);
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nbatch, "kspd::batched::potrs");
  compat::ScopedRegion region("kspd::batched::potrs");
  Impl::potrs_guarded<ExecSpace, T>(exec, uplo, nbatch, n, nrhs, Impl::pointer_batch(Aptrs, lda),
                                    Impl::pointer_batch(Bptrs, ldb), ip, opts);
}
/// \brief Variable-size: A_b ns(b) x ns(b), B_b ns(b) x nrhss(b), column-major at
/// data + offsets(b) with leading dimension lds(b) (or the row count); infos as above.
template <class ExecSpace, class IntView, class TA, class TB, class Mem, class InfoView>
void potrs_vbatched(const ExecSpace& exec, Uplo uplo, const IntView& ns, const IntView& nrhss,
                    const VarMats<TA, Mem>& A, const VarMats<TB, Mem>& B, const InfoView& infos,
                    const BatchOptions& opts = {}) {
  static_assert(std::is_same<std::remove_const_t<TA>, TB>::value, "kspd::batched::potrs_vbatched: A and B hold the same scalar");
  constexpr const char* op = "kspd::batched::potrs_vbatched";
  const size_type nb = ns.extent(0);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  const auto hr = Impl::host_sizes(op, "nrhss", nrhss, nb);
  auto n_of = [&](size_type b) { return size_type(hn(b)); };
  const Impl::BatchMat<const TB> a = Impl::var_batch(op, "A", A, nb, n_of, n_of);
  const Impl::BatchMat<TB> x = Impl::var_batch(op, "B", B, nb, n_of, [&](size_type b) { return size_type(hr(b)); });
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nb, op);
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ns = ns.data();
  d.ks = nrhss.data();
  Impl::launch(exec, op, nb, Impl::PotrsOp<TB>{uplo, a, x, d, ip}, nullptr, opts, 256);
}

/// \brief Factor and solve: As = chol(As), Bs = As^-1 Bs; infos(b) [out] = potrf's info of
/// matrix b (its B_b is left untouched when nonzero).
template <class ExecSpace, class AView, class BView, class InfoView,
          std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void posv(const ExecSpace& exec, Uplo uplo, const AView& As, const BView& Bs, const InfoView& infos,
          const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("posv", "As");
  Impl::check_batch_view<ExecSpace, BView>("posv", "Bs");
  Impl::check_potrs_shapes("kspd::batched::posv", As, Bs);
  using T = typename BView::non_const_value_type;
  const size_type nb = As.extent(0);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nb, "kspd::batched::posv");
  Impl::posv_fixed<ExecSpace, T>(exec, uplo, nb, size_type(As.extent(1)), size_type(Bs.extent(2)),
                                 Impl::strided_batch(As), Impl::strided_batch(Bs), ip, opts);
}
/// \brief Pointer arrays (column-major, lda / ldb).
template <class ExecSpace, class T, class InfoView>
void posv(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs, T* const* Aptrs,
          offset_type lda, T* const* Bptrs, offset_type ldb, const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::check_pointers<ExecSpace>("kspd::batched::posv", "Aptrs", Aptrs, nbatch, n, n, lda);
  Impl::check_pointers<ExecSpace>("kspd::batched::posv", "Bptrs", Bptrs, nbatch, n, nrhs, ldb);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nbatch, "kspd::batched::posv");
  Impl::posv_fixed<ExecSpace, T>(exec, uplo, nbatch, n, nrhs, Impl::pointer_batch(Aptrs, lda),
                                 Impl::pointer_batch(Bptrs, ldb), ip, opts);
}

}  // namespace kspd::batched
#endif
