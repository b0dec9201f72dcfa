#ifndef KSPD_SPARSE_HOST_SOLVE_PLAN_HPP
#define KSPD_SPARSE_HOST_SOLVE_PLAN_HPP
/// \file kspd_sparse_host_solve_plan.hpp
/// The schedule of the host supernodal solve (kspd_sparse_solve.hpp), built once per
/// analysis. The supernodal elimination tree is cut into disjoint leaf subtrees ("tasks")
/// of at most 1/grain of the factor's work each, and the supernodes above them ("top").
/// The cut depends on the tree alone, never on the thread count, so the solve's results do
/// not either.
///  - Forward, a task's supernodes scatter their updates straight into the rows of their own
///    task (no other task touches them) and accumulate the updates of rows outside it (all
///    rows of the task root's structure, by the elimination tree's property) into the task's
///    own buffer, indexed by the position in the root's rows (`slot`). The buffers are then
///    subtracted in task order, before the top supernodes run in postorder.
///  - Backward, the top supernodes run first; the tasks then only read rows outside them.
/// Top supernodes with a large panel (`big`) are solved by every thread: column panels of
/// `panel`, their products split in fixed chunks of `chunk` rows (HostSolveTuning).

#include <algorithm>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

/// The plan's sizes (the defaults serve every solve; tests shrink them to reach every path
/// on small matrices).
struct HostSolveTuning {
  size_type grain = 96;       ///< a task holds at most 1/grain of the work
  size_type big = 1 << 17;    ///< top panels of at least this many entries: all threads
  size_type panel = 256;      ///< column panel of a big supernode
  size_type chunk = 128;      ///< rows per product chunk of a big supernode (16 threads on 40^3's top panels)
  /// Panel entries x right-hand sides per thread at least (0: no limit): a thread costs its
  /// start and the barriers, about 1 M entries' time (H100 host, 16 threads: elasticity 16^3
  /// took 1.46x CHOLMOD's time, 28^3 0.71x).
  double work_per_thread = 1e6;
};

struct HostSolvePlan {
  size_type panel = 256, chunk = 128;            ///< HostSolveTuning's
  double work_per_thread = 1e6;                  ///< HostSolveTuning's

  std::vector<size_type> task_first, task_root;  ///< task t: supernodes [task_first[t], task_root[t]]
  std::vector<size_type> task_order;             ///< tasks by decreasing work (the threads' queue)
  std::vector<size_type> buf_off;                ///< task t's buffer: m(root) x nrhs at buf_off[t] * nrhs
  std::vector<size_type> top;                    ///< supernodes outside the tasks, postorder
  std::vector<size_type> n_int;                  ///< per supernode: below rows inside its task (top: all)
  std::vector<size_type> slot;                   ///< per entry of Symbolic::rows: external row's position
  std::vector<char> big;                         ///< per supernode: solved by all threads
  size_type buf_rows = 0;                        ///< sum of the task roots' below rows
  double work = 0;                               ///< panel entries of the whole factor
  double top_work = 0;                           ///< of the top supernodes
  size_type max_rows = 0;                        ///< the tallest panel
};

