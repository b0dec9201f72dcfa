// libFuzzer: kspd-solve's command-line parser. The input is split at NUL and newline bytes
// into arguments; the parser must answer Run, Help or Error (never throw, crash or leave a
// value out of its documented range).
#include <cstdint>
#include <cstdlib>
#include <string>
#include <vector>

#include "kspd_solve_args.hpp"

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  std::vector<std::string> words(1);
  for (size_t i = 0; i < size && words.size() < 64; ++i)
    if (data[i] == 0 || data[i] == '\n') words.emplace_back();
    else words.back() += char(data[i]);
  std::vector<const char*> argv{"kspd-solve"};
  for (const auto& w : words) argv.push_back(w.c_str());
  namespace kd = kspd::sparse::driver;
  kd::Args a;
  const kd::ParseResult r = kd::parse_args(int(argv.size()), argv.data(), a);
  if (r.status == kd::ParseStatus::Error && r.message.rfind("kspd-solve: ", 0) != 0) std::abort();
  if (r.status == kd::ParseStatus::Run) {
    if (a.nrhs < 1 || a.nx < 1 || a.ny < 1 || a.nz < 1 || a.opt.threads < 0 || a.opt.threads > kd::kMaxThreads ||
        a.opt.offload.device_memory_limit <= 0 || a.opt.max_supernode < 1 || a.opt.max_trsm_rows < 1)
      std::abort();
    for (double z : a.opt.relax.zrelax)
      if (!(z >= 0 && z <= 1)) std::abort();
  }
  return 0;
}
