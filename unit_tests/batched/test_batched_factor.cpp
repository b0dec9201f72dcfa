// Batched POTRF / POTRS / POSV / TRTRI / LAUUM / POTRI / POTI against host references, every
// uplo (and diag), float and double, strided LayoutLeft / LayoutRight and pointer batches,
// every kernel family, sizes 1..33 and 63..256, batches of 1 and 70,000, variable-size
// batches, and non-SPD / singular matrices in the middle of a batch.
#include "batched_test_utils.hpp"

namespace {
using namespace kspd::test;
namespace kb = kspd::batched;
using kspd::size_type;
using kspd::Uplo;
using kspd::Diag;

std::vector<size_type> main_sizes() {
  std::vector<size_type> s;
  for (size_type n = 1; n <= 33; ++n) s.push_back(n);
  for (size_type n : {63, 64, 65, 127, 128, 129, 255, 256}) s.push_back(n);
  return s;
}
size_type batch_for(size_type n) { return n <= 33 ? 3 : 2; }
/// For large n only one interface per size (rotating) keeps the run time down.
std::vector<Iface> ifaces_for(size_type n) {
  if (n <= 65) return all_ifaces();
  return {all_ifaces()[size_t(n % 3)]};
}

/// Host Cholesky in double; the other triangle is NaN.
HostMat host_chol(const HostMat& a, Uplo uplo) {
  const size_type n = a.n;
  HostMat s = symmetrize(a, uplo), l(n, n, std::nan(""));
  for (size_type j = 0; j < n; ++j) {
    double d = s(j, j);
    for (size_type k = 0; k < j; ++k) d -= l(j, k) * l(j, k);
    l(j, j) = std::sqrt(d);
    for (size_type i = j + 1; i < n; ++i) {
      double v = s(i, j);
      for (size_type k = 0; k < j; ++k) v -= l(i, k) * l(j, k);
      l(i, j) = v / l(j, j);
    }
  }
  if (uplo == Uplo::Lower) return l;
  HostMat u(n, n);
  for (size_type j = 0; j < n; ++j)
    for (size_type i = 0; i < n; ++i) u(i, j) = l(j, i);
  return u;
}
/// Makes matrix `a` (one triangle stored) fail at 1-based column `col`.
void break_spd(HostMat& a, size_type col) { a(col - 1, col - 1) = -1.0; }

template <class T, class FStrided, class FPtr>
void dispatch(DevBatch<T>& d, FStrided strided, FPtr ptr) {
  if (d.iface == Iface::Left) strided(d.L);
  else if (d.iface == Iface::Right) strided(d.R);
  else ptr();
}

template <class T>
void check_potrf(size_type n, size_type nb, Uplo uplo, Iface iface, kb::BatchAlgo algo, size_type bad = -1,
                 size_type bad_col = 0) {
  if (bad_col <= 0) bad_col = (n + 1) / 2;
  SCOPED_TRACE(::testing::Message() << "potrf n=" << n << " nb=" << nb << " uplo=" << char(uplo) << " " << name(iface)
                                    << " " << name(algo) << " bad " << bad << " at column " << bad_col);
  std::vector<HostMat> h;
  for (size_type b = 0; b < nb; ++b) h.push_back(spd_one_triangle(n, uplo, unsigned(1000 * n + b % 17)));
  if (bad >= 0) break_spd(h[size_t(bad)], bad_col);
  DevBatch<T> d(h, n, n, iface);
  auto infos = poisoned_infos(nb);
  const kb::BatchOptions opts = test_options(algo);
  dispatch(d, [&](auto& v) { kb::potrf(Exec(), uplo, v, infos, opts); },
           [&] { kb::potrf(Exec(), uplo, nb, n, d.p(), d.ld, infos, opts); });
  Exec().fence();
  const auto res = d.to_host();
  const auto inf = to_host(infos);
  EXPECT_TRUE(d.padding_intact());
  int fails = 0;
  for (size_type b = 0; b < nb && fails < 3; ++b) {
    if (b == bad) {
      EXPECT_EQ(inf[b], int(bad_col)) << "matrix " << b;
      continue;
    }
    const bool ok_info = inf[b] == 0;
    const bool ok_tri = other_triangle_nan(res[b], uplo);
    const HostMat L = triangle(res[b], uplo);
    const HostMat A = symmetrize(h[b], uplo);
    const HostMat LLt = uplo == Uplo::Lower ? matmul(L, false, L, true) : matmul(L, true, L, false);
    const double err = diff_fro(LLt, A) / norm_fro(A);
    const bool ok = ok_info && ok_tri && err <= tolerance<T>(n);
    EXPECT_TRUE(ok) << "matrix " << b << " info " << inf[b] << " other-triangle-untouched " << ok_tri << " err " << err;
    fails += !ok;
  }
}

template <class T>
void check_potrs(size_type n, size_type nrhs, size_type nb, Uplo uplo, Iface iface, kb::BatchAlgo algo) {
  SCOPED_TRACE(::testing::Message() << "potrs n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo) << " "
                                    << name(iface) << " " << name(algo));
  std::vector<HostMat> a, f, bm;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(random_spd(n, unsigned(7 * n + b)));
    f.push_back(host_chol(a.back(), uplo));
    bm.push_back(random_matrix(n, nrhs, unsigned(99 + b)));
  }
  DevBatch<T> dA(f, n, n, iface), dB(bm, n, nrhs, iface);
  const kb::BatchOptions opts = test_options(algo);
  const Kokkos::View<int*, Mem> ok("infos", nb);  // every factor is valid
  if (iface == Iface::Left) kb::potrs(Exec(), uplo, dA.L, dB.L, ok, opts);
  else if (iface == Iface::Right) kb::potrs(Exec(), uplo, dA.R, dB.R, ok, opts);
  else kb::potrs(Exec(), uplo, nb, n, nrhs, dA.cp(), dA.ld, dB.p(), dB.ld, ok, opts);
  const auto x = dB.to_host();
  EXPECT_TRUE(dB.padding_intact());
  for (size_type b = 0; b < nb && nrhs > 0; ++b) {
    const HostMat r = matmul(a[b], false, x[b], false);
    const double err = diff_fro(r, bm[b]) / (norm_fro(a[b]) * norm_fro(x[b]) + norm_fro(bm[b]));
    EXPECT_LE(err, tolerance<T>(n)) << "matrix " << b;
  }
}

