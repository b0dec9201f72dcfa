#ifndef KSPD_BATCHED_TEST_UTILS_HPP
#define KSPD_BATCHED_TEST_UTILS_HPP
/// \file batched_test_utils.hpp
/// A batch of host matrices (double) and its device copy in one of the three batch
/// interfaces: strided LayoutLeft, strided LayoutRight, or an array of pointers into a
/// padded buffer (ld = m + 2, padding NaN). Host reference kernels live in kspd_test_utils.

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "kspd_batched.hpp"
#include "kspd_test_utils.hpp"

namespace kspd::test {

enum class Iface { Left, Right, Pointer };
inline const char* name(Iface i) { return i == Iface::Left ? "LayoutLeft" : i == Iface::Right ? "LayoutRight" : "Pointer"; }
inline std::vector<Iface> all_ifaces() { return {Iface::Left, Iface::Right, Iface::Pointer}; }
inline const char* name(kspd::batched::BatchAlgo a) {
  using A = kspd::batched::BatchAlgo;
  return a == A::Auto ? "Auto" : a == A::Serial ? "Serial" : a == A::Team ? "Team" : "Register";
}
inline std::vector<kspd::batched::BatchAlgo> algos_for(kspd::size_type n) {
  using A = kspd::batched::BatchAlgo;
  const bool gpu = !std::is_same<Mem, Kokkos::HostSpace>::value;
  if (n <= (gpu ? kspd::batched::Impl::kMaxGroupN : kspd::batched::Impl::kLaneMaxN))
    return {A::Auto, A::Serial, A::Team, A::Register};
  return {A::Auto, A::Serial, A::Team};
}

/// The options every check runs with: the kernel family under test plus the recursion
/// setting of the enclosing ForceRecursion scope (outside one: the library's defaults).
inline kspd::batched::BatchOptions& recursion_options() {
  static kspd::batched::BatchOptions o;
  return o;
}
inline kspd::batched::BatchOptions test_options(kspd::batched::BatchAlgo a) {
  kspd::batched::BatchOptions o = recursion_options();
  o.algo = a;
  return o;
}
/// Within its scope every check takes the two-sided recursive path (above `leaf`).
struct ForceRecursion {
  explicit ForceRecursion(int leaf = 32) {
    recursion_options().recursion = kspd::batched::BatchRecursion::Always;
    recursion_options().leaf_size = leaf;
  }
  ~ForceRecursion() { recursion_options() = kspd::batched::BatchOptions{}; }
  ForceRecursion(const ForceRecursion&) = delete;
  ForceRecursion& operator=(const ForceRecursion&) = delete;
};
/// Within its scope batch-first POTRF / TRSM / POTRS run chunk by chunk on column-major copies
/// in a workspace of `kib` KiB (kspd_batched_repack_internal.hpp), and every check takes the
/// forced recursion too when `recurse` (its later leaves' infos, shifted per chunk).
struct ForceRepack {
  ForceRepack(int kib, bool recurse) {
    if (recurse) force_ = std::make_unique<ForceRecursion>();
    kspd::batched::Impl::TuningOverride o;
    o.bf_repack_kib = kib;
    scope_ = std::make_unique<kspd::batched::Impl::TuningScope>(o);
  }

 private:
  std::unique_ptr<ForceRecursion> force_;
  std::unique_ptr<kspd::batched::Impl::TuningScope> scope_;
};
/// Workspaces of ForceRepack for order n: one matrix per chunk, about `few` (the last chunk
/// partial), the whole batch.
template <class T>
std::vector<int> repack_kibs(kspd::size_type n, int few) {
  return {1, int((few * n * n * kspd::size_type(sizeof(T)) + 1023) / 1024), 1 << 20};
}
/// Sizes of the recursion tests: around and between the powers of two it splits at.
inline std::vector<kspd::size_type> recursion_sizes() { return {33, 48, 63, 64, 65, 100, 127, 128, 129, 255, 256}; }

template <class T>
struct DevBatch {
  Iface iface;
  kspd::size_type nb, m, n, ld;
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> L;
  Kokkos::View<T***, Kokkos::LayoutRight, Mem> R;
  Kokkos::View<T*, Mem> buf;
  Kokkos::View<std::uintptr_t*, Mem> ptrs;

