#ifndef KSPD_COMPAT_HPP
#define KSPD_COMPAT_HPP
/// \file kspd_compat.hpp
/// Every difference between Kokkos / Kokkos Kernels 3.4 (Debian's Trilinos 13.2) and
/// Kokkos 4.x/5.x lives here, in kspd::compat, and nowhere else.

#include <Kokkos_Core.hpp>
#include <KokkosBlas3_gemm.hpp>

#include <cstdint>
#include <string>
#include <type_traits>

#include "KSPD_Config.hpp"

// Kokkos Kernels 3.4 has no version macro; it always ships with the Kokkos of the same
// version, so Kokkos' version stands for both.
#define KSPD_KOKKOS_VERSION KOKKOS_VERSION
#if KOKKOS_VERSION >= 40000
#define KSPD_KOKKOS_4 1
#endif

namespace kspd::compat {

/// Fences `exec`; the label reaches Kokkos Tools where the Kokkos version supports it.
template <class ExecSpace>
void fence(const ExecSpace& exec, const char* label) {
#if KOKKOS_VERSION >= 30500
  exec.fence(label);
#else
  (void)label;
  exec.fence();
#endif
}

/// A Kokkos Tools region for the lifetime of the object.
class ScopedRegion {
 public:
  explicit ScopedRegion(const std::string& name) { Kokkos::Profiling::pushRegion(name); }
  ~ScopedRegion() { Kokkos::Profiling::popRegion(); }
  ScopedRegion(const ScopedRegion&) = delete;
  ScopedRegion& operator=(const ScopedRegion&) = delete;
};

/// KokkosBlas::gemm on `exec`. Kokkos Kernels 3.4's gemm takes no execution space and runs
/// on the view's default instance, so it is fenced against `exec` on both sides there.
template <class ExecSpace, class AV, class BV, class CV>
void gemm(const ExecSpace& exec, const char* ta, const char* tb,
          typename CV::const_value_type alpha, const AV& A, const BV& B,
          typename CV::const_value_type beta, const CV& C) {
#ifdef KSPD_KOKKOS_4
  KokkosBlas::gemm(exec, ta, tb, alpha, A, B, beta, C);
#else
  exec.fence();
  KokkosBlas::gemm(ta, tb, alpha, A, B, beta, C);
  typename ExecSpace::execution_space().fence();
#endif
}

/// The settings of Kokkos::initialize / Kokkos::ScopeGuard selecting device `device_id`
/// (-1: Kokkos' own choice): InitializationSettings since Kokkos 3.7, InitArguments before.
/// Kokkos::ScopeGuard guard(kspd::compat::init_settings(dev));
#if KOKKOS_VERSION >= 30700
inline Kokkos::InitializationSettings init_settings(int device_id) {
  Kokkos::InitializationSettings s;
  if (device_id >= 0) s.set_device_id(device_id);
  return s;
}
#else
inline Kokkos::InitArguments init_settings(int device_id) {
  Kokkos::InitArguments a;
  a.device_id = device_id;
  return a;
}
#endif

/// Memory spaces: true when host code may dereference pointers of ExecSpace's memory space.
template <class ExecSpace>
inline constexpr bool is_host_exec_v =
    std::is_same<typename ExecSpace::memory_space, Kokkos::HostSpace>::value;

#ifdef KOKKOS_ENABLE_CUDA
template <class ExecSpace>
inline constexpr bool is_cuda_exec_v = std::is_same<ExecSpace, Kokkos::Cuda>::value;
#else
template <class ExecSpace>
inline constexpr bool is_cuda_exec_v = false;
#endif

/// A number naming the physical device that an instance of ExecSpace runs on, the same
/// in every process of a node that uses that device; -1 for a host space (no device).
/// CUDA: the PCI domain, bus and device of the instance's GPU, so two processes that see
/// one GPU under different CUDA_VISIBLE_DEVICES numbers still agree. Other device
/// backends: Kokkos' device id (Kokkos 4.1+; 0 before), which numbers the devices within
/// the process only.
template <class ExecSpace>
std::int64_t device_identity(const ExecSpace& exec) {
  if constexpr (is_host_exec_v<ExecSpace>) {
    (void)exec;
    return -1;
  }
#ifdef KOKKOS_ENABLE_CUDA
  else if constexpr (is_cuda_exec_v<ExecSpace>) {
    const int dev = exec.cuda_device();
    int dom = 0, bus = 0, slot = 0;
    if (cudaDeviceGetAttribute(&dom, cudaDevAttrPciDomainId, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&bus, cudaDevAttrPciBusId, dev) != cudaSuccess ||
        cudaDeviceGetAttribute(&slot, cudaDevAttrPciDeviceId, dev) != cudaSuccess)
      return dev;  // (no PCI location: the device number)
    return (std::int64_t(dom) << 16) | (std::int64_t(bus) << 8) | std::int64_t(slot);
  }
#endif
  else {
    (void)exec;
#if KOKKOS_VERSION >= 40100
    return Kokkos::device_id();
#else
    return 0;
#endif
  }
}

/// Math functions moved from Kokkos::Experimental to Kokkos in 3.7 (and left Experimental
/// in 4.x): kspd::compat::sqrt, exp, log, sin, cos, fabs work in kernels on both.
#if KOKKOS_VERSION >= 30700
#define KSPD_COMPAT_MATH_NS Kokkos
#else
#define KSPD_COMPAT_MATH_NS Kokkos::Experimental
#endif
#define KSPD_COMPAT_MATH(f) \
  template <class T>        \
  KOKKOS_INLINE_FUNCTION T f(T x) { return KSPD_COMPAT_MATH_NS::f(x); }
KSPD_COMPAT_MATH(sqrt)
KSPD_COMPAT_MATH(exp)
KSPD_COMPAT_MATH(log)
KSPD_COMPAT_MATH(sin)
KSPD_COMPAT_MATH(cos)
KSPD_COMPAT_MATH(fabs)
#undef KSPD_COMPAT_MATH

/// Kokkos::printf appeared in 4.2; older versions use the C printf in device code.
#if KOKKOS_VERSION >= 40200
#define KSPD_DEVICE_PRINTF(...) Kokkos::printf(__VA_ARGS__)
#else
#define KSPD_DEVICE_PRINTF(...) printf(__VA_ARGS__)
#endif

}  // namespace kspd::compat

#endif