template <class T>
void check_posv(size_type n, size_type nrhs, size_type nb, Uplo uplo, Iface iface, kb::BatchAlgo algo, size_type bad) {
  SCOPED_TRACE(::testing::Message() << "posv n=" << n << " nrhs=" << nrhs << " uplo=" << char(uplo) << " "
                                    << name(iface) << " " << name(algo));
  std::vector<HostMat> a, bm;
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(spd_one_triangle(n, uplo, unsigned(5 * n + b)));
    bm.push_back(random_matrix(n, nrhs, unsigned(77 + b)));
  }
  if (bad >= 0) break_spd(a[size_t(bad)], 1);
  DevBatch<T> dA(a, n, n, iface), dB(bm, n, nrhs, iface);
  auto infos = poisoned_infos(nb);
  const kb::BatchOptions opts = test_options(algo);
  if (iface == Iface::Left) kb::posv(Exec(), uplo, dA.L, dB.L, infos, opts);
  else if (iface == Iface::Right) kb::posv(Exec(), uplo, dA.R, dB.R, infos, opts);
  else kb::posv(Exec(), uplo, nb, n, nrhs, dA.p(), dA.ld, dB.p(), dB.ld, infos, opts);
  const auto x = dB.to_host();
  const auto inf = to_host(infos);
  for (size_type b = 0; b < nb; ++b) {
    if (b == bad) {
      EXPECT_EQ(inf[b], 1);
      HostMat input = bm[b];
      for (auto& v : input.a) v = double(T(v));
      EXPECT_EQ(diff_fro(x[b], input), 0.0) << "B of a failed matrix must stay untouched";
      continue;
    }
    EXPECT_EQ(inf[b], 0);
    const HostMat A = symmetrize(a[b], uplo);
    const double err = diff_fro(matmul(A, false, x[b], false), bm[b]) / (norm_fro(A) * norm_fro(x[b]) + norm_fro(bm[b]));
    EXPECT_LE(err, tolerance<T>(n)) << "matrix " << b;
  }
}

