/// \file kspd_sparse_symbolic.cpp
/// The analysis: permutation, elimination tree, postorder, column counts (Gilbert-Ng-Peyton,
/// as in CSparse's cs_counts), fundamental and relaxed supernodes, row structures, blocks
/// and the fan-out task graph.

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <exception>
#include <mutex>
#include <numeric>
#include <queue>
#include <sstream>
#include <thread>

#include "kspd_error.hpp"
#include "kspd_sparse_analysis_threads.hpp"
#include "kspd_sparse_symbolic.hpp"

namespace kspd::sparse::Impl {

namespace {

double now() {
  return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
}

/// The upper triangle of P A P^T: column k lists the rows i <= k with a_ki != 0 (in the
/// order of A's entries), and with origins each entry's index in A.
void permute_upper(const PatternRef& A, const std::vector<size_type>& iperm, int T, std::vector<size_type>& ucolptr,
                   WorkVector<size_type>& urowind) {
  const auto cuts = balanced_cuts(A.colptr, A.n, T);
  ucolptr = stable_buckets(
      T, cuts, A.n,
      [&](size_type j, auto&& emit) {
        const size_type b = iperm[size_t(j)];
        for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
          const size_type a = iperm[size_t(A.rowind[p])];
          emit(std::max(a, b), std::min(a, b), p);
        }
      },
      urowind, static_cast<WorkVector<size_type>*>(nullptr));
}

/// The lower triangle of P A P^T as sorted CSC, with each entry's index in A.
struct Permuted {
  std::vector<size_type> colptr;
  WorkVector<size_type> rowind, origin;
};

Permuted permute(const PatternRef& A, const std::vector<size_type>& iperm, int T) {
  // Bucket A's entries by their lower column (stable), then sort each column by row: the
  // rows of a column are distinct, so the result is the same for every T.
  Permuted P;
  P.colptr = stable_buckets(
      T, balanced_cuts(A.colptr, A.n, T), A.n,
      [&](size_type j, auto&& emit) {
        const size_type b = iperm[size_t(j)];
        for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
          const size_type a = iperm[size_t(A.rowind[p])];
          emit(std::min(a, b), std::max(a, b), p);
        }
      },
      P.rowind, &P.origin);
  const auto cuts = balanced_cuts(P.colptr.data(), A.n, T);
  run_threads(T, [&](int t) {
    std::vector<std::pair<size_type, size_type>> col;
    for (size_type j = cuts[size_t(t)]; j < cuts[size_t(t + 1)]; ++j) {
      const size_type b = P.colptr[size_t(j)], e = P.colptr[size_t(j + 1)];
      bool sorted = true;
      for (size_type q = b + 1; q < e && sorted; ++q) sorted = P.rowind[size_t(q - 1)] < P.rowind[size_t(q)];
      if (sorted) continue;
      col.clear();
      for (size_type q = b; q < e; ++q) col.emplace_back(P.rowind[size_t(q)], P.origin[size_t(q)]);
      std::sort(col.begin(), col.end());
      for (size_type q = b; q < e; ++q) {
        P.rowind[size_t(q)] = col[size_t(q - b)].first;
        P.origin[size_t(q)] = col[size_t(q - b)].second;
      }
    }
  });
  return P;
}

std::vector<size_type> etree_upper(size_type n, const std::vector<size_type>& ucolptr,
                                   const WorkVector<size_type>& urowind) {
  std::vector<size_type> parent(static_cast<size_t>(n), -1), anc(static_cast<size_t>(n), -1);
  for (size_type k = 0; k < n; ++k)
    for (size_type p = ucolptr[size_t(k)]; p < ucolptr[size_t(k + 1)]; ++p)
      for (size_type i = urowind[size_t(p)]; i != -1 && i < k;) {
        const size_type next = anc[size_t(i)];
        anc[size_t(i)] = k;
        if (next == -1) parent[size_t(i)] = k;
        i = next;
      }
  return parent;
}

