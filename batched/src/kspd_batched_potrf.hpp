#ifndef KSPD_BATCHED_POTRF_HPP
#define KSPD_BATCHED_POTRF_HPP
/// \file kspd_batched_potrf.hpp
/// Batched Cholesky: A_b = L_b L_b^T (Lower) or U_b^T U_b (Upper) for every matrix b; for
/// complex scalars (Kokkos::complex<float / double>) A_b is Hermitian and A_b = L_b L_b^H or
/// U_b^H U_b: only the real part of the diagonal is read, the factor's diagonal is real, and
/// info is the first pivot that is not positive and finite. Complex batches run on the
/// portable Serial / Team kernels or the host LAPACK loop (not the register, group,
/// shared-memory or recursive kernels; BatchAlgo::Register is rejected).

#include "kspd_batched_potrf_dispatch.hpp"
#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_gemm.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_trsm.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

/// \brief Cholesky of every matrix of a strided batch: As(b, :, :) = L L^T (Lower, L in the
/// lower triangle) or U^T U (Upper). Non-blocking on `exec`.
/// \param As [in,out] rank-3 View (batch, n, n), LayoutLeft or LayoutRight (or strided).
/// \param infos [out] infos(b) = 0, or the 1-based column of the first non-positive pivot
///        of matrix b (the other matrices are unaffected).
template <class ExecSpace, class AView, class InfoView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void potrf(const ExecSpace& exec, Uplo uplo, const AView& As, const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("potrf", "As");
  static_assert(AView::rank == 3, "kspd::batched::potrf: As must be a rank-3 View (batch, n, n)");
  KSPD_REQUIRE(As.extent(1) == As.extent(2), DimensionMismatch,
               "kspd::batched::potrf: As must hold square matrices (got " << As.extent(1) << " x " << As.extent(2) << ")");
  const size_type nb = As.extent(0);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nb, "kspd::batched::potrf");
  Impl::potrf_fixed(exec, uplo, nb, size_type(As.extent(1)), Impl::strided_batch(As), ip, opts);
}

/// \brief Cholesky of `nbatch` column-major n x n matrices Aptrs[b] (device array of device
/// pointers) with leading dimension lda.
template <class ExecSpace, class T, class InfoView>
void potrf(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, T* const* Aptrs, offset_type lda,
           const InfoView& infos, const BatchOptions& opts = {}) {
  Impl::check_pointers<ExecSpace>("kspd::batched::potrf", "Aptrs", Aptrs, nbatch, n, n, lda);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nbatch, "kspd::batched::potrf");
  Impl::potrf_fixed(exec, uplo, nbatch, n, Impl::pointer_batch(Aptrs, lda), ip, opts);
}

/// \brief Variable-size batch: matrix b is ns(b) x ns(b), column-major at A.data + A.offsets(b)
/// with leading dimension A.lds(b) (or ns(b) when A.lds is empty). Every size and offset is
/// checked on the host first (sizes and offsets >= 0, ld >= n, every matrix inside A.data).
/// ns(b) <= 256 is the intended range; any size works.
template <class ExecSpace, class NView, class T, class Mem, class InfoView>
void potrf_vbatched(const ExecSpace& exec, Uplo uplo, const NView& ns, const VarMats<T, Mem>& A,
                    const InfoView& infos, const BatchOptions& opts = {}) {
  constexpr const char* op = "kspd::batched::potrf_vbatched";
  const size_type nb = ns.extent(0);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  auto n_of = [&](size_type b) { return size_type(hn(b)); };
  const Impl::BatchMat<T> a = Impl::var_batch(op, "A", A, nb, n_of, n_of);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nb, op);
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ns = ns.data();
  Impl::launch(exec, op, nb, Impl::PotrfOp<T>{uplo, a, d}, ip, opts, 256);
}

/// \brief Variable-size batch through pointers: matrix b is ns(b) x ns(b) at Aptrs[b],
/// column-major with leading dimension lds(b) >= ns(b).
template <class ExecSpace, class T, class NView, class LdView, class InfoView>
void potrf_vbatched(const ExecSpace& exec, Uplo uplo, const NView& ns, T* const* Aptrs, const LdView& lds,
                    const InfoView& infos, const BatchOptions& opts = {}) {
  constexpr const char* op = "kspd::batched::potrf_vbatched";
  const size_type nb = ns.extent(0);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  Impl::check_var_pointers<ExecSpace>(op, "Aptrs", Aptrs, lds, nb, [&](size_type b) { return size_type(hn(b)); });
  int* ip = Impl::info_ptr<ExecSpace>(infos, nb, op);
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ns = ns.data();
  Impl::BatchMat<T> a = Impl::pointer_batch(Aptrs, 1);
  a.lds = lds.data();
  Impl::launch(exec, op, nb, Impl::PotrfOp<T>{uplo, a, d}, ip, opts, 256);
}

}  // namespace kspd::batched
#endif
