// The device-level API inside user kernels: Serial*/Team* ::invoke with compile-time modes on
// rank-2 subviews and on raw pointer + strides (Impl::to_mat), as the sparse solver uses them.
#include "batched_test_utils.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::Diag;
using kspd::Side;
using kspd::size_type;
using kspd::Trans;
using kspd::Uplo;

template <class T>
struct BatchedDevice : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedDevice, ScalarTypes);

/// Per matrix in one user kernel: C = A A^T + n I (SerialGemm), factor (SerialPotrf), solve
/// (SerialPotrs), multiply back (SerialTrmm twice) and compare with the right-hand side.
// (Free functions: CUDA's extended lambdas may not live in a TestBody.)
template <class T>
void serial_compose() {
  const int nb = 37, n = 11, nrhs = 3;
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> A("A", nb, n, n), C("C", nb, n, n), B("B", nb, n, nrhs), X("X", nb, n, nrhs);
  Kokkos::View<int*, Mem> infos("infos", nb);
  Kokkos::View<T*, Mem> err("err", nb);
  {
    auto hA = Kokkos::create_mirror_view(A);
    auto hB = Kokkos::create_mirror_view(B);
    for (int b = 0; b < nb; ++b) {
      const HostMat a = random_matrix(n, n, unsigned(b)), bb = random_matrix(n, nrhs, unsigned(100 + b));
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) hA(b, i, j) = T(a(i, j));
        for (int j = 0; j < nrhs; ++j) hB(b, i, j) = T(bb(i, j));
      }
    }
    Kokkos::deep_copy(A, hA);
    Kokkos::deep_copy(B, hB);
    Kokkos::deep_copy(X, B);
  }
  Kokkos::parallel_for(
      "test::serial_compose", Kokkos::RangePolicy<Exec>(0, nb), KOKKOS_LAMBDA(const int b) {
        auto a = Kokkos::subview(A, b, Kokkos::ALL, Kokkos::ALL);
        auto c = Kokkos::subview(C, b, Kokkos::ALL, Kokkos::ALL);
        auto x = Kokkos::subview(X, b, Kokkos::ALL, Kokkos::ALL);
        kb::SerialGemm<Trans::NoTranspose, Trans::Transpose>::invoke(T(1), a, a, T(0), c);
        for (int i = 0; i < n; ++i) c(i, i) += T(n);
        // C's lower triangle through raw pointer + strides.
        auto cm = kb::Impl::to_mat(c.data(), n, n, kspd::offset_type(c.stride(0)), kspd::offset_type(c.stride(1)));
        infos(b) = kb::SerialPotrf<Uplo::Lower>::invoke(cm);
        kb::SerialPotrs<Uplo::Lower>::invoke(c, x);
        // B' = L (L^T X) should equal B.
        kb::SerialTrmm<Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit>::invoke(T(1), c, x);
        kb::SerialTrmm<Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit>::invoke(T(1), c, x);
        T e = 0;
        for (int i = 0; i < n; ++i)
          for (int j = 0; j < nrhs; ++j) {
            const T d = x(i, j) - B(b, i, j);
            e += d * d;
          }
        err(b) = e;
      });
  const auto inf = to_host(infos);
  auto herr = Kokkos::create_mirror_view(err);
  Kokkos::deep_copy(herr, err);
  for (int b = 0; b < nb; ++b) {
    EXPECT_EQ(inf[b], 0);
    EXPECT_LE(std::sqrt(double(herr(b))), 200 * n * double(eps<T>()) * n) << "matrix " << b;
  }
}

