#ifndef KSPD_BATCHED_GEMM_HPP
#define KSPD_BATCHED_GEMM_HPP
/// \file kspd_batched_gemm.hpp
/// Batched GEMM, C_b = alpha op(A_b) op(B_b) + beta C_b, and SYRK,
/// C_b = alpha op(A_b) op(A_b)^T + beta C_b (uplo triangle of C_b only).

#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_recursive_internal.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {
namespace Impl {
template <class T>
struct GemmOp {
  using value_type = T;
  static constexpr HostOp host_op = HostOp::Gemm;
  Trans ta, tb;
  T alpha, beta;
  BatchMat<const T> A, B;
  BatchMat<T> C;
  Dims d;  // C is M x N, op(A) M x K, op(B) K x N
  KOKKOS_INLINE_FUNCTION Mat<const T> a(size_type b) const {
    return is_trans(ta) ? A.get(b, d.K(b), d.M(b)) : A.get(b, d.M(b), d.K(b));
  }
  KOKKOS_INLINE_FUNCTION Mat<const T> bm(size_type b) const {
    return is_trans(tb) ? B.get(b, d.N(b), d.K(b)) : B.get(b, d.K(b), d.N(b));
  }
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_gemm(ta, tb, alpha, a(b), bm(b), beta, C.get(b, d.M(b), d.N(b)));
    return 0;
  }
  int host(size_type b) const {
    const auto c = C.get(b, d.M(b), d.N(b));
    const Kokkos::DefaultHostExecutionSpace h;
    // k = 0 leaves beta C, which the serial code does without reading C when beta = 0
    if ((is_trans(ta) ? a(b).m : a(b).n) == 0) return serial(b);
    if (unit_stride(a(b)) && unit_stride(bm(b)) && unit_stride(c)) {
      kspd::Impl::vendor_gemm(h, ta, tb, alpha, a(b), bm(b), beta, c);
    } else {  // BLAS does not read C when beta = 0, so its poison never reaches the result
      Packed<const T> pa(a(b)), pb(bm(b));
      Packed<T> pc(c);
      kspd::Impl::vendor_gemm(h, ta, tb, alpha, kspd::Impl::Mat<const T>(pa.m), kspd::Impl::Mat<const T>(pb.m), beta,
                              pc.m);
      pc.unpack(c);
    }
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_gemm(m, ta, tb, alpha, a(b), bm(b), beta, C.get(b, d.M(b), d.N(b)));
    return 0;
  }
};
template <class T>
struct SyrkOp {
  Uplo uplo;
  Trans trans;
  T alpha, beta;
  BatchMat<const T> A;
  BatchMat<T> C;
  Dims d;  // C is N x N, op(A) N x K
  KOKKOS_INLINE_FUNCTION Mat<const T> a(size_type b) const {
    return is_trans(trans) ? A.get(b, d.K(b), d.N(b)) : A.get(b, d.N(b), d.K(b));
  }
  KOKKOS_INLINE_FUNCTION int serial(size_type b) const {
    serial_syrk(uplo, trans, alpha, a(b), beta, C.get(b, d.N(b), d.N(b)));
    return 0;
  }
  template <class M>
  KOKKOS_INLINE_FUNCTION int team(const M& m, size_type b) const {
    team_syrk(m, uplo, trans, alpha, a(b), beta, C.get(b, d.N(b), d.N(b)));
    return 0;
  }
};

