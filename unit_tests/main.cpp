// Unit test driver: MPI (when enabled) and Kokkos are initialized once around all tests.
#include <gtest/gtest.h>

#include <Kokkos_Core.hpp>

#include "KSPD_Config.hpp"
#include "kspd_test_data.hpp"
#ifdef KSPD_ENABLE_MPI
#include <mpi.h>
#endif

int main(int argc, char* argv[]) {
#ifdef KSPD_ENABLE_MPI
  int provided = 0;  // the distributed factorization's host workers need "funneled"
  MPI_Init_thread(&argc, &argv, MPI_THREAD_FUNNELED, &provided);
#endif
  int result = 0;
  {
    Kokkos::ScopeGuard guard(argc, argv);
    ::testing::InitGoogleTest(&argc, argv);
    // How many tests skipped for lack of the real matrices, at the end of the run.
    ::testing::UnitTest::GetInstance()->listeners().Append(new kspd::test::DataSkipReport);
    result = RUN_ALL_TESTS();
  }
#ifdef KSPD_ENABLE_MPI
  MPI_Finalize();
#endif
  return result;
}
