#ifndef KSPD_SPARSE_RESIDENT_HPP
#define KSPD_SPARSE_RESIDENT_HPP
/// \file kspd_sparse_resident.hpp
/// The device-resident supernodal factorization: every panel lives in the execution space's
/// memory (the same layout as the host values: Supernode::value_offset, ld = nrows), A's
/// values are assembled there, and the elimination tree is factored level by level from the
/// leaves, all of it queued on one execution-space instance with no host wait:
///  - the small supernodes of a level in one launch, one team each (fused kernels: the
///    panel's right-looking Cholesky, then its update product scattered into the ancestors);
///  - the large ones through core's potrf / trsm / syrk (cuSOLVER / cuBLAS on CUDA) and the
///    one scatter kernel (kspd_sparse_device_plan.hpp).
/// Updates are atomic, so supernodes of one level may update the same ancestor. Pivot
/// failures are recorded per supernode on the device and read once at the end; the first
/// failing supernode in postorder is reported (its descendants did not fail, so its failure
/// is the matrix's, not a consequence of another one).
/// The triangular solves run by level too (kspd_sparse_resident_solve.hpp), on the factor
/// where it lives. A level hook (set_level_hook) lets a caller queue work before a level
/// (the distributed solver's contributions from other ranks). Generic over the execution space: on CPU builds the "device" is a host
/// space, so this path is compiled and tested everywhere.

#include <Kokkos_Core.hpp>

#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <type_traits>
#include <vector>

#include "kspd_compat.hpp"
#include "kspd_core.hpp"
#include "kspd_dense_streams.hpp"  // stream_wait
#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_device_plan.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The first failing pivot of a factorization: supernode, 0-based column within it, value.
struct PivotFailure {
  size_type snode = -1;
  size_type col = 0;
  double pivot = 0;
  bool failed() const { return snode >= 0; }
};

template <class Scalar, class Exec>
class ResidentFactor {
 public:
  using Mem = typename Exec::memory_space;
  template <class T>
  using DView = Kokkos::View<T*, Mem>;
  using DMat = Kokkos::View<Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
  using CDMat = Kokkos::View<const Scalar**, Kokkos::LayoutStride, Mem, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;

  /// Device bytes the resident factorization of S needs (panels, maps, workspace).
  static double bytes_needed(const Symbolic& S) {
    const LevelSchedule L(S);
    double b = double(S.nvalues) * sizeof(Scalar) + double(S.value_map.size()) * (sizeof(std::int64_t) + sizeof(Scalar));
    b += double(S.snodes.size()) * (sizeof(DevSnode) + 2 * sizeof(std::int64_t) + sizeof(int) + sizeof(Scalar));
    b += double(S.rows.size()) * sizeof(std::int64_t) + double(S.nvalues) / S.stats.max_width * sizeof(SolveChunk);
    // the solves: their chunks (tiles of 128 x 64 of the panels) and the diagonal blocks' inverses
    b += 2 * double(S.nvalues) / (kSolveChunk * kSolveChunkCols) * sizeof(SolveChunk);
    b += double(S.n + 32 * size_type(S.snodes.size())) * 32 * sizeof(Scalar);
    for (size_type s = 0; s < size_type(S.snodes.size()); ++s) {
      const Supernode& sn = S.snodes[size_t(s)];
      b += double(sn.nrows() - sn.ncols) * sizeof(ScatterCol) + double(scatter_rel_count(S, s)) * sizeof(std::int32_t);
    }
    b += double(L.max_large_below) * double(L.max_large_below) * sizeof(Scalar);
#ifdef KOKKOS_ENABLE_CUDA
    if (std::is_same<Exec, Kokkos::Cuda>::value) {
      const double side = double(std::min<size_type>(kSideRows, L.max_large_below));
      b += side * side * kSideStreams * sizeof(Scalar);
    }
#endif
    return b;
  }

