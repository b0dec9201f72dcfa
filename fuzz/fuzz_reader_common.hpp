#ifndef KSPD_FUZZ_READER_COMMON_HPP
#define KSPD_FUZZ_READER_COMMON_HPP
// libFuzzer targets of the matrix readers: the input goes to a file (the readers take
// paths; /dev/shm when there is one) and is read. A kspd::Error (ParseError, InvalidArgument)
// is the expected answer to a malformed file; anything else (a crash, a sanitizer report,
// another exception, a hang) is a bug.
#include <unistd.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <string>

#include "kspd_error.hpp"
#include "kspd_sparse_io.hpp"

namespace kspd_fuzz {

inline std::string temp_path(const char* suffix) {
  const char* dir = access("/dev/shm", W_OK) == 0 ? "/dev/shm" : "/tmp";
  return std::string(dir) + "/kspd_fuzz_" + std::to_string(getpid()) + suffix;
}

inline void write_file(const std::string& path, const uint8_t* data, size_t size) {
  FILE* f = std::fopen(path.c_str(), "wb");
  if (!f) std::abort();
  if (size && std::fwrite(data, 1, size, f) != size) std::abort();
  std::fclose(f);
}

/// Runs read(); only kspd::Error may come out.
template <class Read>
void expect_read_or_error(Read&& read) {
  try {
    const auto A = read();
    // A matrix that was read must be consistent.
    if (A.colptr.size() != size_t(A.n + 1) || A.rowind.size() != A.values.size() ||
        (A.n > 0 && A.colptr.back() != kspd::size_type(A.rowind.size())))
      std::abort();
  } catch (const kspd::Error&) {
  } catch (const std::exception& e) {
    std::fprintf(stderr, "kspd fuzz: not a kspd::Error: %s\n", e.what());
    std::abort();
  }
}

}  // namespace kspd_fuzz
#endif