/// op: 0 trtri, 1 lauum, 2 potri, 3 poti.
template <class T>
void check_invert(int op, size_type n, size_type nb, Uplo uplo, Diag diag, Iface iface, kb::BatchAlgo algo,
                  size_type bad = -1) {
  static const char* names[] = {"trtri", "lauum", "potri", "poti"};
  SCOPED_TRACE(::testing::Message() << names[op] << " n=" << n << " uplo=" << char(uplo) << " diag=" << char(diag)
                                    << " " << name(iface) << " " << name(algo));
  std::vector<HostMat> in, spd;
  for (size_type b = 0; b < nb; ++b) {
    const unsigned seed = unsigned(31 * n + b);
    if (op <= 1) in.push_back(random_triangular(n, uplo, op == 0 ? diag : Diag::NonUnit, seed));
    else {
      spd.push_back(random_spd(n, seed));
      in.push_back(op == 2 ? host_chol(spd.back(), uplo) : spd_one_triangle(n, uplo, seed));
    }
  }
  if (bad >= 0) {
    if (op == 3) break_spd(in[size_t(bad)], n);
    else in[size_t(bad)](n - 1, n - 1) = 0.0;  // singular factor
  }
  DevBatch<T> d(in, n, n, iface);
  auto infos = poisoned_infos(nb);
  if (op == 2) Kokkos::deep_copy(infos, 0);  // potri reads potrf's infos: every factor valid
  const kb::BatchOptions opts = test_options(algo);
  dispatch(
      d,
      [&](auto& v) {
        if (op == 0) kb::trtri(Exec(), uplo, diag, v, infos, opts);
        if (op == 1) kb::lauum(Exec(), uplo, v, opts);
        if (op == 2) kb::potri(Exec(), uplo, v, infos, opts);
        if (op == 3) kb::poti(Exec(), uplo, v, infos, opts);
      },
      [&] {
        if (op == 0) kb::trtri(Exec(), uplo, diag, nb, n, d.p(), d.ld, infos, opts);
        if (op == 1) kb::lauum(Exec(), uplo, nb, n, d.p(), d.ld, opts);
        if (op == 2) kb::potri(Exec(), uplo, nb, n, d.p(), d.ld, infos, opts);
        if (op == 3) kb::poti(Exec(), uplo, nb, n, d.p(), d.ld, infos, opts);
      });
  const auto res = d.to_host();
  const auto inf = to_host(infos);
  EXPECT_TRUE(d.padding_intact());
  for (size_type b = 0; b < nb; ++b) {
    if (b == bad) {
      EXPECT_EQ(inf[b], int(n)) << "matrix " << b;
      continue;
    }
    if (op != 1) EXPECT_EQ(inf[b], 0) << "matrix " << b;
    EXPECT_TRUE(other_triangle_nan(res[b], uplo)) << "matrix " << b << ": the other triangle was written";
    double err = 0, tol = tolerance<T>(n);
    if (op == 0) {
      if (diag == Diag::Unit)
        for (size_type i = 0; i < n; ++i) EXPECT_TRUE(std::isnan(res[b](i, i))) << "unit diagonal was written";
      const HostMat P = matmul(triangle(in[b], uplo, diag), false, triangle(res[b], uplo, diag), false);
      err = diff_fro(P, identity(n)) / std::sqrt(double(n));
    } else if (op == 1) {
      const HostMat L = triangle(in[b], uplo);
      const HostMat ref = uplo == Uplo::Lower ? matmul(L, true, L, false) : matmul(L, false, L, true);
      err = diff_fro(triangle(ref, uplo), triangle(res[b], uplo)) / norm_fro(ref);
    } else {
      const HostMat X = symmetrize(res[b], uplo);
      err = diff_fro(matmul(spd[b], false, X, false), identity(n)) / (norm_fro(spd[b]) * norm_fro(X));
    }
    EXPECT_LE(err, tol) << "matrix " << b;
  }
}

template <class T>
struct BatchedFactor : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(BatchedFactor, ScalarTypes);