std::vector<size_type> postorder(const std::vector<size_type>& parent) {
  const size_type n = size_type(parent.size());
  std::vector<size_type> head(static_cast<size_t>(n), -1), next(static_cast<size_t>(n), -1), post, stack;
  post.reserve(static_cast<size_t>(n));
  for (size_type j = n - 1; j >= 0; --j)
    if (parent[size_t(j)] != -1) {
      next[size_t(j)] = head[size_t(parent[size_t(j)])];
      head[size_t(parent[size_t(j)])] = j;
    }
  for (size_type r = 0; r < n; ++r) {
    if (parent[size_t(r)] != -1) continue;
    stack.push_back(r);
    while (!stack.empty()) {
      const size_type p = stack.back();
      const size_type c = head[size_t(p)];
      if (c == -1) {
        stack.pop_back();
        post.push_back(p);
      } else {
        head[size_t(p)] = next[size_t(c)];
        stack.push_back(c);
      }
    }
  }
  return post;
}

/// Seconds per phase, printed to stderr when KSPD_ANALYSE_PROFILE is set.
struct PhaseTimer {
  bool on = std::getenv("KSPD_ANALYSE_PROFILE") != nullptr;
  double t = now(), c = cpu(), x = excess();
  static double cpu() { return double(std::clock()) / CLOCKS_PER_SEC; }
  static double excess() { return 1e-9 * double(parallel_excess_ns().load()); }
  void operator()(const char* phase) {
    if (!on) return;
    const double t1 = now(), c1 = cpu(), x1 = excess();
    std::fprintf(stderr, "kspd::sparse::analyse %-14s %8.3f s (cpu %.3f s, critical path %.3f s)\n", phase, t1 - t,
                 c1 - c, (c1 - c) - (x1 - x));
    t = t1;
    c = c1;
    x = x1;
  }
  ~PhaseTimer() {
    if (on) std::fprintf(stderr, "kspd::sparse::analyse total          (cpu %.3f s, critical path %.3f s)\n", cpu() - c0, (cpu() - c0) - (excess() - x0));
  }
  double c0 = cpu(), x0 = excess();
};

size_type bin_of(size_type w) { return w <= 1 ? 0 : w <= 4 ? 1 : w <= 16 ? 2 : w <= 64 ? 3 : w <= 256 ? 4 : 5; }

}  // namespace

std::vector<size_type> elimination_tree(const PatternRef& A) {
  std::vector<size_type> ident(static_cast<size_t>(A.n));
  std::iota(ident.begin(), ident.end(), size_type(0));
  std::vector<size_type> ucolptr;
  WorkVector<size_type> urowind;
  permute_upper(A, ident, 1, ucolptr, urowind);
  return etree_upper(A.n, ucolptr, urowind);
}

std::vector<size_type> column_counts(const PatternRef& A, const std::vector<size_type>& parent) {
  // Gilbert-Ng-Peyton with the identity postorder (cs_counts, ata = 0): the lower column j
  // lists the rows i > j of row j of the upper triangle.
  const size_type n = A.n;
  std::vector<size_type> delta(static_cast<size_t>(n), 0), first(static_cast<size_t>(n), -1), maxfirst(static_cast<size_t>(n), -1),
      prevleaf(static_cast<size_t>(n), -1), ancestor(static_cast<size_t>(n));
  for (size_type k = 0; k < n; ++k) {
    size_type j = k;
    delta[size_t(j)] = first[size_t(j)] == -1 ? 1 : 0;
    for (; j != -1 && first[size_t(j)] == -1; j = parent[size_t(j)]) first[size_t(j)] = k;
  }
  std::iota(ancestor.begin(), ancestor.end(), size_type(0));
  for (size_type j = 0; j < n; ++j) {
    if (parent[size_t(j)] != -1) --delta[size_t(parent[size_t(j)])];
    for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p) {
      const size_type i = A.rowind[p];
      if (i <= j || first[size_t(j)] <= maxfirst[size_t(i)]) continue;
      maxfirst[size_t(i)] = first[size_t(j)];
      const size_type jprev = prevleaf[size_t(i)];
      prevleaf[size_t(i)] = j;
      ++delta[size_t(j)];
      if (jprev != -1) {  // not the first leaf: subtract at the least common ancestor
        size_type q = jprev;
        while (q != ancestor[size_t(q)]) q = ancestor[size_t(q)];
        for (size_type s = jprev; s != q;) {
          const size_type sp = ancestor[size_t(s)];
          ancestor[size_t(s)] = q;
          s = sp;
        }
        --delta[size_t(q)];
      }
    }
    if (parent[size_t(j)] != -1) ancestor[size_t(j)] = parent[size_t(j)];
  }
  for (size_type j = 0; j < n; ++j)
    if (parent[size_t(j)] != -1) delta[size_t(parent[size_t(j)])] += delta[size_t(j)];
  return delta;
}

