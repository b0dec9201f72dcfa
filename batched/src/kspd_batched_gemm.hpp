#ifndef KSPD_BATCHED_GEMM_HPP
#define KSPD_BATCHED_GEMM_HPP
/// \file kspd_batched_gemm.hpp
/// Batched GEMM, C_b = alpha op(A_b) op(B_b) + beta C_b, and SYRK,
/// C_b = alpha op(A_b) op(A_b)^T + beta C_b (uplo triangle of C_b only).

#include "kspd_batched_gemm_dispatch.hpp"
#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_launch.hpp"
#include "kspd_batched_recursive_internal.hpp"
#include "kspd_batched_register_internal.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"

namespace kspd::batched {

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
