/// \file kspd_sparse_ordering.cpp
/// Fill-reducing orderings: Metis nested dissection, natural, user.
///
/// With one thread, METIS_NodeND on the whole graph. With T > 1 threads, a parallel nested
/// dissection: the graph is compressed (vertices with the same closed adjacency, as
/// METIS_NodeND does), the top levels are split by METIS_ComputeVertexSeparator (the separator
/// routine and default options of METIS_NodeND) until there are >= 2T subgraphs, and those are
/// ordered concurrently by METIS_NodeND (Metis keeps its state per call and its random state
/// per thread). Each part is numbered before its sibling, separators after both parts, so the
/// result does not depend on the order in which the threads finish.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <condition_variable>
#include <cstdint>
#include <exception>
#include <limits>
#include <mutex>
#include <numeric>
#include <thread>

#include "KSPD_Config.hpp"
#include "kspd_error.hpp"
#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_symbolic.hpp"

#ifdef KSPD_ENABLE_METIS
#include <dlfcn.h>
#include <metis.h>
#endif

namespace kspd::sparse::Impl {

GlibcRand::GlibcRand(unsigned s) { seed(s); }

void GlibcRand::seed(unsigned s) {
  // glibc's srand (random_r.c, TYPE_3): Park-Miller fills r[0..30], r[31..33] = r[0..2],
  // then 310 outputs are thrown away.
  std::int32_t* r = r_;
  r[0] = std::int32_t(s == 0 ? 1 : s);
  for (int i = 1; i < 31; ++i) {
    const std::int64_t hi = r[i - 1] / 127773, lo = r[i - 1] % 127773;
    std::int64_t word = 16807 * lo - 2836 * hi;
    if (word < 0) word += 2147483647;
    r[i] = std::int32_t(word);
  }
  for (int i = 31; i < 34; ++i) r[i] = r[i - 31];
  k_ = 34;
  for (int i = 34; i < 344; ++i) next_raw();
}

std::uint32_t GlibcRand::next_raw() {
  // r[k] = r[k - 31] + r[k - 3] (mod 2^32) in a ring of 34
  const std::uint32_t v = std::uint32_t(r_[(k_ - 31) % 34]) + std::uint32_t(r_[(k_ - 3) % 34]);
  r_[k_ % 34] = std::int32_t(v);
  k_ = k_ + 1 == 34 * 1024 ? 34 : k_ + 1;
  return v;
}

int GlibcRand::next() { return int(next_raw() >> 1); }

#ifdef KSPD_ENABLE_METIS
namespace {
// FIXME_METIS: Debian's Metis 5.1 (GKlib without USE_GKRAND) draws its random numbers from
// libc's rand(), one stream for the whole process: Metis calls in several threads run, but
// they interleave the stream, so the ordering changes from run to run. While a thread is
// inside a Metis call of this file, rand()/srand() below use a stream of its own, the same
// numbers glibc gives (so one thread orders exactly as before); elsewhere they are libc's.
thread_local bool metis_rand_local = false;
thread_local GlibcRand metis_rand;

struct MetisRandScope {
  MetisRandScope() { metis_rand_local = true; }
  ~MetisRandScope() { metis_rand_local = false; }
  MetisRandScope(const MetisRandScope&) = delete;
  MetisRandScope& operator=(const MetisRandScope&) = delete;
};
}  // namespace
#endif

int analysis_threads(const Options& opt) {
  if (opt.threads > 0) return opt.threads;
  const unsigned hc = std::thread::hardware_concurrency();
  return hc > 0 ? int(hc) : 1;
}

namespace {

#ifdef KSPD_ENABLE_METIS
/// An undirected graph in Metis' CSR form; vwgt empty means unit weights.
struct Graph {
  idx_t n = 0;
  std::vector<idx_t> xadj;
  WorkVector<idx_t> adj;
  std::vector<idx_t> vwgt;
  idx_t* wptr() { return vwgt.empty() ? nullptr : vwgt.data(); }
};

/// The adjacency graph of the lower-triangular pattern: both triangles, no diagonal. Column
/// j's rows come in increasing order and the columns in increasing order, so every list
/// comes out sorted (and the same for every T).
Graph adjacency(const PatternRef& A, int T) {
  const size_type n = A.n;
  size_type ndiag = 0;
  for (size_type j = 0; j < n; ++j) ndiag += A.colptr[j] < A.colptr[j + 1] && A.rowind[A.colptr[j]] == j;
  const size_type nadj = 2 * (A.colptr[n] - ndiag);
  KSPD_REQUIRE(nadj < size_type(std::numeric_limits<idx_t>::max()) && n < size_type(std::numeric_limits<idx_t>::max()),
               InvalidArgument,
               "kspd::sparse: the graph has " << nadj << " adjacency entries, more than this Metis's "
                                              << sizeof(idx_t) * 8 << "-bit idx_t holds; use another ordering");
  Graph G;
  G.n = idx_t(n);
  const auto xadj = stable_buckets(
      T, balanced_cuts(A.colptr, n, T), n,
      [&](size_type j, auto&& emit) {
        for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
          const size_type i = A.rowind[p];
          if (i != j) {
            emit(i, j, 0);
            emit(j, i, 0);
          }
        }
      },
      G.adj, static_cast<WorkVector<size_type>*>(nullptr));
  G.xadj.assign(xadj.begin(), xadj.end());
  return G;
}

/// Vertices with the same closed adjacency (i plus its neighbours) merged into one vertex
/// weighted by their number, as METIS_NodeND's CompressGraph does. members[cptr[v],
/// cptr[v+1]) are the vertices of compressed vertex v, in increasing order. Returns false
/// (and leaves C alone) when the graph shrinks by less than 15% (Metis' threshold).
bool compress(const Graph& G, int T, Graph& C, std::vector<idx_t>& cptr, std::vector<idx_t>& members) {
  const idx_t n = G.n;
  std::vector<std::pair<std::uint64_t, idx_t>> key(static_cast<size_t>(n));
  run_threads(T, [&](int t) {
    for (idx_t i = idx_t(std::int64_t(n) * t / T); i < idx_t(std::int64_t(n) * (t + 1) / T); ++i) {
      std::uint64_t k = std::uint64_t(i);
      for (idx_t p = G.xadj[size_t(i)]; p < G.xadj[size_t(i + 1)]; ++p) k += std::uint64_t(G.adj[size_t(p)]);
      key[size_t(i)] = {k, i};
    }
  });
  std::sort(key.begin(), key.end());
  // Vertices of one key are compared (a mark of the leader's closed adjacency); the runs
  // of equal keys are split over the threads, each with its own marks.
  std::vector<idx_t> rep(static_cast<size_t>(n), -1);
  std::vector<idx_t> cut(static_cast<size_t>(T + 1), n);
  cut[0] = 0;
  for (int t = 1; t < T; ++t) {
    idx_t a = std::max(cut[size_t(t - 1)], idx_t(std::int64_t(n) * t / T));
    while (a > 0 && a < n && key[size_t(a)].first == key[size_t(a - 1)].first) ++a;
    cut[size_t(t)] = a;
  }
  std::vector<idx_t> leaders(static_cast<size_t>(T), 0);
  run_threads(T, [&](int t) {
    std::vector<idx_t> mark(static_cast<size_t>(n), -1);
    idx_t nl = 0;
    for (idx_t a = cut[size_t(t)]; a < cut[size_t(t + 1)]; ++a) {
      const idx_t i = key[size_t(a)].second;
      if (rep[size_t(i)] != -1) continue;
      rep[size_t(i)] = i;
      ++nl;
      const idx_t di = G.xadj[size_t(i + 1)] - G.xadj[size_t(i)];
      bool marked = false;
      for (idx_t b = a + 1; b < n && key[size_t(b)].first == key[size_t(a)].first; ++b) {
        const idx_t j = key[size_t(b)].second;
        if (rep[size_t(j)] != -1 || G.xadj[size_t(j + 1)] - G.xadj[size_t(j)] != di) continue;
        if (!marked) {
          mark[size_t(i)] = i;
          for (idx_t p = G.xadj[size_t(i)]; p < G.xadj[size_t(i + 1)]; ++p) mark[size_t(G.adj[size_t(p)])] = i;
          marked = true;
        }
        bool same = mark[size_t(j)] == i;
        for (idx_t p = G.xadj[size_t(j)]; same && p < G.xadj[size_t(j + 1)]; ++p)
          same = mark[size_t(G.adj[size_t(p)])] == i;
        if (same) rep[size_t(j)] = i;
      }
    }
    leaders[size_t(t)] = nl;
  });
  const idx_t nc = std::accumulate(leaders.begin(), leaders.end(), idx_t(0));
  if (double(nc) >= 0.85 * double(n)) return false;
  // Number the compressed vertices by their smallest member.
  std::vector<idx_t> cid(static_cast<size_t>(n), -1);
  cptr.assign(static_cast<size_t>(nc + 1), 0);
  idx_t c = 0;
  for (idx_t i = 0; i < n; ++i)
    if (rep[size_t(i)] == i) cid[size_t(i)] = c++;
  for (idx_t i = 0; i < n; ++i) ++cptr[size_t(cid[size_t(rep[size_t(i)])] + 1)];
  for (idx_t v = 0; v < nc; ++v) cptr[size_t(v + 1)] += cptr[size_t(v)];
  members.resize(static_cast<size_t>(n));
  std::vector<idx_t> pos(cptr.begin(), cptr.end() - 1);
  for (idx_t i = 0; i < n; ++i) members[size_t(pos[size_t(cid[size_t(rep[size_t(i)])])]++)] = i;
  C.n = nc;
  C.vwgt.resize(static_cast<size_t>(nc));
  // The compressed lists in T ranges of compressed vertices, then joined.
  std::vector<std::vector<idx_t>> part_adj(static_cast<size_t>(T));
  std::vector<idx_t> deg(static_cast<size_t>(nc));
  run_threads(T, [&](int t) {
    std::vector<idx_t> seen(static_cast<size_t>(nc), -1);
    auto& out = part_adj[size_t(t)];
    for (idx_t v = idx_t(std::int64_t(nc) * t / T); v < idx_t(std::int64_t(nc) * (t + 1) / T); ++v) {
      const idx_t i = members[size_t(cptr[size_t(v)])];
      C.vwgt[size_t(v)] = cptr[size_t(v + 1)] - cptr[size_t(v)];
      const size_t before = out.size();
      for (idx_t p = G.xadj[size_t(i)]; p < G.xadj[size_t(i + 1)]; ++p) {
        const idx_t u = cid[size_t(rep[size_t(G.adj[size_t(p)])])];
        if (u != v && seen[size_t(u)] != v) {
          seen[size_t(u)] = v;
          out.push_back(u);
        }
      }
      deg[size_t(v)] = idx_t(out.size() - before);
    }
  });
  C.xadj.assign(static_cast<size_t>(nc + 1), 0);
  for (idx_t v = 0; v < nc; ++v) C.xadj[size_t(v + 1)] = C.xadj[size_t(v)] + deg[size_t(v)];
  C.adj.resize(static_cast<size_t>(C.xadj[size_t(nc)]));
  run_threads(T, [&](int t) {
    std::copy(part_adj[size_t(t)].begin(), part_adj[size_t(t)].end(),
              C.adj.begin() + C.xadj[size_t(std::int64_t(nc) * t / T)]);
  });
  return true;
}

/// METIS_NodeND of G: new -> old.
std::vector<idx_t> node_nd(Graph& G) {
  std::vector<idx_t> perm(static_cast<size_t>(G.n)), iperm(static_cast<size_t>(G.n));
  std::iota(perm.begin(), perm.end(), idx_t(0));
  if (G.n <= 2 || G.xadj[size_t(G.n)] == 0) return perm;
  idx_t options[METIS_NOPTIONS];
  METIS_SetDefaultOptions(options);
  options[METIS_OPTION_NUMBERING] = 0;
  idx_t nv = G.n;
  MetisRandScope rand_scope;
  const int rc = METIS_NodeND(&nv, G.xadj.data(), G.adj.data(), G.wptr(), options, perm.data(), iperm.data());
  KSPD_REQUIRE(rc == METIS_OK, TplError, "kspd::sparse: METIS_NodeND failed with status " << rc);
  return perm;
}

/// The subgraph of G induced by the vertices with part[v] == which; ids: local -> G's.
Graph induced(const Graph& G, const std::vector<idx_t>& part, idx_t which, std::vector<idx_t>& ids,
              std::vector<idx_t>& local) {
  ids.clear();
  for (idx_t v = 0; v < G.n; ++v)
    if (part[size_t(v)] == which) {
      local[size_t(v)] = idx_t(ids.size());
      ids.push_back(v);
    }
  Graph S;
  S.n = idx_t(ids.size());
  S.xadj.assign(static_cast<size_t>(S.n + 1), 0);
  if (!G.vwgt.empty()) S.vwgt.resize(static_cast<size_t>(S.n));
  for (idx_t k = 0; k < S.n; ++k) {
    const idx_t v = ids[size_t(k)];
    if (!G.vwgt.empty()) S.vwgt[size_t(k)] = G.vwgt[size_t(v)];
    for (idx_t p = G.xadj[size_t(v)]; p < G.xadj[size_t(v + 1)]; ++p) {
      const idx_t u = G.adj[size_t(p)];
      if (part[size_t(u)] == which) S.adj.push_back(local[size_t(u)]);
    }
    S.xadj[size_t(k + 1)] = idx_t(S.adj.size());
  }
  return S;
}

/// One piece of the dissection: a subgraph, its vertices' ids in the graph being ordered,
/// the first position it fills and how many more levels to split.
struct Piece {
  Graph g;
  std::vector<idx_t> ids;
  idx_t first = 0;
  int levels = 0;
};

/// Parallel nested dissection of G over `threads` threads: new -> old of G's vertices.
std::vector<idx_t> parallel_nd(Graph G, int threads) {
  const idx_t n = G.n;
  std::vector<idx_t> order(static_cast<size_t>(n), -1);
  int levels = 0;
  while ((1 << levels) < 2 * threads && levels < 20) ++levels;
  std::vector<Piece> queue;
  {
    Piece top;
    top.ids.resize(static_cast<size_t>(n));
    std::iota(top.ids.begin(), top.ids.end(), idx_t(0));
    top.g = std::move(G);
    top.levels = levels;
    queue.push_back(std::move(top));
  }
  std::mutex m;
  std::condition_variable cv;
  int busy = 0;
  std::exception_ptr error;
  std::atomic<bool> failed{false};
  // Split a piece in two parts and a separator (numbered last), or order it.
  auto process = [&](Piece& pc) -> std::vector<Piece> {
    std::vector<Piece> out;
    Graph& g = pc.g;
    const idx_t nedges = g.xadj[size_t(g.n)];
    if (pc.levels > 0 && g.n > 1000 && nedges > 0) {
      idx_t options[METIS_NOPTIONS];
      METIS_SetDefaultOptions(options);
      options[METIS_OPTION_NUMBERING] = 0;
      idx_t nv = g.n, sepsize = 0;
      std::vector<idx_t> part(static_cast<size_t>(g.n));
      MetisRandScope rand_scope;
      const auto ts = std::chrono::steady_clock::now();
      const int rc = METIS_ComputeVertexSeparator(&nv, g.xadj.data(), g.adj.data(), g.wptr(), options, &sepsize, part.data());
      if (std::getenv("KSPD_ANALYSE_PROFILE"))
        std::fprintf(stderr, "kspd::sparse::order   separator of %ld vertices: %ld, %.3f s\n", long(g.n), long(sepsize),
                     std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count());
      KSPD_REQUIRE(rc == METIS_OK, TplError, "kspd::sparse: METIS_ComputeVertexSeparator failed with status " << rc);
      idx_t count[3] = {0, 0, 0};
      for (idx_t v = 0; v < g.n; ++v) ++count[part[size_t(v)]];
      if (count[0] > 0 && count[1] > 0) {
        std::vector<idx_t> local(static_cast<size_t>(g.n), -1);
        idx_t first = pc.first;
        for (idx_t which = 0; which < 2; ++which) {
          Piece c;
          c.g = induced(g, part, which, c.ids, local);
          for (auto& v : c.ids) v = pc.ids[size_t(v)];
          c.first = first;
          c.levels = pc.levels - 1;
          first += c.g.n;
          out.push_back(std::move(c));
        }
        for (idx_t v = 0; v < g.n; ++v)
          if (part[size_t(v)] == 2) order[size_t(first++)] = pc.ids[size_t(v)];
        return out;
      }
    }
    const auto ts = std::chrono::steady_clock::now();
    const auto p = node_nd(g);
    if (std::getenv("KSPD_ANALYSE_PROFILE"))
      std::fprintf(stderr, "kspd::sparse::order   NodeND of %ld vertices: %.3f s\n", long(g.n),
                   std::chrono::duration<double>(std::chrono::steady_clock::now() - ts).count());
    for (idx_t k = 0; k < g.n; ++k) order[size_t(pc.first + k)] = pc.ids[size_t(p[size_t(k)])];
    return out;
  };
  std::vector<double> cpu(static_cast<size_t>(threads), 0.0);
  auto worker = [&](int t) {
    const double c0 = thread_cpu_seconds();
    struct Record {  // the thread's CPU time, however it leaves
      double& out;
      double c0;
      ~Record() { out = thread_cpu_seconds() - c0; }
    } record{cpu[size_t(t)], c0};
    std::unique_lock<std::mutex> lock(m);
    for (;;) {
      cv.wait(lock, [&] { return !queue.empty() || busy == 0; });
      if (queue.empty()) return;
      // The largest piece first: the critical path.
      auto it = std::max_element(queue.begin(), queue.end(), [](const Piece& a, const Piece& b) { return a.g.n < b.g.n; });
      Piece pc = std::move(*it);
      queue.erase(it);
      ++busy;
      lock.unlock();
      std::vector<Piece> more;
      try {
        if (!failed.load()) more = process(pc);
      } catch (...) {
        std::lock_guard<std::mutex> g(m);
        if (!error) error = std::current_exception();
        failed = true;
      }
      pc = Piece{};
      lock.lock();
      --busy;
      for (auto& c : more) queue.push_back(std::move(c));
      cv.notify_all();
    }
  };
  std::vector<std::thread> pool;
  for (int t = 1; t < threads; ++t) pool.emplace_back(worker, t);
  worker(0);
  for (auto& t : pool) t.join();
  add_parallel_excess(cpu);
  if (error) std::rethrow_exception(error);
  return order;
}

constexpr size_type kParallelNdMinVertices = 5000;

/// Seconds since the last call, printed to stderr when KSPD_ANALYSE_PROFILE is set.
struct OrderTimer {
  bool on = std::getenv("KSPD_ANALYSE_PROFILE") != nullptr;
  std::chrono::steady_clock::time_point t = std::chrono::steady_clock::now();
  double c = cpu(), x = excess();
  static double cpu() { return double(std::clock()) / CLOCKS_PER_SEC; }
  static double excess() { return 1e-9 * double(parallel_excess_ns().load()); }
  void operator()(const char* phase) {
    if (!on) return;
    const auto t1 = std::chrono::steady_clock::now();
    const double c1 = cpu(), x1 = excess();
    std::fprintf(stderr, "kspd::sparse::order   %-14s %8.3f s (cpu %.3f s, critical path %.3f s)\n", phase,
                 std::chrono::duration<double>(t1 - t).count(), c1 - c, (c1 - c) - (x1 - x));
    t = t1;
    c = c1;
    x = x1;
  }
};

std::vector<size_type> metis_nd(const PatternRef& A, int threads) {
  const size_type n = A.n;
  OrderTimer phase;
  Graph G = adjacency(A, int(std::min<size_type>(threads, n / 256 + 1)));
  phase("graph");
  std::vector<size_type> out(static_cast<size_t>(n));
  if (n <= 2 || G.xadj[size_t(n)] == 0) {
    std::iota(out.begin(), out.end(), size_type(0));
    return out;
  }
  // One METIS_NodeND call with one thread, and on small graphs, where threads do not pay and
  // the separators of a few hundred vertices are as good as their luck.
  if (threads <= 1 || n < kParallelNdMinVertices) {
    const auto perm = node_nd(G);
    for (size_type k = 0; k < n; ++k) out[size_t(k)] = perm[size_t(k)];  // METIS: perm is new -> old
    return out;
  }
  Graph C;
  std::vector<idx_t> cptr, members;
  const bool compressed = compress(G, threads, C, cptr, members);
  phase("compress");
  if (!compressed) {
    const auto perm = parallel_nd(std::move(G), threads);
    for (size_type k = 0; k < n; ++k) out[size_t(k)] = perm[size_t(k)];
    return out;
  }
  G = Graph{};
  const auto cperm = parallel_nd(std::move(C), threads);
  phase("dissection");
  size_type k = 0;
  for (const idx_t v : cperm)
    for (idx_t q = cptr[size_t(v)]; q < cptr[size_t(v + 1)]; ++q) out[size_t(k++)] = members[size_t(q)];
  return out;
}
#endif

}  // namespace

