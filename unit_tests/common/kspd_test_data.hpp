#ifndef KSPD_TEST_DATA_HPP
#define KSPD_TEST_DATA_HPP
/// The real matrices of ../shared/data/matrices (KSPD_DATA_DIR): a test that cannot find
/// them skips, the run reports at its end how many skipped, and under CI (the environment
/// variable CI set, and not "0"/"false") a skip is a failure, so that a CI without the data
/// cannot report 100 % (issue #12, row 10).

#include <gtest/gtest.h>
#include <sys/stat.h>

#include <atomic>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kspd::test {

inline std::atomic<int>& data_skips() {
  static std::atomic<int> n{0};
  return n;
}

/// Whether this run is CI's (a data test that skips then fails).
inline bool running_in_ci() {
  const char* ci = std::getenv("CI");
  return ci && *ci && std::strcmp(ci, "0") != 0 && std::strcmp(ci, "false") != 0 && std::strcmp(ci, "FALSE") != 0;
}

/// Records that the current test skips for lack of data (`why`); under CI the test fails.
/// The caller then returns (GTEST_SKIP() << ...).
inline void record_data_skip(const std::string& why) {
  ++data_skips();
  std::printf("[  SKIPPED ] %s\n", why.c_str());
  if (running_in_ci())
    ADD_FAILURE() << "CI is set but this test's data is missing: " << why
                  << " (the matrices live in ../shared/data/matrices beside the checkout; configure with -DKSPD_DATA_DIR=...)";
}

/// KSPD_DATA_DIR when it is a directory; else "" after record_data_skip.
inline std::string data_dir() {
  const char* d = std::getenv("KSPD_DATA_DIR");
  struct stat sb;
  if (!d || !*d) {
    record_data_skip("KSPD_DATA_DIR is not set (CTest sets it to ../shared/data/matrices)");
    return "";
  }
  if (stat(d, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
    record_data_skip(std::string("KSPD_DATA_DIR=") + d + " is not a directory: the real-matrix checks do not run");
    return "";
  }
  return d;
}

/// Prints, at the end of the run, how many tests skipped for lack of data.
class DataSkipReport : public ::testing::EmptyTestEventListener {
  void OnTestProgramEnd(const ::testing::UnitTest&) override {
    const int n = data_skips().load();
    if (n > 0)
      std::printf("[ NO DATA  ] %d test(s) skipped: the real matrices (KSPD_DATA_DIR=%s) are missing%s\n", n,
                  std::getenv("KSPD_DATA_DIR") ? std::getenv("KSPD_DATA_DIR") : "(unset)",
                  running_in_ci() ? " (CI: these count as failures)" : "");
  }
};

}  // namespace kspd::test
#endif
