#ifndef KSPD_PERF_CSV_HPP
#define KSPD_PERF_CSV_HPP
/// \file kspd_perf_csv.hpp
/// CSV output shared by every benchmark in perf_tests/: `--csv FILE` (or `--csv=FILE`) makes
/// the benchmark write each row it prints, kspd's and its peer's, as
///   prec,op,variant,n,nrhs,batch,impl,ms,gflops
/// which scripts/plot_results.py draws (rate vs n, kspd beside the peer, one PNG per sweep).
///  - prec: s d c z (m: mixed precision); op: the operation (potrf, pftrf, factor, solve, ...)
///  - variant: what else names the sweep (LLN, transr/uplo, the sparse matrix's name)
///  - n, nrhs, batch: -1 where they do not apply; ms: the time of one call
///  - gflops: the rate, empty where the benchmark has no flop count (the plot then draws time)
/// Usage: kspd::perf::csv_args(argc, argv) first thing in main (it removes the option, so the
/// benchmark's own parser, Kokkos and MPI never see it), then kspd::perf::csv_row(...) beside
/// each printf of a result. Without --csv, csv_row does nothing.

#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

namespace kspd::perf {

/// The CSV file's path ("": no --csv) and the file, opened at the first row: in an MPI run
/// only the rank that prints rows (rank 0) writes the file.
inline std::string& csv_path() {
  static std::string p;
  return p;
}
inline std::FILE*& csv_file() {
  static std::FILE* f = nullptr;
  return f;
}

/// Quotes a field that holds a comma or a quote (matrix names can).
inline std::string csv_field(const std::string& s) {
  if (s.find_first_of(",\"\n") == std::string::npos) return s;
  std::string q = "\"";
  for (char c : s) q += c == '"' ? std::string("\"\"") : std::string(1, c);
  return q + "\"";
}

/// Takes `--csv FILE` / `--csv=FILE` out of argv (the file is written from the first row on,
/// header first). Exits with a message when the option has no value.
inline void csv_args(int& argc, char** argv) {
  int out = 1;
  for (int i = 1; i < argc; ++i) {
    std::string path;
    if (std::strcmp(argv[i], "--csv") == 0) {
      if (i + 1 >= argc) {
        std::fprintf(stderr, "%s: --csv needs a file name\n", argv[0]);
        std::exit(2);
      }
      path = argv[++i];
    } else if (std::strncmp(argv[i], "--csv=", 6) == 0) {
      path = argv[i] + 6;
    } else {
      argv[out++] = argv[i];
      continue;
    }
    csv_path() = path;
  }
  argc = out;
  argv[argc] = nullptr;
}

/// One result row (a no-op without --csv). gflops <= 0 or NaN: no flop count (empty field).
inline void csv_row(const std::string& prec, const std::string& op, const std::string& variant, long n, long nrhs,
                    long batch, const std::string& impl, double ms, double gflops = NAN) {
  if (csv_path().empty()) return;
  std::FILE*& f = csv_file();
  if (!f) {
    f = std::fopen(csv_path().c_str(), "w");
    if (!f) {
      std::fprintf(stderr, "kspd benchmark: cannot write the CSV file '%s'\n", csv_path().c_str());
      std::exit(2);
    }
    std::fprintf(f, "prec,op,variant,n,nrhs,batch,impl,ms,gflops\n");
  }
  std::fprintf(f, "%s,%s,%s,%ld,%ld,%ld,%s,%.6g,", csv_field(prec).c_str(), csv_field(op).c_str(),
               csv_field(variant).c_str(), n, nrhs, batch, csv_field(impl).c_str(), ms);
  if (gflops > 0) std::fprintf(f, "%.6g", gflops);
  std::fprintf(f, "\n");
  std::fflush(f);  // a benchmark that dies later keeps the rows it had
}

}  // namespace kspd::perf
#endif