/// C(lower) = alpha A A^T + beta C with A n x k (the normalised SYRK), non-recursive.
template <class ExecSpace, class T>
void syrk_kernel(const ExecSpace& exec, size_type nbatch, size_type n, size_type k, T alpha, const BatchMat<const T>& A,
                 T beta, const BatchMat<T>& C, const BatchOptions& opts) {
  if constexpr (is_gpu_v<ExecSpace>) {
    if (opts.algo == BatchAlgo::Auto && n > kMaxRegisterN) {  // the register-tiled GEMM, lower tiles only
      const Tuning tu = tuning<ExecSpace, T>(n);
      tile_gemm(exec, Trans::NoTranspose, Trans::Transpose, nbatch, n, n, k, alpha, A, A, beta, C, 1, tu.gemm_tile,
                tu.gemm_chunk);
      return;
    }
  }
  Dims d;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::syrk", nbatch, SyrkOp<T>{Uplo::Lower, Trans::NoTranspose, alpha, beta, A, C, d}, nullptr,
         opts, n);
}
/// Two-sided recursive SYRK on the normalised problem: C11 and C22 recurse, C21 is a GEMM.
template <class ExecSpace, class T>
void syrk_rec(const ExecSpace& exec, size_type nbatch, size_type n, size_type k, T alpha, const BatchMat<const T>& A,
              T beta, const BatchMat<T>& C, const BatchOptions& opts) {
  // Without a vendor GEMM for this layout, one tiled call over the lower tiles beats the
  // recursion's extra launches.
  const bool vendor = has_vendor_batch_gemm<ExecSpace, T>() && vendor_gemm_layout(A, A, C);
  if (n <= leaf_size(opts) || (is_gpu_v<ExecSpace> && !vendor)) {
    syrk_kernel(exec, nbatch, n, k, alpha, A, beta, C, opts);
    return;
  }
  const size_type n1 = rec_split(n), n2 = n - n1;
  syrk_rec(exec, nbatch, n1, k, alpha, A, beta, C, opts);
  batch_gemm(exec, Trans::NoTranspose, Trans::Transpose, nbatch, n2, n1, k, alpha, A.sub(n1, 0), A, beta, C.sub(n1, 0),
             opts);
  syrk_rec(exec, nbatch, n2, k, alpha, A.sub(n1, 0), beta, C.sub(n1, n1), opts);
}
/// SYRK on any batch: recursive (Lower, NoTranspose after transposing A and / or C) when
/// the options and the batch allow, else the kernels of SyrkOp.
template <class ExecSpace, class T>
void syrk_fixed(const ExecSpace& exec, Uplo uplo, Trans trans, size_type nbatch, size_type n, size_type k, T alpha,
                BatchMat<const T> A, T beta, BatchMat<T> C, const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::syrk");
  const bool rec = use_recursion<ExecSpace>(opts, n) && A.splittable() && C.splittable();
  if (rec || (is_gpu_v<ExecSpace> && opts.algo == BatchAlgo::Auto && n > kMaxRegisterN)) {
    if (is_trans(trans)) A = A.t();
    if (uplo == Uplo::Upper) C = C.t();  // C^T = A A^T as well: its lower triangle is C's upper
    if (rec) syrk_rec(exec, nbatch, n, k, alpha, A, beta, C, opts);
    else syrk_kernel(exec, nbatch, n, k, alpha, A, beta, C, opts);
    return;
  }
  Dims d;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::syrk", nbatch, SyrkOp<T>{uplo, trans, alpha, beta, A, C, d}, nullptr, opts, n);
}
/// GEMM on a fixed-size batch: on GPUs (Auto, n > 8) the vendor's / the tiled batched GEMM.
template <class ExecSpace, class T>
void gemm_fixed(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k,
                T alpha, const BatchMat<const T>& A, const BatchMat<const T>& B, T beta, const BatchMat<T>& C,
                const BatchOptions& opts) {
  compat::ScopedRegion region("kspd::batched::gemm");
  if (is_gpu_v<ExecSpace> && opts.algo == BatchAlgo::Auto && (m > n ? m : n) > kMaxRegisterN) {
    batch_gemm(exec, ta, tb, nbatch, m, n, k, alpha, A, B, beta, C, opts);
    return;
  }
  Dims d;
  d.m = m;
  d.n = n;
  d.k = k;
  launch(exec, "kspd::batched::gemm", nbatch, GemmOp<T>{ta, tb, alpha, beta, A, B, C, d}, nullptr, opts, m > n ? m : n);
}
}  // namespace Impl

