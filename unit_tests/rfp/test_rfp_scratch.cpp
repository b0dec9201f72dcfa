// pftrf and pftri through core's kept scratch (kspd_stream_scratch.hpp, issue #14): the
// per-step infos, the transposed copy of an upper-stored half, the look-ahead's panel copy,
// the BLAS-3 inverse's workspace and Blocking::Dense's n x n one are kept per stream across calls. Repeated calls on one
// instance and on two, sizes growing and shrinking, non-SPD matrices between SPD ones (every
// step writes its own info: a failed call's infos must not leak into the next one), all 4
// variants, float and double, against LAPACK's own ?pftrf / ?pftri on the same RFP buffer. On
// CUDA a repeated pftrf of a size already seen allocates nothing of kspd's (Kokkos Tools callback).
#include <cstdint>
#include <type_traits>

#include "rfp_test_common.hpp"

namespace {
using namespace kspd::test;
using namespace kspd::test::rfp;

template <class T>
struct RfpScratch : ::testing::Test {};
using ScalarTypes = ::testing::Types<float, double>;
TYPED_TEST_SUITE(RfpScratch, ScalarTypes);

char tr(const Variant& v) { return kspd::to_char(v.transr); }
char ul(const Variant& v) { return kspd::to_char(v.uplo); }

/// Two instances: two streams on CUDA (each has its own kept buffers), else the default twice.
std::vector<Exec> two_instances() {
#if defined(KOKKOS_ENABLE_CUDA)
  if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {
    const auto p = Kokkos::Experimental::partition_space(Exec(), 1, 1);
    return std::vector<Exec>(p.begin(), p.end());
  }
#endif
  return {Exec(), Exec()};
}

/// Counts kspd's own Kokkos allocations (labels "kspd::...") while alive, and the names of
/// the others (Kokkos' internal team scratch and the like are Kokkos' business), restoring
/// the previous callbacks.
class CountAllocations {
 public:
  CountAllocations() : saved_(Kokkos::Tools::Experimental::get_callbacks()) {
    count() = 0;
    others().clear();
    Kokkos::Tools::Experimental::set_allocate_data_callback(
        [](Kokkos_Profiling_SpaceHandle, const char* name, const void*, uint64_t) {
          if (name && std::string(name).rfind("kspd", 0) == 0) ++count();
          else others() += std::string(name ? name : "?") + "; ";
        });
  }
  static std::string& others() {
    static std::string o;
    return o;
  }
  ~CountAllocations() { Kokkos::Tools::Experimental::set_callbacks(saved_); }
  CountAllocations(const CountAllocations&) = delete;
  CountAllocations& operator=(const CountAllocations&) = delete;
  static long& count() {
    static long c = 0;
    return c;
  }

