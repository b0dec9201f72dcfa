#ifndef KSPD_PERF_UTILS_HPP
#define KSPD_PERF_UTILS_HPP
/// \file kspd_perf_utils.hpp
/// What every benchmark in perf_tests/ shares: comma-separated argument lists and the timing
/// rule (one warm-up, then the median of `reps` runs, each after an untimed reset, fenced on
/// both sides).

#include <Kokkos_Core.hpp>

#include <algorithm>
#include <string>
#include <vector>

namespace kspd::perf {

/// "1024,2048,4096" -> {1024, 2048, 4096}
inline std::vector<long> parse_list(const std::string& str) {
  std::vector<long> v;
  size_t pos = 0;
  while (pos < str.size()) {
    const size_t c = str.find(',', pos);
    v.push_back(std::stol(str.substr(pos, c == std::string::npos ? std::string::npos : c - pos)));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return v;
}

/// "potrf,trsm" -> {"potrf", "trsm"}
inline std::vector<std::string> parse_words(const std::string& str) {
  std::vector<std::string> v;
  size_t pos = 0;
  while (pos <= str.size()) {
    const size_t c = str.find(',', pos);
    v.push_back(str.substr(pos, c == std::string::npos ? std::string::npos : c - pos));
    if (c == std::string::npos) break;
    pos = c + 1;
  }
  return v;
}

inline bool has(const std::vector<std::string>& v, const char* w) { return std::find(v.begin(), v.end(), w) != v.end(); }

/// Median time of `reps` runs of fn() on the default execution space, each preceded by
/// reset() (untimed); one warm-up run first (handles, module load, allocator).
template <class Reset, class Fn>
double median_time(int reps, Reset reset, Fn fn) {
  Kokkos::DefaultExecutionSpace exec;
  std::vector<double> t;
  reset();
  exec.fence();
  fn();
  exec.fence();
  for (int r = 0; r < reps; ++r) {
    reset();
    exec.fence();
    Kokkos::Timer timer;
    fn();
    exec.fence();
    t.push_back(timer.seconds());
  }
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

}  // namespace kspd::perf
#endif