  /// Uploads the plan of S (shapes, levels, scatter maps, rows) and allocates the panels;
  /// the scatter maps are built on `threads` host threads. With a subset, only its
  /// supernodes are factored (their levels); the panels outside it receive the subset's
  /// updates (see SnodeSubset).
  explicit ResidentFactor(const Symbolic& S, const SnodeSubset& subset = {}, int threads = 1) : S_(S), sched_(S, subset) {
    const size_type ns = size_type(S.snodes.size());
    const auto noinit = [](const std::string& name) { return Kokkos::view_alloc(Kokkos::WithoutInitializing, name); };
    std::vector<DevSnode> hs(static_cast<size_t>(ns));
    std::vector<std::int64_t> hoff(static_cast<size_t>(ns));
    map_begin_.resize(size_t(ns));
    rel_begin_.resize(size_t(ns));
    std::int64_t nmap = 0, nrel = 0;
    for (size_type s = 0; s < ns; ++s) {
      const Supernode& sn = S.snodes[size_t(s)];
      KSPD_REQUIRE(sn.nrows() < (size_type(1) << 31), Error,
                   "kspd::sparse: supernode " << s << " has 2^31 rows or more (relative indices are 32-bit)");
      hs[size_t(s)] = DevSnode{sn.value_offset, sn.row_begin, sn.first_col, nmap, int(sn.ncols), int(sn.nrows())};
      hoff[size_t(s)] = sn.value_offset;
      map_begin_[size_t(s)] = nmap;
      rel_begin_[size_t(s)] = nrel;
      nmap += sn.nrows() - sn.ncols;
      nrel += scatter_rel_count(S, s);
    }
    std::vector<ScatterCol> hcols(size_t(std::max<std::int64_t>(nmap, 1)));
    std::vector<std::int32_t> hrel(size_t(std::max<std::int64_t>(nrel, 1)));
    const int T = int(std::max<size_type>(1, std::min<size_type>(threads, ns / 64)));
    run_threads(T, [&](int t) {  // supernodes dealt round robin: each writes its own ranges
      for (size_type s = t; s < ns; s += T)
        scatter_map(S, s, hcols.data() + map_begin_[size_t(s)], hrel.data() + rel_begin_[size_t(s)], rel_begin_[size_t(s)]);
    });
    snodes_ = upload_to<Mem>("kspd::sparse::resident::snodes", hs);
    off_ = upload_to<Mem>("kspd::sparse::resident::panel_offsets", hoff);
    cols_ = upload_to<Mem>("kspd::sparse::resident::scatter_cols", hcols);
    rel_ = upload_to<Mem>("kspd::sparse::resident::scatter_rows", hrel);
    // the analysis' own arrays, read in place (size_type is std::int64_t)
    static_assert(std::is_same<size_type, std::int64_t>::value, "the device plan reads the analysis' arrays in place");
    rows_ = upload_to<Mem>("kspd::sparse::resident::rows", S.rows.data(), S.rows.size());
    order_ = upload_to<Mem>("kspd::sparse::resident::level_order", sched_.order);
    vmap_ = upload_to<Mem>("kspd::sparse::resident::value_map", S.value_map.data(), S.value_map.size());
    vals_ = DView<Scalar>(noinit("kspd::sparse::resident::factor"), size_t(std::max<size_type>(S.nvalues, 1)));
    avals_ = DView<Scalar>(noinit("kspd::sparse::resident::a_values"), std::max<size_t>(S.value_map.size(), 1));
    info_ = DView<int>("kspd::sparse::resident::info", size_t(std::max<size_type>(ns, 1)));
    piv_ = DView<Scalar>(noinit("kspd::sparse::resident::pivot"), size_t(std::max<size_type>(ns, 1)));
    const size_type mb = sched_.max_large_below;
    cbuf_ = DView<Scalar>(noinit("kspd::sparse::resident::update_product"), size_t(std::max<size_type>(mb * mb, 1)));
  }

  /// The factor's values (panels at Supernode::value_offset) in the execution space's memory.
  const DView<Scalar>& values() const { return vals_; }
  const DView<std::int64_t>& rows() const { return rows_; }
  const DView<DevSnode>& snodes() const { return snodes_; }
  /// The scatter map (kspd_sparse_device_plan.hpp): panel offsets, columns, relative rows.
  const DView<std::int64_t>& offsets() const { return off_; }
  const DView<ScatterCol>& scatter_cols() const { return cols_; }
  const DView<std::int32_t>& scatter_rel() const { return rel_; }
  const LevelSchedule& schedule() const { return sched_; }
  const DView<std::int64_t>& order() const { return order_; }

