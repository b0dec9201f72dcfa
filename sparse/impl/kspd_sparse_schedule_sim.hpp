#ifndef KSPD_SPARSE_SCHEDULE_SIM_HPP
#define KSPD_SPARSE_SCHEDULE_SIM_HPP
/// \file kspd_sparse_schedule_sim.hpp
/// The host factorization's schedule replayed on a virtual clock: each task takes the CPU
/// seconds it took in a real run (Numeric's timeline), and P workers follow the scheduler's
/// rules (kspd_sparse_scheduler.hpp: its counters, its ready-queue order, a worker keeping
/// the most urgent task its completion made ready). The result is what P workers would take
/// on dedicated cores: on a shared machine the wall clock of the real run also holds the
/// time its threads waited for a core. With P at least the number of tasks it is the
/// critical path.

#include <functional>
#include <queue>
#include <tuple>
#include <vector>

#include "kspd_sparse_scheduler.hpp"

namespace kspd::sparse::Impl {

struct ScheduleSim {
  double makespan = 0;  ///< seconds until the last task ends
  double work = 0;      ///< sum of the task seconds
  double idle() const { return makespan > 0 ? 1 - work / (makespan * workers) : 0; }  ///< idle fraction
  int workers = 0;
};

/// The makespan of S's task graph on `workers` workers, task t taking seconds[t].
inline ScheduleSim simulate_schedule(const Symbolic& S, const std::vector<double>& seconds, int workers) {
  Scheduler sched(S);
  std::vector<size_type> newly;
  sched.start(newly);
  std::priority_queue<Scheduler::Entry, std::vector<Scheduler::Entry>, std::greater<>> ready;
  for (size_type t : newly) ready.push(sched.entry(t));
  using Event = std::tuple<double, int, size_type>;  // (end time, worker, task)
  std::priority_queue<Event, std::vector<Event>, std::greater<>> running;
  std::vector<int> free_workers;
  for (int w = workers - 1; w >= 0; --w) free_workers.push_back(w);
  ScheduleSim r;
  r.workers = workers;
  for (double s : seconds) r.work += s;
  double now = 0;
  auto begin = [&](int w, size_type t) { running.emplace(now + seconds[size_t(t)], w, t); };
  for (;;) {
    while (!free_workers.empty() && !ready.empty()) {
      begin(free_workers.back(), ready.top().second);
      free_workers.pop_back();
      ready.pop();
    }
    if (running.empty()) break;
    const auto [end, w, t] = running.top();
    running.pop();
    now = end;
    newly.clear();
    sched.deliver(BlockEvent{S.tasks[size_t(t)].kind, t}, newly);
    size_t best = 0;
    for (size_t i = 1; i < newly.size(); ++i)
      if (sched.entry(newly[i]) < sched.entry(newly[best])) best = i;
    for (size_t i = 0; i < newly.size(); ++i)
      if (i != best) ready.push(sched.entry(newly[i]));
    if (!newly.empty()) begin(w, newly[best]);
    else free_workers.push_back(w);
  }
  r.makespan = now;
  return r;
}

}  // namespace kspd::sparse::Impl
#endif