/// \brief Strided batch GEMM: As, Bs, Cs rank-3 (batch first), any layout.
template <class ExecSpace, class AView, class BView, class CView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void gemm(const ExecSpace& exec, Trans ta, Trans tb, typename CView::const_value_type alpha, const AView& As,
          const BView& Bs, typename CView::const_value_type beta, const CView& Cs, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("gemm", "As");
  Impl::check_batch_view<ExecSpace, BView>("gemm", "Bs");
  Impl::check_batch_view<ExecSpace, CView>("gemm", "Cs");
  static_assert(AView::rank == 3 && BView::rank == 3 && CView::rank == 3, "kspd::batched::gemm: rank-3 Views expected");
  const size_type m = Cs.extent(1), n = Cs.extent(2);
  const size_type am = is_trans(ta) ? As.extent(2) : As.extent(1), k = is_trans(ta) ? As.extent(1) : As.extent(2);
  const size_type bk = is_trans(tb) ? Bs.extent(2) : Bs.extent(1), bn = is_trans(tb) ? Bs.extent(1) : Bs.extent(2);
  KSPD_REQUIRE(As.extent(0) == Cs.extent(0) && Bs.extent(0) == Cs.extent(0), DimensionMismatch,
               "kspd::batched::gemm: batch sizes differ (A " << As.extent(0) << ", B " << Bs.extent(0) << ", C "
                                                             << Cs.extent(0) << ")");
  KSPD_REQUIRE(am == m && bk == k && bn == n, DimensionMismatch,
               "kspd::batched::gemm: op(A) is " << am << " x " << k << ", op(B) " << bk << " x " << bn << ", C " << m
                                                << " x " << n);
  using T = typename CView::non_const_value_type;
  Impl::gemm_fixed<ExecSpace, T>(exec, ta, tb, size_type(Cs.extent(0)), m, n, k, alpha,
                                 Impl::BatchMat<const T>(Impl::strided_batch(As)),
                                 Impl::BatchMat<const T>(Impl::strided_batch(Bs)), beta, Impl::strided_batch(Cs), opts);
}
/// \brief Pointer arrays, column-major: op(A_b) m x k, op(B_b) k x n, C_b m x n.
template <class ExecSpace, class T>
void gemm(const ExecSpace& exec, Trans ta, Trans tb, size_type nbatch, size_type m, size_type n, size_type k, T alpha,
          const T* const* Aptrs, offset_type lda, const T* const* Bptrs, offset_type ldb, T beta, T* const* Cptrs,
          offset_type ldc, const BatchOptions& opts = {}) {
  KSPD_REQUIRE(k >= 0, InvalidArgument, "kspd::batched::gemm: k = " << k << " < 0");
  Impl::check_pointers<ExecSpace>("kspd::batched::gemm", "Cptrs", Cptrs, nbatch, m, n, ldc);
  const size_type nbr = m > 0 && n > 0 && k > 0 ? nbatch : 0;  // A and B are read only then
  Impl::check_pointers<ExecSpace>("kspd::batched::gemm", "Aptrs", Aptrs, nbr, is_trans(ta) ? k : m,
                                  is_trans(ta) ? m : k, lda);
  Impl::check_pointers<ExecSpace>("kspd::batched::gemm", "Bptrs", Bptrs, nbr, is_trans(tb) ? n : k,
                                  is_trans(tb) ? k : n, ldb);
  Impl::gemm_fixed<ExecSpace, T>(exec, ta, tb, nbatch, m, n, k, alpha, Impl::pointer_batch(Aptrs, lda),
                                 Impl::pointer_batch(Bptrs, ldb), beta, Impl::pointer_batch(Cptrs, ldc), opts);
}
/// \brief Variable-size GEMM: C_b ms(b) x ns(b), op(A_b) ms(b) x ks(b), op(B_b) ks(b) x ns(b);
/// each column-major at data + offsets(b) with leading dimension lds(b) (or its row count when
/// lds is empty); checked on the host first (sizes, offsets, ld, bounds).
template <class ExecSpace, class IntView, class TA, class TB, class TC, class Mem>
void gemm_vbatched(const ExecSpace& exec, Trans ta, Trans tb, std::add_const_t<TC> alpha, const IntView& ms,
                   const IntView& ns, const IntView& ks, const VarMats<TA, Mem>& A, const VarMats<TB, Mem>& B,
                   std::add_const_t<TC> beta, const VarMats<TC, Mem>& C, const BatchOptions& opts = {}) {
  static_assert(std::is_same<std::remove_const_t<TA>, TC>::value && std::is_same<std::remove_const_t<TB>, TC>::value,
                "kspd::batched::gemm_vbatched: A, B and C hold the same scalar");
  constexpr const char* op = "kspd::batched::gemm_vbatched";
  const size_type nb = ms.extent(0);
  const auto hm = Impl::host_sizes(op, "ms", ms, nb);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  const auto hk = Impl::host_sizes(op, "ks", ks, nb);
  auto m_of = [&](size_type b) { return size_type(hm(b)); };
  auto n_of = [&](size_type b) { return size_type(hn(b)); };
  auto k_of = [&](size_type b) { return size_type(hk(b)); };
  const bool tA = is_trans(ta), tB = is_trans(tb);
  const Impl::BatchMat<const TC> a = Impl::var_batch(op, "A", A, nb, [&](size_type b) { return tA ? k_of(b) : m_of(b); },
                                                     [&](size_type b) { return tA ? m_of(b) : k_of(b); });
  const Impl::BatchMat<const TC> bm = Impl::var_batch(op, "B", B, nb, [&](size_type b) { return tB ? n_of(b) : k_of(b); },
                                                      [&](size_type b) { return tB ? k_of(b) : n_of(b); });
  const Impl::BatchMat<TC> c = Impl::var_batch(op, "C", C, nb, m_of, n_of);
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ms = ms.data();
  d.ns = ns.data();
  d.ks = ks.data();
  Impl::launch(exec, op, nb, Impl::GemmOp<TC>{ta, tb, alpha, beta, a, bm, c, d}, nullptr, opts, 256);
}

