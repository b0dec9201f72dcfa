// libFuzzer: the Matrix Market reader (double and float).
#include "fuzz_reader_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = kspd_fuzz::temp_path(".mtx");
  kspd_fuzz::write_file(path, data, size);
  kspd_fuzz::expect_read_or_error([&] { return kspd::sparse::read_matrix_market<double>(path); });
  if (size % 2) kspd_fuzz::expect_read_or_error([&] { return kspd::sparse::read_matrix_market<float>(path); });
  return 0;
}
