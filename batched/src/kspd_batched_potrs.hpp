#ifndef KSPD_BATCHED_POTRS_HPP
#define KSPD_BATCHED_POTRS_HPP
/// \file kspd_batched_potrs.hpp
/// Batched SPD solves from Cholesky factors (POTRS, any number of right-hand sides) and the
/// one-call factor-and-solve (POSV).

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_failed_internal.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_potrf.hpp"
#include "kspd_batched_trsm.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {
namespace Impl {
template <class T>
struct PotrsOp {
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Potrs;
  Uplo uplo;
  BatchMat<const T> A;
  BatchMat<T> B;
  Dims d;  // A is N(b) x N(b), B is N(b) x K(b)
  const int* skip = nullptr;  // skip[b] != 0: matrix b's factorization failed, B_b is left alone
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    if (skip != nullptr && skip[b] != 0) return 0;
    serial_potrs(uplo, A.get(b, d.N(b), d.N(b)), B.get(b, d.N(b), d.K(b)));
    return 0;
  }
  int host(size_type b) const {  // A = L L^T or U^T U: two host TRSMs, as ?potrs does
    if (skip != nullptr && skip[b] != 0) return 0;
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
    if (skip != nullptr && skip[b] != 0) return 0;
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
/// POTRS that leaves B_b of the failed matrices (infos[b] != 0) untouched.
template <class ExecSpace, class T>
void potrs_guarded(const ExecSpace& exec, Uplo uplo, size_type nbatch, size_type n, size_type nrhs,
                   const BatchMat<const T>& A, const BatchMat<T>& B, const int* infos, const BatchOptions& opts) {
  const FailedGuard<ExecSpace, T> keep(exec, infos, nbatch, B, n, nrhs);
  potrs_fixed(exec, uplo, nbatch, n, nrhs, A, B, opts);
  keep.restore();
}
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
    potrs_guarded(exec, uplo, nbatch, n, nrhs, BatchMat<const T>(A), B, infos, opts);
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
