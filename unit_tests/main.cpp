// Unit test driver: MPI (when enabled) and Kokkos are initialized once around all tests.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "KSPD_Config.hpp"
#ifdef KSPD_ENABLE_MPI
#include <mpi.h>
#endif

int main(int argc, char* argv[]) {
#ifdef KSPD_ENABLE_MPI
  MPI_Init(&argc, &argv);
#endif
  int result = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    result = RUN_ALL_TESTS();
  }
#ifdef KSPD_ENABLE_MPI
  MPI_Finalize();
#endif
  return result;
}
