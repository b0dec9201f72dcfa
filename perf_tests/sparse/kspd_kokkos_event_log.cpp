// A Kokkos Tools library (KOKKOS_TOOLS_LIBS=.../libkspd_kokkos_event_log.so) for issue #17,
// target C: does a rank touch the device while another rank factors? It counts this
// process's Kokkos events (kernel launches, fences, deep copies, allocations) inside the
// profiling region "kspd::sparse::DistributedCholesky::factorize" and elsewhere, keeps the
// first few names seen inside and the most frequent names per kind inside, and prints them
// at finalize (stderr, lines starting "kspd-event-log: rank R"). KSPD_EVENT_LOG_REGION names
// another region (e.g. kspd::rfp::pftrf, #14); LD_PRELOADed as well, it also counts and times
// the CUDA runtime's allocations, frees, synchronizations and cudaMemGetInfo (below). It
// asks Kokkos for no global fences, so it adds no device synchronization. Calls that bypass
// Kokkos (cuBLAS, cuSOLVER, raw CUDA) are not seen: those need the code audit.
#include <impl/Kokkos_Profiling_C_Interface.h>

#include <dlfcn.h>
#include <unistd.h>

#include <chrono>

#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <map>
#include <string>
#include <utility>
#include <vector>

namespace {

// the counted region: KSPD_EVENT_LOG_REGION (e.g. kspd::rfp::pftrf), by default factorize
std::string region_name() {
  const char* r = std::getenv("KSPD_EVENT_LOG_REGION");
  return r && *r ? r : "kspd::sparse::DistributedCholesky::factorize";
}
const std::string& region() {
  static const std::string r = region_name();
  return r;
}
// as printed: the default keeps its short name (scripts grep "inside DistributedCholesky::factorize")
const char* region_label() {
  const char* r = std::getenv("KSPD_EVENT_LOG_REGION");
  return r && *r ? region().c_str() : "DistributedCholesky::factorize";
}
// The first five are Kokkos events; the others CUDA runtime calls, seen only when this
// library is also LD_PRELOADed (it then forwards them to libcudart: RTLD_NEXT), with the host
// time spent in them. cuBLAS/cuSOLVER's internal calls go to their own runtime: not seen.
enum Kind { Kernel, Fence, DeepCopy, Alloc, Dealloc, CudaMalloc, CudaFree, CudaSync, CudaMemInfo, Kinds };
constexpr int kFirstCuda = CudaMalloc;
const char* const kNames[Kinds] = {"kernels",   "fences",       "deep copies", "allocations", "deallocations",
                                   "cudaMalloc*", "cudaFree*", "cuda*Synchronize", "cudaMemGetInfo"};

struct Log {
  std::vector<bool> stack;  // per open region: is it the factorize region
  int depth = 0;            // open factorize regions
  long windows = 0;
  long count[2][Kinds] = {};  // [inside][kind]
  double secs[2][Kinds] = {};  // [inside][kind]: host seconds in the CUDA calls
  std::vector<std::string> first;  // the first names inside
  std::map<std::string, long> names[Kinds];  // inside: per kind, the count per name
};
Log& log() {
  static Log l;
  return l;
}
void note(Kind k, const char* name) {
  Log& l = log();
  const int in = l.depth > 0;
  ++l.count[in][k];
  if (!in) return;
  if (l.first.size() < 8) l.first.push_back(std::string(kNames[k]) + ": " + (name ? name : "?"));
  ++l.names[k][name ? name : "?"];
}
const char* rank_env() {
  for (const char* v : {"OMPI_COMM_WORLD_RANK", "PMI_RANK", "PMIX_RANK"})
    if (const char* s = std::getenv(v)) return s;
  return "-";
}

/// One output line, written with one write(2) call: the ranks of an MPI run print at the same
/// time into pipes, and a line written piece by piece (stderr is unbuffered) comes out
/// interleaved with another rank's (up to PIPE_BUF bytes a write stays whole).
struct Line {
  std::string s;
  void add(const char* fmt, ...) __attribute__((format(printf, 2, 3))) {
    char buf[1024];
    va_list ap;
    va_start(ap, fmt);
    const int n = std::vsnprintf(buf, sizeof buf, fmt, ap);
    va_end(ap);
    if (n > 0) s.append(buf, size_t(std::min<int>(n, int(sizeof buf) - 1)));
  }
  void put(std::string text) { s += std::move(text); }
  ~Line() {
    s += '\n';
    for (size_t done = 0; done < s.size();) {
      const ssize_t w = ::write(2, s.data() + done, s.size() - done);
      if (w <= 0) break;
      done += size_t(w);
    }
  }
};

}  // namespace

