#ifndef KSPD_BATCHED_POTRS_HPP
#define KSPD_BATCHED_POTRS_HPP
/// \file kspd_batched_potrs.hpp
/// Batched SPD solves from Cholesky factors (POTRS, any number of right-hand sides) and the
/// one-call factor-and-solve (POSV).

#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf.hpp"
#include "kspd_batched_trsm.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial_impl.hpp"
#include "kspd_batched_team_impl.hpp"

namespace kspd::batched {
namespace Impl {
template <class T>
struct PotrsOp {
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  Dims d;  // A is N(b) x N(b), B is N(b) x K(b)
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_potrs(uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
    return 0;
  }
  int host(size_type b) const {  // A = L L^T or U^T U: two host TRSMs, as ?potrs does
    const auto a = A.get(b, d.N(b), d.N(b));
    const auto x = B.get(b, d.N(b), d.K(b));
    const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : Trans::Transpose;
    const Kokkos::DefaultHostExecutionSpace h;
    auto solve = [&](const auto& am, const auto& xm) {
      kspd::Impl::vendor_trxm(h, true, Side::Left, uplo, first, Diag::NonUnit, T(1), am, xm);
      kspd::Impl::vendor_trxm(h, true, Side::Left, uplo, toggle(first), Diag::NonUnit, T(1), am, xm);
    };
    if (unit_stride(a) && unit_stride(x)) {
      solve(a, x);
    } else {
      Packed<const T> pa(a);
      Packed<T> px(x);
      solve(kspd::Impl::Mat<const T>(pa.m), px.m);
      px.unpack(x);
    }
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_potrs(m, uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
    return 0;
  }
};
template <class T>
struct PosvOp {
  Uplo uplo;
  BatchMat<T> A;
  BatchMat<T> B;
  Dims d;
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    return serial_posv(uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    return team_posv(m, uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
  }
};

template <class ExecSpace, class T>
void potrs_fixed(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                 const BatchMat<const T>& A, const BatchMat<T>& B, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::potrs");
  if (use_recursion<ExecSpace>(opts, n) && A.splittable() && B.splittable()) {  // two recursive TRSMs
    const Trans first = uplo == Uplo::Lower ? Trans::NoTranspose : Trans::Transpose;
    trsm_fixed(exec, Side::Left, uplo, first, Diag::NonUnit, T(1), nbatch, n, nrhs, A, B, opts);
    trsm_fixed(exec, Side::Left, uplo, toggle(first), Diag::NonUnit, T(1), nbatch, n, nrhs, A, B, opts);
    return;
  }
  if (use_register<ExecSpace>(opts.algo, n) || use_stream_potrs<ExecSpace>(opts.algo, n)) {
    register_potrs(exec, uplo, nbatch, n, nrhs, A, B, opts);
    return;
  }
  Dims d;
  d.n = n;
  d.k = nrhs;
  launch(exec, "kspd::batched::potrs", nbatch, PotrsOp<T>{uplo, A, B, d}, nullptr, opts, n);
}
/// Copies B_b of the failed matrices (infos(b) != 0) to / from a scratch batch.
template <class T>
struct KeepFailed {
  BatchMat<T> B;
  BatchMat<T> keep;
  const int* infos;
  int n, nrhs;
  bool restore;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    if (infos[b] == 0) return;
    const Mat<T> x = B.get(b, n, nrhs), y = keep.get(b, n, nrhs);
    for (int j = 0; j < nrhs; ++j)
      for (int i = 0; i < n; ++i) {
        if (restore) x(i, j) = y(i, j);
        else y(i, j) = x(i, j);
      }
  }
};
/// POSV: potrf_fixed then potrs_fixed; recursive above the leaf size, where the solve runs
/// on every matrix (one batched GEMM cannot skip some), so the right-hand sides of the
/// failed matrices are kept aside and put back.
template <class ExecSpace, class T>
void posv_fixed(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs, const BatchMat<T>& A,
                const BatchMat<T>& B, int* infos, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::posv");
  if (use_recursion<ExecSpace>(opts, n) && A.splittable() && B.splittable()) {
    potrf_fixed(exec, uplo, nbatch, n, A, infos, opts);
    if (nbatch <= 0 || nrhs <= 0) return;
    Kokkos::View<T*, typename ExecSpace::memory_space> buf(
        Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::batched::posv::keep"), size_t(nbatch * n * nrhs));
    BatchMat<T> keep;
    keep.base = buf.data();
    keep.bs = n * nrhs;
    keep.rs = 1;
    keep.cs = n;
    auto run = [&](bool restore) {
      Kokkos::parallel_for("kspd::batched::posv::keep",
                           Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<size_type>>(exec, 0, nbatch),
                           KeepFailed<T>{B, keep, infos, int(n), int(nrhs), restore});
    };
    run(false);
    potrs_fixed(exec, uplo, nbatch, n, nrhs, BatchMat<const T>(A), B, opts);
    run(true);
    return;
  }
  Dims d;
  d.n = n;
  d.k = nrhs;
  launch(exec, "kspd::batched::posv", nbatch, PosvOp<T>{uplo, A, B, d}, infos, opts, n);
}
template <class AView, class BView>
void check_potrs_shapes(const char* op, const AView& As, const BView& Bs) {
  static_assert(AView::rank == 3 && BView::rank == 3, "kspd::batched::potrs/posv: As and Bs must be rank-3 Views");
  KSPD_REQUIRE(As.extent(0) == Bs.extent(0), DimensionMismatch,
               op << ": As holds " << As.extent(0) << " matrices, Bs " << Bs.extent(0));
  KSPD_REQUIRE(As.extent(1) == As.extent(2) && Bs.extent(1) == As.extent(1), DimensionMismatch,
               op << ": As must be n x n and Bs n x nrhs (got As " << As.extent(1) << " x " << As.extent(2) << ", Bs "
                  << Bs.extent(1) << " x " << Bs.extent(2) << ")");
}
}  // namespace Impl

/// \brief B_b = A_b^-1 B_b from potrf's factor in As (same uplo); Bs (batch, n, nrhs).
template <class ExecSpace, class AView, class BView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void potrs(const ExecSpace& exec, Uplo uplo, const AView& As, const BView& Bs, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("potrs", "As");
  Impl::check_batch_view<ExecSpace, BView>("potrs", "Bs");
  Impl::check_potrs_shapes("kspd::batched::potrs", As, Bs);
  using T = typename BView::non_const_value_type;
  Impl::potrs_fixed<ExecSpace, T>(exec, uplo, size_type(As.extent(0)), size_type(As.extent(1)),
                                  size_type(Bs.extent(2)), Impl::BatchMat<const T>(Impl::strided_batch(As)),
                                  Impl::strided_batch(Bs), opts);
}
/// \brief Pointer arrays: A_b n x n (lda), B_b n x nrhs (ldb), column-major.
template <class ExecSpace, class T>
void potrs(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs, const T* const* Aptrs,
           offset_type lda, T* const* Bptrs, offset_type ldb, const BatchOptions& opts = {}) {
  KSPD_REQUIRE(nbatch >= 0 && n >= 0 && nrhs >= 0, InvalidArgument, "kspd::batched::potrs: nbatch, n, nrhs must be >= 0");
  KSPD_REQUIRE(lda >= (n > 1 ? n : 1) && ldb >= (n > 1 ? n : 1), InvalidArgument,
               "kspd::batched::potrs: lda = " << lda << " / ldb = " << ldb << " < n = " << n);
  Impl::potrs_fixed<ExecSpace, T>(exec, uplo, nbatch, n, nrhs, Impl::pointer_batch(Aptrs, lda),
                                  Impl::pointer_batch(Bptrs, ldb), opts);
}
/// \brief Variable-size: A_b ns(b) x ns(b), B_b ns(b) x nrhss(b), column-major with
/// leading dimension ns(b), at A.data() + a_offsets(b) and B.data() + b_offsets(b).
template <class ExecSpace, class IntView, class OffView, class AData, class BData>
void potrs_vbatched(const ExecSpace& exec, Uplo uplo, const IntView& ns, const IntView& nrhss,
                    const OffView& a_offsets, const AData& A, const OffView& b_offsets, const BData& B,
                    const BatchOptions& opts = {}) {
  const size_type nb = ns.extent(0);
  KSPD_REQUIRE(size_type(nrhss.extent(0)) >= nb && size_type(a_offsets.extent(0)) >= nb &&
                   size_type(b_offsets.extent(0)) >= nb,
               DimensionMismatch, "kspd::batched::potrs_vbatched: nrhss/a_offsets/b_offsets shorter than ns (" << nb << ")");
  using T = typename BData::non_const_value_type;
  compat::ScopedRegion region("kspd::batched::potrs_vbatched");
  Impl::Dims d;
  d.ns = ns.data();
  d.ks = nrhss.data();
  Impl::launch(exec, "kspd::batched::potrs_vbatched", nb,
               Impl::PotrsOp<T>{uplo, Impl::offset_batch<const T>(A.data(), a_offsets.data()),
                                Impl::offset_batch<T>(B.data(), b_offsets.data()), d},
               nullptr, opts, 256);
}

/// \brief Factor and solve: As = chol(As), Bs = As^-1 Bs; infos(b) = potrf's info of
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
  KSPD_REQUIRE(lda >= (n > 1 ? n : 1) && ldb >= (n > 1 ? n : 1), InvalidArgument,
               "kspd::batched::posv: lda = " << lda << " / ldb = " << ldb << " < n = " << n);
  int* ip = Impl::info_ptr<ExecSpace>(infos, nbatch, "kspd::batched::posv");
  Impl::posv_fixed<ExecSpace, T>(exec, uplo, nbatch, n, nrhs, Impl::pointer_batch(Aptrs, lda),
                                 Impl::pointer_batch(Bptrs, ldb), ip, opts);
}

}  // namespace kspd::batched
#endif