  /// Called before level l of the factorization with the instance the levels are queued
  /// on; what it queues there runs before the level. The distributed solver's top rank adds
  /// the other ranks' contributions to the separators' panels there (kspd_sparse_mpi_top.hpp),
  /// so no MPI reaches this engine. Empty: none.
  using LevelHook = std::function<void(const Exec&, size_type level)>;
  void set_level_hook(LevelHook hook) { hook_ = std::move(hook); }

  /// Seconds per phase of the last factorization, measured with fences (timeline on).
  struct Timeline {
    double assemble = 0, small = 0, large = 0, info = 0;
  };
  const Timeline& timeline() const { return tl_; }

  /// Assembles A's values (host array, the analysed pattern's order) and factors. Queued on
  /// exec; waits once, at the end, for the per-supernode infos.
  PivotFailure factorize(const Exec& exec, const Scalar* avalues, bool timeline = false) {
    tl_ = Timeline{};
    Kokkos::Timer timer;
    auto lap = [&](double& acc) {
      if (!timeline) return;
      exec.fence();
      acc += timer.seconds();
      timer.reset();
    };
    const size_t nnz = S_.value_map.size();
    if (nnz > 0)
      Kokkos::deep_copy(exec, Kokkos::subview(avals_, Kokkos::make_pair(size_t(0), nnz)),
                        Kokkos::View<const Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(avalues, nnz));
    Kokkos::deep_copy(exec, vals_, Scalar(0));
    Kokkos::deep_copy(exec, info_, 0);
    {
      Scalar* v = vals_.data();
      const Scalar* a = avals_.data();
      const std::int64_t* map = vmap_.data();
      Kokkos::parallel_for(
          "kspd::sparse::resident::assemble", Kokkos::RangePolicy<Exec>(exec, 0, nnz),
          KOKKOS_LAMBDA(const size_t p) { v[map[p]] = a[p]; });
    }
    lap(tl_.assemble);
    prepare(exec);
    // one NaN-pivot scan of every large supernode's diagonal after the levels, not a launch
    // after each potrf (kspd_dense_nan_scan.hpp; the infos are read once anyway)
    kspd::Impl::DeferredNanScan<Exec, Scalar> nan_scan(exec);
    for (size_type l = 0; l < sched_.levels(); ++l) {
      const size_type b = sched_.level_begin[size_t(l)], e = sched_.small_end[size_t(l)];
      const size_type nlarge = sched_.level_begin[size_t(l + 1)] - e;
      if (hook_) hook_(exec, l);
      if (e > b) factor_small(exec, b, e);
      lap(tl_.small);
      if (nlarge == 1 || streams_.size() <= 1) {
        for (size_type q = e; q < e + nlarge; ++q) factor_large(exec, sched_.order[size_t(q)], 0);
      } else if (nlarge > 1) {
        // independent large supernodes on several streams: they wait for the level's small
        // kernel (and everything before), and the next level waits for all of them; the
        // waits are on the device (events), so the host queues the next levels meanwhile
        for (size_t w = 1; w < streams_.size(); ++w) kspd::Impl::stream_wait(streams_[w], exec);
        size_t next = 1;
        for (size_type q = e; q < e + nlarge; ++q) {
          const size_type s = sched_.order[size_t(q)];
          const bool big = below(s) > side_rows_;
          const size_t w = big ? 0 : next;
          if (!big) next = next % (streams_.size() - 1) + 1;
          factor_large(streams_[w], s, w);
        }
        for (size_t w = 1; w < streams_.size(); ++w) kspd::Impl::stream_wait(exec, streams_[w]);
      }
      lap(tl_.large);
    }
    nan_scan.flush();  // on exec, which waited for the side streams
    const PivotFailure f = first_failure(exec);
    lap(tl_.info);
    return f;
  }

  /// Creates the side streams and the vendor libraries' handles of every stream the
  /// factorization uses (once; later calls only rebind stream 0 to exec), so that the first
  /// factorization does not pay for them.
  void prepare(const Exec& exec) {
    const bool first = streams_.empty();
    make_streams(exec);
    if (first)
      for (const Exec& st : streams_) kspd::Impl::vendor_prepare(st);
  }