TYPED_TEST(BatchedFactor, PotrfAllSizesLayoutsInterfacesAlgos) {
  for (size_type n : main_sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : ifaces_for(n))
        for (auto algo : algos_for(n)) check_potrf<TypeParam>(n, batch_for(n), uplo, iface, algo);
}
TYPED_TEST(BatchedFactor, PotrfNonSpdInTheMiddleReportsItsColumn) {
  for (size_type n : {1, 2, 5, 8, 17, 33, 64})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : algos_for(n)) check_potrf<TypeParam>(n, 5, uplo, iface, algo, 2);
}
/// The group POTRF (GPUs, 8 < n <= 32) with every step synchronization (team barrier, warp
/// barrier, warp shuffles) and team size, batches that leave a partial team, a failing matrix
/// in the middle (first, middle, last column). Host backends take their own paths here (the
/// group kernel needs 64+ threads per team), so there this checks the options are harmless.
TYPED_TEST(BatchedFactor, GroupPotrfVariants) {
  using G = kb::Impl::PotrfSync;
  const bool gpu = !std::is_same<Mem, Kokkos::HostSpace>::value;
  for (G v : {G::Auto, G::TeamSync, G::WarpSync, G::Shuffle})
    for (int team : {0, 64, 256}) {
      const bool variant = v == G::TeamSync || v == G::Shuffle || team == 64 || team == 256;
      if (!kb::Impl::kAllVariants && variant) continue;  // compiled only with KSPD_BATCHED_ALL_VARIANTS
      if (!gpu && team == 64) continue;
      kb::Impl::TuningOverride o;
      o.potrf_sync = v;
      o.potrf_group_team = team;
      const kb::Impl::TuningScope scope(o);
      for (size_type n : {9, 15, 16, 17, 24, 31, 32})
        for (Uplo uplo : all_uplos())
          for (Iface iface : all_ifaces()) {
            for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Register}) check_potrf<TypeParam>(n, 37, uplo, iface, algo);
            check_potrf<TypeParam>(n, 37, uplo, iface, kb::BatchAlgo::Auto, 18, 1);
            check_potrf<TypeParam>(n, 37, uplo, iface, kb::BatchAlgo::Auto, 18, n - 2);
            check_potrf<TypeParam>(n, 37, uplo, iface, kb::BatchAlgo::Register, 36, n);
          }
    }
}
/// The streaming POTRS (8 < n <= 32; forced by BatchAlgo::Register, which runs it on host
/// backends too) with the size class 24, chunked thread orders and launch bounds (GPUs).
TYPED_TEST(BatchedFactor, StreamPotrsVariants) {
  for (bool class24 : {false, true})
    for (int chunk : {0, 7, 32}) {
      const int min_blocks = chunk == 0 ? 0 : chunk == 7 ? 4 : 8;
      if (!kb::Impl::kAllVariants && (class24 || min_blocks != 0)) {  // only the defaults are compiled
        if (class24 || chunk == 0) continue;
      }
      kb::Impl::TuningOverride o;
      o.stream_class24 = class24 ? 1 : 0;
      o.stream_chunk = chunk;
      o.stream_min_blocks = kb::Impl::kAllVariants ? min_blocks : 0;
      const kb::Impl::TuningScope scope(o);
      for (size_type n : {9, 15, 16, 17, 24, 31, 32})
        for (size_type nrhs : {1, 3, 33})
          for (Uplo uplo : all_uplos())
            check_potrs<TypeParam>(n, nrhs, 45, uplo, all_ifaces()[size_t((n + nrhs) % 3)], kb::BatchAlgo::Register);
    }
}
/// Host backends' register family, the lane kernels (n <= 16: a thread runs 8 fp64 / 16 fp32
/// matrices in lockstep; GPUs: the register / group kernels): batches of two full groups and a
/// partial one, so the batch-first contiguous load and the padded lanes both run; every uplo
/// and interface; a non-SPD matrix in a full group (first column), one in the partial group
/// (middle column) and, through Auto, one ending the first group (last column); n around the
/// 8 / 16 boundaries and 17 (the next family).
TYPED_TEST(BatchedFactor, RegisterLanesPotrfPotrs) {
  const size_type W = kb::Impl::lanes_v<TypeParam>, nb = 2 * W + 3;
  for (size_type n : {1, 2, 3, 7, 8, 9, 12, 15, 16, 17})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces()) {
        check_potrf<TypeParam>(n, nb, uplo, iface, kb::BatchAlgo::Register);
        check_potrf<TypeParam>(n, nb, uplo, iface, kb::BatchAlgo::Register, W + 2, 1);
        check_potrf<TypeParam>(n, nb, uplo, iface, kb::BatchAlgo::Register, 2 * W + 1, (n + 1) / 2);
        check_potrf<TypeParam>(n, nb, uplo, iface, kb::BatchAlgo::Auto, W - 1, n);
        for (size_type nrhs : {1, 4}) check_potrs<TypeParam>(n, nrhs, nb, uplo, iface, kb::BatchAlgo::Register);
      }
}
/// The shared-memory POTRF (CUDA, 8-column blocks, MMA tile updates; fp64 n <= 128, fp32 n <=
/// 256) forced for every n through the tuning override, odd / even n, partial 8-blocks, every
/// uplo and interface, a non-SPD matrix failing in the first, middle and last column; fp64
/// above 128 the recursion with shared-memory leaves. POTRS on the same override (its two
/// TRSMs). Host backends take their own paths (the override is inert there).
TYPED_TEST(BatchedFactor, SmemPotrfPotrs) {
  kb::Impl::TuningOverride o;
  o.smem_potrf_min = o.smem_trsm_min = 1;
  o.smem_potrf_max = o.smem_trsm_max = 256;
  const kb::Impl::TuningScope scope(o);
  for (size_type n : {1, 7, 8, 9, 17, 24, 31, 32, 33, 64, 65, 127, 128, 129, 200, 255, 256})
    for (Uplo uplo : all_uplos())
      for (Iface iface : n <= 65 ? all_ifaces() : ifaces_for(n + (uplo == Uplo::Upper))) {
        check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto);
        check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto, 0, 1);
        check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto, 2);
        check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto, 4, n);
      }
  // n <= 32: a warp per matrix, several matrices per block; a batch of 37 leaves a partial
  // block, the failing matrix sits mid-block.
  for (size_type n : {3, 8, 9, 16, 17, 24, 31, 32})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces()) check_potrf<TypeParam>(n, 37, uplo, iface, kb::BatchAlgo::Auto, 18, (n + 1) / 2);
  for (size_type n : {17, 33, 64, 127, 128, 200})
    for (Uplo uplo : all_uplos())
      for (size_type nrhs : {1, 17}) check_potrs<TypeParam>(n, nrhs, 3, uplo, all_ifaces()[size_t((n + nrhs) % 3)], kb::BatchAlgo::Auto);
}
/// The block-per-matrix shared-memory POTRF on batch-first data in thread-block clusters of 2,
/// 4 and 8 blocks (Tuning::smem_cluster_potrf: the cluster loads and stores its matrices together,
/// each into its owner's shared memory), forced for every n (the warp-per-matrix kernel off):
/// odd / even n, partial 8-blocks, fp64 above 128 the recursion with clustered leaves; batches
/// of 11 (n > 64: 5, one uplo per cluster size: the host references' cost) leave a partial
/// last cluster. A non-SPD matrix mid-cluster (4 / 1, late column) and in the last, partial
/// cluster (10 / 4) reports its column; POSV leaves its right-hand side untouched (index 4 of
/// 7 / 2 of 5); POTRS with 17 right-hand sides (n <= 64: 1 too). Column-major data ignores the
/// clusters (TableBoundariesByLayout, SmemPotrfPotrs). Host backends: the override is inert.
/// A cluster size the kernels do not take is an InvalidArgument.
TYPED_TEST(BatchedFactor, SmemPotrfClusters) {
  for (int cluster : {2, 4, 8}) {
    SCOPED_TRACE(::testing::Message() << "cluster " << cluster);
    kb::Impl::TuningOverride o;
    o.smem_potrf_min = o.smem_trsm_min = 1;
    o.smem_potrf_max = o.smem_trsm_max = 256;
    o.smem_potrf_warp_max = o.smem_trsm_warp_max = 0;
    o.smem_cluster = cluster;
    const kb::Impl::TuningScope scope(o);
    for (size_type n : {1, 8, 17, 31, 33, 64, 95, 97, 127, 128, 129, 255, 256})
      for (Uplo uplo : all_uplos()) {
        // n > 64 (the host references' cost): one uplo per cluster size, 5 matrices.
        const bool big = n > 64;
        if (big && (uplo == Uplo::Lower) != ((n + size_type(cluster)) % 2 == 0)) continue;
        const size_type nb = big ? 5 : 11;
        // (bad matrix, its column): none; mid-cluster, late; the last, partial cluster, middle.
        for (int c = big ? 1 : 0; c < 3; ++c)
          check_potrf<TypeParam>(n, nb, uplo, Iface::Left, kb::BatchAlgo::Auto, c == 0 ? -1 : c == 1 ? nb / 2 - 1 : nb - 1,
                                 c == 1 ? n - n / 4 : (n + 1) / 2);
        check_posv<TypeParam>(n, 3, big ? 5 : 7, uplo, Iface::Left, kb::BatchAlgo::Auto, big ? 2 : 4);
        for (size_type nrhs : {1, 17})
          if (!big || nrhs > 1) check_potrs<TypeParam>(n, nrhs, 5, uplo, Iface::Left, kb::BatchAlgo::Auto);
      }
  }
  kb::Impl::TuningOverride bad;
  bad.smem_cluster = 3;
  EXPECT_THROW(kb::Impl::TuningScope{bad}, kspd::InvalidArgument);
}
/// The tuning table's defaults around its boundaries in each layout class: batch-first
/// (LayoutLeft) and column-major matrices (LayoutRight, pointer arrays: the *_cm ranges, and
/// the recursion's cuBLAS gemmBatched over sub-block pointers on pointer arrays). POTRF with a
/// matrix failing mid-batch, POTRS with 1 and 17 right-hand sides, odd / even n. Then POTRS of
/// n <= 32 on the warp-per-matrix TRSM for column-major matrices (smem_trsm_warp_cols_cm = 1:
/// fewer than 16 right-hand sides), batches of 37 (a partial block of matrices). In between,
/// POTRF (a matrix failing near its end) / POTRS above 128 on batch-first data.
TYPED_TEST(BatchedFactor, TableBoundariesByLayout) {
  for (size_type n : {32, 33, 64, 65, 96, 97, 128, 129, 192, 255, 256})
    for (Iface iface : all_ifaces()) {
      const Uplo uplo = n % 2 ? Uplo::Upper : Uplo::Lower;
      check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto, 2, n / 3 + 1);
      for (size_type nrhs : {1, 17}) check_potrs<TypeParam>(n, nrhs, 3, uplo, iface, kb::BatchAlgo::Auto);
    }
  for (size_type n : {129, 200, 256})  // batch-first: the TRSM's leaf caps, a failure late in the matrix
    for (Uplo uplo : all_uplos()) {
      check_potrf<TypeParam>(n, 9, uplo, Iface::Left, kb::BatchAlgo::Auto, 4, n - 3);
      check_potrs<TypeParam>(n, 17, 3, uplo, Iface::Left, kb::BatchAlgo::Auto);
    }
  kb::Impl::TuningOverride o;
  o.smem_trsm_warp_cols_cm = 1;
  const kb::Impl::TuningScope scope(o);
  for (size_type n : {9, 16, 17, 24, 31, 32})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (size_type nrhs : {1, 3, 17}) check_potrs<TypeParam>(n, nrhs, 37, uplo, iface, kb::BatchAlgo::Auto);
}
/// Batch-first POTRF / POTRS / POSV chunk by chunk through column-major copies (the tuning
/// table's bf_repack_kib, forced): chunks of one matrix, about three (the last partial) and the
/// whole batch of 11 / 7, with and without the forced recursion, odd / even n. A matrix failing
/// mid-chunk (index 4) or in the last one (10) reports its index and column (late in the
/// matrix: the recursion's second leaf); POSV leaves a failed matrix's right-hand side untouched.
TYPED_TEST(BatchedFactor, BatchFirstChunkedRepack) {
  for (bool recurse : {false, true})
    for (size_type n : {1, 2, 7, 8, 33, 64, 65, 100})
      for (int kib : repack_kibs<TypeParam>(n, 3)) {
        SCOPED_TRACE(::testing::Message() << "repack " << kib << " KiB, recursion " << recurse);
        const ForceRepack repack(kib, recurse);
        for (Uplo uplo : all_uplos()) {
          check_potrf<TypeParam>(n, 11, uplo, Iface::Left, kb::BatchAlgo::Auto, 4, (n + 1) / 2);
          check_potrf<TypeParam>(n, 11, uplo, Iface::Left, kb::BatchAlgo::Auto, 10, n);
          for (size_type nrhs : {1, 4}) check_potrs<TypeParam>(n, nrhs, 7, uplo, Iface::Left, kb::BatchAlgo::Auto);
          check_posv<TypeParam>(n, 3, 7, uplo, Iface::Left, kb::BatchAlgo::Auto, 4);
        }
      }
}
TYPED_TEST(BatchedFactor, PotrfBatchOfOneAnd70000) {
  for (Iface iface : all_ifaces()) {
    check_potrf<TypeParam>(4, 1, Uplo::Lower, iface, kb::BatchAlgo::Auto);
    check_potrf<TypeParam>(3, 70000, Uplo::Lower, iface, kb::BatchAlgo::Auto, 35001);
    check_potrf<TypeParam>(2, 70000, Uplo::Upper, iface, kb::BatchAlgo::Serial, 69999);
  }
  check_potrf<TypeParam>(2, 70000, Uplo::Upper, Iface::Left, kb::BatchAlgo::Team, 0);
}
TYPED_TEST(BatchedFactor, PotrsAllSizesAnyNrhs) {
  for (size_type n : main_sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : ifaces_for(n))
        for (auto algo : algos_for(n)) check_potrs<TypeParam>(n, n <= 33 ? 1 + n % 4 : 3, batch_for(n), uplo, iface, algo);
  for (Iface iface : all_ifaces()) {
    check_potrs<TypeParam>(5, 0, 2, Uplo::Lower, iface, kb::BatchAlgo::Auto);
    check_potrs<TypeParam>(3, 17, 1, Uplo::Upper, iface, kb::BatchAlgo::Auto);
    check_potrs<TypeParam>(2, 1, 70000, Uplo::Lower, iface, kb::BatchAlgo::Auto);
  }
}
TYPED_TEST(BatchedFactor, PosvSolvesAndSkipsFailedMatrices) {
  for (size_type n : {1, 3, 8, 9, 16, 31, 65})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces())
        for (auto algo : algos_for(n)) check_posv<TypeParam>(n, 2, 4, uplo, iface, algo, 1);
}
TYPED_TEST(BatchedFactor, TrtriLauumPotriPoti) {
  for (int op = 0; op < 4; ++op)
    for (size_type n : {1, 2, 3, 4, 7, 8, 13, 16, 32, 33, 64, 65})
      for (Uplo uplo : all_uplos())
        for (Diag diag : op == 0 ? all_diags() : std::vector<Diag>{Diag::NonUnit})
          for (Iface iface : all_ifaces())
            for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
              check_invert<TypeParam>(op, n, 3, uplo, diag, iface, algo, op == 1 || diag == Diag::Unit ? -1 : 1);
  for (int op = 0; op < 4; ++op) check_invert<TypeParam>(op, 129, 1, Uplo::Lower, Diag::NonUnit, Iface::Left, kb::BatchAlgo::Auto);
}

