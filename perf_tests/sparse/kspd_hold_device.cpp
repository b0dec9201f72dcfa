// kspd-hold-device: a process that holds an execution-space context and does nothing else
// (issue #17, target C: "2 ranks sharing one GPU no slower than 1 rank"). It initializes
// Kokkos on the given device (CUDA: creates the process's context there), allocates one
// small View and fences, as an MPI rank that owns nothing does before it waits, then sleeps
// without touching the device until --seconds pass (or it is killed). Run beside a
// one-rank kspd-solve, it separates the cost of a second context on the GPU from anything
// the second rank of a 2-rank run does.
//
//   kspd-hold-device [--device D] [--seconds S]     # prints "kspd-hold-device: ready ..." once it holds
#include <Kokkos_Core.hpp>

#include <sys/resource.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>

#include "kspd_compat.hpp"

int main(int argc, char** argv) {
  int device = -1;
  double seconds = 60;
  for (int i = 1; i < argc; ++i) {
    const bool more = i + 1 < argc;
    if (!std::strcmp(argv[i], "--device") && more) device = std::atoi(argv[++i]);
    else if (!std::strcmp(argv[i], "--seconds") && more) seconds = std::atof(argv[++i]);
    else {
      std::fprintf(stderr, "usage: kspd-hold-device [--device D] [--seconds S]\n");
      return 2;
    }
  }
  Kokkos::ScopeGuard guard(kspd::compat::init_settings(device));
  {
    Kokkos::View<double*> v("kspd::hold_device::touch", 1024);
    Kokkos::fence();
  }
  std::printf("kspd-hold-device: ready, pid %d holds %s (device %d) for %.0f s\n", int(getpid()),
              Kokkos::DefaultExecutionSpace::name(), device, seconds);
  std::fflush(stdout);
  std::this_thread::sleep_for(std::chrono::duration<double>(seconds));
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  std::printf("kspd-hold-device: done, CPU %.3f s\n",
              double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + 1e-6 * double(u.ru_utime.tv_usec + u.ru_stime.tv_usec));
  return 0;
}
