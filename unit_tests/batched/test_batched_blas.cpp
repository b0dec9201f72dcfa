// Batched GEMM / SYRK / TRSM / TRMM against host references: every side/uplo/trans/diag
// variant, float and double, strided LayoutLeft / LayoutRight and pointer batches, every
// kernel family, sizes 1..33 and 63..256, batches of 1 and 70,000, variable-size batches.
#include <array>

#include "batched_test_utils.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::Diag;
using kspd::Side;
using kspd::size_type;
using kspd::Trans;
using kspd::Uplo;

HostMat op(const HostMat& a, Trans t) {
  if (!kspd::is_trans(t)) return a;
  HostMat r(a.n, a.m);
  for (size_type j = 0; j < a.n; ++j)
    for (size_type i = 0; i < a.m; ++i) r(j, i) = a(i, j);
  return r;
}

template <class T>
void check_trsm(bool mult, size_type m, size_type n, size_type nb, Side side, Uplo uplo, Trans trans, Diag diag,
                Iface iface, kb::BatchAlgo algo) {
  SCOPED_TRACE(::testing::Message() << (mult ? "trmm" : "trsm") << " m=" << m << " n=" << n << " nb=" << nb
                                    << " side=" << char(side) << " uplo=" << char(uplo) << " trans=" << char(trans)
                                    << " diag=" << char(diag) << " " << name(iface) << " " << name(algo));
  const size_type k = side == Side::Left ? m : n;
  const double alpha = mult ? -1.5 : 0.75;
  std::vector<HostMat> a, bm;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(random_triangular(k, uplo, diag, unsigned(11 * k + b % 13)));
    bm.push_back(random_matrix(m, n, unsigned(500 + b % 13)));
  }
  DevBatch<T> dA(a, k, k, iface), dB(bm, m, n, iface);
  const kb::BatchOptions opts = test_options(algo);
  if (iface == Iface::Left) {
    if (mult) kb::trmm(Exec(), side, uplo, trans, diag, T(alpha), dA.L, dB.L, opts);
    else kb::trsm(Exec(), side, uplo, trans, diag, T(alpha), dA.L, dB.L, opts);
  } else if (iface == Iface::Right) {
    if (mult) kb::trmm(Exec(), side, uplo, trans, diag, T(alpha), dA.R, dB.R, opts);
    else kb::trsm(Exec(), side, uplo, trans, diag, T(alpha), dA.R, dB.R, opts);
  } else {
    if (mult) kb::trmm(Exec(), side, uplo, trans, diag, T(alpha), nb, m, n, dA.cp(), dA.ld, dB.p(), dB.ld, opts);
    else kb::trsm(Exec(), side, uplo, trans, diag, T(alpha), nb, m, n, dA.cp(), dA.ld, dB.p(), dB.ld, opts);
  }
  const auto x = dB.to_host();
  EXPECT_TRUE(dB.padding_intact());
  int fails = 0;
  for (size_type b = 0; b < nb && fails < 3; ++b) {
    const HostMat opA = op(triangle(a[b], uplo, diag), trans);
    double err;
    if (mult) {  // B_new = alpha op(A) B  or  alpha B op(A)
      HostMat ref = side == Side::Left ? matmul(opA, false, bm[b], false) : matmul(bm[b], false, opA, false);
      for (auto& v : ref.a) v *= alpha;
      err = diff_fro(ref, x[b]) / (norm_fro(ref) + 1e-300);
    } else {  // residual of op(A) X = alpha B
      HostMat r = side == Side::Left ? matmul(opA, false, x[b], false) : matmul(x[b], false, opA, false);
      HostMat ab = bm[b];
      for (auto& v : ab.a) v *= alpha;
      err = diff_fro(r, ab) / (norm_fro(opA) * norm_fro(x[b]) + norm_fro(ab) + 1e-300);
    }
    const bool ok = err <= tolerance<T>(k);
    EXPECT_TRUE(ok) << "matrix " << b << " err " << err;
    fails += !ok;
  }
}

