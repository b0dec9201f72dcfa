// perf_sparse_update: a rank-k update (and the downdate back) of the supernodal factor of
// 3-D elasticity N^3 against refactoring A + W W^T from scratch (numeric factorization on
// the same analysis), in the same run; prints the ratio refactor / update.
//
//   perf_sparse_update [--smoke] [--size N] [--rank K] [--threads T] [--reps R]
//                      [--placement host|resident] [--cpu-time] [--plan-only]
// --plan-only: analyse, print the path's shape (its launches, the critical chain by supernode
// width, the wide supernodes of the current settings) and stop (no factorization).
// --step-profile FILE: after the timed runs, where each time goes in one update of the
// resident factor (update_batched's diagnostic hook, Impl::update_profile()): the phases
// (host plan, W, descriptors, allocations, step launches, tail), each fenced; per launch
// kind the count and total / mean / max of each launch fenced on its own, the host time of
// the launch calls and between them; the launches unfenced; the panels' teams alone (the
// dependent chain) and the rows below alone; other team sizes; the panel teams' phases by
// the device clock; and empty launches of the same league sizes (the launch cost alone). FILE ("-": none) gets one CSV line per launch.
// --panel-width NB: panels of NB columns in the batched update (resident placement) instead
// of update_panel_width's 32 (Impl::update_panel_width_hook()).
// --wide T:A:BW[:L]: the resident update's wide panels (kspd_sparse_update_wide.hpp) for path
// supernodes of at least T columns with at most A path supernodes in their launches, BW
// columns a panel, L side lanes (Impl::update_wide_hook(); 0 keeps a default; T beyond every
// supernode: none wide). --wide-sweep T:A:BW[:L],..: after the timed runs, the update and downdate again with
// each of these (the same factor and refactorization; the residuals checked).
// --update-threads T1,T2,..: then the update and downdate again with each of these host
// thread counts (host placement; the factorizations keep --threads), against the same refactor.
// --cpu-time: the process's CPU time (all its threads) instead of wall-clock time: on a
// loaded machine, with --threads 1 and OPENBLAS_NUM_THREADS=1, the work's own time without
// the other processes' preemption (host placement only: a device's time is not CPU time).
// Default: N = 40 (n = 192,000), K = 16, 2 threads, host placement, median of 3.
// W: K columns, each the 3 degrees of freedom of one random grid node (a point spring:
// W W^T lies in A's pattern, so refactoring reuses the analysis). The resident placement
// keeps the factor in the default execution space's memory (the GPU on CUDA builds).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <ctime>
#include <cstdlib>
#include <exception>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_update_batched.hpp"
#include "kspd_sparse_update_wide.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"
#include "kspd_perf_csv.hpp"

