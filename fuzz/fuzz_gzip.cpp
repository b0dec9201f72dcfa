// libFuzzer: gzip-compressed matrix files (.mtx.gz). The first byte picks the mode: even,
// the rest of the input is the compressed file itself (damaged streams, truncation, trailing
// data); odd, it is compressed here first (the reader's text path behind zlib).
#include <zlib.h>

#include "fuzz_reader_common.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  static const std::string path = kspd_fuzz::temp_path(".mtx.gz");
  if (size == 0) return 0;
  if (data[0] % 2 == 0) {
    kspd_fuzz::write_file(path, data + 1, size - 1);
  } else {
    gzFile g = gzopen(path.c_str(), "wb1");
    if (!g) std::abort();
    if (size > 1 && gzwrite(g, data + 1, unsigned(size - 1)) != int(size - 1)) std::abort();
    gzclose(g);
  }
  kspd_fuzz::expect_read_or_error([&] { return kspd::sparse::read_matrix<double>(path); });
  return 0;
}