/// The two-sided recursion, forced on every backend (the host backends would otherwise run
/// these sizes as a loop of host LAPACK calls): leaves of 32 (and of 16 with the serial /
/// team kernel families, which also runs the tiled batched GEMM on the host).
std::vector<Iface> rec_ifaces(size_type n) {
  if (n <= 65) return all_ifaces();
  return {Iface::Left, n % 2 ? Iface::Right : Iface::Pointer};
}
TYPED_TEST(BatchedFactor, RecursivePotrfFailsInTheSecondHalf) {
  const ForceRecursion force;
  for (size_type n : recursion_sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : rec_ifaces(n)) {
        const size_type n1 = kb::Impl::rec_split(n);
        check_potrf<TypeParam>(n, 5, uplo, iface, kb::BatchAlgo::Auto, 2, n1 + 1 + (n - n1) / 2);
        check_potrf<TypeParam>(n, 3, uplo, iface, kb::BatchAlgo::Auto, 0, n1 + 1);
      }
  check_potrf<TypeParam>(100, 4, Uplo::Lower, Iface::Left, kb::BatchAlgo::Auto, 3, 20);  // first half
}
TYPED_TEST(BatchedFactor, RecursiveLeafFamilies) {
  const ForceRecursion force(16);
  for (size_type n : {33, 65, 100})
    for (Uplo uplo : all_uplos())
      for (auto algo : {kb::BatchAlgo::Serial, kb::BatchAlgo::Team}) {
        const Iface iface = all_ifaces()[size_t(n % 3)];
        check_potrf<TypeParam>(n, 3, uplo, iface, algo, 1, n - 1);
        check_potrs<TypeParam>(n, 2, 2, uplo, iface, algo);
        for (int op = 0; op < 4; ++op) check_invert<TypeParam>(op, n, 2, uplo, Diag::NonUnit, iface, algo, op == 1 ? -1 : 1);
      }
}
TYPED_TEST(BatchedFactor, RecursivePotrsPosv) {
  const ForceRecursion force;
  for (size_type n : recursion_sizes())
    for (Uplo uplo : all_uplos())
      for (Iface iface : rec_ifaces(n)) check_potrs<TypeParam>(n, n % 3 + 1, 3, uplo, iface, kb::BatchAlgo::Auto);
  for (size_type n : {33, 65, 128})
    for (Uplo uplo : all_uplos())
      for (Iface iface : all_ifaces()) check_posv<TypeParam>(n, 2, 4, uplo, iface, kb::BatchAlgo::Auto, 1);
}
TYPED_TEST(BatchedFactor, RecursiveTrtriLauumPotriPoti) {
  const ForceRecursion force;
  for (int op = 0; op < 4; ++op)
    for (size_type n : recursion_sizes())
      for (Uplo uplo : all_uplos())
        for (Diag diag : op == 0 ? all_diags() : std::vector<Diag>{Diag::NonUnit})
          for (Iface iface : n <= 65 ? all_ifaces() : std::vector<Iface>{all_ifaces()[size_t(n % 3)]})
            check_invert<TypeParam>(op, n, 3, uplo, diag, iface, kb::BatchAlgo::Auto,
                                    op == 1 || diag == Diag::Unit ? -1 : 1);
}