inline HostSolvePlan make_host_solve_plan(const Symbolic& S, const HostSolveTuning& tune = {}) {
  KSPD_REQUIRE(tune.grain >= 1 && tune.big >= 1 && tune.panel >= 1 && tune.chunk >= 1, InvalidArgument,
               "kspd::sparse: HostSolveTuning sizes must be positive");
  HostSolvePlan P;
  P.panel = tune.panel;
  P.chunk = tune.chunk;
  P.work_per_thread = tune.work_per_thread;
  const size_type ns = size_type(S.snodes.size());
  std::vector<double> w(size_t(ns), 0.0), sw(size_t(ns), 0.0);
  std::vector<size_type> first(static_cast<size_t>(ns));
  for (size_type s = 0; s < ns; ++s) first[size_t(s)] = s;
  for (size_type s = 0; s < ns; ++s) {  // postorder: children come before their parent
    const Supernode& sn = S.snodes[size_t(s)];
    w[size_t(s)] = double(sn.nrows()) * double(sn.ncols) + 64.0;  // (+ a call's overhead)
    sw[size_t(s)] += w[size_t(s)];
    P.work += w[size_t(s)];
    P.max_rows = std::max(P.max_rows, sn.nrows());
    if (sn.parent >= 0) {
      KSPD_REQUIRE(sn.parent > s, Error, "kspd::sparse: internal error: supernodes not in postorder");
      sw[size_t(sn.parent)] += sw[size_t(s)];
      first[size_t(sn.parent)] = std::min(first[size_t(sn.parent)], first[size_t(s)]);
    }
  }
  const double limit = P.work / double(tune.grain);
  P.n_int.assign(size_t(ns), 0);
  P.slot.assign(S.rows.size(), -1);
  P.big.assign(size_t(ns), 0);
  std::vector<char> in_task(size_t(ns), 0);
  std::vector<size_type> pos(size_t(S.n), -1);
  for (size_type r = ns - 1; r >= 0; --r) {  // task roots: maximal subtrees within the limit
    const Supernode& rn = S.snodes[size_t(r)];
    if (in_task[size_t(r)] || sw[size_t(r)] > limit) continue;
    if (rn.parent >= 0 && sw[size_t(rn.parent)] <= limit) continue;  // (the parent's task holds it)
    P.task_first.push_back(first[size_t(r)]);
    P.task_root.push_back(r);
    const size_type lo = first[size_t(r)], last_col = rn.first_col + rn.ncols - 1;
    const size_type* rr = S.rows.data() + rn.row_begin + rn.ncols;
    const size_type mr = rn.nrows() - rn.ncols;
    for (size_type i = 0; i < mr; ++i) pos[size_t(rr[i])] = i;
    for (size_type s = lo; s <= r; ++s) {
      in_task[size_t(s)] = 1;
      const Supernode& sn = S.snodes[size_t(s)];
      const size_type b = sn.row_begin + sn.ncols, e = sn.row_end;
      size_type i = b;
      while (i < e && S.rows[size_t(i)] <= last_col) ++i;  // rows are ascending
      P.n_int[size_t(s)] = i - b;
      for (; i < e; ++i) {
        const size_type q = pos[size_t(S.rows[size_t(i)])];
        KSPD_REQUIRE(q >= 0, Error, "kspd::sparse: internal error: a row outside the task root's structure");
        P.slot[size_t(i)] = q;
      }
    }
    for (size_type i = 0; i < mr; ++i) pos[size_t(rr[i])] = -1;
  }
  std::reverse(P.task_first.begin(), P.task_first.end());
  std::reverse(P.task_root.begin(), P.task_root.end());
  const size_type nt = size_type(P.task_root.size());
  P.buf_off.assign(size_t(nt) + 1, 0);
  for (size_type t = 0; t < nt; ++t) {
    const Supernode& rn = S.snodes[size_t(P.task_root[size_t(t)])];
    P.buf_off[size_t(t) + 1] = P.buf_off[size_t(t)] + rn.nrows() - rn.ncols;
  }
  P.buf_rows = P.buf_off[size_t(nt)];
  P.task_order.resize(size_t(nt));
  for (size_type t = 0; t < nt; ++t) P.task_order[size_t(t)] = t;
  std::stable_sort(P.task_order.begin(), P.task_order.end(), [&](size_type a, size_type b) {
    return sw[size_t(P.task_root[size_t(a)])] > sw[size_t(P.task_root[size_t(b)])];
  });
  for (size_type s = 0; s < ns; ++s) {
    if (in_task[size_t(s)]) continue;
    const Supernode& sn = S.snodes[size_t(s)];
    P.top.push_back(s);
    P.n_int[size_t(s)] = sn.nrows() - sn.ncols;
    P.top_work += w[size_t(s)];
    P.big[size_t(s)] = double(sn.nrows()) * double(sn.ncols) >= double(tune.big);
  }
  return P;
}

}  // namespace kspd::sparse::Impl
#endif
