// kspd used without Kokkos::initialize: a clear kspd::Error at construction (issue #12,
// row 2), not a run that aborts in a destructor. This executable never initializes Kokkos.

#include <gtest/gtest.h>

#include <string>

#include "KSPD_Config.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#ifdef KSPD_ENABLE_MPI
#include <mpi.h>

#include "kspd_sparse_distributed.hpp"
#endif

namespace {

namespace ks = kspd::sparse;

template <class F>
void expect_not_initialized(F&& f, const char* who) {
  ASSERT_FALSE(Kokkos::is_initialized());
  try {
    f();
    ADD_FAILURE() << who << " was constructed without Kokkos";
  } catch (const kspd::Error& e) {
    const std::string msg = e.what();
    EXPECT_NE(msg.find("Kokkos is not initialized"), std::string::npos) << msg;
    EXPECT_NE(msg.find(who), std::string::npos) << msg;
  }
}

TEST(ReliabilityNoKokkos, SupernodalCholeskyThrows) {
  expect_not_initialized([] { ks::SupernodalCholesky<double> chol; }, "kspd::sparse::SupernodalCholesky");
  expect_not_initialized([] { ks::SupernodalCholesky<float> chol(ks::Options{}); }, "kspd::sparse::SupernodalCholesky");
}

#ifdef KSPD_ENABLE_MPI
TEST(ReliabilityNoKokkos, DistributedCholeskyThrows) {
  expect_not_initialized([] { ks::DistributedCholesky<double> d(MPI_COMM_WORLD); }, "kspd::sparse::DistributedCholesky");
}
#endif

}  // namespace

int main(int argc, char* argv[]) {
#ifdef KSPD_ENABLE_MPI
  MPI_Init(&argc, &argv);
#endif
  ::testing::InitGoogleTest(&argc, argv);
  const int result = RUN_ALL_TESTS();
#ifdef KSPD_ENABLE_MPI
  MPI_Finalize();
#endif
  return result;
}