namespace {

namespace ks = kspd::sparse;
using kspd::size_type;
using Exec = Kokkos::DefaultExecutionSpace;

bool cpu_time = false;  // --cpu-time
double now() {
  if (cpu_time) return double(std::clock()) / CLOCKS_PER_SEC;
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}
double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

/// A + s W W^T on A's pattern (W W^T's entries must be in it).
ks::CscMatrix<double> modified(const ks::CscMatrix<double>& A, const ks::SparseColumns<double>& W, double s) {
  ks::CscMatrix<double> B = A;
  for (size_type c = 0; c < W.ncols(); ++c)
    for (size_type p = W.colptr[size_t(c)]; p < W.colptr[size_t(c + 1)]; ++p)
      for (size_type q = W.colptr[size_t(c)]; q <= p; ++q) {
        const size_type i = W.rowind[size_t(p)], j = W.rowind[size_t(q)];
        const auto b = A.rowind.begin() + A.colptr[size_t(j)], e = A.rowind.begin() + A.colptr[size_t(j + 1)];
        const auto it = std::lower_bound(b, e, i);
        if (it == e || *it != i) {
          std::fprintf(stderr, "W W^T outside A's pattern\n");
          std::exit(1);
        }
        B.values[size_t(it - A.rowind.begin())] += s * W.values[size_t(p)] * W.values[size_t(q)];
      }
  return B;
}

double residual(const ks::SupernodalCholesky<double>& chol, const ks::CscMatrix<double>& B) {
  std::vector<double> x(size_t(B.n)), b(size_t(B.n));
  for (size_type i = 0; i < B.n; ++i) b[size_t(i)] = std::sin(double(i) + 1.0);
  x = b;
  chol.solve(x);
  std::vector<double> r;
  ks::symv(B, x, r);
  double rn = 0, bn = 0;
  for (size_type i = 0; i < B.n; ++i) rn += (r[size_t(i)] - b[size_t(i)]) * (r[size_t(i)] - b[size_t(i)]), bn += b[size_t(i)] * b[size_t(i)];
  return std::sqrt(rn / bn);
}

double wall() { return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count(); }

/// league sizes as they are, team size `team`, each launch fenced or only the last
double empty_launches(const Exec& exec, const std::vector<int>& leagues, int team, bool fenced) {
  using Policy = Kokkos::TeamPolicy<Exec>;
  exec.fence();
  const double t0 = wall();
  for (int L : leagues) {
    Kokkos::parallel_for("perf_sparse_update::empty", Policy(exec, L, team), KOKKOS_LAMBDA(const typename Policy::member_type&) {});
    if (fenced) exec.fence();
  }
  exec.fence();
  return wall() - t0;
}

namespace kpi = kspd::sparse::Impl;

const char* launch_kind(const kpi::UpdateProfile::Step& s) {
  if (s.panels + s.rows + s.gathers == 0) return "wide supernodes alone (no launch)";
  if (s.gathers > 0) return "level start: W gather + first panels";
  if (s.panels > 0 && s.rows > 0) return "panels + rows below previous panel";
  if (s.panels > 0) return "panels alone";
  return "rows below alone";
}

/// The profile's summary; its launches as CSV lines (variant = name) to csv if any.
void print_profile(const char* name, const kpi::UpdateProfile& p, double wall_s, std::FILE* csv, long long rank) {
  double enq = 0, gap = 0, done = 0, wide = 0;
  long wides = 0;
  std::map<std::string, std::vector<const kpi::UpdateProfile::Step*>> kinds;
  for (const auto& s : p.steps)
    enq += s.enqueue, gap += s.gap, done += s.done, wide += s.wide, wides += s.wides, kinds[launch_kind(s)].push_back(&s);
  std::printf("  [%s] update wall %.2f ms: W %.2f, descriptors %.2f, allocations+uploads %.2f, launches %.2f, tail %.2f ms; "
              "%zu launches: sum of launch calls %.2f ms, of host gaps %.2f ms%s\n",
              name, wall_s * 1e3, p.t_w * 1e3, p.t_desc * 1e3, p.t_alloc * 1e3, p.t_steps * 1e3, p.t_tail * 1e3,
              p.steps.size(), enq * 1e3, gap * 1e3, p.fence_steps ? "" : " (launches unfenced)");
  if (wides > 0)
    std::printf("  [%s] %ld wide supernodes: %s %.2f ms (mean %.1f us)\n", name, wides,
                p.fence_steps ? "fenced after each slot's" : "host time of their calls", wide * 1e3, wide * 1e6 / double(wides));
  if (p.fence_steps) {
    std::printf("  [%s] sum of fenced launches %.2f ms (mean %.1f us)\n", name, done * 1e3, done * 1e6 / double(std::max<size_t>(1, p.steps.size())));
    for (const auto& [kind, v] : kinds) {
      double tot = 0, mx = 0, e = 0, teams = 0, pan = 0;
      for (const auto* s : v) tot += s->done, mx = std::max(mx, s->done), e += s->enqueue, teams += s->panels + s->rows + s->gathers, pan += s->panels;
      const double c = double(v.size());
      std::printf("  [%s]   %-38s %4zu launches: total %7.2f ms, mean %6.1f us, max %7.1f us; launch call mean %5.1f us; "
                  "mean teams %.1f (panels %.1f)\n",
                  name, kind.c_str(), v.size(), tot * 1e3, tot * 1e6 / c, mx * 1e6, e * 1e6 / c, teams / c, pan / c);
    }
  }
  if (csv)
    for (size_t i = 0; i < p.steps.size(); ++i) {
      const auto& s = p.steps[i];
      std::fprintf(csv, "%lld,%s,%zu,%d,%d,%d,%d,%d,%.2f,%.2f,%.2f,%.2f\n", rank, name, i, s.level, s.panels, s.rows, s.gathers,
                   s.wides, s.wide * 1e6, s.gap * 1e6, s.enqueue * 1e6, s.done * 1e6);
    }
}

/// --step-profile: the factor is A's on entry and on return.
int step_profile(ks::SupernodalCholesky<double>& chol, const Exec& exec, const ks::CscMatrix<double>& A,
                 const ks::CscMatrix<double>& Ap, const ks::SparseColumns<double>& W, const std::string& file) {
  if (!chol.resident()) {
    std::printf("  step profile: the factor is not resident (--placement resident)\n");
    return 0;
  }
  std::FILE* csv = file == "-" ? nullptr : std::fopen(file.c_str(), "a");  // appended: several runs, one file
  if (csv && std::ftell(csv) == 0)
    std::fprintf(csv, "rank,variant,launch,level,panel_teams,row_teams,gather_teams,wides,wide_us,gap_us,launch_call_us,fenced_us\n");
  auto& hook = kpi::update_profile();
  double t0 = wall();
  const auto plan = kpi::plan_update(chol.symbolic(), W, "perf_sparse_update", false);  // as update() on a resident factor
  std::printf("  step profile (steady clock, one update each): host plan_update %.2f ms, %lld levels\n", (wall() - t0) * 1e3,
              (long long)plan.levels());
  auto profiled = [&](kpi::UpdateProfile& p, ks::Sign sign) {
    hook = &p;
    exec.fence();
    const double t = wall();
    const int info = chol.update(exec, W, sign);
    const double w = wall() - t;
    hook = nullptr;
    if (info != 0) std::printf("  step profile: update info %d\n", info);
    return w;
  };
  int bad = 0;
  {  // every launch fenced, then unfenced (the real schedule), each followed by the downdate back
    kpi::UpdateProfile p;
    print_profile("fenced", p, profiled(p, ks::Sign::Plus), csv, W.ncols());
    const double r = residual(chol, Ap);
    std::printf("  [fenced] residual %.1e\n", r);
    bad += !(r < 1e-10);
    kpi::UpdateProfile d;
    d.fence_steps = false;
    print_profile("downdate unfenced", d, profiled(d, ks::Sign::Minus), nullptr, 0);
    kpi::UpdateProfile u;
    u.fence_steps = false;
    print_profile("unfenced", u, profiled(u, ks::Sign::Plus), csv, W.ncols());
    kpi::UpdateProfile d2;
    d2.fence_steps = false;
    print_profile("downdate unfenced", d2, profiled(d2, ks::Sign::Minus), nullptr, 0);
    std::vector<int> leagues;
    for (const auto& s : p.steps) leagues.push_back(s.panels + s.rows + s.gathers);
    const int team = kpi::update_team_size<Exec>();
    std::printf("  empty launches, the same %zu league sizes, team %d: fenced each %.2f ms, unfenced %.2f ms\n", leagues.size(),
                team, empty_launches(exec, leagues, team, true) * 1e3, empty_launches(exec, leagues, team, false) * 1e3);
  }
  for (int team : {128, 256, 1024}) {  // other team sizes (the default: 512), unfenced; the result checked
    if (kspd::compat::is_host_exec_v<Exec>) break;  // a host team is one thread
    kpi::UpdateProfile u, d;
    u.team_size = d.team_size = team;
    u.fence_steps = d.fence_steps = false;
    try {
      const double tu = profiled(u, ks::Sign::Plus);
      const double ru = residual(chol, Ap);
      const double td = profiled(d, ks::Sign::Minus);
      const double rd = residual(chol, A);
      std::printf("  team size %4d: update %.2f ms (launches %.2f ms), downdate %.2f ms, residuals %.1e %.1e\n", team,
                  tu * 1e3, u.t_steps * 1e3, td * 1e3, ru, rd);
      bad += !(ru < 1e-10 && rd < 1e-10);
    } catch (const std::exception& e) {  // e.g. more threads than the kernel's registers allow
      hook = nullptr;
      std::printf("  team size %4d: refused (%s)\n", team, e.what());
      if (chol.factorize(exec, A) != 0) return 1;
    }
  }
  {  // the panel teams' phases by the clock of their SM (cycles), unfenced launches; then back to A
    kpi::UpdateProfile u;
    u.phases = true;
    u.fence_steps = false;
    const double tu = profiled(u, ks::Sign::Plus);
    const double ru = residual(chol, Ap);
    bad += !(ru < 1e-10);
    const char* names[] = {"rows through the previous Q / W gather", "copy", "triangular solve", "G and R",
                           "Cholesky + inverse steps", "scaling", "Q and D M"};
    double tot = 0;
    for (double c : u.phase_cycles) tot += c;
    const double np = double(std::max(1L, u.phase_panels));
    std::printf("  [panel phases] update %.2f ms (residual %.1e), %ld panels, mean %.0f clock ticks per panel:", tu * 1e3, ru,
                u.phase_panels, tot / np);
    for (size_t i = 0; i < u.phase_cycles.size(); ++i) std::printf(" %s %.0f;", names[i], u.phase_cycles[i] / np);
    std::printf("\n");
    kpi::UpdateProfile d;
    d.fence_steps = false;
    profiled(d, ks::Sign::Minus);
  }
  {  // the wide panels' calls, each fenced (kspd_sparse_update_wide.hpp); then back to A
    kpi::UpdateWideProfile w;
    kpi::update_wide_profile() = &w;
    kpi::UpdateProfile u;
    u.fence_steps = false;
    const double tu = profiled(u, ks::Sign::Plus);
    kpi::update_wide_profile() = nullptr;
    const double ru = residual(chol, Ap);
    bad += !(ru < 1e-10);
    double tot = 0;
    for (double c : w.seconds) tot += c;
    std::printf("  [wide calls] update %.2f ms (residual %.1e), %ld wide panels, each call fenced: total %.2f ms, mean %.1f us per panel:",
                tu * 1e3, ru, w.panels, tot * 1e3, tot * 1e6 / double(std::max(1L, w.panels)));
    for (int i = 0; i < kpi::UpdateWideProfile::kCalls; ++i)
      std::printf(" %s %.1f;", kpi::UpdateWideProfile::names[i], w.seconds[i] * 1e6 / double(std::max(1L, w.panels)));
    std::printf("\n");
    kpi::UpdateProfile d;
    d.fence_steps = false;
    profiled(d, ks::Sign::Minus);
  }
  for (auto part : {kpi::UpdateProfile::Part::Panels, kpi::UpdateProfile::Part::Rows}) {  // garbage factor after
    const char* name = part == kpi::UpdateProfile::Part::Panels ? "panel teams only" : "row teams only";
    kpi::UpdateProfile p;
    p.part = part;
    if (chol.factorize(exec, A) != 0) return 1;  // a factor to start from: the last garbage one may have failed
    print_profile(name, p, profiled(p, ks::Sign::Plus), csv, W.ncols());
    kpi::UpdateProfile u;
    u.part = part;
    u.fence_steps = false;
    if (chol.factorize(exec, A) != 0) return 1;
    print_profile((std::string(name) + ", unfenced").c_str(), u, profiled(u, ks::Sign::Plus), nullptr, 0);
  }
  if (chol.factorize(exec, A) != 0) return 1;
  if (csv) std::fclose(csv);
  return bad;
}

}  // namespace