  DevBatch(const std::vector<HostMat>& h, kspd::size_type m_, kspd::size_type n_, Iface i)
      : iface(i), nb(kspd::size_type(h.size())), m(m_), n(n_), ld(m_ + 2) {
    if (iface == Iface::Left) {
      L = decltype(L)("kspd::test::L", size_t(nb), size_t(m), size_t(n));
      auto hl = Kokkos::create_mirror_view(L);
      for (kspd::size_type b = 0; b < nb; ++b)
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) hl(b, i, j) = T(h[b](i, j));
      Kokkos::deep_copy(L, hl);
    } else if (iface == Iface::Right) {
      R = decltype(R)("kspd::test::R", size_t(nb), size_t(m), size_t(n));
      auto hr = Kokkos::create_mirror_view(R);
      for (kspd::size_type b = 0; b < nb; ++b)
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) hr(b, i, j) = T(h[b](i, j));
      Kokkos::deep_copy(R, hr);
    } else {
      // Matrices in reverse order inside one buffer, each with two NaN padding rows.
      const kspd::size_type per = ld * (n > 0 ? n : 1);
      buf = decltype(buf)("kspd::test::buf", size_t(per * (nb > 0 ? nb : 1)));
      ptrs = decltype(ptrs)("kspd::test::ptrs", size_t(nb > 0 ? nb : 1));
      auto hb = Kokkos::create_mirror_view(buf);
      auto hp = Kokkos::create_mirror_view(ptrs);
      for (size_t e = 0; e < hb.extent(0); ++e) hb(e) = poison<T>();
      for (kspd::size_type b = 0; b < nb; ++b) {
        const kspd::size_type off = (nb - 1 - b) * per;
        hp(b) = reinterpret_cast<std::uintptr_t>(buf.data() + off);
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) hb(size_t(off + i + j * ld)) = T(h[b](i, j));
      }
      Kokkos::deep_copy(buf, hb);
      Kokkos::deep_copy(ptrs, hp);
    }
  }
  T* const* p() const { return reinterpret_cast<T* const*>(ptrs.data()); }
  const T* const* cp() const { return reinterpret_cast<const T* const*>(ptrs.data()); }

  std::vector<HostMat> to_host() const {
    std::vector<HostMat> h(size_t(nb), HostMat(m, n));
    if (iface == Iface::Left) {
      auto hl = Kokkos::create_mirror_view(L);
      Kokkos::deep_copy(hl, L);
      for (kspd::size_type b = 0; b < nb; ++b)
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) h[b](i, j) = double(hl(b, i, j));
    } else if (iface == Iface::Right) {
      auto hr = Kokkos::create_mirror_view(R);
      Kokkos::deep_copy(hr, R);
      for (kspd::size_type b = 0; b < nb; ++b)
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) h[b](i, j) = double(hr(b, i, j));
    } else {
      auto hb = Kokkos::create_mirror_view(buf);
      Kokkos::deep_copy(hb, buf);
      const kspd::size_type per = ld * (n > 0 ? n : 1);
      for (kspd::size_type b = 0; b < nb; ++b)
        for (kspd::size_type j = 0; j < n; ++j)
          for (kspd::size_type i = 0; i < m; ++i) h[b](i, j) = double(hb(size_t((nb - 1 - b) * per + i + j * ld)));
    }
    return h;
  }
  /// Pointer interface: the padding rows are still NaN.
  bool padding_intact() const {
    if (iface != Iface::Pointer) return true;
    auto hb = Kokkos::create_mirror_view(buf);
    Kokkos::deep_copy(hb, buf);
    for (size_t e = 0; e < hb.extent(0); ++e)
      if (kspd::size_type(e % size_t(ld)) >= m && !std::isnan(double(hb(e)))) return false;
    return true;
  }
};

inline std::vector<int> to_host(const Kokkos::View<int*, Mem>& v) {
  auto h = Kokkos::create_mirror_view(v);
  Kokkos::deep_copy(h, v);
  return std::vector<int>(h.data(), h.data() + h.extent(0));
}
inline Kokkos::View<int*, Mem> poisoned_infos(kspd::size_type nb) {
  Kokkos::View<int*, Mem> v("kspd::test::infos", size_t(nb));
  Kokkos::deep_copy(v, -12345);
  return v;
}

/// An SPD matrix with the `other` triangle poisoned (the kernels must not read it).
inline HostMat spd_one_triangle(kspd::size_type n, kspd::Uplo uplo, unsigned seed) {
  HostMat a = random_spd(n, seed);
  for (kspd::size_type j = 0; j < n; ++j)
    for (kspd::size_type i = 0; i < n; ++i)
      if (uplo == kspd::Uplo::Lower ? i < j : i > j) a(i, j) = std::nan("");
  return a;
}
/// The full symmetric matrix from its `uplo` triangle.
inline HostMat symmetrize(const HostMat& a, kspd::Uplo uplo) {
  HostMat s(a.n, a.n);
  for (kspd::size_type j = 0; j < a.n; ++j)
    for (kspd::size_type i = 0; i < a.n; ++i) {
      const bool in = uplo == kspd::Uplo::Lower ? i >= j : i <= j;
      s(i, j) = in ? a(i, j) : a(j, i);
    }
  return s;
}
/// The triangle `uplo` of a (zeros elsewhere).
inline HostMat triangle(const HostMat& a, kspd::Uplo uplo, kspd::Diag diag = kspd::Diag::NonUnit) {
  HostMat t(a.m, a.n);
  for (kspd::size_type j = 0; j < a.n; ++j)
    for (kspd::size_type i = 0; i < a.m; ++i) t(i, j) = tri_at(a, uplo, diag, i, j);
  return t;
}
/// True when every entry of `a` outside the `uplo` triangle is NaN (left untouched).
inline bool other_triangle_nan(const HostMat& a, kspd::Uplo uplo) {
  for (kspd::size_type j = 0; j < a.n; ++j)
    for (kspd::size_type i = 0; i < a.n; ++i)
      if ((uplo == kspd::Uplo::Lower ? i < j : i > j) && !std::isnan(a(i, j))) return false;
  return true;
}
inline bool all_finite(const HostMat& a, kspd::Uplo uplo) {
  for (kspd::size_type j = 0; j < a.n; ++j)
    for (kspd::size_type i = 0; i < a.m; ++i)
      if ((uplo == kspd::Uplo::Lower ? i >= j : i <= j) && !std::isfinite(a(i, j))) return false;
  return true;
}
inline HostMat identity(kspd::size_type n) {
  HostMat I(n, n);
  for (kspd::size_type i = 0; i < n; ++i) I(i, i) = 1.0;
  return I;
}

}  // namespace kspd::test
#endif
