// The register-tiled batched GEMM kernel (the GPU recursion's GEMM where cuBLAS does not
// apply) called directly: every register tile, transpose pair, alpha / beta, sub-block and
// triangle mode, float and double, against host references (split from test_batched_blas.cpp).
#include "batched_test_utils.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::size_type;
using kspd::Trans;

template <class T>
class BatchedTiledGemm : public ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedTiledGemm, ScalarTypes);

/// The register-tiled batched GEMM (GPU recursion's GEMM where cuBLAS does not apply) called
/// directly with every register tile, every transpose pair, alpha / beta (beta = 0 must not
/// read C: C is all NaN then), and with tri = 1 / 2 as the SYRK leaf (the other triangle, NaN,
/// must stay untouched). With `sub` every operand is the block at (1, 2) of a larger matrix
/// whose border is NaN (strided: the sub-block batch of the recursion; the border of C must
/// stay NaN).
template <class T>
void check_tile_gemm(size_type m, size_type n, size_type k, Trans ta, Trans tb, int tri, Iface iface,
                     kb::Impl::GemmTile tile = kb::Impl::GemmTile::Auto, double alpha = -0.75, double beta = 0.5,
                     bool sub = false, bool wide = false, int chunk = 0) {
  SCOPED_TRACE(::testing::Message() << "tile_gemm m=" << m << " n=" << n << " k=" << k << " ta=" << char(ta)
                                    << " tb=" << char(tb) << " tri=" << tri << " " << name(iface)
                                    << " tile=" << int(tile) << " alpha=" << alpha << " beta=" << beta
                                    << " sub=" << sub << " wide=" << wide << " chunk=" << chunk);
  const size_type nb = 3, r0 = sub ? 1 : 0, c0 = sub ? 2 : 0, ex = sub ? 3 : 0;
  const double nan = std::nan("");
  // The operand embedded at (r0, c0) of a (rows + ex) x (cols + ex) matrix with a NaN border.
  auto embed = [&](const HostMat& x) {
    HostMat e(x.m + ex, x.n + ex, nan);
    for (size_type j = 0; j < x.n; ++j)
      for (size_type i = 0; i < x.m; ++i) e(r0 + i, c0 + j) = x(i, j);
    return e;
  };
  std::vector<HostMat> a, bm, c, ea, eb, ec;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(kspd::is_trans(ta) ? random_matrix(k, m, unsigned(b)) : random_matrix(m, k, unsigned(b)));
    bm.push_back(kspd::is_trans(tb) ? random_matrix(n, k, unsigned(9 + b)) : random_matrix(k, n, unsigned(9 + b)));
    HostMat cc = random_matrix(m, n, unsigned(20 + b));
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < m; ++i)
        if (beta == 0.0 || (tri == 1 && i < j) || (tri == 2 && i > j)) cc(i, j) = nan;
    c.push_back(cc);
    ea.push_back(embed(a.back()));
    eb.push_back(embed(bm.back()));
    ec.push_back(embed(cc));
  }
  DevBatch<T> dA(ea, ea[0].m, ea[0].n, iface), dB(eb, eb[0].m, eb[0].n, iface), dC(ec, m + ex, n + ex, iface);
  auto batch = [&](DevBatch<T>& d) {
    if (iface == Iface::Left) return kb::Impl::strided_batch(d.L).sub(r0, c0);
    if (iface == Iface::Right) return kb::Impl::strided_batch(d.R).sub(r0, c0);
    return kb::Impl::pointer_batch(d.p(), d.ld).sub(r0, c0);
  };
  if (wide)  // the 64-bit-offset 4 x 4 tile (taken where int offsets would overflow)
    kb::Impl::tile_gemm_launch<4, 4, 2, 4, kspd::offset_type>(Exec(), ta, tb, nb, m, n, k, T(alpha),
                                                              kb::Impl::BatchMat<const T>(batch(dA)),
                                                              kb::Impl::BatchMat<const T>(batch(dB)), T(beta),
                                                              batch(dC), tri, chunk);
  else
    kb::Impl::tile_gemm(Exec(), ta, tb, nb, m, n, k, T(alpha), kb::Impl::BatchMat<const T>(batch(dA)),
                        kb::Impl::BatchMat<const T>(batch(dB)), T(beta), batch(dC), tri, tile, chunk);
  const auto res = dC.to_host();
  EXPECT_TRUE(dC.padding_intact());
  for (size_type b = 0; b < nb; ++b) {
    const HostMat p = matmul(a[b], kspd::is_trans(ta), bm[b], kspd::is_trans(tb));
    HostMat ref(m, n), got(m, n);
    int bad_border = 0;
    for (size_type j = 0; j < n + ex; ++j)
      for (size_type i = 0; i < m + ex; ++i)
        if ((i < r0 || i >= r0 + m || j < c0 || j >= c0 + n) && !std::isnan(res[b](i, j))) ++bad_border;
    EXPECT_EQ(bad_border, 0) << "matrix " << b << ": entries outside C written";
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < m; ++i) {
        if ((tri == 1 && i < j) || (tri == 2 && i > j)) {
          EXPECT_TRUE(std::isnan(res[b](r0 + i, c0 + j))) << "matrix " << b << " (" << i << ", " << j << ") written";
          continue;
        }
        ref(i, j) = alpha * p(i, j) + (beta == 0.0 ? 0.0 : beta * c[b](i, j));
        got(i, j) = res[b](r0 + i, c0 + j);
      }
    EXPECT_LE(diff_fro(ref, got), tolerance<T>(k + 1) * (norm_fro(ref) + 1.0)) << "matrix " << b;
  }
}
TYPED_TEST(BatchedTiledGemm, TiledGemmKernel) {
  for (Iface iface : all_ifaces()) {
    for (Trans ta : {Trans::NoTranspose, Trans::Transpose})
      for (Trans tb : {Trans::NoTranspose, Trans::Transpose}) check_tile_gemm<TypeParam>(37, 10, 21, ta, tb, 0, iface);
    for (int tri : {1, 2}) {
      check_tile_gemm<TypeParam>(33, 33, 7, Trans::NoTranspose, Trans::Transpose, tri, iface);
      check_tile_gemm<TypeParam>(18, 18, 40, Trans::Transpose, Trans::NoTranspose, tri, iface);
    }
  }
}
/// Every register tile on m, n, k in {1, 3, 7, 8, 9, 31, 33, 64, 65, 100} (all m x n pairs, k
/// and the interface rotating, every transpose pair), alpha / beta including 0, sub-blocks,
/// chunks of 1 / 2 / 3 matrices (2: the last chunk half empty), the lower / upper-only mode
/// on square and rectangular C, and the 64-bit-offset tile.
TYPED_TEST(BatchedTiledGemm, TiledGemmKernelTiles) {
  const size_type sizes[] = {1, 3, 7, 8, 9, 31, 33, 64, 65, 100};
  const Trans tr[] = {Trans::NoTranspose, Trans::Transpose};
  const auto ifaces = all_ifaces();
  int step = 0;
  for (auto tile : {kb::Impl::GemmTile::T4x4, kb::Impl::GemmTile::T8x4, kb::Impl::GemmTile::T8x8, kb::Impl::GemmTile::Auto})
    for (int im = 0; im < 10; ++im)
      for (int in = 0; in < 10; ++in, ++step) {
        const size_type m = sizes[im], n = sizes[in], k = sizes[(3 * im + 7 * in + step) % 10];
        const Trans ta = tr[step % 2], tb = tr[(step / 2) % 2];
        const Iface iface = ifaces[size_t(step % 3)];
        const double alpha = step % 11 == 5 ? 0.0 : -0.75, beta = step % 4 == 1 ? 0.0 : step % 4 == 3 ? 1.0 : 0.5;
        check_tile_gemm<TypeParam>(m, n, k, ta, tb, 0, iface, tile, alpha, beta, step % 5 == 2, false, step % 4);
      }
  for (auto tile : {kb::Impl::GemmTile::T4x4, kb::Impl::GemmTile::T8x4, kb::Impl::GemmTile::T8x8})
    for (int tri : {1, 2})
      for (size_type n : {1, 7, 9, 33, 65})
        for (Iface iface : ifaces) {
          const size_type k = 1 + (n * 7 + size_type(tri)) % 40;
          check_tile_gemm<TypeParam>(n, n, k, Trans::NoTranspose, Trans::Transpose, tri, iface, tile, -0.75,
                                     n % 2 == 1 ? 0.5 : 0.0, n == 9);
          check_tile_gemm<TypeParam>(n + 4, n, k, Trans::Transpose, Trans::NoTranspose, tri, iface, tile, -0.75, 0.5,
                                     false, false, 2);
          check_tile_gemm<TypeParam>(n, n + 9, k, Trans::NoTranspose, Trans::NoTranspose, tri, iface, tile, 1.0, 0.0, true);
        }
  for (int tri : {0, 1, 2})
    for (Iface iface : ifaces)
      check_tile_gemm<TypeParam>(33, 9, 31, tri == 1 ? Trans::Transpose : Trans::NoTranspose, Trans::Transpose, tri,
                                 iface, kb::Impl::GemmTile::Auto, -0.75, tri == 2 ? 0.0 : 0.5, tri == 1, true, tri);
}
}  // namespace