/// Team flavours in a user TeamPolicy kernel: TeamSyrk builds an SPD matrix (upper),
/// TeamPosv solves, TeamPoti inverts a copy, and TeamGemm checks inv(A) * B == X.
template <class T>
void team_compose() {
  const int nb = 9, n = 20, nrhs = 2;
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> G("G", nb, n, n), A("A", nb, n, n), Ai("Ai", nb, n, n),
      B("B", nb, n, nrhs), X("X", nb, n, nrhs), Y("Y", nb, n, nrhs);
  Kokkos::View<int*, Mem> infos("infos", 2 * nb);
  {
    auto hG = Kokkos::create_mirror_view(G);
    auto hB = Kokkos::create_mirror_view(B);
    for (int b = 0; b < nb; ++b) {
      const HostMat g = random_matrix(n, n, unsigned(b)), bb = random_matrix(n, nrhs, unsigned(100 + b));
      for (int i = 0; i < n; ++i) {
        for (int j = 0; j < n; ++j) hG(b, i, j) = T(g(i, j));
        for (int j = 0; j < nrhs; ++j) hB(b, i, j) = T(bb(i, j));
      }
    }
    Kokkos::deep_copy(G, hG);
    Kokkos::deep_copy(B, hB);
    Kokkos::deep_copy(X, B);
  }
  using Policy = Kokkos::TeamPolicy<Exec>;
  const int ts = std::is_same<Mem, Kokkos::HostSpace>::value ? 1 : 32;
  Kokkos::parallel_for(
      "test::team_compose", Policy(nb, ts), KOKKOS_LAMBDA(const typename Policy::member_type& member) {
        const int b = member.league_rank();
        auto g = Kokkos::subview(G, b, Kokkos::ALL, Kokkos::ALL);
        auto a = Kokkos::subview(A, b, Kokkos::ALL, Kokkos::ALL);
        auto ai = Kokkos::subview(Ai, b, Kokkos::ALL, Kokkos::ALL);
        auto x = Kokkos::subview(X, b, Kokkos::ALL, Kokkos::ALL);
        auto y = Kokkos::subview(Y, b, Kokkos::ALL, Kokkos::ALL);
        kb::TeamSyrk<Uplo::Upper, Trans::Transpose>::invoke(member, T(1) / T(n), g, T(0), a);
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const int i) {
          a(i, i) += T(1);
          for (int j = i; j < n; ++j) ai(i, j) = a(i, j);
        });
        member.team_barrier();
        const int i1 = kb::TeamPosv<Uplo::Upper>::invoke(member, a, x);
        const int i2 = kb::TeamPoti<Uplo::Upper>::invoke(member, ai);
        // Mirror the upper triangle of inv(A) into the lower one, then y = inv(A) B.
        Kokkos::parallel_for(Kokkos::TeamThreadRange(member, n), [&](const int i) {
          for (int j = 0; j < i; ++j) ai(i, j) = ai(j, i);
        });
        member.team_barrier();
        kb::TeamGemm<Trans::NoTranspose, Trans::NoTranspose>::invoke(
            member, T(1), ai, Kokkos::subview(B, b, Kokkos::ALL, Kokkos::ALL), T(0), y);
        Kokkos::single(Kokkos::PerTeam(member), [&]() {
          infos(2 * b) = i1;
          infos(2 * b + 1) = i2;
        });
      });
  const auto inf = to_host(infos);
  auto hX = Kokkos::create_mirror_view(X);
  auto hY = Kokkos::create_mirror_view(Y);
  Kokkos::deep_copy(hX, X);
  Kokkos::deep_copy(hY, Y);
  for (int b = 0; b < nb; ++b) {
    EXPECT_EQ(inf[2 * b], 0);
    EXPECT_EQ(inf[2 * b + 1], 0);
    double e = 0, s = 0;
    for (int i = 0; i < n; ++i)
      for (int j = 0; j < nrhs; ++j) {
        e += std::pow(double(hX(b, i, j)) - double(hY(b, i, j)), 2);
        s += std::pow(double(hX(b, i, j)), 2);
      }
    EXPECT_LE(std::sqrt(e / s), tolerance<T>(n, 200)) << "matrix " << b;
  }
}

TYPED_TEST(BatchedDevice, SerialOpsComposeInAUserKernel) { serial_compose<TypeParam>(); }
TYPED_TEST(BatchedDevice, TeamOpsComposeInAUserKernel) { team_compose<TypeParam>(); }

}  // namespace