std::vector<size_type> compute_ordering(const PatternRef& A, const Options& opt) {
  const size_type n = A.n;
  std::vector<size_type> perm(static_cast<size_t>(n));
  std::iota(perm.begin(), perm.end(), size_type(0));
  switch (opt.ordering) {
    case Ordering::Natural: return perm;
    case Ordering::User: {
      KSPD_REQUIRE(size_type(opt.user_permutation.size()) == n, InvalidArgument,
                   "kspd::sparse: Options::user_permutation has " << opt.user_permutation.size()
                                                                  << " entries, the matrix has " << n << " rows");
      std::vector<char> seen(static_cast<size_t>(n), 0);
      for (size_type k = 0; k < n; ++k) {
        const size_type o = opt.user_permutation[size_t(k)];
        KSPD_REQUIRE(o >= 0 && o < n && !seen[size_t(o)], InvalidArgument,
                     "kspd::sparse: Options::user_permutation is not a permutation (entry " << k << " = " << o
                                                                                           << ")");
        seen[size_t(o)] = 1;
      }
      return opt.user_permutation;
    }
    case Ordering::Metis:
#ifdef KSPD_ENABLE_METIS
      return metis_nd(A, analysis_threads(opt));
#else
      KSPD_REQUIRE(false, InvalidArgument, "kspd::sparse: Ordering::Metis requested but kspd was built without Metis");
#endif
  }
  return perm;
}

}  // namespace kspd::sparse::Impl

#ifdef KSPD_ENABLE_METIS
namespace {
// Without a next definition of rand (a fully static program) a shared generator stands in.
std::mutex fallback_rand_mutex;
kspd::sparse::Impl::GlibcRand fallback_rand;
}  // namespace

extern "C" {
// The interposers of the FIXME_METIS above (an executable's definitions come before libc's).
int rand(void) noexcept {
  if (kspd::sparse::Impl::metis_rand_local) return kspd::sparse::Impl::metis_rand.next();
  static const auto libc_rand = reinterpret_cast<int (*)(void)>(dlsym(RTLD_NEXT, "rand"));
  if (libc_rand) return libc_rand();
  std::lock_guard<std::mutex> lock(fallback_rand_mutex);
  return fallback_rand.next();
}
void srand(unsigned seed) noexcept {
  if (kspd::sparse::Impl::metis_rand_local) return kspd::sparse::Impl::metis_rand.seed(seed);
  static const auto libc_srand = reinterpret_cast<void (*)(unsigned)>(dlsym(RTLD_NEXT, "srand"));
  if (libc_srand) return libc_srand(seed);
  std::lock_guard<std::mutex> lock(fallback_rand_mutex);
  fallback_rand.seed(seed);
}
}
#endif