template <class T>
void check_gemm(size_type m, size_type n, size_type k, size_type nb, Trans ta, Trans tb, double beta, Iface iface,
                kb::BatchAlgo algo) {
  SCOPED_TRACE(::testing::Message() << "gemm m=" << m << " n=" << n << " k=" << k << " ta=" << char(ta) << " tb="
                                    << char(tb) << " beta=" << beta << " " << name(iface) << " " << name(algo));
  const double alpha = 1.25;
  std::vector<HostMat> a, bm, c;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(kspd::is_trans(ta) ? random_matrix(k, m, unsigned(b)) : random_matrix(m, k, unsigned(b)));
    bm.push_back(kspd::is_trans(tb) ? random_matrix(n, k, unsigned(40 + b)) : random_matrix(k, n, unsigned(40 + b)));
    c.push_back(beta == 0 ? HostMat(m, n, std::nan("")) : random_matrix(m, n, unsigned(80 + b)));
  }
  DevBatch<T> dA(a, a[0].m, a[0].n, iface), dB(bm, bm[0].m, bm[0].n, iface), dC(c, m, n, iface);
  const kb::BatchOptions opts = test_options(algo);
  if (iface == Iface::Left) kb::gemm(Exec(), ta, tb, T(alpha), dA.L, dB.L, T(beta), dC.L, opts);
  else if (iface == Iface::Right) kb::gemm(Exec(), ta, tb, T(alpha), dA.R, dB.R, T(beta), dC.R, opts);
  else
    kb::gemm(Exec(), ta, tb, nb, m, n, k, T(alpha), dA.cp(), dA.ld, dB.cp(), dB.ld, T(beta), dC.p(), dC.ld, opts);
  const auto res = dC.to_host();
  EXPECT_TRUE(dC.padding_intact());
  for (size_type b = 0; b < nb; ++b) {
    HostMat ref = matmul(a[b], kspd::is_trans(ta), bm[b], kspd::is_trans(tb));
    for (size_t e = 0; e < ref.a.size(); ++e) ref.a[e] = alpha * ref.a[e] + (beta == 0 ? 0.0 : beta * c[b].a[e]);
    EXPECT_LE(diff_fro(ref, res[b]), tolerance<T>(k + 1) * (norm_fro(ref) + 1.0)) << "matrix " << b;
  }
}

template <class T>
void check_syrk(size_type n, size_type k, size_type nb, Uplo uplo, Trans trans, double beta, Iface iface,
                kb::BatchAlgo algo) {
  SCOPED_TRACE(::testing::Message() << "syrk n=" << n << " k=" << k << " uplo=" << char(uplo) << " trans="
                                    << char(trans) << " beta=" << beta << " " << name(iface) << " " << name(algo));
  const double alpha = -0.5;
  std::vector<HostMat> a, c;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(kspd::is_trans(trans) ? random_matrix(k, n, unsigned(b)) : random_matrix(n, k, unsigned(b)));
    HostMat cc = random_matrix(n, n, unsigned(70 + b));
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i)
        if ((uplo == Uplo::Lower ? i < j : i > j) || beta == 0) cc(i, j) = std::nan("");  // must not be read
    c.push_back(cc);
  }
  DevBatch<T> dA(a, a[0].m, a[0].n, iface), dC(c, n, n, iface);
  const kb::BatchOptions opts = test_options(algo);
  if (iface == Iface::Left) kb::syrk(Exec(), uplo, trans, T(alpha), dA.L, T(beta), dC.L, opts);
  else if (iface == Iface::Right) kb::syrk(Exec(), uplo, trans, T(alpha), dA.R, T(beta), dC.R, opts);
  else kb::syrk(Exec(), uplo, trans, nb, n, k, T(alpha), dA.cp(), dA.ld, T(beta), dC.p(), dC.ld, opts);
  const auto res = dC.to_host();
  EXPECT_TRUE(dC.padding_intact());
  for (size_type b = 0; b < nb; ++b) {
    EXPECT_TRUE(other_triangle_nan(res[b], uplo));
    const HostMat p = kspd::is_trans(trans) ? matmul(a[b], true, a[b], false) : matmul(a[b], false, a[b], true);
    HostMat ref(n, n), got(n, n);
    for (size_type j = 0; j < n; ++j)
      for (size_type i = 0; i < n; ++i)
        if (uplo == Uplo::Lower ? i >= j : i <= j) {
          ref(i, j) = alpha * p(i, j) + (beta == 0 ? 0.0 : beta * c[b](i, j));
          got(i, j) = res[b](i, j);
        }
    EXPECT_LE(diff_fro(ref, got), tolerance<T>(k + 1) * (norm_fro(ref) + 1.0)) << "matrix " << b;
  }
}

std::vector<size_type> main_sizes() {
  std::vector<size_type> s;
  for (size_type n = 1; n <= 33; ++n) s.push_back(n);
  for (size_type n : {63, 64, 65, 127, 128, 129, 255, 256}) s.push_back(n);
  return s;
}

template <class T>
struct BatchedBlas : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedBlas, ScalarTypes);