/// \brief Strided batch SYRK: As (batch, n, k) or (batch, k, n) when transposed, Cs (batch, n, n).
template <class ExecSpace, class AView, class CView, std::enable_if_t<Kokkos::is_view<AView>::value, int> = 0>
void syrk(const ExecSpace& exec, Uplo uplo, Trans trans, typename CView::const_value_type alpha, const AView& As,
          typename CView::const_value_type beta, const CView& Cs, const BatchOptions& opts = {}) {
  Impl::check_batch_view<ExecSpace, AView>("syrk", "As");
  Impl::check_batch_view<ExecSpace, CView>("syrk", "Cs");
  static_assert(AView::rank == 3 && CView::rank == 3, "kspd::batched::syrk: rank-3 Views expected");
  const size_type n = Cs.extent(1);
  const size_type an = is_trans(trans) ? As.extent(2) : As.extent(1), k = is_trans(trans) ? As.extent(1) : As.extent(2);
  KSPD_REQUIRE(As.extent(0) == Cs.extent(0), DimensionMismatch,
               "kspd::batched::syrk: As holds " << As.extent(0) << " matrices, Cs " << Cs.extent(0));
  KSPD_REQUIRE(Cs.extent(2) == Cs.extent(1) && an == n, DimensionMismatch,
               "kspd::batched::syrk: C is " << Cs.extent(1) << " x " << Cs.extent(2) << ", op(A) " << an << " x " << k);
  using T = typename CView::non_const_value_type;
  Impl::syrk_fixed<ExecSpace, T>(exec, uplo, trans, size_type(Cs.extent(0)), n, k, alpha,
                                 Impl::BatchMat<const T>(Impl::strided_batch(As)), beta, Impl::strided_batch(Cs), opts);
}
/// \brief Pointer arrays, column-major: op(A_b) n x k (lda), C_b n x n (ldc).
template <class ExecSpace, class T>
void syrk(const ExecSpace& exec, Uplo uplo, Trans trans, size_type nbatch, size_type n, size_type k, T alpha,
          const T* const* Aptrs, offset_type lda, T beta, T* const* Cptrs, offset_type ldc,
          const BatchOptions& opts = {}) {
  KSPD_REQUIRE(k >= 0, InvalidArgument, "kspd::batched::syrk: k = " << k << " < 0");
  Impl::check_pointers<ExecSpace>("kspd::batched::syrk", "Cptrs", Cptrs, nbatch, n, n, ldc);
  Impl::check_pointers<ExecSpace>("kspd::batched::syrk", "Aptrs", Aptrs, n > 0 && k > 0 ? nbatch : 0,
                                  is_trans(trans) ? k : n, is_trans(trans) ? n : k, lda);
  Impl::syrk_fixed<ExecSpace, T>(exec, uplo, trans, nbatch, n, k, alpha, Impl::pointer_batch(Aptrs, lda), beta,
                                 Impl::pointer_batch(Cptrs, ldc), opts);
}
/// \brief Variable-size SYRK: C_b ns(b) x ns(b), op(A_b) ns(b) x ks(b), column-major at
/// data + offsets(b) with leading dimension lds(b) (or the row count); checked on the host first.
template <class ExecSpace, class IntView, class TA, class TC, class Mem>
void syrk_vbatched(const ExecSpace& exec, Uplo uplo, Trans trans, std::add_const_t<TC> alpha, const IntView& ns,
                   const IntView& ks, const VarMats<TA, Mem>& A, std::add_const_t<TC> beta, const VarMats<TC, Mem>& C,
                   const BatchOptions& opts = {}) {
  static_assert(std::is_same<std::remove_const_t<TA>, TC>::value, "kspd::batched::syrk_vbatched: A and C hold the same scalar");
  constexpr const char* op = "kspd::batched::syrk_vbatched";
  const size_type nb = ns.extent(0);
  const auto hn = Impl::host_sizes(op, "ns", ns, nb);
  const auto hk = Impl::host_sizes(op, "ks", ks, nb);
  auto n_of = [&](size_type b) { return size_type(hn(b)); };
  auto k_of = [&](size_type b) { return size_type(hk(b)); };
  const bool t = is_trans(trans);
  const Impl::BatchMat<const TC> a = Impl::var_batch(op, "A", A, nb, [&](size_type b) { return t ? k_of(b) : n_of(b); },
                                                     [&](size_type b) { return t ? n_of(b) : k_of(b); });
  const Impl::BatchMat<TC> c = Impl::var_batch(op, "C", C, nb, n_of, n_of);
  compat::ScopedRegion region(op);
  Impl::Dims d;
  d.ns = ns.data();
  d.ks = ks.data();
  Impl::launch(exec, op, nb, Impl::SyrkOp<TC>{uplo, trans, alpha, beta, a, c, d}, nullptr, opts, 256);
}

}  // namespace kspd::batched
#endif