std::string AnalysisStats::summary() const {
  std::ostringstream os;
  os << "n=" << n << " nnz(A)=" << nnz_a << " nnz(L)=" << nnz_l << " (stored " << nnz_l_stored
     << ") flops=" << flops << " supernodes=" << nsupernodes << " (fundamental " << nfundamental
     << ", widest " << max_width << ", tallest " << max_rows << ") blocks=" << nblocks << " tasks=" << ntasks;
  const char* bins[6] = {"1", "2-4", "5-16", "17-64", "65-256", ">256"};
  os << "\n  supernode widths:";
  for (int b = 0; b < 6; ++b) os << ' ' << bins[b] << ':' << width_hist[b];
  os << "\n  off-diagonal block rows:";
  for (int b = 0; b < 6; ++b) os << ' ' << bins[b] << ':' << block_hist[b];
  return os.str();
}

Symbolic analyse(const PatternRef& A, const Options& opt) {
  const double t0 = now();
  const size_type n = A.n;
  KSPD_REQUIRE(n >= 0 && A.colptr != nullptr, InvalidArgument, "kspd::sparse::analyse: bad matrix (n = " << n << ")");
  KSPD_REQUIRE(opt.max_supernode >= 1, InvalidArgument,
               "kspd::sparse: Options::max_supernode must be >= 1, got " << opt.max_supernode);
  const int T = std::max(1, std::min(analysis_threads(opt), int(std::min<size_type>(n / 256 + 1, 256))));
  PhaseTimer phase;
  {
    // Each thread finds the first bad column of its range; the first overall is reported.
    auto bad_entry = [&](size_type j, size_type p) {
      return !(A.rowind[p] >= j && A.rowind[p] < n && (p == A.colptr[j] || A.rowind[p] > A.rowind[p - 1]));
    };
    const auto cuts = balanced_cuts(A.colptr, n, T);
    std::vector<size_type> first_bad(static_cast<size_t>(T), -1);
    run_threads(T, [&](int t) {
      for (size_type j = cuts[size_t(t)]; j < cuts[size_t(t + 1)] && first_bad[size_t(t)] == -1; ++j)
        for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p)
          if (bad_entry(j, p)) {
            first_bad[size_t(t)] = j;
            break;
          }
    });
    for (const size_type j : first_bad)
      if (j != -1)
        for (size_type p = A.colptr[j]; p < A.colptr[j + 1]; ++p)
          KSPD_REQUIRE(!bad_entry(j, p), InvalidArgument,
                       "kspd::sparse::analyse: A must be the lower triangle with sorted unique rows; column "
                           << j << " has row " << A.rowind[p]);
  }
  phase("check");
  Symbolic S;
  S.n = n;
  std::vector<size_type> perm = compute_ordering(A, opt);
  const double t1 = now();
  phase("order");
  std::vector<size_type> iperm(static_cast<size_t>(n));
  for (size_type k = 0; k < n; ++k) iperm[size_t(perm[size_t(k)])] = k;
  // Etree of the ordered matrix, then compose the ordering with its postorder. A postorder
  // is a topological order of the tree, so it leaves the filled graph alone: the etree of
  // the postordered matrix is the relabelled one.
  {
    std::vector<size_type> ucolptr;
    WorkVector<size_type> urowind;
    permute_upper(A, iperm, T, ucolptr, urowind);
    phase("permute upper");
    const auto parent = etree_upper(n, ucolptr, urowind);
    phase("etree");
    const auto post = postorder(parent);
    std::vector<size_type> p2(static_cast<size_t>(n));
    for (size_type k = 0; k < n; ++k) p2[size_t(k)] = perm[size_t(post[size_t(k)])];
    perm.swap(p2);
    for (size_type k = 0; k < n; ++k) iperm[size_t(perm[size_t(k)])] = k;
    std::vector<size_type> inv(static_cast<size_t>(n));
    for (size_type k = 0; k < n; ++k) inv[size_t(post[size_t(k)])] = k;
    S.parent.resize(static_cast<size_t>(n));
    for (size_type k = 0; k < n; ++k) {
      const size_type q = parent[size_t(post[size_t(k)])];
      S.parent[size_t(k)] = q == -1 ? -1 : inv[size_t(q)];
    }
  }
  phase("postorder");
  Permuted P = permute(A, iperm, T);
  phase("permute");
  PatternRef PL{n, P.colptr.data(), P.rowind.data()};
  S.colcount = column_counts(PL, S.parent);
  S.perm = perm;
  S.iperm = iperm;
  phase("colcounts");

  // Fundamental supernodes (a chain of single children with nested structure), <= max width.
  const size_type maxw = opt.max_supernode;
  std::vector<size_type> nchild(static_cast<size_t>(n), 0);
  for (size_type j = 0; j < n; ++j)
    if (S.parent[size_t(j)] != -1) ++nchild[size_t(S.parent[size_t(j)])];
  std::vector<size_type> fstart;  // first column of each fundamental supernode
  for (size_type j = 0; j < n; ++j) {
    const bool cont = j > 0 && S.parent[size_t(j - 1)] == j && S.colcount[size_t(j - 1)] == S.colcount[size_t(j)] + 1 &&
                      nchild[size_t(j)] == 1 && j - fstart.back() < maxw;
    if (!cont) fstart.push_back(j);
  }
  const size_type nf = size_type(fstart.size());
  fstart.push_back(n);
  std::vector<size_type> fsn_of(static_cast<size_t>(n));
  for (size_type s = 0; s < nf; ++s)
    for (size_type j = fstart[size_t(s)]; j < fstart[size_t(s + 1)]; ++j) fsn_of[size_t(j)] = s;
  // Relaxed amalgamation: j merges into j + 1 when j + 1 is its parent (CHOLMOD's rule).
  std::vector<size_type> nscol(static_cast<size_t>(nf)), snz(static_cast<size_t>(nf));
  std::vector<double> zeros(static_cast<size_t>(nf), 0.0);
  std::vector<char> merged_into_next(static_cast<size_t>(nf), 0);
  for (size_type s = 0; s < nf; ++s) {
    nscol[size_t(s)] = fstart[size_t(s + 1)] - fstart[size_t(s)];
    snz[size_t(s)] = S.colcount[size_t(fstart[size_t(s)])];
  }
  if (opt.relax.enabled) {
    for (size_type j = nf - 2; j >= 0; --j) {
      const size_type last = fstart[size_t(j + 1)] - 1;
      const size_type par = S.parent[size_t(last)];
      if (par == -1 || fsn_of[size_t(par)] != j + 1) continue;
      const size_type g = j + 1;  // the group that starts at g (it absorbed its own parents)
      const size_type ns0 = nscol[size_t(j)], ns1 = nscol[size_t(g)], ns = ns0 + ns1;
      if (ns > maxw) continue;
      const size_type lnz1 = snz[size_t(g)], lnz0 = snz[size_t(j)];
      const double newzeros = double(ns0) * double(lnz1 + ns0 - lnz0);
      const double totzeros = zeros[size_t(j)] + zeros[size_t(g)] + newzeros;
      const double xns = double(ns), total = xns * (xns + 1) / 2 + xns * double(lnz1 + ns0 - ns);
      const double z = total > 0 ? totzeros / total : 0.0;
      const auto& R = opt.relax;
      const bool merge = ns <= R.nrelax[0] || (ns <= R.nrelax[1] && z < R.zrelax[0]) ||
                         (ns <= R.nrelax[2] && z < R.zrelax[1]) || z < R.zrelax[2];
      if (!merge) continue;
      merged_into_next[size_t(j)] = 1;
      nscol[size_t(j)] = ns;
      snz[size_t(j)] = lnz1 + ns0;
      zeros[size_t(j)] = totzeros;
    }
  }
  // Final supernodes: runs of fundamental ones joined by merged_into_next.
  S.col_snode.assign(static_cast<size_t>(n), 0);
  for (size_type s = 0; s < nf;) {
    size_type e = s;
    while (merged_into_next[size_t(e)]) ++e;
    Supernode sn;
    sn.first_col = fstart[size_t(s)];
    sn.ncols = fstart[size_t(e + 1)] - sn.first_col;
    for (size_type j = sn.first_col; j < sn.first_col + sn.ncols; ++j) S.col_snode[size_t(j)] = size_type(S.snodes.size());
    S.snodes.push_back(sn);
    s = e + 1;
  }
  const size_type ns = size_type(S.snodes.size());
  for (auto& sn : S.snodes) {
    const size_type par = S.parent[size_t(sn.first_col + sn.ncols - 1)];
    sn.parent = par == -1 ? -1 : S.col_snode[size_t(par)];
  }
  phase("supernodes");
  // Row structures: own columns, rows of A below, and the children's rows below. The
  // columns f..l of a supernode form a chain (parent(c) = c + 1), so its rows are f..l and
  // the rows of column l below it: ncols - 1 + colcount(l) of them, known beforehand. That
  // places every supernode's rows, and independent subtrees fill theirs in parallel.
  std::vector<size_type> chead(static_cast<size_t>(ns), -1), cnext(static_cast<size_t>(ns), -1);
  for (size_type s = ns - 1; s >= 0; --s) {
    const size_type p = S.snodes[size_t(s)].parent;
    if (p != -1) {
      cnext[size_t(s)] = chead[size_t(p)];
      chead[size_t(p)] = s;
    }
  }
  size_type voff = 0, nrows_total = 0;
  for (auto& sn : S.snodes) {
    sn.row_begin = nrows_total;
    nrows_total += sn.ncols - 1 + S.colcount[size_t(sn.first_col + sn.ncols - 1)];
    sn.row_end = nrows_total;
    sn.value_offset = voff;
    voff += sn.nrows() * sn.ncols;
  }
  S.nvalues = voff;
  S.rows.resize(static_cast<size_t>(nrows_total));
  auto fill_rows = [&](size_type s, std::vector<size_type>& mark) {
    Supernode& sn = S.snodes[size_t(s)];
    const size_type f = sn.first_col, l = f + sn.ncols - 1;
    size_type at = sn.row_begin;
    for (size_type j = f; j <= l; ++j) {
      S.rows[size_t(at++)] = j;
      mark[size_t(j)] = s;
    }
    auto add = [&](size_type r) {
      if (r > l && mark[size_t(r)] != s) {
        mark[size_t(r)] = s;
        KSPD_REQUIRE(at < sn.row_end, Error, "kspd::sparse::analyse: supernode " << s << " has more rows than its count");
        S.rows[size_t(at++)] = r;
      }
    };
    for (size_type j = f; j <= l; ++j)
      for (size_type p = P.colptr[size_t(j)]; p < P.colptr[size_t(j + 1)]; ++p) add(P.rowind[size_t(p)]);
    for (size_type c = chead[size_t(s)]; c != -1; c = cnext[size_t(c)]) {
      const Supernode& cn = S.snodes[size_t(c)];
      for (size_type q = cn.row_begin + cn.ncols; q < cn.row_end; ++q) add(S.rows[size_t(q)]);
    }
    KSPD_REQUIRE(at == sn.row_end, Error, "kspd::sparse::analyse: supernode " << s << " has fewer rows than its count");
    std::sort(S.rows.begin() + (sn.row_begin + sn.ncols), S.rows.begin() + sn.row_end);
  };
  {
    // Subtrees (the supernodal tree is postordered: the subtree of s is [s - size + 1, s]):
    // split the heaviest until each holds at most 1/(4T) of the work; the split-off tops
    // are done last, in order, by one thread.
    std::vector<size_type> first(static_cast<size_t>(ns)), work(static_cast<size_t>(ns));
    for (size_type s = 0; s < ns; ++s) {
      first[size_t(s)] = s;
      work[size_t(s)] = S.snodes[size_t(s)].nrows() + (P.colptr[size_t(S.snodes[size_t(s)].first_col + S.snodes[size_t(s)].ncols)] -
                                                        P.colptr[size_t(S.snodes[size_t(s)].first_col)]);
    }
    for (size_type s = 0; s < ns; ++s) {
      const size_type p = S.snodes[size_t(s)].parent;
      if (p != -1) {
        first[size_t(p)] = std::min(first[size_t(p)], first[size_t(s)]);
        work[size_t(p)] += work[size_t(s)];
      }
    }
    size_type total = 0;
    std::priority_queue<std::pair<size_type, size_type>> heap;  // (work, root)
    for (size_type s = 0; s < ns; ++s)
      if (S.snodes[size_t(s)].parent == -1) {
        heap.push({work[size_t(s)], s});
        total += work[size_t(s)];
      }
    std::vector<size_type> top, roots;
    while (T > 1 && !heap.empty() && heap.top().first * 4 * T > total) {
      const size_type r = heap.top().second;
      heap.pop();
      top.push_back(r);
      for (size_type c = chead[size_t(r)]; c != -1; c = cnext[size_t(c)]) heap.push({work[size_t(c)], c});
    }
    while (!heap.empty()) {  // heaviest first
      roots.push_back(heap.top().second);
      heap.pop();
    }
    std::sort(top.begin(), top.end());
    std::atomic<size_type> next{0};
    std::vector<std::vector<size_type>> marks(static_cast<size_t>(T));
    run_threads(T, [&](int t) {
      auto& mark = marks[size_t(t)];
      mark.assign(static_cast<size_t>(n), -1);
      for (size_type k = next++; k < size_type(roots.size()); k = next++)
        for (size_type s = first[size_t(roots[size_t(k)])]; s <= roots[size_t(k)]; ++s) fill_rows(s, mark);
    });
    for (const size_type s : top) fill_rows(s, marks[0]);
  }
  phase("rows");
  // Blocks (Algorithm 2): the diagonal block, then one block per target supernode.
  for (size_type s = 0; s < ns; ++s) {
    Supernode& sn = S.snodes[size_t(s)];
    sn.block_begin = size_type(S.blocks.size());
    S.blocks.push_back(Block{s, 0, sn.ncols, s, -1, 0});
    for (size_type q = sn.ncols; q < sn.nrows();) {
      const size_type t = S.col_snode[size_t(S.rows[size_t(sn.row_begin + q)])];
      size_type e = q + 1;
      while (e < sn.nrows() && S.col_snode[size_t(S.rows[size_t(sn.row_begin + e)])] == t) ++e;
      S.blocks.push_back(Block{s, q, e - q, t, -1, 0});
      q = e;
    }
    sn.block_end = size_type(S.blocks.size());
  }
  phase("blocks");
  // Tasks: DiagFactor(s) = task s; Trsm over block ranges (<= max_trsm_rows rows, one
  // owner); Update(s, b) per off-diagonal block.
  S.tasks.resize(static_cast<size_t>(ns));
  for (size_type s = 0; s < ns; ++s) S.tasks[size_t(s)] = Task{TaskKind::DiagFactor, s, 0, 1, 0, 0};
  for (size_type s = 0; s < ns; ++s) {
    const Supernode& sn = S.snodes[size_t(s)];
    for (size_type b = sn.block_begin + 1; b < sn.block_end;) {
      size_type e = b, rows = 0;
      while (e < sn.block_end && (e == b || (rows + S.blocks[size_t(e)].nrows <= opt.max_trsm_rows &&
                                             S.blocks[size_t(e)].owner == S.blocks[size_t(b)].owner))) {
        rows += S.blocks[size_t(e)].nrows;
        S.blocks[size_t(e)].trsm_task = size_type(S.tasks.size());
        ++e;
      }
      S.tasks.push_back(Task{TaskKind::Trsm, s, b - sn.block_begin, e - sn.block_begin, 1, S.blocks[size_t(b)].owner});
      b = e;
    }
  }
  // Update tasks: consecutive off-diagonal blocks of one owner grouped until they hold
  // kUpdateGroupRows rows, so the product's narrow side is wide enough for GEMM (a lone
  // 8-row block makes a matrix-vector-like product). A target's count rises once per block.
  S.update_task.assign(S.blocks.size(), -1);
  for (size_type s = 0; s < ns; ++s) {
    const Supernode& sn = S.snodes[size_t(s)];
    if (sn.block_end - sn.block_begin < 2) continue;
    const size_type last_trsm = S.blocks[size_t(sn.block_end - 1)].trsm_task;
    for (size_type b = sn.block_begin + 1; b < sn.block_end;) {
      size_type e = b, rows = 0;
      while (e < sn.block_end && (e == b || (rows < Symbolic::kUpdateGroupRows && S.blocks[size_t(e)].owner == S.blocks[size_t(b)].owner))) {
        rows += S.blocks[size_t(e)].nrows;
        S.update_task[size_t(e)] = size_type(S.tasks.size());
        ++S.tasks[size_t(S.blocks[size_t(e)].target)].ndeps;
        ++e;
      }
      S.tasks.push_back(Task{TaskKind::Update, s, b - sn.block_begin, e - sn.block_begin,
                             int(last_trsm - S.blocks[size_t(b)].trsm_task + 1), S.blocks[size_t(b)].owner});
      b = e;
    }
  }
  phase("tasks");
  // Where each entry of A lands in the factor values: per supernode, each row's place in
  // its row list, then the entries of its columns (the permuted lower pattern knows their
  // index in A). Supernodes in T ranges; every entry of A is written once.
  S.value_map.resize(static_cast<size_t>(A.colptr[n]));
  {
    std::vector<size_type> snz(static_cast<size_t>(ns + 1), 0);
    for (size_type s = 0; s < ns; ++s) snz[size_t(s + 1)] = snz[size_t(s)] + S.snodes[size_t(s)].nrows() +
        (P.colptr[size_t(S.snodes[size_t(s)].first_col + S.snodes[size_t(s)].ncols)] - P.colptr[size_t(S.snodes[size_t(s)].first_col)]);
    const auto cuts = balanced_cuts(snz.data(), ns, T);
    run_threads(T, [&](int t) {
      std::vector<size_type> loc(static_cast<size_t>(n));
      for (size_type s = cuts[size_t(t)]; s < cuts[size_t(t + 1)]; ++s) {
        const Supernode& sn = S.snodes[size_t(s)];
        for (size_type q = sn.row_begin; q < sn.row_end; ++q) loc[size_t(S.rows[size_t(q)])] = q - sn.row_begin;
        for (size_type j = sn.first_col; j < sn.first_col + sn.ncols; ++j)
          for (size_type p = P.colptr[size_t(j)]; p < P.colptr[size_t(j + 1)]; ++p)
            S.value_map[size_t(P.origin[size_t(p)])] =
                sn.value_offset + (j - sn.first_col) * sn.nrows() + loc[size_t(P.rowind[size_t(p)])];
      }
    });
  }
  S.a_snode_ptr.resize(static_cast<size_t>(ns + 1));
  for (size_type s = 0; s <= ns; ++s)
    S.a_snode_ptr[size_t(s)] = P.colptr[size_t(s < ns ? S.snodes[size_t(s)].first_col : n)];
  S.a_by_snode = std::move(P.origin);  // the permuted columns' order: supernode by supernode
  phase("value_map");
  S.a_colptr.assign(A.colptr, A.colptr + n + 1);
  S.a_rowind.resize(static_cast<size_t>(A.colptr[n]));
  run_threads(T, [&](int t) {
    const size_type nnz = A.colptr[n], b0 = nnz * t / T, b1 = nnz * (t + 1) / T;
    std::copy(A.rowind + b0, A.rowind + b1, S.a_rowind.begin() + b0);
  });
  phase("copy A");
  // Statistics.
  AnalysisStats& st = S.stats;
  st.n = n;
  st.nnz_a = A.colptr[n];
  for (size_type j = 0; j < n; ++j) {
    st.nnz_l += S.colcount[size_t(j)];
    st.flops += double(S.colcount[size_t(j)]) * double(S.colcount[size_t(j)]);
  }
  st.nsupernodes = ns;
  st.nfundamental = nf;
  st.nblocks = size_type(S.blocks.size());
  st.ntasks = size_type(S.tasks.size());
  for (const auto& sn : S.snodes) {
    const double w = double(sn.ncols), m = double(sn.nrows() - sn.ncols);
    st.nnz_l_stored += sn.ncols * (sn.ncols + 1) / 2 + sn.ncols * (sn.nrows() - sn.ncols);
    st.flops_stored += w * w * w / 3 + m * w * w;
    st.max_width = std::max(st.max_width, sn.ncols);
    st.max_rows = std::max(st.max_rows, sn.nrows());
    ++st.width_hist[bin_of(sn.ncols)];
    size_type below = sn.nrows() - sn.ncols;
    for (size_type b = sn.block_begin + 1; b < sn.block_end; ++b) {
      const double nb = double(S.blocks[size_t(b)].nrows), mb = double(below);
      st.flops_stored += nb * (nb + 1) * w + 2 * (mb - nb) * nb * w;
      below -= S.blocks[size_t(b)].nrows;
      ++st.block_hist[bin_of(S.blocks[size_t(b)].nrows)];
    }
  }
  phase("stats");
  st.order_seconds = t1 - t0;
  st.analyse_seconds = now() - t1;
  return S;
}

}  // namespace kspd::sparse::Impl
