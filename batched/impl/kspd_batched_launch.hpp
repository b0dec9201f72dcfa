#ifndef KSPD_BATCHED_LAUNCH_HPP
#define KSPD_BATCHED_LAUNCH_HPP
/// \file kspd_batched_launch.hpp
/// Host-side launch of a batched operation: one thread per matrix (RangePolicy over the
/// batch; with a LayoutLeft batch-first View consecutive threads read consecutive matrices,
/// so every load is coalesced) or one team per matrix (TeamPolicy, league = batch).
/// An operation is a small functor with
///   KOKKOS_INLINE_FUNCTION int serial(size_type b) const;                 // returns info
///   template <class M> KOKKOS_INLINE_FUNCTION int team(const M&, size_type b) const;
/// and optionally, for host backends,
///   int host(size_type b) const;  // host BLAS/LAPACK on matrix b, or serial(b) if its strides forbid

#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include "kspd_batched_mat.hpp"
#include "kspd_dense_vendor.hpp"
#include "kspd_error.hpp"
#include "kspd_batched_host_threads.hpp"
#include "kspd_batched_tuning.hpp"

namespace kspd::batched {

/// Which kernel family runs a batched call. Auto: registers for fixed n <= 32 where the
/// operation has a register kernel on a GPU, otherwise one thread per matrix for small n
/// (and always on host backends), one team per matrix above.
enum class BatchAlgo { Auto, Serial, Team, Register };

/// Above the leaf size an operation can split every matrix in two and recurse (KBLAS'
/// two-sided recursion): diagonal blocks recurse down to the leaf kernels, off-diagonal
/// blocks become one batched GEMM per level (cuBLAS gemmStridedBatched where the batch has a
/// unit stride per matrix, else kspd's register-tiled batched GEMM). Auto: on GPUs for
/// n > leaf_size (host backends keep their per-matrix host LAPACK loop); Always / Never force it
/// (fixed-size strided and pointer batches; variable-size batches never recurse).
enum class BatchRecursion { Auto, Always, Never };

/// The public options of every batched call: which kernel family, whether to recurse, where
/// the recursion stops. The GPU kernels' micro-variants (register tiles, thread orders, launch
/// bounds, team sizes) are not options: they come from the measured table of
/// kspd_batched_tuning.hpp.
struct BatchOptions {
  BatchAlgo algo = BatchAlgo::Auto;  ///< the kernel family (of the leaves when recursing)
  int leaf_size = 32;                ///< recursion stops at n <= leaf_size (values < 1 read as 32)
  BatchRecursion recursion = BatchRecursion::Auto;
};

namespace Impl {

template <class Op>
struct SerialKernel {
  Op op;
  int* infos;
  KOKKOS_INLINE_FUNCTION void operator()(const size_type b) const {
    const int info = op.serial(b);
    if (infos != nullptr) infos[b] = info;
  }
};

template <class Op>
struct TeamKernel {
  Op op;
  int* infos;
  template <class Member>
  KOKKOS_INLINE_FUNCTION void operator()(const Member& member) const {
    const size_type b = member.league_rank();
    const int info = op.team(member, b);
    if (infos != nullptr && member.team_rank() == 0) infos[b] = info;
  }
};

template <class ExecSpace>
constexpr bool is_gpu_v = !compat::is_host_exec_v<ExecSpace>;

/// The kernel family `Auto` stands for (register kernels are chosen by their callers).
template <class ExecSpace>
BatchAlgo resolve(BatchAlgo algo, size_type n) {
  if (algo == BatchAlgo::Serial || algo == BatchAlgo::Team) return algo;
  if constexpr (!is_gpu_v<ExecSpace>) return BatchAlgo::Serial;
  else return n <= 8 ? BatchAlgo::Serial : BatchAlgo::Team;
}

/// The host-BLAS/LAPACK loop: one vendor call per matrix (host backends only).
template <class Op>
struct HostKernel {
  Op op;
  int* infos;
  void operator()(const size_type b) const {
    const int info = op.host(b);
    if (infos != nullptr) infos[b] = info;
  }
};

template <class Op, class = void>
struct has_host : std::false_type {};
template <class Op>
struct has_host<Op, std::void_t<decltype(std::declval<const Op&>().host(size_type(0)))>> : std::true_type {};

/// Host path for matrices with no unit stride (a LayoutLeft batch-first View has the batch
/// as its fastest index): copy matrix b into a contiguous column-major buffer (O(n^2) per host
/// thread), let the vendor routine work there, copy back the operands it writes.
template <class T>
struct Packed {
  std::vector<std::remove_const_t<T>> buf;
  kspd::Impl::Mat<std::remove_const_t<T>> m;
  explicit Packed(const kspd::Impl::Mat<T>& src) : buf(size_t(src.m * src.n)) {
    m = kspd::Impl::Mat<std::remove_const_t<T>>{buf.data(), src.m, src.n, 1, src.m > 0 ? src.m : 1};
    for (size_type j = 0; j < src.n; ++j)
      for (size_type i = 0; i < src.m; ++i) m(i, j) = src(i, j);
  }
  void unpack(const kspd::Impl::Mat<std::remove_const_t<T>>& dst) const {
    for (size_type j = 0; j < dst.n; ++j)
      for (size_type i = 0; i < dst.m; ++i) dst(i, j) = m(i, j);
  }
};
template <class T>
bool unit_stride(const kspd::Impl::Mat<T>& a) {
  return kspd::Impl::is_col_major(a) || kspd::Impl::is_col_major(a.t());
}

/// Host BLAS TRSMs on one matrix pair (a, x): solves(am, xm) runs them. In place when both
/// have a unit stride and BLAS can express every solve on that storage (a complex A^H seen
/// through a transposed view cannot be: vendor_trxm would decline, so `conj` packs), else
/// once on column-major copies (O(n^2) per matrix; x copied back).
template <class T, class Solves>
void host_solves(const kspd::Impl::Mat<const T>& a, const kspd::Impl::Mat<T>& x, bool conj, Solves solves) {
  const bool transposed = !kspd::Impl::is_col_major(a) || !kspd::Impl::is_col_major(x);
  if (unit_stride(a) && unit_stride(x) && !(is_complex_v<T> && conj && transposed)) {
    solves(a, x);
    return;
  }
  Packed<const T> pa(a);
  Packed<T> px(x);
  solves(kspd::Impl::Mat<const T>(pa.m), px.m);
  px.unpack(x);
}
/// One host TRSM through host_solves' operands (vendor_trxm accepts every case they allow).
template <class T>
void host_trsm(Side side, Uplo uplo, Trans trans, Diag diag, T alpha, const kspd::Impl::Mat<const T>& a,
               const kspd::Impl::Mat<T>& x) {
  const bool done = kspd::Impl::vendor_trxm(Kokkos::DefaultHostExecutionSpace(), true, side, uplo, trans, diag, alpha, a, x);
  KSPD_REQUIRE(done, TplError, "kspd::batched::trsm: the host BLAS trsm declined the operands");
}

/// Whether a host backend runs an Auto batch of Op (order n) as a loop of host BLAS/LAPACK
/// calls (the tuning table's measured choice for the threads that will run it: the backend's
/// own, or batch_for's pool on a Serial Kokkos); Op::value_type and Op::host_op name the entry.
template <class Op, class ExecSpace>
bool host_vendor(const ExecSpace& exec, size_type n) {
  const int threads = exec.concurrency() > 1 ? int(exec.concurrency()) : caller_only_scopes().load() > 0 ? 1 : host_threads();
  return host_path<typename Op::value_type>(Op::host_op, n, threads) == HostPath::Vendor;
}

template <class ExecSpace, class Op>
void launch(const ExecSpace& exec, const std::string& label, size_type nbatch, const Op& op, int* infos,
            const BatchOptions& opts, size_type size) {
  if (nbatch <= 0) return;
  const double work = double(size) * double(size) * double(size);
  if constexpr (!is_gpu_v<ExecSpace> && has_host<Op>::value) {
    if (opts.algo == BatchAlgo::Auto && host_vendor<Op>(exec, size)) {
      compat::fence(exec, "kspd::batched::host_vendor");
      batch_for(exec, label.c_str(), nbatch, HostKernel<Op>{op, infos}, work);
      return;
    }
  }
  const BatchAlgo algo = resolve<ExecSpace>(opts.algo, size);
  if (algo == BatchAlgo::Team) {
    const int ts = tuning<ExecSpace, double>(size).team_size;  // the team size does not depend on the scalar
    KSPD_REQUIRE(nbatch <= size_type(2147483647), InvalidArgument,
                 label << ": the team kernels take at most 2^31-1 matrices (got " << nbatch << ")");
    Kokkos::parallel_for(label, Kokkos::TeamPolicy<ExecSpace>(exec, int(nbatch), ts),
                         TeamKernel<Op>{op, infos});
  } else {
    batch_for(exec, label.c_str(), nbatch, SerialKernel<Op>{op, infos}, work);
  }
}

/// Checks shared by the host entry points.
template <class ExecSpace, class View>
void check_batch_view(const char* op, const char* arg) {
  static_assert(Kokkos::is_view<View>::value, "kspd::batched: batched operands must be Kokkos::Views");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename View::memory_space>::accessible,
                "kspd::batched: the execution space cannot access this View's memory space");
  (void)op;
  (void)arg;
}

template <class ExecSpace, class InfoView>
auto info_ptr(const InfoView& infos, size_type nbatch, const char* op) {  // int*, or const int* for [in] infos
  static_assert(Kokkos::is_view<InfoView>::value && InfoView::rank == 1,
                "kspd::batched: infos must be a rank-1 Kokkos::View<int*>");
  static_assert(std::is_same<typename InfoView::non_const_value_type, int>::value, "kspd::batched: infos must hold int");
  static_assert(Kokkos::SpaceAccessibility<ExecSpace, typename InfoView::memory_space>::accessible,
                "kspd::batched: the execution space cannot access the infos View");
  KSPD_REQUIRE(size_type(infos.extent(0)) >= nbatch, DimensionMismatch,
               op << ": infos has " << infos.extent(0) << " entries for " << nbatch << " matrices");
  return infos.data();
}

}  // namespace Impl
}  // namespace kspd::batched
#endif