 private:
  Kokkos::Tools::Experimental::EventSet saved_;
};

struct Case {
  int n;
  int k;  // 0: SPD; else the failing leading minor (1-based)
};

/// pftrf of A (minor k made negative when k > 0) on `exec` against LAPACK: the same info; for
/// k = 0 the same factor and, through pftri, the same inverse.
template <class T>
void check_case(const Exec& exec, const Case& c, const Variant& v, const kspd::DenseOptions& opt, unsigned seed,
                const std::string& where) {
  HostMat A = random_spd(c.n, seed);
  if (c.k > 0) A(c.k - 1, c.k - 1) = -1.0;
  auto ref = lapack_rfp<T>(A, v);
  auto R = device_rfp(ref, c.n, v);
  int linfo = 0;
  lapack_pftrf(tr(v), ul(v), c.n, ref.data(), &linfo);
  ASSERT_EQ(linfo, c.k) << "LAPACK " << where;
  ASSERT_EQ(kspd::rfp::pftrf(exec, R, opt), c.k) << where;
  if (c.k > 0) return;
  const double scale = 1.0 + max_abs(A);
  EXPECT_LE(max_rel_diff(host_rfp(R), ref, scale), tolerance<T>(c.n)) << "factor vs LAPACK pftrf " << where;
  lapack_pftri(tr(v), ul(v), c.n, ref.data(), &linfo);
  ASSERT_EQ(linfo, 0) << "LAPACK pftri " << where;
  ASSERT_EQ(kspd::rfp::pftri(exec, R, opt), 0) << where;
  const auto got = host_rfp(R);
  const HostMat Ainv = full_from_rfp(got, c.n, v);
  EXPECT_LE(max_rel_diff(got, ref, 1.0 + max_abs(Ainv)), tolerance<T>(c.n, 50)) << "inverse vs LAPACK pftri " << where;
  HostMat P = matmul(A, false, Ainv, false);
  for (int i = 0; i < c.n; ++i) P(i, i) -= 1.0;
  EXPECT_LE(norm_fro(P) / (norm_fro(A) * norm_fro(Ainv) + 1e-300), tolerance<T>(c.n)) << "A inv(A) - I " << where;
}

TYPED_TEST(RfpScratch, RepeatedCallsAcrossSizesInstancesAndFailures) {
  using T = TypeParam;
  using B = kspd::Blocking;
  const kspd::Toggle On = kspd::Toggle::On;
  // Split with every upper half through the transposed copy and the BLAS-3 inverse (their
  // slots), look-ahead with the panel copy (its slot, on the urgent lane), core's Auto
  const std::vector<kspd::DenseOptions> opts = {{kspd::Algo::Auto, 0, B::Split, 0, On, On},
                                                {kspd::Algo::Auto, 0, B::LookAhead, 8, On, On},
                                                {kspd::Algo::Auto, 0, B::Blocked, 16, On, kspd::Toggle::Auto},
                                                {kspd::Algo::Auto, 0, B::Dense, 0},
                                                {}};
  // the buffers grow (65 -> 129), shrink (17) and grow back; failures at the first column, in
  // each half and at the last one, each followed by an SPD matrix of the same size
  const std::vector<Case> cases = {{65, 0}, {33, 0}, {65, 5},  {65, 0},  {129, 0}, {129, 120},
                                   {17, 0}, {17, 17}, {64, 0}, {64, 33}, {64, 0},  {129, 0}};
  const auto inst = two_instances();
  unsigned seed = 31000;
  for (const auto& opt : opts)
    for (const auto& v : all_variants())
      for (size_t i = 0; i < cases.size(); ++i) {
        const std::string where = name(v, cases[i].n) + " k=" + std::to_string(cases[i].k) + " blocking=" +
                                  std::to_string(int(opt.blocking)) + " instance " + std::to_string(i % 2);
        check_case<T>(inst[i % 2], cases[i], v, opt, ++seed, where);
      }
}

// On CUDA the second pftrf of a size on the same instance takes every workspace from the
// kept scratch: no kspd allocation (vendor leaves: the native ones keep their own info int).
TYPED_TEST(RfpScratch, RepeatedPftrfAllocatesNothingOnCuda) {
  using T = TypeParam;
  using B = kspd::Blocking;
  const kspd::Toggle On = kspd::Toggle::On;
  for (const kspd::DenseOptions& opt : {kspd::DenseOptions{kspd::Algo::Vendor, 0, B::Split, 0, On},
                                        kspd::DenseOptions{kspd::Algo::Vendor, 0, B::LookAhead, 16, On},
                                        kspd::DenseOptions{kspd::Algo::Vendor, 0, B::Dense, 0}})
    for (const auto& v : all_variants()) {
      const int n = 97;
      const HostMat A = random_spd(n, 4100 + unsigned(opt.blocking));
      const auto ref = lapack_rfp<T>(A, v);
      auto R = device_rfp(ref, n, v);
      const Exec exec;
      ASSERT_EQ(kspd::rfp::pftrf(exec, R, opt), 0) << name(v, n);  // takes the buffers
      auto R2 = device_rfp(ref, n, v);
      long allocations = 0;
      {
        CountAllocations counter;
        ASSERT_EQ(kspd::rfp::pftrf(exec, R2, opt), 0) << name(v, n);
        allocations = CountAllocations::count();
      }
      EXPECT_EQ(max_rel_diff(host_rfp(R2), host_rfp(R), 1.0), 0.0) << "the same factor twice " << name(v, n);
      if constexpr (kspd::compat::is_cuda_exec_v<Exec>)
        EXPECT_EQ(allocations, 0) << name(v, n) << " blocking=" << int(opt.blocking)
                                  << " (other allocations: " << CountAllocations::others() << ")";
    }
}

}  // namespace