TYPED_TEST(BatchedBlas, TrsmAllVariantsSizesLayoutsInterfacesAlgos) {
  for (size_type k : main_sizes()) {
    const size_type nrhs = k <= 33 ? 1 + k % 5 : 2;
    const bool big = k > 65;
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Trans trans : all_trans())
          for (Diag diag : all_diags()) {
            if (big && (trans == Trans::ConjTranspose || diag == Diag::Unit)) continue;  // covered at small sizes
            const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
            for (Iface iface : big ? std::vector<Iface>{all_ifaces()[size_t(k % 3)]} : all_ifaces())
              for (auto algo : algos_for(k)) check_trsm<TypeParam>(false, m, n, big ? 1 : 2, side, uplo, trans, diag, iface, algo);
          }
  }
}
/// Batch-first TRSM chunk by chunk through column-major copies (bf_repack_kib, forced; taken
/// with at least k right-hand sides): every side, uplo, transpose and diagonal, odd / even k,
/// chunks of one matrix, about two (the last partial) and the whole batch of 7, with and
/// without the forced recursion.
TYPED_TEST(BatchedBlas, BatchFirstChunkedTrsm) {
  for (bool recurse : {false, true})
    for (size_type k : {1, 8, 17, 33, 64, 65, 100})
      for (int kib : repack_kibs<TypeParam>(k, 4)) {
        SCOPED_TRACE(::testing::Message() << "repack " << kib << " KiB, recursion " << recurse);
        const ForceRepack repack(kib, recurse);
        for (Side side : all_sides())
          for (Uplo uplo : all_uplos())
            for (Trans trans : all_trans())
              for (Diag diag : all_diags())
                check_trsm<TypeParam>(false, side == Side::Left ? k : k + 2, side == Side::Left ? k + 1 : k, 7, side,
                                      uplo, trans, diag, Iface::Left, kb::BatchAlgo::Auto);
      }
}
TYPED_TEST(BatchedBlas, TrsmBatchOfOneAnd70000) {
  for (Iface iface : all_ifaces()) {
    check_trsm<TypeParam>(false, 4, 3, 1, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, iface, kb::BatchAlgo::Auto);
    check_trsm<TypeParam>(false, 2, 3, 70000, Side::Right, Uplo::Upper, Trans::Transpose, Diag::NonUnit, iface, kb::BatchAlgo::Auto);
    check_trsm<TypeParam>(false, 3, 2, 70000, Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::Unit, iface, kb::BatchAlgo::Serial);
  }
  check_trsm<TypeParam>(false, 2, 2, 70000, Side::Left, Uplo::Upper, Trans::NoTranspose, Diag::NonUnit, Iface::Left, kb::BatchAlgo::Team);
}
TYPED_TEST(BatchedBlas, TrmmAllVariants) {
  for (size_type k : {1, 2, 3, 5, 8, 9, 16, 17, 32, 33, 64, 65})
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Trans trans : all_trans())
          for (Diag diag : all_diags()) {
            const size_type m = side == Side::Left ? k : 3, n = side == Side::Left ? 3 : k;
            for (Iface iface : all_ifaces())
              for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
                check_trsm<TypeParam>(true, m, n, 2, side, uplo, trans, diag, iface, algo);
          }
  check_trsm<TypeParam>(true, 128, 3, 1, Side::Left, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Iface::Left, kb::BatchAlgo::Auto);
  check_trsm<TypeParam>(true, 2, 2, 70000, Side::Right, Uplo::Upper, Trans::NoTranspose, Diag::NonUnit, Iface::Right, kb::BatchAlgo::Auto);
}
TYPED_TEST(BatchedBlas, GemmAllTransposes) {
  for (auto dims : std::vector<std::array<size_type, 3>>{{1, 1, 1}, {3, 5, 2}, {8, 8, 8}, {17, 9, 33}, {64, 65, 31}, {0, 3, 2}, {4, 3, 0}})
    for (Trans ta : all_trans())
      for (Trans tb : all_trans())
        for (double beta : {0.0, 0.5})
          for (Iface iface : all_ifaces())
            for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
              check_gemm<TypeParam>(dims[0], dims[1], dims[2], 3, ta, tb, beta, iface, algo);
  check_gemm<TypeParam>(2, 2, 2, 70000, Trans::NoTranspose, Trans::Transpose, 1.0, Iface::Left, kb::BatchAlgo::Auto);
  check_gemm<TypeParam>(128, 129, 127, 1, Trans::Transpose, Trans::NoTranspose, 1.0, Iface::Right, kb::BatchAlgo::Auto);
}
TYPED_TEST(BatchedBlas, SyrkAllVariants) {
  for (auto dims : std::vector<std::array<size_type, 2>>{{1, 1}, {3, 2}, {8, 8}, {17, 33}, {65, 31}, {4, 0}})
    for (Uplo uplo : all_uplos())
      for (Trans trans : all_trans())
        for (double beta : {0.0, 2.0})
          for (Iface iface : all_ifaces())
            for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
              check_syrk<TypeParam>(dims[0], dims[1], 3, uplo, trans, beta, iface, algo);
  check_syrk<TypeParam>(3, 2, 70000, Uplo::Lower, Trans::NoTranspose, 1.0, Iface::Left, kb::BatchAlgo::Auto);
}