/// Variable-size batches: sizes 0..40 and one large matrix, offsets into one buffer.
template <class T>
void check_vbatched_potrf_potrs(Uplo uplo, kb::BatchAlgo algo, bool pointers) {
  SCOPED_TRACE(::testing::Message() << "vbatched uplo=" << char(uplo) << " " << name(algo) << " ptr=" << pointers);
  const size_type nb = 45;
  std::vector<int> ns(nb), nrhs(nb);
  std::vector<kspd::offset_type> aoff(nb), boff(nb);
  kspd::offset_type atot = 0, btot = 0;
  for (size_type b = 0; b < nb; ++b) {
    ns[b] = b == 20 ? 100 : int((b * 7) % 41);
    nrhs[b] = int(b % 3);
    aoff[b] = atot;
    boff[b] = btot;
    atot += ns[b] * ns[b] + 1;  // one NaN gap between matrices
    btot += ns[b] * nrhs[b] + 1;
  }
  std::vector<HostMat> a, bm;
  Kokkos::View<T*, Mem> A("A", size_t(atot)), B("B", size_t(btot));
  auto hA = Kokkos::create_mirror_view(A);
  auto hB = Kokkos::create_mirror_view(B);
  Kokkos::deep_copy(hA, poison<T>());
  Kokkos::deep_copy(hB, poison<T>());
  const size_type bad = 9;  // ns = 22
  for (size_type b = 0; b < nb; ++b) {
    a.push_back(spd_one_triangle(ns[b], uplo, unsigned(b)));
    if (b == bad) break_spd(a.back(), 4);
    bm.push_back(random_matrix(ns[b], nrhs[b], unsigned(300 + b)));
    for (int j = 0; j < ns[b]; ++j) {
      for (int i = 0; i < ns[b]; ++i) hA(size_t(aoff[b] + i + j * ns[b])) = T(a[b](i, j));
      for (int i = 0; i < ns[b] && j < nrhs[b]; ++i) hB(size_t(boff[b] + i + j * ns[b])) = T(bm[b](i, j));
    }
  }
  Kokkos::deep_copy(A, hA);
  Kokkos::deep_copy(B, hB);
  Kokkos::View<int*, Mem> dns("ns", nb), dnrhs("nrhs", nb);
  Kokkos::View<kspd::offset_type*, Mem> daoff("aoff", nb), dboff("boff", nb);
  Kokkos::deep_copy(dns, Kokkos::View<int*, Kokkos::HostSpace>(ns.data(), nb));
  Kokkos::deep_copy(dnrhs, Kokkos::View<int*, Kokkos::HostSpace>(nrhs.data(), nb));
  Kokkos::deep_copy(daoff, Kokkos::View<kspd::offset_type*, Kokkos::HostSpace>(aoff.data(), nb));
  Kokkos::deep_copy(dboff, Kokkos::View<kspd::offset_type*, Kokkos::HostSpace>(boff.data(), nb));
  auto infos = poisoned_infos(nb);
  const kb::BatchOptions opts = test_options(algo);
  if (pointers) {
    Kokkos::View<std::uintptr_t*, Mem> ptrs("ptrs", nb);
    auto hp = Kokkos::create_mirror_view(ptrs);
    for (size_type b = 0; b < nb; ++b) hp(b) = reinterpret_cast<std::uintptr_t>(A.data() + aoff[b]);
    Kokkos::deep_copy(ptrs, hp);
    kb::potrf_vbatched(Exec(), uplo, dns, reinterpret_cast<T* const*>(ptrs.data()), dns, infos, opts);
  } else {
    kb::potrf_vbatched(Exec(), uplo, dns, kb::var_mats(A, daoff), infos, opts);
  }
  kb::potrs_vbatched(Exec(), uplo, dns, dnrhs, kb::var_mats(A, daoff), kb::var_mats(B, dboff), infos, opts);
  Kokkos::deep_copy(hA, A);
  Kokkos::deep_copy(hB, B);
  const auto inf = to_host(infos);
  for (size_type b = 0; b < nb; ++b) {
    const int n = ns[b];
    if (b == bad) {
      EXPECT_EQ(inf[b], 4);
      continue;
    }
    EXPECT_EQ(inf[b], 0) << "matrix " << b;
    HostMat L(n, n), X(n, nrhs[b]);
    for (int j = 0; j < n; ++j) {
      for (int i = 0; i < n; ++i) L(i, j) = double(hA(size_t(aoff[b] + i + j * n)));
      for (int i = 0; i < n && j < nrhs[b]; ++i) X(i, j) = double(hB(size_t(boff[b] + i + j * n)));
    }
    EXPECT_TRUE(other_triangle_nan(L, uplo));
    const HostMat T_ = triangle(L, uplo);
    const HostMat A_ = symmetrize(a[b], uplo);
    const HostMat LLt = uplo == Uplo::Lower ? matmul(T_, false, T_, true) : matmul(T_, true, T_, false);
    if (n > 0) EXPECT_LE(diff_fro(LLt, A_) / norm_fro(A_), tolerance<T>(n)) << "matrix " << b;
    if (n > 0 && nrhs[b] > 0) {
      const double err = diff_fro(matmul(A_, false, X, false), bm[b]) / (norm_fro(A_) * norm_fro(X) + norm_fro(bm[b]));
      EXPECT_LE(err, tolerance<T>(n)) << "matrix " << b;
    }
  }
  for (size_type b = 0; b < nb; ++b) {  // the gaps between matrices stay NaN
    EXPECT_TRUE(std::isnan(double(hA(size_t(aoff[b] + ns[b] * ns[b])))));
    EXPECT_TRUE(std::isnan(double(hB(size_t(boff[b] + ns[b] * nrhs[b])))));
  }
}
TYPED_TEST(BatchedFactor, VariableSizePotrfPotrs) {
  for (Uplo uplo : all_uplos())
    for (auto algo : {kb::BatchAlgo::Auto, kb::BatchAlgo::Serial, kb::BatchAlgo::Team})
      for (bool ptr : {false, true}) check_vbatched_potrf_potrs<TypeParam>(uplo, algo, ptr);
}

}  // namespace