int main(int argc, char** argv) {
  kspd::perf::csv_args(argc, argv);  // --csv FILE: every result row as CSV too
  Kokkos::ScopeGuard guard;  // our flags are not Kokkos's
  size_type size = 40, rank = 16;
  int threads = 2, reps = 3;
  bool plan_only = false;
  std::string profile_file;
  std::vector<int> update_threads;
  std::vector<kspd::sparse::Impl::UpdateWide> sweep;
  bool bad_wide = false;
  const auto parse_wide = [&](const std::string& v) {  // T:A:BW[:L]
    kspd::sparse::Impl::UpdateWide w;
    const int got = std::sscanf(v.c_str(), "%d:%d:%d:%d", &w.threshold, &w.alone, &w.width, &w.lanes);
    if (got < 3 || w.threshold < 0 || w.alone < 0 || w.width < 0 || w.lanes < 0) bad_wide = true;
    return w;
  };
  std::string placement = "host";
  for (int a = 1; a < argc; ++a) {
    const std::string s = argv[a];
    auto next = [&]() -> std::string {
      if (a + 1 >= argc) {
        std::fprintf(stderr, "perf_sparse_update: %s needs a value\n", s.c_str());
        std::exit(2);
      }
      return argv[++a];
    };
    if (s == "--smoke") size = 8, reps = 1;
    else if (s == "--size") size = std::atoll(next().c_str());
    else if (s == "--rank") rank = std::atoll(next().c_str());
    else if (s == "--threads") threads = std::atoi(next().c_str());
    else if (s == "--reps") reps = std::atoi(next().c_str());
    else if (s == "--placement") placement = next();
    else if (s == "--cpu-time") cpu_time = true;
    else if (s == "--plan-only") plan_only = true;
    else if (s == "--step-profile") profile_file = next();
    else if (s == "--panel-width") kspd::sparse::Impl::update_panel_width_hook() = std::atoi(next().c_str());
    else if (s == "--wide") kspd::sparse::Impl::update_wide_hook() = parse_wide(next());
    else if (s == "--wide-sweep") {
      const std::string v = next();
      for (size_t b = 0; b < v.size();) {
        const size_t e = std::min(v.find(',', b), v.size());
        sweep.push_back(parse_wide(v.substr(b, e - b)));
        b = e + 1;
      }
    }
    else if (s == "--update-threads") {
      const std::string v = next();
      for (size_t b = 0; b < v.size();) {
        const size_t e = std::min(v.find(',', b), v.size());
        update_threads.push_back(std::atoi(v.substr(b, e - b).c_str()));
        b = e + 1;
      }
    }
    else {
      std::fprintf(stderr, "usage: perf_sparse_update [--smoke] [--size N] [--rank K] [--threads T] [--reps R] "
                           "[--placement host|resident] [--cpu-time] [--plan-only] [--update-threads T1,T2,..] "
                           "[--step-profile FILE|-] [--panel-width NB] [--wide T:A:BW] [--wide-sweep T:A:BW,..]\n");
      return s == "--help" ? 0 : 2;
    }
  }
  const bool bad_ut = std::any_of(update_threads.begin(), update_threads.end(), [](int t) { return t < 1; });
  const int pw = kspd::sparse::Impl::update_panel_width_hook();
  if (size < 2 || rank < 1 || rank > 64 || threads < 1 || reps < 1 || (placement != "host" && placement != "resident") ||
      pw < 0 || pw > 64 ||
      bad_ut || (!update_threads.empty() && placement != "host") || bad_wide) {
    std::fprintf(stderr, "perf_sparse_update: bad arguments\n");
    return 2;
  }
  const auto A = ks::elasticity_3d<double>(size, size, size);
  std::mt19937_64 gen(2026);
  std::uniform_int_distribution<size_type> node(0, A.n / 3 - 1);
  std::uniform_real_distribution<double> val(-1, 1);
  ks::SparseColumns<double> W;
  W.nrows = A.n;
  for (size_type j = 0; j < rank; ++j) {
    const size_type v = node(gen);
    for (int d = 0; d < 3; ++d) W.rowind.push_back(3 * v + d), W.values.push_back(val(gen));
    W.colptr.push_back(size_type(W.rowind.size()));
  }
  const auto Ap = modified(A, W, 1.0);
  ks::Options opt;
  opt.threads = threads;
  if (placement == "resident") opt.offload.force_all();
  ks::SupernodalCholesky<double> chol(opt);
  Exec exec;
  double t0 = now();
  chol.analyze(A);
  const double t_analyse = now() - t0;
  {  // the work's shape: supernodes on W's paths, their panels (launch-bound on a GPU) and entries;
     // steps: the panels one after the other on the path (per level its widest supernode's)
    const auto& S = chol.symbolic();
    const double tp = wall();
    const auto plan = ks::Impl::plan_update(S, W, "perf_sparse_update", placement != "resident");
    std::printf("  plan_update (host) %.2f ms\n", (wall() - tp) * 1e3);
    const bool wide = placement == "resident";
    long long panels = 0, entries = 0, steps = 0;
    std::vector<long long> np(plan.path.size());
    for (size_t q = 0; q < plan.path.size(); ++q) {
      const auto& sn = S.snodes[plan.path[q]];
      const long long nb = ks::Impl::update_panel_width(plan.act_begin[q + 1] - plan.act_begin[q], wide);
      np[q] = (sn.ncols + nb - 1) / nb;
      panels += np[q];
      entries += (long long)sn.nrows() * sn.ncols;
    }
    for (size_type l = 0; l < plan.levels(); ++l) {
      long long w = 0;
      for (size_type i = plan.level_begin[size_t(l)]; i < plan.level_begin[size_t(l + 1)]; ++i)
        w = std::max(w, np[size_t(plan.level_order[size_t(i)])]);
      steps += w;
    }
    std::vector<std::int64_t> snp, sstart;
    const long long launches = ks::Impl::update_schedule(S, plan, ks::Impl::update_panel_width(plan.k, true), snp, sstart);
    if (wide) {  // the wide supernodes this run's settings choose, and the slots then
      const auto w = ks::Impl::update_wide_choice<Exec>(S, plan, ks::Impl::update_panel_width(plan.k, true));
      std::vector<std::int64_t> wnp, wstart;
      const long long slots = ks::Impl::update_schedule(S, plan, ks::Impl::update_panel_width(plan.k, true), wnp, wstart, w);
      long long nw = 0, cw = 0;
      for (size_t q = 0; q < w.size(); ++q) nw += w[q], cw += w[q] ? S.snodes[plan.path[q]].ncols : 0;
      std::printf("  wide: T %d, A %d, BW %d: %lld wide supernodes (%lld columns), %lld slots\n", ks::Impl::update_wide_threshold(),
                  ks::Impl::update_wide_alone(), ks::Impl::update_wide_width(), nw, cw, slots);
    }
    std::printf("  path: %zu of %zu supernodes, %lld levels, %lld panels, %lld panel steps level by level, %lld batched "
                "launches, %.1f%% of L's entries\n",
                plan.path.size(), S.snodes.size(), (long long)plan.levels(), panels, steps, launches,
                100.0 * double(entries) / double(chol.analysis_stats().nnz_l_stored));
    {  // the longest chain of launches (the update's critical path on a device), by supernode width
      std::vector<std::int64_t> pos(S.snodes.size(), -1);
      for (size_t q = 0; q < plan.path.size(); ++q) pos[size_t(plan.path[q])] = std::int64_t(q);
      size_t q = 0;
      for (size_t i = 0; i < plan.path.size(); ++i)
        if (sstart[i] + snp[i] > sstart[q] + snp[q]) q = i;
      long long total = 0, cols = 0, l256 = 0, c256 = 0, l512 = 0, c512 = 0;
      std::string widths;
      for (;;) {
        const long long c = S.snodes[size_t(plan.path[q])].ncols, l = snp[q] + 1;
        total += l, cols += c;
        if (c >= 256) l256 += l, c256 += c;
        if (c >= 512) l512 += l, c512 += c;
        widths = std::to_string(c) + (widths.empty() ? "" : " ") + widths;
        std::int64_t next = -1;  // the child whose last launch comes right before q's first
        for (size_t i = 0; i < plan.path.size(); ++i) {
          const size_type par = S.snodes[size_t(plan.path[i])].parent;
          if (par >= 0 && pos[size_t(par)] == std::int64_t(q) && sstart[i] + snp[i] + 1 == sstart[q]) next = std::int64_t(i);
        }
        if (next < 0) break;
        q = size_t(next);
      }
      std::printf("  critical chain: %lld launches, %lld columns; supernodes >= 256 columns %lld launches (%lld columns), "
                  ">= 512 columns %lld launches (%lld columns); widths leaf to root: %s\n",
                  total, cols, l256, c256, l512, c512, widths.c_str());
      long long n128 = 0, n256 = 0, n512 = 0;  // on the whole path (wide supernodes share one stream)
      for (size_t i = 0; i < plan.path.size(); ++i) {
        const long long c = S.snodes[size_t(plan.path[i])].ncols;
        n128 += c >= 128, n256 += c >= 256, n512 += c >= 512;
      }
      std::printf("  path supernodes >= 128 columns %lld, >= 256 %lld, >= 512 %lld\n", n128, n256, n512);
    }
    if (plan_only) return 0;
  }
  std::vector<double> t_factor, t_refactor, t_up, t_down;
  double res_up = 0, res_down = 0;
  for (int r = 0; r < reps; ++r) {
    t0 = now();
    if (chol.factorize(exec, A) != 0) return 1;
    t_factor.push_back(now() - t0);
    t0 = now();
    if (chol.update(exec, W, ks::Sign::Plus) != 0) return 1;
    t_up.push_back(now() - t0);
    res_up = std::max(res_up, residual(chol, Ap));
    t0 = now();
    if (chol.factorize(exec, Ap) != 0) return 1;  // the peer: refactor A + W W^T
    t_refactor.push_back(now() - t0);
    t0 = now();
    if (chol.update(exec, W, ks::Sign::Minus) != 0) return 1;
    t_down.push_back(now() - t0);
    res_down = std::max(res_down, residual(chol, A));
  }
  const auto& as = chol.analysis_stats();
  std::printf("perf_sparse_update: elasticity %lld^3, n = %lld, nnz(L) = %lld, %lld supernodes, rank %lld, %s placement "
              "(%s), %d threads, median of %d, %s\n",
              (long long)size, (long long)A.n, (long long)as.nnz_l_stored, (long long)as.nsupernodes, (long long)rank,
              placement.c_str(), chol.resident() ? "factor resident in the execution space" : "factor on the host", threads,
              reps, cpu_time ? "process CPU time" : "wall-clock time");
  std::printf("  analyse %.3f s, factorize A %.3f s, refactorize A + W W^T %.3f s\n", t_analyse, median(t_factor),
              median(t_refactor));
  std::printf("  update   + W W^T %.4f s  (refactor / update   = %.1fx)  residual %.1e\n", median(t_up),
              median(t_refactor) / median(t_up), res_up);
  std::printf("  downdate - W W^T %.4f s  (refactor / downdate = %.1fx)  residual %.1e\n", median(t_down),
              median(t_refactor) / median(t_down), res_down);
  for (int ut : update_threads) {  // the factor is A's again (the downdate)
    chol.options().threads = ut;
    std::vector<double> u, d;
    for (int r = 0; r < reps; ++r) {
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Plus) != 0) return 1;
      u.push_back(now() - t0);
      res_up = std::max(res_up, residual(chol, Ap));
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Minus) != 0) return 1;
      d.push_back(now() - t0);
      res_down = std::max(res_down, residual(chol, A));
    }
    std::printf("  %2d update threads: update %.4f s (%.1fx), downdate %.4f s (%.1fx)  residuals %.1e %.1e\n", ut,
                median(u), median(t_refactor) / median(u), median(d), median(t_refactor) / median(d), res_up, res_down);
  }
  chol.options().threads = threads;
  int sweep_bad = 0;
  const kspd::sparse::Impl::UpdateWide wide0 = kspd::sparse::Impl::update_wide_hook();
  for (const auto& w : sweep) {  // the factor is A's again (the downdate)
    kspd::sparse::Impl::update_wide_hook() = w;
    std::vector<double> u, d;
    double ru = 0, rd = 0;
    for (int r = 0; r < reps; ++r) {
      Exec().fence();
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Plus) != 0) return 1;
      u.push_back(now() - t0);
      ru = std::max(ru, residual(chol, Ap));
      t0 = now();
      if (chol.update(exec, W, ks::Sign::Minus) != 0) return 1;
      d.push_back(now() - t0);
      rd = std::max(rd, residual(chol, A));
    }
    sweep_bad += !(ru < 1e-10 && rd < 1e-10);
    std::printf("  wide T %d A %d BW %d L %d: update %.4f s (%.1fx), downdate %.4f s (%.1fx)  residuals %.1e %.1e\n",
                kspd::sparse::Impl::update_wide_threshold(), kspd::sparse::Impl::update_wide_alone(),
                kspd::sparse::Impl::update_wide_width(), kspd::sparse::Impl::update_wide_lanes(), median(u), median(t_refactor) / median(u), median(d),
                median(t_refactor) / median(d), ru, rd);
  }
  kspd::sparse::Impl::update_wide_hook() = wide0;
  const int profile_bad = profile_file.empty() ? 0 : step_profile(chol, exec, A, Ap, W, profile_file);
  {
    namespace kp = kspd::perf;
    const std::string v = "elasticity" + std::to_string((long long)size) + " " + placement;
    kp::csv_row("d", "refactor", v, long(A.n), long(rank), -1, "kspd", median(t_refactor) * 1e3);
    kp::csv_row("d", "update", v, long(A.n), long(rank), -1, "kspd", median(t_up) * 1e3);
    kp::csv_row("d", "downdate", v, long(A.n), long(rank), -1, "kspd", median(t_down) * 1e3);
  }
  return res_up < 1e-10 && res_down < 1e-10 && profile_bad == 0 && sweep_bad == 0 ? 0 : 1;
}