/// The two-sided recursion forced on every backend: every TRSM / TRMM variant, SYRK, and
/// the tiled batched GEMM (with the leaf families Serial / Team the host runs it too).
TYPED_TEST(BatchedBlas, RecursiveTrsmTrmmAllVariants) {
  const ForceRecursion force;
  for (size_type k : recursion_sizes())
    for (bool mult : {false, true})
      for (Side side : all_sides())
        for (Uplo uplo : all_uplos())
          for (Trans trans : all_trans())
            for (Diag diag : all_diags()) {
              if (trans == Trans::ConjTranspose && k > 65) continue;  // real: the same as Transpose
              const size_type nrhs = 1 + k % 4;
              const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
              const Iface iface = all_ifaces()[size_t((k + int(side == Side::Left) + int(uplo == Uplo::Lower)) % 3)];
              check_trsm<TypeParam>(mult, m, n, 3, side, uplo, trans, diag, iface, kb::BatchAlgo::Auto);
            }
}
TYPED_TEST(BatchedBlas, RecursiveLeafFamiliesTiledGemm) {
  const ForceRecursion force(16);
  for (size_type k : {33, 100})
    for (auto algo : {kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
      for (Side side : all_sides())
        for (Uplo uplo : all_uplos())
          for (Trans trans : {Trans::NoTranspose, Trans::Transpose})
            for (bool mult : {false, true}) {
              const size_type m = side == Side::Left ? k : 5, n = side == Side::Left ? 5 : k;
              check_trsm<TypeParam>(mult, m, n, 2, side, uplo, trans, Diag::NonUnit, all_ifaces()[size_t(k % 3)], algo);
            }
}
TYPED_TEST(BatchedBlas, RecursiveSyrk) {
  const ForceRecursion force;
  for (size_type n : recursion_sizes())
    for (Uplo uplo : all_uplos())
      for (Trans trans : {Trans::NoTranspose, Trans::Transpose})
        for (double beta : {0.0, 2.0}) {
          const Iface iface = all_ifaces()[size_t((n + int(beta > 0)) % 3)];
          check_syrk<TypeParam>(n, 1 + n % 7 + (uplo == Uplo::Lower ? 30 : 0), 3, uplo, trans, beta, iface,
                                kb::BatchAlgo::Auto);
        }
  const ForceRecursion leaf16(16);
  for (auto algo : {kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
    for (Iface iface : all_ifaces()) check_syrk<TypeParam>(65, 20, 2, Uplo::Upper, Trans::Transpose, 0.5, iface, algo);
}

/// The recursion with each register tile in the GEMM of its off-diagonal blocks (host: the
/// leaf family Serial sends those through the tiled GEMM).
TYPED_TEST(BatchedBlas, RecursiveTilesTrsmSyrk) {
  for (auto tile : {kb::Impl::GemmTile::T4x4, kb::Impl::GemmTile::T8x4, kb::Impl::GemmTile::T8x8}) {
    const ForceRecursion force(16);
    kb::Impl::TuningOverride o;
    o.gemm_tile = tile;
    o.gemm_chunk = tile == kb::Impl::GemmTile::T8x4 ? 1 : 0;
    const kb::Impl::TuningScope scope(o);
    for (size_type k : {33, 65, 100})
      for (Side side : all_sides())
        for (Uplo uplo : all_uplos()) {
          const size_type m = side == Side::Left ? k : 7, n = side == Side::Left ? 9 : k;
          check_trsm<TypeParam>(false, m, n, 2, side, uplo, Trans::NoTranspose, Diag::NonUnit,
                                all_ifaces()[size_t(k % 3)], kb::BatchAlgo::Serial);
          check_trsm<TypeParam>(true, m, n, 2, side, uplo, Trans::Transpose, Diag::Unit,
                                all_ifaces()[size_t((k + 1) % 3)], kb::BatchAlgo::Serial);
        }
    check_syrk<TypeParam>(65, 20, 2, Uplo::Upper, Trans::Transpose, 0.5, Iface::Left, kb::BatchAlgo::Serial);
    check_syrk<TypeParam>(100, 9, 2, Uplo::Lower, Trans::NoTranspose, 0.0, Iface::Pointer, kb::BatchAlgo::Serial);
  }
}

/// The streaming TRSM (8 < k <= 64; forced by BatchAlgo::Register, which runs it on host
/// backends too) with 1, 2 and 4 right-hand sides per thread, the size classes 24 / 48 / 64,
/// k up to 64 without the recursion (GPUs; host backends do not recurse here), chunked thread
/// orders, launch bounds (GPUs); right-hand-side counts that leave a partial group, batches that leave a partial chunk.
/// The shared-memory TRSM (CUDA: inverted 8 x 8 diagonal blocks, MMA tiles, a warp per 8
/// right-hand sides; fp64 k <= 128, fp32 k <= 256) forced for every k through the tuning
/// override: every side / uplo / trans / diag, odd / even k, partial 8-blocks, 21, 70 and 300
/// right-hand sides (chunks of at most 128; 1: the kernels below, it takes 16 or more); fp64
/// above 128 the recursion with shared-memory leaves. Host backends take their own paths (the override is inert there).
TYPED_TEST(BatchedBlas, SmemTrsm) {
  for (int chunk : {0, 16}) {  // the table's right-hand sides per pass; 16 (several passes)
    kb::Impl::TuningOverride o;
    o.smem_potrf_min = o.smem_trsm_min = 1;
    o.smem_potrf_max = o.smem_trsm_max = 256;
    o.smem_trsm_chunk = chunk > 0 ? chunk : -1;
    const kb::Impl::TuningScope scope(o);
    for (size_type k : {1, 8, 9, 17, 31, 32, 33, 64, 127, 128, 129, 255, 256})
      for (size_type nrhs : {size_type(1), size_type(21), size_type(70), size_type(300)})
        for (Side side : all_sides())
          for (Uplo uplo : all_uplos())
            for (Trans trans : all_trans())
              for (Diag diag : all_diags()) {
                if (nrhs != 21 && (trans == Trans::ConjTranspose || diag == Diag::Unit)) continue;
                if ((k > 128 || nrhs == 300) && nrhs != 21 && (k % 2 == 0 || trans != Trans::NoTranspose)) continue;
                const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
                check_trsm<TypeParam>(false, m, n, 3, side, uplo, trans, diag, all_ifaces()[size_t((k + nrhs) % 3)],
                                      kb::BatchAlgo::Auto);
              }
    // k <= 32: a warp per matrix, several matrices per block; 37 leaves a partial block.
    for (size_type k : {9, 16, 17, 24, 32})
      for (Side side : all_sides())
        for (Uplo uplo : all_uplos())
          for (Trans trans : {Trans::NoTranspose, Trans::Transpose})
            for (Iface iface : all_ifaces()) {
              const size_type m = side == Side::Left ? k : 21, n = side == Side::Left ? 21 : k;
              check_trsm<TypeParam>(false, m, n, 37, side, uplo, trans, Diag::NonUnit, iface, kb::BatchAlgo::Auto);
            }
  }
}
/// The block-per-matrix shared-memory TRSM on batch-first data in thread-block clusters of 2,
/// 4 and 8 blocks (Tuning::smem_cluster_trsm), forced for every k (the warp-per-matrix kernel
/// off): every side / uplo / trans, odd / even k, partial 8-blocks, 21 right-hand sides
/// (cluster 4: 16 per pass, several passes; 70 at k = 33 / 97), batches of 5 and 37 (a partial
/// last cluster). fp64 above 128 the recursion with clustered leaves; fp32 whole up to 256
/// (cluster 2: leaves of at most 64); then without clusters. Unit diagonal and the conjugate
/// transpose once per k. Host backends: the override is inert.
TYPED_TEST(BatchedBlas, SmemTrsmClusters) {
  for (int variant = 0; variant < 4; ++variant) {
    const int cluster = variant == 3 ? 0 : 2 << variant;
    SCOPED_TRACE(::testing::Message() << "cluster " << cluster);
    kb::Impl::TuningOverride o;
    o.smem_potrf_min = o.smem_trsm_min = 1;
    o.smem_potrf_max = o.smem_trsm_max = 256;
    o.smem_potrf_warp_max = o.smem_trsm_warp_max = 0;
    o.smem_trsm_leaf_max = o.smem_trsm_leaf_max_cm = cluster == 2 ? 64 : 0;
    o.smem_trsm_chunk = cluster == 4 ? 16 : -1;
    o.smem_cluster = cluster;
    const kb::Impl::TuningScope scope(o);
    for (size_type k : {1, 9, 17, 31, 33, 95, 97, 127, 129, 255, 256}) {
      const size_type nb = k <= 33 ? 37 : 5;
      const size_type nrhs = k == 33 || k == 97 ? 70 : 21;
      // 8 side / uplo / trans combinations (non-unit), then Left Upper ConjTranspose Unit.
      for (int v = 0; v < 9; ++v) {
        const Side side = v < 8 && v % 2 ? Side::Right : Side::Left;
        const Uplo uplo = v == 8 || (v / 2) % 2 ? Uplo::Upper : Uplo::Lower;
        const Trans trans = v == 8 ? Trans::ConjTranspose : v / 4 ? Trans::Transpose : Trans::NoTranspose;
        const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
        check_trsm<TypeParam>(false, m, n, nb, side, uplo, trans, v == 8 ? Diag::Unit : Diag::NonUnit, Iface::Left,
                              kb::BatchAlgo::Auto);
      }
    }
  }
}
/// TRSM with the tuning table's defaults around its boundaries in each layout class
/// (batch-first; column-major: LayoutRight and pointer arrays, the *_cm ranges and the
/// recursion's gemmBatched over sub-block pointers): both sides, N / T, odd / even k, 21
/// right-hand sides. Then k <= 32 with fewer than 16 right-hand sides on the warp-per-matrix
/// kernel for column-major matrices (smem_trsm_warp_cols_cm = 1), a partial block of matrices.
TYPED_TEST(BatchedBlas, TrsmTableBoundariesByLayout) {
  for (size_type k : {32, 33, 64, 65, 96, 97, 128, 129, 200, 256})
    for (Side side : all_sides())
      for (Trans trans : {Trans::NoTranspose, Trans::Transpose})
        for (Iface iface : all_ifaces()) {
          const Uplo uplo = (k + int(side == Side::Left)) % 2 ? Uplo::Upper : Uplo::Lower;
          const size_type m = side == Side::Left ? k : 21, n = side == Side::Left ? 21 : k;
          check_trsm<TypeParam>(false, m, n, 3, side, uplo, trans, Diag::NonUnit, iface, kb::BatchAlgo::Auto);
        }
  kb::Impl::TuningOverride o;
  o.smem_trsm_warp_cols_cm = 1;
  const kb::Impl::TuningScope scope(o);
  for (size_type k : {9, 17, 32})
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Iface iface : all_ifaces()) {
          const size_type m = side == Side::Left ? k : 3, n = side == Side::Left ? 3 : k;
          check_trsm<TypeParam>(false, m, n, 37, side, uplo, Trans::Transpose, Diag::NonUnit, iface,
                                kb::BatchAlgo::Auto);
        }
}
/// Host backends' lane TRSM (k <= 16, 8 fp64 / 16 fp32 matrices per thread in lockstep; GPUs:
/// the register / streaming kernels): every side / uplo / trans / diag and interface, k around
/// the 8 / 16 boundaries and 17, one and five right-hand sides, two full groups plus a partial one.
TYPED_TEST(BatchedBlas, RegisterLanesTrsm) {
  const size_type W = kb::Impl::lanes_v<TypeParam>;
  for (size_type k : {1, 2, 7, 8, 9, 15, 16, 17})
    for (size_type nrhs : {size_type(1), size_type(5)})
      for (Side side : all_sides())
        for (Uplo uplo : all_uplos())
          for (Trans trans : all_trans())
            for (Diag diag : all_diags())
              for (Iface iface : all_ifaces()) {
                const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
                check_trsm<TypeParam>(false, m, n, 2 * W + 3, side, uplo, trans, diag, iface, kb::BatchAlgo::Register);
              }
}
TYPED_TEST(BatchedBlas, StreamTrsmVariants) {
  const bool gpu = !std::is_same<Mem, Kokkos::HostSpace>::value;
  struct Cfg {
    int smax;
    bool class24;
    int chunk;
    int min_blocks;
  };
  for (int rb : {1, 2, 4})
    for (Cfg cfg : {Cfg{32, false, 0, 0}, Cfg{64, true, 7, 4}, Cfg{64, false, 32, 8}, Cfg{64, false, 7, 0}}) {
      if (!gpu && cfg.chunk == 32) continue;  // the host runs the same code as chunk 7
      // Without KSPD_BATCHED_ALL_VARIANTS only the table's defaults are compiled.
      if (!kb::Impl::kAllVariants && (rb == 4 || cfg.class24 || cfg.min_blocks != 0)) continue;
      kb::Impl::TuningOverride o;
      o.trsm_rhs_block = rb;
      o.stream_trsm_max = cfg.smax;
      o.stream_class24 = cfg.class24 ? 1 : 0;
      o.stream_chunk = cfg.chunk;
      o.stream_min_blocks = cfg.min_blocks;
      const kb::Impl::TuningScope scope(o);
      for (size_type k : {9, 15, 16, 17, 24, 31, 32, 33, 48, 63, 64})
        for (size_type nrhs : {size_type(1), size_type(3), size_type(5), size_type(33)})
          for (Side side : all_sides())
            for (Uplo uplo : all_uplos())
              for (Trans trans : all_trans())
                for (Diag diag : all_diags()) {
                  if (nrhs != 5 && (trans == Trans::ConjTranspose || diag == Diag::Unit)) continue;
                  if (nrhs == 33 && (trans != Trans::NoTranspose || uplo != Uplo::Lower)) continue;
                  const size_type m = side == Side::Left ? k : nrhs, n = side == Side::Left ? nrhs : k;
                  check_trsm<TypeParam>(false, m, n, 33, side, uplo, trans, diag, all_ifaces()[size_t((k + nrhs) % 3)],
                                        kb::BatchAlgo::Register);
                  if (gpu && nrhs == 5)  // Auto: the streaming kernel up to stream_trsm_max, recursion above
                    check_trsm<TypeParam>(false, m, n, 33, side, uplo, trans, diag,
                                          all_ifaces()[size_t((k + nrhs + 1) % 3)], kb::BatchAlgo::Auto);
                }
    }
}

/// Variable-size TRSM / GEMM / SYRK with offsets into one buffer per operand.
template <class T>
struct VarBuf {
  std::vector<kspd::offset_type> off;
  std::vector<HostMat> h;
  Kokkos::View<T*, Mem> d;
  Kokkos::View<kspd::offset_type*, Mem> doff;
  void build(const std::vector<HostMat>& mats) {
    h = mats;
    kspd::offset_type tot = 0;
    for (auto& m : mats) {
      off.push_back(tot);
      tot += m.m * m.n + 1;
    }
    d = Kokkos::View<T*, Mem>("buf", size_t(tot));
    auto hd = Kokkos::create_mirror_view(d);
    Kokkos::deep_copy(hd, poison<T>());
    for (size_t b = 0; b < mats.size(); ++b)
      for (size_type e = 0; e < mats[b].m * mats[b].n; ++e) hd(size_t(off[b] + e)) = T(mats[b].a[size_t(e)]);
    Kokkos::deep_copy(d, hd);
    doff = Kokkos::View<kspd::offset_type*, Mem>("off", off.size());
    Kokkos::deep_copy(doff, Kokkos::View<kspd::offset_type*, Kokkos::HostSpace>(off.data(), off.size()));
  }
  kb::VarMats<T, Mem> var() const { return kb::var_mats(d, doff); }
  kb::VarMats<const T, Mem> cvar() const { return {d, doff, {}}; }
  std::vector<HostMat> get() const {
    auto hd = Kokkos::create_mirror_view(d);
    Kokkos::deep_copy(hd, d);
    std::vector<HostMat> r = h;
    for (size_t b = 0; b < r.size(); ++b) {
      for (size_type e = 0; e < r[b].m * r[b].n; ++e) r[b].a[size_t(e)] = double(hd(size_t(off[b] + e)));
      EXPECT_TRUE(std::isnan(double(hd(size_t(off[b] + r[b].m * r[b].n))))) << "gap after matrix " << b << " written";
    }
    return r;
  }
};
Kokkos::View<int*, Mem> dev_ints(const std::vector<int>& v) {
  Kokkos::View<int*, Mem> d("ints", v.size());
  Kokkos::deep_copy(d, Kokkos::View<const int*, Kokkos::HostSpace>(v.data(), v.size()));
  return d;
}

TYPED_TEST(BatchedBlas, VariableSizeTrsmGemmSyrk) {
  using T = TypeParam;
  const int nb = 40;
  std::vector<int> ms(nb), ns(nb), ks(nb);
  for (int b = 0; b < nb; ++b) {
    ms[b] = b == 7 ? 90 : (b * 5) % 23;
    ns[b] = (b * 3) % 11;
    ks[b] = (b * 7) % 13;
  }
  auto dms = dev_ints(ms), dns = dev_ints(ns), dks = dev_ints(ks);
  for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
    for (Side side : all_sides())
      for (Uplo uplo : all_uplos())
        for (Trans trans : {Trans::NoTranspose, Trans::Transpose}) {
          SCOPED_TRACE(::testing::Message() << "trsm_vbatched side=" << char(side) << " uplo=" << char(uplo)
                                            << " trans=" << char(trans) << " " << name(algo));
          std::vector<HostMat> a, bm;
          for (int b = 0; b < nb; ++b) {
            const int k = side == Side::Left ? ms[b] : ns[b];
            a.push_back(random_triangular(k, uplo, Diag::NonUnit, unsigned(b)));
            bm.push_back(random_matrix(ms[b], ns[b], unsigned(100 + b)));
          }
          VarBuf<T> A, B;
          A.build(a);
          B.build(bm);
          kb::trsm_vbatched(Exec(), side, uplo, trans, Diag::NonUnit, T(2), dms, dns, A.var(), B.var(),
                            kb::BatchOptions{algo});
          const auto x = B.get();
          for (int b = 0; b < nb; ++b) {
            if (ms[b] == 0 || ns[b] == 0) continue;
            const HostMat opA = op(triangle(a[b], uplo), trans);
            const HostMat r = side == Side::Left ? matmul(opA, false, x[b], false) : matmul(x[b], false, opA, false);
            HostMat ab = bm[b];
            for (auto& v : ab.a) v *= 2;
            EXPECT_LE(diff_fro(r, ab) / (norm_fro(opA) * norm_fro(x[b]) + norm_fro(ab)),
                      tolerance<T>(side == Side::Left ? ms[b] : ns[b]))
                << "matrix " << b;
          }
        }
  for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Team}) {
    SCOPED_TRACE(name(algo));
    std::vector<HostMat> a, bm, c, sa, sc;
    for (int b = 0; b < nb; ++b) {
      a.push_back(random_matrix(ks[b], ms[b], unsigned(b)));        // op(A) = A^T is ms x ks
      bm.push_back(random_matrix(ks[b], ns[b], unsigned(50 + b)));  // op(B) = B
      c.push_back(random_matrix(ms[b], ns[b], unsigned(90 + b)));
      sa.push_back(random_matrix(ms[b], ks[b], unsigned(130 + b)));
      HostMat s = random_matrix(ms[b], ms[b], unsigned(170 + b));
      for (int j = 0; j < ms[b]; ++j)
        for (int i = 0; i < j; ++i) s(i, j) = std::nan("");  // lower only
      sc.push_back(s);
    }
    VarBuf<T> A, B, C, SA, SC;
    A.build(a);
    B.build(bm);
    C.build(c);
    SA.build(sa);
    SC.build(sc);
    kb::gemm_vbatched(Exec(), Trans::Transpose, Trans::NoTranspose, T(1.5), dms, dns, dks, A.cvar(), B.cvar(), T(-1),
                      C.var(), kb::BatchOptions{algo});
    kb::syrk_vbatched(Exec(), Uplo::Lower, Trans::NoTranspose, T(1), dms, dks, SA.cvar(), T(0.5), SC.var(),
                      kb::BatchOptions{algo});
    const auto rc = C.get(), rs = SC.get();
    for (int b = 0; b < nb; ++b) {
      HostMat ref = matmul(a[b], true, bm[b], false);
      for (size_t e = 0; e < ref.a.size(); ++e) ref.a[e] = 1.5 * ref.a[e] - c[b].a[e];
      EXPECT_LE(diff_fro(ref, rc[b]), tolerance<T>(ks[b] + 1) * (norm_fro(ref) + 1)) << "gemm matrix " << b;
      const HostMat p = matmul(sa[b], false, sa[b], true);
      double e2 = 0;
      for (int j = 0; j < ms[b]; ++j)
        for (int i = j; i < ms[b]; ++i) e2 += std::pow(p(i, j) + 0.5 * sc[b](i, j) - rs[b](i, j), 2);
      EXPECT_LE(std::sqrt(e2), tolerance<T>(ks[b] + 1) * (norm_fro(p) + 1)) << "syrk matrix " << b;
      EXPECT_TRUE(other_triangle_nan(rs[b], Uplo::Lower));
    }
  }
}

TEST(BatchedBlasErrors, ShapeMismatchesThrow) {
  Kokkos::View<double***, Kokkos::LayoutRight, Mem> A("A", 3, 4, 4), B("B", 3, 5, 2), C("C", 2, 4, 2);
  try {
    kb::trsm(Exec(), Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, A, B);
    FAIL() << "expected DimensionMismatch";
  } catch (const kspd::DimensionMismatch& e) {
    EXPECT_NE(std::string(e.what()).find("As must be 5 x 5"), std::string::npos) << e.what();
  }
  EXPECT_THROW(kb::trmm(Exec(), Side::Left, Uplo::Lower, Trans::NoTranspose, Diag::NonUnit, 1.0, A, C),
               kspd::DimensionMismatch);
  EXPECT_THROW(kb::gemm(Exec(), Trans::NoTranspose, Trans::NoTranspose, 1.0, A, B, 0.0, C), kspd::DimensionMismatch);
  EXPECT_THROW(kb::syrk(Exec(), Uplo::Lower, Trans::NoTranspose, 1.0, B, 0.0, A), kspd::DimensionMismatch);
}

}  // namespace
