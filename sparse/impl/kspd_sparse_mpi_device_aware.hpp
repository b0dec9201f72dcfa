#ifndef KSPD_SPARSE_MPI_DEVICE_AWARE_HPP
#define KSPD_SPARSE_MPI_DEVICE_AWARE_HPP
/// \file kspd_sparse_mpi_device_aware.hpp
/// Whether the distributed solver hands MPI pointers to device memory (a device-aware MPI:
/// device-to-device transfers, no copy through the host) or stages the buffers through
/// (pinned) host memory. DistributedOptions::device_aware_mpi: Auto asks the MPI library
/// at run time (Open MPI's MPIX_Query_cuda_support / MPIX_Query_rocm_support; MPICH's
/// MPIX_GPU_query_support): a library built with GPU support can still run without it.
/// On assumes it (for a library that cannot be asked), Off always stages. Memory the host
/// can access needs no staging: it is sent in place unless Off (Off then copies it, which
/// keeps the staged path tested on host builds).

#include <mpi.h>
#if defined(OPEN_MPI) || defined(MPICH)
#if __has_include(<mpi-ext.h>)
#include <mpi-ext.h>  // Open MPI: MPIX_CUDA_AWARE_SUPPORT, MPIX_Query_cuda_support
#endif
#endif

#include <Kokkos_Core.hpp>

#include "kspd_tags.hpp"

namespace kspd::sparse::Impl {

/// The MPI library's answer, at run time, for the backend of Exec's memory (false when the
/// library has no way to say, or for another backend).
template <class Exec>
bool mpi_library_takes_device_pointers() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same_v<Exec, Kokkos::Cuda>) {
#if defined(MPIX_CUDA_AWARE_SUPPORT)
    return MPIX_Query_cuda_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_CUDA)
    int yes = 0;
    return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_CUDA, &yes) == MPI_SUCCESS && yes == 1;
#else
    return false;
#endif
  }
#endif
#if defined(KOKKOS_ENABLE_HIP)
  if constexpr (std::is_same_v<Exec, Kokkos::HIP>) {
#if defined(MPIX_ROCM_AWARE_SUPPORT)
    return MPIX_Query_rocm_support() == 1;
#elif defined(MPIX_GPU_SUPPORT_HIP)
    int yes = 0;
    return MPIX_GPU_query_support(MPIX_GPU_SUPPORT_HIP, &yes) == MPI_SUCCESS && yes == 1;
#else
    return false;
#endif
  }
#endif
  return false;
}

/// true: send and receive Exec's buffers in place; false: stage them through host memory.
template <class Exec>
bool mpi_sends_in_place(Toggle device_aware) {
  if (device_aware == Toggle::Off) return false;
  if (Kokkos::SpaceAccessibility<Kokkos::HostSpace, typename Exec::memory_space>::accessible) return true;
  return device_aware == Toggle::On || mpi_library_takes_device_pointers<Exec>();
}

}  // namespace kspd::sparse::Impl
#endif
