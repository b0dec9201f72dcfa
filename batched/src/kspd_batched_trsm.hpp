#ifndef KSPD_BATCHED_TRSM_HPP
#define KSPD_BATCHED_TRSM_HPP
/// \file kspd_batched_trsm.hpp
/// Batched triangular solve with many right-hand sides, every side/uplo/trans/diag variant:
/// op(A_b) X_b = alpha B_b (Left) or X_b op(A_b) = alpha B_b (Right); X_b overwrites B_b.
/// Complex scalars: op = N, T or C (conjugate transpose), on the portable Serial / Team
/// kernels or the host BLAS loop.

#include "kspd_batched_trsm_dispatch.hpp"
#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_gemm.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

/// \brief Strided batch: As (batch, k, k) with k = m (Left) or n (Right), Bs (batch, m, n),
/// either layout. Non-blocking on `exec`.
template <class ExecSpace, class AView, class BView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BView::const_value_type alpha, const AView& As, const BView& Bs, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("trsm", "As");
  Impl::check_batch_view<ExecSpace, BView>("trsm", "Bs");
  static_assert(AView::rank == 3 && BView::rank == 3, "kspd::batched::trsm: As and Bs must be rank-3 Views");
  const size_type m = Bs.extent(1), n = Bs.extent(2), k = side == Side::Left ? m : n;
  KSPD_REQUIRE(As.extent(0) == Bs.extent(0), DimensionMismatch,
               "kspd::batched::trsm: As holds " << As.extent(0) << " matrices, Bs " << Bs.extent(0));
  KSPD_REQUIRE(size_type(As.extent(1)) == k && size_type(As.extent(2)) == k, DimensionMismatch,
               "kspd::batched::trsm: As must be " << k << " x " << k << " (got " << As.extent(1) << " x " << As.extent(2) << ")");
  using T = typename BView::non_const_value_type;
  Impl::trsm_fixed<ExecSpace, T>(exec, side, uplo, trans, diag, alpha, size_type(Bs.extent(0)), m, n,
                                 Impl::BatchMat<const T>(Impl::strided_batch(As)), Impl::strided_batch(Bs), opts);
}

/// \brief TRSM after a batched POTRF: as above, and B_b of every matrix whose factorization
/// failed (infos(b) != 0, potrf's infos [in]) is left untouched (infos(b) keeps saying so).
template <class ExecSpace, class AView, class BView, class InfoView,
          std::enable_if_t<Kokkos::is_view<AView>::value && Kokkos::is_view<InfoView>::value, int> = 0>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag,
          typename BView::const_value_type alpha, const AView& As, const BView& Bs, const InfoView& infos,
          const BatchOptions& opts = {}) {
  using T = typename BView::non_const_value_type;
  const size_type nb = Bs.extent(0);
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nb, "kspd::batched::trsm");
  const Impl::FailedGuard<ExecSpace, T> keep(exec, ip, nb, Impl::strided_batch(Bs), size_type(Bs.extent(1)),
                                             size_type(Bs.extent(2)));
  trsm(exec, side, uplo, trans, diag, alpha, As, Bs, opts);
  keep.restore();
}

