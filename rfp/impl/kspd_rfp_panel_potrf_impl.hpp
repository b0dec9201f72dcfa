#ifndef KSPD_RFP_PANEL_POTRF_IMPL_HPP
#define KSPD_RFP_PANEL_POTRF_IMPL_HPP
/// \file kspd_rfp_panel_potrf_impl.hpp
/// The leaf of pftrf's nb-column steps: the diagonal panel's POTRF. cuSOLVER's potrf is
/// latency-bound below n = 4K on the H100 (about 0.44 us a column: potrf(256) 0.12 ms,
/// potrf(2048) 0.89 ms, potrf(4096) 1.88 ms; h100-rfp-overheads-2026-11-24-s7.md), so any
/// blocking whose diagonal panels are cuSOLVER calls spends the dense factorization's whole
/// time in them alone. On CUDA a real panel of order <= 128 is instead
/// factored by ONE thread block in shared memory: batched's shared-memory POTRF kernel
/// (kspd_batched_smem_potrf_cuda.hpp, tensor-core tile updates) on a batch of one, reading
/// the stored triangle in place through its strides (an upper one transposed, no copy).
/// Complex scalars, other backends and wider panels keep core's potrf.

#include <algorithm>

#include "kspd_batched_launch.hpp"  // BatchAlgo, which the smem headers use
#include "kspd_batched_smem_potrf_cuda.hpp"
#include "kspd_rfp_herm_impl.hpp"

namespace kspd::rfp::Impl {

/// The widest panel factored by the shared-memory kernel on ExecSpace (0: none): 128, where the
/// H100 measured it ahead of cuSOLVER's potrf on one panel (fp64, fenced: order 64 0.031 ms
/// against 0.051-0.175, 128 0.057-0.067 against 0.075-0.105; h100-rfp-pftrf-2026-11-25-s8.md).
/// The fp32 kernel takes 256, but there one block is slow (look-ahead nb 256 at 4K: 3.05-3.43x
/// cuSOLVER against 2.33-2.64x at nb 128), so wider panels keep core's potrf.
template <class ExecSpace, class T>
constexpr size_type panel_smem_max() {
#if defined(KOKKOS_ENABLE_CUDA) && defined(__CUDACC__)
  if constexpr (batched::Impl::smem_capable_v<ExecSpace, T>) return std::min<size_type>(batched::Impl::smem::max_n<T>(), 128);
#endif
  return 0;
}

/// POTRF of the diagonal panel d (its stored triangle d.uplo) on x; *info (device) receives
/// LAPACK's info (1-based within the panel; a NaN pivot fails too), on the stream.
template <class ExecSpace, class T, class Mem>
void panel_potrf(const ExecSpace& x, const Stored<T, Mem>& d, int* info, const DenseOptions& opt) {
  const size_type w = size_type(d.v.extent(0));
  if constexpr (panel_smem_max<ExecSpace, T>() > 0) {
    if (w > 0 && w <= panel_smem_max<ExecSpace, T>()) {
      batched::Impl::BatchMat<T> a;
      a.base = d.v.data();
      a.rs = offset_type(d.v.stride(0));
      a.cs = offset_type(d.v.stride(1));
      a.bs = 0;  // one matrix
      batched::Impl::smem_potrf(x, d.uplo, 1, w, a, info);
      return;
    }
  }
  const Kokkos::View<int, typename ExecSpace::memory_space, Kokkos::MemoryTraits<Kokkos::Unmanaged>> iv(info);
  kspd::potrf(x, d.uplo, d.v, iv, opt);
}

}  // namespace kspd::rfp::Impl
#endif
