#ifndef KSPD_RFP_PFTRF_DENSE_IMPL_HPP
#define KSPD_RFP_PFTRF_DENSE_IMPL_HPP
/// \file kspd_rfp_pftrf_dense_impl.hpp
/// pftrf through a dense n x n workspace (Blocking::Dense): the RFP matrix unpacked into the
/// workspace's lower triangle (an upper RFP matrix transposed on the way: L = U^H, so the
/// vendor always runs its 'L' Cholesky, the fast one), ONE potrf of order n, packed back.
/// Two passes over the RFP buffer and one large call in place of the four half-size calls:
/// what the dense factorization costs, plus the copies, at the price of a transient
/// workspace of twice the RFP storage (core's scratch: kept per stream up to
/// kScratchKeepBytes, else allocated for the call). Only where it fits in free memory with
/// room to spare (kspd::Impl::workspace_fits); the caller falls back to the blocks otherwise.

#include <Kokkos_Core.hpp>

#include <cstdint>

#include "kspd_dense_transposed.hpp"
#include "kspd_lapack.hpp"
#include "kspd_rfp_blocks_impl.hpp"
#include "kspd_stream_scratch.hpp"

namespace kspd::rfp::Impl {

/// Whether pftrf of order n can run through the dense workspace on exec.
template <class ExecSpace, class T>
bool pftrf_dense_fits(const ExecSpace& exec, size_type n) {
  return kspd::Impl::workspace_fits<ExecSpace, T>(exec, kspd::Impl::ScratchSlot::RfpDense, n);
}

/// W(r, c) for r >= c <-> the RFP entries: to_dense copies A's lower triangle into W (each
/// entry's value conjugated where the RFP holds the conjugate or an upper-triangle entry),
/// else W's lower triangle back into the RFP buffer (the inverse map).
template <class ExecSpace, class T, class Mem, class WV>
void rfp_dense_copy(const ExecSpace& exec, const Matrix<T, Mem>& A, const WV& W, bool to_dense) {
  const Layout L = A.layout();
  const bool herm = is_complex_v<T>;
  auto arf = A.data();
  Kokkos::parallel_for(
      to_dense ? "kspd::rfp::pftrf::unpack" : "kspd::rfp::pftrf::pack",
      Kokkos::RangePolicy<ExecSpace, Kokkos::IndexType<std::int64_t>>(exec, 0, L.size()),
      KOKKOS_LAMBDA(std::int64_t p) {
        size_type i, j;
        bool cj;
        L.decode_uplo(p, herm, i, j, cj);  // arf(p) = A(i, j) of the uplo triangle, conj if cj
        const bool up = i < j;             // A(j, i) = conj(A(i, j)) goes to the lower triangle
        const size_type r = up ? j : i, c = up ? i : j;
        if (to_dense) W(r, c) = kspd::Impl::conj_if(cj != up, arf(p));
        else arf(p) = kspd::Impl::conj_if(cj != up, T(W(r, c)));
      });
}

/// A = L L^H through the dense workspace. Returns potrf's info (the global 1-based column,
/// as pftrf numbers it); A holds the factor (garbage after a failing column, as pftrf).
template <class ExecSpace, class T, class Mem>
int pftrf_dense(const ExecSpace& exec, const Matrix<T, Mem>& A, const DenseOptions& opt) {
  const size_type n = A.n();
  const kspd::Impl::SquareWorkspace<ExecSpace, T> work(exec, n, kspd::Impl::ScratchSlot::RfpDense);
  const auto W = work.view();
  rfp_dense_copy(exec, A, W, true);
  DenseOptions inner = opt;
  inner.blocking = Blocking::Auto;
  // info on the device (kept scratch) until the one fence at the end
  const kspd::Impl::Scratch<ExecSpace> slot(exec, sizeof(int), kspd::Impl::ScratchSlot::RfpInfo,
                                            "kspd::rfp::pftrf::info");
  const Kokkos::View<int, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> dinfo(
      reinterpret_cast<int*>(slot.data()));
  // the NaN-pivot scan now, not at a caller's deferred flush: W is reused after this call
  const typename kspd::Impl::DeferredNanScan<ExecSpace, T>::Suspend now;
  kspd::potrf(exec, Uplo::Lower, W, dinfo, inner);
  rfp_dense_copy(exec, A, W, false);
  int info = 0;
  Kokkos::deep_copy(exec, Kokkos::View<int, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&info), dinfo);
  compat::fence(exec, "kspd::rfp::pftrf");
  work.release_after();
  return info;
}

}  // namespace kspd::rfp::Impl
#endif