/// \brief Pointer arrays: nbatch column-major matrices Aptrs[b] (k x k, lda) and Bptrs[b]
/// (m x n, ldb) given as device arrays of device pointers.
template <class ExecSpace, class T>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch, size_type m,
          size_type n, const T* const* Aptrs, offset_type lda, T* const* Bptrs, offset_type ldb,
          const BatchOptions& opts = {}) {
  const size_type k = side == Side::Left ? m : n;
  Impl::check_pointers<ExecSpace>("kspd::batched::trsm", "Bptrs", Bptrs, nbatch, m, n, ldb);
  Impl::check_pointers<ExecSpace>("kspd::batched::trsm", "Aptrs", Aptrs, m > 0 && n > 0 ? nbatch : 0, k, k, lda);
  Impl::trsm_fixed<ExecSpace, T>(exec, side, uplo, trans, diag, alpha, nbatch, m, n, Impl::pointer_batch(Aptrs, lda),
                                 Impl::pointer_batch(Bptrs, ldb), opts);
}
/// \brief Pointer arrays after a batched POTRF: B_b of the failed matrices (infos(b) != 0) untouched.
template <class ExecSpace, class T, class InfoView, std::enable_if_t<Kokkos::is_view<InfoView>::value, int> = 0>
void trsm(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, T alpha, size_type nbatch, size_type m,
          size_type n, const T* const* Aptrs, offset_type lda, T* const* Bptrs, offset_type ldb, const InfoView& infos,
          const BatchOptions& opts = {}) {
  const int* ip = Impl::info_ptr<ExecSpace>(infos, nbatch, "kspd::batched::trsm");
  Impl::check_pointers<ExecSpace>("kspd::batched::trsm", "Bptrs", Bptrs, nbatch, m, n, ldb);
  const Impl::FailedGuard<ExecSpace, T> keep(exec, ip, nbatch, Impl::pointer_batch(Bptrs, ldb), m, n);
  trsm(exec, side, uplo, trans, diag, alpha, nbatch, m, n, Aptrs, lda, Bptrs, ldb, opts);
  keep.restore();
}

/// \brief Variable-size batch: B_b is ms(b) x ns(b), A_b k x k (k = ms(b) Left, ns(b)
/// Right), column-major at data + offsets(b) with leading dimension lds(b) (or the row count
/// when lds is empty); checked on the host first (sizes, offsets, ld, bounds).
/// With `infos` (potrf_vbatched's, [in]): B_b of the failed matrices (infos(b) != 0) is left untouched.
template <class ExecSpace, class IntView, class TA, class TB, class Mem>
void trsm_vbatched(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, std::add_const_t<TB> alpha,
                   const IntView& ms, const IntView& ns, const VarMats<TA, Mem>& A, const VarMats<TB, Mem>& B,
                   const BatchOptions& opts = {}) {
  trsm_vbatched(exec, side, uplo, trans, diag, alpha, ms, ns, A, B, Kokkos::View<const int*, Mem>(), opts);
}
template <class ExecSpace, class IntView, class TA, class TB, class Mem, class InfoView,
          std::enable_if_t<Kokkos::is_view<InfoView>::value, int> = 0>
void trsm_vbatched(const ExecSpace& exec, Side side, Uplo uplo, Trans trans, Diag diag, std::add_const_t<TB> alpha,
                   const IntView& ms, const IntView& ns, const VarMats<TA, Mem>& A, const VarMats<TB, Mem>& B,
                   const InfoView& infos, const BatchOptions& opts = {}) {
  static_assert(std::is_same<std::remove_const_t<TA>, TB>::value, "kspd::batched::trsm_vbatched: A and B hold the same scalar");
  constexpr const char* op = "kspd::batched::trsm_vbatched";
  const size_type nb = ms.extent(0);
  const auto hm = Impl::host_sizes(op, "ms", ms, nb);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  auto m_of = [&](size_type b) { return size_type(hm(b)); };
  auto n_of = [&](size_type b) { return size_type(hn(b)); };
  auto k_of = [&](size_type b) { return side == Side::Left ? m_of(b) : n_of(b); };
  const Impl::BatchMat<const TB> a = Impl::var_batch(op, "A", A, nb, k_of, k_of);
  const Impl::BatchMat<TB> x = Impl::var_batch(op, "B", B, nb, m_of, n_of);
  const int* skip = infos.extent(0) > 0 || nb == 0 ? Impl::info_ptr<ExecSpace>(infos, nb, op) : nullptr;
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ms = ms.data();
  d.ns = ns.data();
  Impl::launch(exec, op, nb, Impl::TrsmOp<TB>{{side, uplo, trans, diag, alpha, a, x, d}, skip}, nullptr, opts, 256);
}

}  // namespace kspd::batched
#endif
