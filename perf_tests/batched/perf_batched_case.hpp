// perf_batched's case data (included by perf_batched.cpp inside its anonymous namespace,
// after Exec, Mem and kb): one Case<T> for real and complex scalars.
#ifndef KSPD_PERF_BATCHED_CASE_HPP
#define KSPD_PERF_BATCHED_CASE_HPP

/// The data of one case: the kspd strided batch (LayoutLeft, batch first), the peers'
/// column-major contiguous copy with a pointer array, and pristine copies for resets. Real T:
/// SPD by diagonal dominance, A = (R + R^T)/2 + n I; complex T: HPD, A = (R + R^H)/2 + 2n I
/// with a real diagonal.
template <class T>
struct Case {
  static constexpr bool complex = kspd::is_complex_v<T>;
  long n, nrhs, nb;
  Kokkos::View<T***, Kokkos::LayoutLeft, Mem> A, A0, B, B0;
  Kokkos::View<T*, Mem> pa, pa0, pb, pb0;  // peer: nb column-major matrices, contiguous
  Kokkos::View<std::uintptr_t*, Mem> pA, pB;
  Kokkos::View<int*, Mem> infos;

  Case(long n_, long nrhs_, long nb_) : n(n_), nrhs(nrhs_), nb(nb_) { init(); }
  // Not in the constructor: CUDA's extended lambdas may not live in one.
  void init() {
    A = decltype(A)("A", nb, n, n);
    A0 = decltype(A)("A0", nb, n, n);
    B = decltype(B)("B", nb, n, nrhs);
    B0 = decltype(B)("B0", nb, n, nrhs);
    if constexpr (complex) fill_hpd();
    else fill_spd();
    const long nn = n;
    auto a0 = A0;
    auto b0 = B0;
    pa = decltype(pa)("pa", nb * n * n);
    pa0 = decltype(pa)("pa0", nb * n * n);
    pb = decltype(pb)("pb", nb * n * nrhs);
    pb0 = decltype(pb)("pb0", nb * n * nrhs);
    auto p0 = pa0, q0 = pb0;
    const long nr = nrhs;
    Kokkos::parallel_for(
        "perf::colmajor", Kokkos::RangePolicy<Exec>(0, nb), KOKKOS_LAMBDA(const long b) {
          for (long j = 0; j < nn; ++j)
            for (long i = 0; i < nn; ++i) p0(b * nn * nn + i + j * nn) = a0(b, i, j);
          for (long j = 0; j < nr; ++j)
            for (long i = 0; i < nn; ++i) q0(b * nn * nr + i + j * nn) = b0(b, i, j);
        });
    pA = decltype(pA)("pA", nb);
    pB = decltype(pB)("pB", nb);
    auto pa_ = pA, pb_ = pB;
    T* base_a = pa.data();
    T* base_b = pb.data();
    Kokkos::parallel_for(
        "perf::ptrs", Kokkos::RangePolicy<Exec>(0, nb), KOKKOS_LAMBDA(const long b) {
          pa_(b) = reinterpret_cast<std::uintptr_t>(base_a + b * nn * nn);
          pb_(b) = reinterpret_cast<std::uintptr_t>(base_b + b * nn * nr);
        });
    infos = decltype(infos)("infos", nb);
    Exec().fence();
  }
  /// The peer's column-major matrices as strided batches (batch stride n*n, resp. n*nrhs).
  Kokkos::View<T***, Kokkos::LayoutStride, Mem> cmA() const {
    return Kokkos::View<T***, Kokkos::LayoutStride, Mem>(
        pa.data(), Kokkos::LayoutStride(size_t(nb), size_t(n * n), size_t(n), 1, size_t(n), size_t(n)));
  }
  Kokkos::View<T***, Kokkos::LayoutStride, Mem> cmB() const {
    return Kokkos::View<T***, Kokkos::LayoutStride, Mem>(
        pb.data(), Kokkos::LayoutStride(size_t(nb), size_t(n * nrhs), size_t(n), 1, size_t(nrhs), size_t(n)));
  }
  T** ptrA() const { return reinterpret_cast<T**>(pA.data()); }
  T** ptrB() const { return reinterpret_cast<T**>(pB.data()); }
  void reset_a() const { Kokkos::deep_copy(Exec(), A, A0); Kokkos::deep_copy(Exec(), pa, pa0); }
  void reset_b() const { Kokkos::deep_copy(Exec(), B, B0); Kokkos::deep_copy(Exec(), pb, pb0); }
  /// A and pa become Cholesky factors (for potrs / trsm / potri), untimed; a failure would
  /// make the timings meaningless, so it is printed.
  void factor() {
    reset_a();
    kb::potrf(Exec(), kspd::Uplo::Lower, A, infos);
    kb::potrf(Exec(), kspd::Uplo::Lower, nb, n, ptrA(), n, infos);
    const auto s = kb::summarize_infos(Exec(), infos);
    if (s.failures != 0) std::printf("perf_batched: %ld matrices not positive definite\n", long(s.failures));
    Kokkos::deep_copy(Exec(), A0, A);
    Kokkos::deep_copy(Exec(), pa0, pa);
    Exec().fence();
  }

  // (public: CUDA extended lambdas may not live in private member functions)
  void fill_spd() {
    Kokkos::Random_XorShift64_Pool<Exec> pool(1234);
    Kokkos::fill_random(A0, pool, T(0), T(1));
    Kokkos::fill_random(B0, pool, T(-1), T(1));
    auto a0 = A0;
    const long nn = n;
    // SPD by diagonal dominance (symmetrised): A = (R + R^T)/2 + n I.
    Kokkos::parallel_for(
        "perf::spd", Kokkos::RangePolicy<Exec>(0, nb), KOKKOS_LAMBDA(const long b) {
          for (long j = 0; j < nn; ++j) {
            for (long i = j + 1; i < nn; ++i) {
              const T v = (a0(b, i, j) + a0(b, j, i)) / 2;
              a0(b, i, j) = v;
              a0(b, j, i) = v;
            }
            a0(b, j, j) += T(nn);
          }
        });
  }
  void fill_hpd() {
    using R = typename T::value_type;
    auto fill = [&](const Kokkos::View<T***, Kokkos::LayoutLeft, Mem>& v, unsigned seed) {
      // uniform [-1, 1) real and imaginary parts, filled as a real View over the same memory
      Kokkos::View<R*, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>> re(reinterpret_cast<R*>(v.data()), 2 * v.size());
      Kokkos::Random_XorShift64_Pool<Exec> pool(seed);
      Kokkos::fill_random(re, pool, R(-1), R(1));
    };
    fill(A0, 1234);
    fill(B0, 4321);
    auto a0 = A0;
    const long nn = n;
    Kokkos::parallel_for(
        "perf::hpd", Kokkos::RangePolicy<Exec>(0, nb), KOKKOS_LAMBDA(const long b) {
          for (long j = 0; j < nn; ++j) {
            for (long i = j + 1; i < nn; ++i) {
              const T v = (a0(b, i, j) + Kokkos::conj(a0(b, j, i))) / R(2);
              a0(b, i, j) = v;
              a0(b, j, i) = Kokkos::conj(v);
            }
            a0(b, j, j) = T(a0(b, j, j).real() + R(2 * nn), R(0));  // |off-diagonal| <= sqrt(2): diagonally dominant
          }
        });
  }
};

#endif