  /// Copies the factor's values to host memory (only on request: the solve runs here).
  /// With `which` (per supernode, nonzero: copy), only those panels, by contiguous runs
  /// (panels lie in supernode order).
  void copy_values_to(Scalar* host, const std::vector<char>& which = {}) const {
    using HostV = Kokkos::View<Scalar*, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>;
    if (which.empty()) return Kokkos::deep_copy(HostV(host, size_t(std::max<size_type>(S_.nvalues, 1))), vals_);
    const size_type ns = size_type(S_.snodes.size());
    for (size_type s = 0; s < ns;) {
      if (!which[size_t(s)]) {
        ++s;
        continue;
      }
      size_type e = s;
      while (e < ns && which[size_t(e)]) ++e;
      const size_t b = size_t(S_.snodes[size_t(s)].value_offset);
      const Supernode& last = S_.snodes[size_t(e - 1)];
      const size_t f = size_t(last.value_offset + last.nrows() * last.ncols);
      Kokkos::deep_copy(HostV(host + b, f - b), Kokkos::subview(vals_, Kokkos::make_pair(b, f)));
      s = e;
    }
  }

 private:
  // The kernels below are public only because CUDA's extended lambdas cannot live in private
  // member functions.
 public:
  /// One team per small supernode of order[b, e): right-looking Cholesky of the whole
  /// panel (diagonal block and the rows below: L21 = A21 L11^-T on the way), then
  /// C = L21 L21^T entry by entry into the ancestors.
  void factor_small(const Exec& exec, size_type b, size_type e) {
    using Team = Kokkos::TeamPolicy<Exec>;
    using Member = typename Team::member_type;
    Scalar* vals = vals_.data();
    const std::int64_t* off = off_.data();
    const std::int64_t* order = order_.data();
    const DevSnode* sns = snodes_.data();
    const ScatterCol* cols = cols_.data();
    const std::int32_t* rel = rel_.data();
    int* info = info_.data();
    Scalar* piv = piv_.data();
    Kokkos::parallel_for(
        "kspd::sparse::resident::factor_small", Team(exec, int(e - b), Kokkos::AUTO),
        KOKKOS_LAMBDA(const Member& t) {
          const std::int64_t s = order[b + t.league_rank()];
          const DevSnode sn = sns[s];
          Scalar* p = vals + sn.voff;
          const int k = sn.ncols, ld = sn.nrows, m = ld - k;
          for (int j = 0; j < k; ++j) {
            const Scalar d = p[j + std::int64_t(j) * ld];
            if (!(d > Scalar(0))) {  // NaN too; every thread read the same d
              Kokkos::single(Kokkos::PerTeam(t), [&]() {
                info[s] = j + 1;
                piv[s] = d;
              });
              return;
            }
            const Scalar r = compat::sqrt(d);
            Scalar* pj = p + std::int64_t(j) * ld;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, j + 1, ld), [&](const int i) { pj[i] /= r; });
            t.team_barrier();
            const int nr = ld - j - 1, nc = k - j - 1;
            Kokkos::parallel_for(Kokkos::TeamThreadRange(t, nc * nr), [&](const int q) {
              const int c = j + 1 + q / nr, i = j + 1 + q % nr;
              if (i >= c) p[i + std::int64_t(c) * ld] -= pj[i] * pj[c];
            });
            Kokkos::single(Kokkos::PerTeam(t), [&]() { pj[j] = r; });  // no one reads it in this phase
            t.team_barrier();
          }
          const Scalar* l21 = p + k;
          const ScatterCol* cs = cols + sn.map_begin;
          Kokkos::parallel_for(Kokkos::TeamThreadRange(t, m * m), [&](const int q) {
            const int j = q / m, i = q % m;
            if (i < j) return;
            Scalar c = 0;
            for (int l = 0; l < k; ++l) c += l21[i + std::int64_t(l) * ld] * l21[j + std::int64_t(l) * ld];
            scatter_entry(vals, off, cs[j], rel, i, c);
          });
        });
  }

  /// A large supernode through core's dense kernels: potrf (its info on the device), trsm,
  /// syrk into stream w's update buffer, scatter.
  void factor_large(const Exec& exec, size_type s, size_t w) {
    const Supernode& sn = S_.snodes[size_t(s)];
    const size_type k = sn.ncols, ld = sn.nrows(), m = ld - k;
    Scalar* p = vals_.data() + sn.value_offset;
    const DMat D(p, Kokkos::LayoutStride(size_t(k), 1, size_t(k), size_t(ld)));
    kspd::potrf(exec, Uplo::Lower, D, Kokkos::subview(info_, size_t(s)));
    if (m == 0) return;
    const DMat B(p + k, Kokkos::LayoutStride(size_t(m), 1, size_t(k), size_t(ld)));
    kspd::trsm(exec, Side::Right, Uplo::Lower, Trans::Transpose, Diag::NonUnit, Scalar(1), D, B);
    Scalar* c = w == 0 ? cbuf_.data() : side_cbuf_.data() + (w - 1) * side_rows_ * side_rows_;
    kspd::syrk(exec, Uplo::Lower, Trans::NoTranspose, Scalar(1), B, Scalar(0),
               DMat(c, Kokkos::LayoutStride(size_t(m), 1, size_t(m), size_t(m))));
    scatter_update(exec, vals_.data(), off_.data(), c, m, m, cols_.data() + map_begin_[size_t(s)], rel_.data());
  }

 private:
  size_type below(size_type s) const { return S_.snodes[size_t(s)].nrows() - S_.snodes[size_t(s)].ncols; }

  /// Side streams for the large supernodes of a level (CUDA: kSideStreams instances of
  /// their own, each with an update buffer for up to side_rows_ rows; the taller ones go
  /// to stream 0, exec itself); host spaces run everything on exec.
  void make_streams(const Exec& exec) {
    if (streams_.empty()) {
      streams_.assign(1, exec);
#ifdef KOKKOS_ENABLE_CUDA
      if constexpr (std::is_same<Exec, Kokkos::Cuda>::value) {  // created once: their handles stay
        auto side = Kokkos::Experimental::partition_space(exec, std::vector<int>(kSideStreams, 1));
        streams_.insert(streams_.end(), side.begin(), side.end());
        side_rows_ = std::min<size_type>(kSideRows, sched_.max_large_below);
        side_cbuf_ = DView<Scalar>(Kokkos::view_alloc(Kokkos::WithoutInitializing, "kspd::sparse::resident::side_update"),
                                   size_t(std::max<size_type>(side_rows_ * side_rows_ * kSideStreams, 1)));
      }
#endif
    }
    streams_[0] = exec;
  }
  static constexpr int kSideStreams = 4;
  static constexpr size_type kSideRows = 4096;

  /// Reads the infos once; the failing supernode first in postorder and its pivot.
  PivotFailure first_failure(const Exec& exec) {
    const size_type ns = size_type(S_.snodes.size());
    PivotFailure f;
    if (ns == 0) return f;
    auto hinfo = Kokkos::create_mirror_view(Kokkos::HostSpace(), info_);
    Kokkos::deep_copy(exec, hinfo, info_);
    exec.fence();
    for (size_type s = 0; s < ns; ++s)
      if (hinfo(size_t(s)) != 0) {
        const Supernode& sn = S_.snodes[size_t(s)];
        f.snode = s;
        f.col = hinfo(size_t(s)) - 1;
        // the small kernel saved the pivot; the vendor potrf leaves it on the diagonal
        const bool small = LevelSchedule::small(sn);
        const size_t at = small ? size_t(s) : size_t(sn.value_offset + f.col * (sn.nrows() + 1));
        Scalar v{};
        Kokkos::deep_copy(Kokkos::View<Scalar, Kokkos::HostSpace, Kokkos::MemoryTraits<Kokkos::Unmanaged>>(&v),
                          Kokkos::subview(small ? piv_ : vals_, at));
        f.pivot = double(v);
        break;
      }
    return f;
  }

  const Symbolic& S_;
  LevelSchedule sched_;
  std::vector<std::int64_t> map_begin_, rel_begin_;
  DView<DevSnode> snodes_;
  DView<std::int64_t> off_, rows_, order_, vmap_;
  DView<ScatterCol> cols_;
  DView<std::int32_t> rel_;
  DView<Scalar> vals_, avals_, piv_, cbuf_;
  DView<int> info_;
  DView<Scalar> side_cbuf_;
  std::vector<Exec> streams_;
  size_type side_rows_ = 0;
  Timeline tl_;
  LevelHook hook_;
};

}  // namespace kspd::sparse::Impl
#endif