extern "C" {
void kokkosp_request_tool_settings(const uint32_t, Kokkos_Tools_ToolSettings* s) { s->requires_global_fencing = false; }
void kokkosp_init_library(const int, const uint64_t, const uint32_t, Kokkos_Profiling_KokkosPDeviceInfo*) {}
void kokkosp_finalize_library() {
  const Log& l = log();
  std::string first;
  for (const auto& f : l.first) first += (first.empty() ? "" : "; ") + f;
  for (int in : {1, 0}) {
    Line out;
    out.add("kspd-event-log: rank %s pid %d, %s%s:", rank_env(), int(getpid()), in ? "inside " : "elsewhere",
            in ? region_label() : "");
    if (in) out.add(" (%ld calls)", l.windows);
    for (int k = 0; k < Kinds; ++k) out.add(" %ld %s%s", l.count[in][k], kNames[k], k + 1 < Kinds ? "," : "");
    if (in && l.windows > 0) {
      out.add("; per call:");
      for (int k = 0; k < Kinds; ++k) out.add(" %.2f %s", double(l.count[1][k]) / l.windows, kNames[k]);
      out.add("; host ms per call in:");
      for (int k = kFirstCuda; k < Kinds; ++k) out.add(" %s %.3f", kNames[k], l.secs[1][k] * 1e3 / l.windows);
    }
    if (in) out.put("; first inside: [" + first + "]");
  }
  for (int k = 0; k < Kinds; ++k) {  // the 8 most frequent names per kind inside
    std::vector<std::pair<long, std::string>> top;
    for (const auto& [n, c] : l.names[k]) top.push_back({c, n});
    std::sort(top.rbegin(), top.rend());
    if (top.empty()) continue;
    Line out;
    out.add("kspd-event-log: rank %s pid %d, inside, most frequent %s:", rank_env(), int(getpid()), kNames[k]);
    for (size_t i = 0; i < top.size() && i < 8; ++i) out.put(" " + std::to_string(top[i].first) + " x [" + top[i].second + "]");
  }
}
void kokkosp_push_profile_region(const char* name) {
  Log& l = log();
  // only the outermost window counts (a region nested in itself is one call)
  const bool f = name && l.depth == 0 && name == region();
  l.stack.push_back(f);
  if (f) {
    ++l.depth;
    ++l.windows;
  }
}
void kokkosp_pop_profile_region() {
  Log& l = log();
  if (l.stack.empty()) return;
  if (l.stack.back()) --l.depth;
  l.stack.pop_back();
}
void kokkosp_begin_parallel_for(const char* name, const uint32_t, uint64_t* id) { note(Kernel, name), *id = 0; }
void kokkosp_end_parallel_for(const uint64_t) {}
void kokkosp_begin_parallel_reduce(const char* name, const uint32_t, uint64_t* id) { note(Kernel, name), *id = 0; }
void kokkosp_end_parallel_reduce(const uint64_t) {}
void kokkosp_begin_parallel_scan(const char* name, const uint32_t, uint64_t* id) { note(Kernel, name), *id = 0; }
void kokkosp_end_parallel_scan(const uint64_t) {}
void kokkosp_begin_fence(const char* name, const uint32_t, uint64_t* id) { note(Fence, name), *id = 0; }
void kokkosp_end_fence(const uint64_t) {}
void kokkosp_begin_deep_copy(Kokkos_Profiling_SpaceHandle dst, const char* dst_name, const void*, Kokkos_Profiling_SpaceHandle src,
                             const char*, const void*, uint64_t) {
  note(DeepCopy, (std::string(src.name) + "->" + dst.name + " " + (dst_name ? dst_name : "")).c_str());
}
void kokkosp_end_deep_copy() {}
void kokkosp_allocate_data(const Kokkos_Profiling_SpaceHandle h, const char* name, const void*, const uint64_t) {
  note(Alloc, (std::string(h.name) + " " + (name ? name : "")).c_str());
}
void kokkosp_deallocate_data(const Kokkos_Profiling_SpaceHandle h, const char* name, const void*, const uint64_t) {
  note(Dealloc, (std::string(h.name) + " " + (name ? name : "")).c_str());
}
}

// CUDA runtime interposers (LD_PRELOAD): count, time, forward to the next definition.
namespace {
using Clock = std::chrono::steady_clock;
template <class Fn>
Fn* next_fn(const char* name) {
  return reinterpret_cast<Fn*>(dlsym(RTLD_NEXT, name));
}
template <class Fn, class... A>
auto forward(Fn* next, Kind k, const char* name, A... a) {
  using R = decltype(next(a...));
  if (!next) return R(1);  // cudaErrorInvalidValue: no runtime behind us
  const auto t0 = Clock::now();
  const R r = next(a...);
  const double s = std::chrono::duration<double>(Clock::now() - t0).count();
  note(k, name);
  log().secs[log().depth > 0][k] += s;
  return r;
}
}  // namespace
// one per function: `next` is each wrapper's own static. Built by the host compiler (no
// CUDA headers: the runtime's types by value, cudaError_t an int, cudaStream_t a pointer).
using cu_err = int;
using cu_stream = void*;
extern "C" {
cu_err cudaMalloc(void** p, size_t b) {
  static auto* next = next_fn<cu_err(void**, size_t)>("cudaMalloc");
  return forward(next, CudaMalloc, "cudaMalloc", p, b);
}
cu_err cudaMallocAsync(void** p, size_t b, cu_stream s) {
  static auto* next = next_fn<cu_err(void**, size_t, cu_stream)>("cudaMallocAsync");
  return forward(next, CudaMalloc, "cudaMallocAsync", p, b, s);
}
cu_err cudaFree(void* p) {
  static auto* next = next_fn<cu_err(void*)>("cudaFree");
  return forward(next, CudaFree, "cudaFree", p);
}
cu_err cudaFreeAsync(void* p, cu_stream s) {
  static auto* next = next_fn<cu_err(void*, cu_stream)>("cudaFreeAsync");
  return forward(next, CudaFree, "cudaFreeAsync", p, s);
}
cu_err cudaStreamSynchronize(cu_stream s) {
  static auto* next = next_fn<cu_err(cu_stream)>("cudaStreamSynchronize");
  return forward(next, CudaSync, "cudaStreamSynchronize", s);
}
cu_err cudaDeviceSynchronize() {
  static auto* next = next_fn<cu_err()>("cudaDeviceSynchronize");
  return forward(next, CudaSync, "cudaDeviceSynchronize");
}
cu_err cudaMemGetInfo(size_t* f, size_t* t) {
  static auto* next = next_fn<cu_err(size_t*, size_t*)>("cudaMemGetInfo");
  return forward(next, CudaMemInfo, "cudaMemGetInfo", f, t);
}
}
