// libFuzzer: the Rutherford-Boeing / Harwell-Boeing reader (double and float).
#include "fuzz_reader_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = kspd_fuzz::temp_path(".rsa");
  kspd_fuzz::write_file(path, data, size);
  kspd_fuzz::expect_read_or_error([&] { return kspd::sparse::read_rutherford_boeing<double>(path); });
  if (size % 2) kspd_fuzz::expect_read_or_error([&] { return kspd::sparse::read_matrix<float>(path); });
  return 0;
}
