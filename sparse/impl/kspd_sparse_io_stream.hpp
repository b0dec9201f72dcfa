#ifndef KSPD_SPARSE_IO_STREAM_HPP
#define KSPD_SPARSE_IO_STREAM_HPP
/// \file kspd_sparse_io_stream.hpp
/// Line-by-line reading of plain or gzip files with line numbers and "path:line: reason"
/// errors, a buffered writer, and the token parsers the readers share. Host only.

#include <cstddef>
#include <cstdio>
#include <string>
#include <vector>

#include "kspd_types.hpp"

namespace kspd::sparse::Impl {

/// Reads a file one line at a time through a 64 KiB buffer (never the whole file; the
/// buffer grows only to hold a longer line).
/// gzip input (magic bytes 1f 8b) is decompressed with zlib when KSPD_ENABLE_ZLIB is set.
class LineReader {
 public:
  /// \throw InvalidArgument if the file cannot be opened, or is gzip without zlib support.
  explicit LineReader(const std::string& path);
  ~LineReader();
  LineReader(const LineReader&) = delete;
  LineReader& operator=(const LineReader&) = delete;

  /// The next line without its end of line ("\n" or "\r\n"), NUL-terminated, valid until
  /// the next call. Returns false at the end of the file. Lines holding a NUL byte (binary
  /// data), longer than 16 MiB, or a read/decompression error throw ParseError.
  bool next(const char*& line, std::size_t& len);
  /// 1-based number of the line last returned (0 before the first).
  size_type line_number() const { return line_no_; }
  const std::string& path() const { return path_; }
  bool gzip() const { return gz_ != nullptr; }

  /// Throws ParseError "path:line: reason" for the current line (or `line`).
  [[noreturn]] void fail(const std::string& reason) const;
  [[noreturn]] void fail_at(size_type line, const std::string& reason) const;

 private:
  std::size_t fill();  // appends raw bytes to buf_, returns how many (0 at end of file)

  std::string path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;  // gzFile
  std::vector<char> buf_;
  std::size_t begin_ = 0, end_ = 0;  // unread bytes are buf_[begin_, end_)
  bool eof_ = false;
  std::string pending_error_;  // a decompression error raised once the data before it is read
  size_type line_no_ = 0;
};

/// Buffered output to a plain or (path ending in .gz) gzip file. Errors throw InvalidArgument.
class FileWriter {
 public:
  explicit FileWriter(const std::string& path);
  ~FileWriter();
  FileWriter(const FileWriter&) = delete;
  FileWriter& operator=(const FileWriter&) = delete;
  void write(const char* data, std::size_t len);
  void write(const std::string& s) { write(s.data(), s.size()); }
  /// Flushes and closes, reporting any error (the destructor closes silently).
  void close();

 private:
  void flush();
  std::string path_;
  std::FILE* file_ = nullptr;
  void* gz_ = nullptr;
  std::vector<char> buf_;
};

[[noreturn]] void throw_parse_error(const std::string& path, size_type line, const std::string& reason);

/// The next whitespace-delimited token of a NUL-terminated line: [tb, te); advances p.
/// Returns false when only blanks remain.
inline bool next_token(const char*& p, const char*& tb, const char*& te) {
  while (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\v' || *p == '\f') ++p;
  if (*p == '\0') return false;
  tb = p;
  while (*p != '\0' && *p != ' ' && *p != '\t' && *p != '\r' && *p != '\v' && *p != '\f') ++p;
  te = p;
  return true;
}

/// A whole token as a base-10 integer (optional sign). False on anything else or overflow.
bool parse_int(const char* tb, const char* te, long long& v);
/// A whole token as a real (C syntax; Fortran 'D'/'d' exponents and exponents without a
/// letter, "1.5-3", are accepted when `fortran`). False on anything else. Does NOT reject
/// NaN/Inf: callers do, with their own message.
bool parse_real(const char* tb, const char* te, double& v, bool fortran = false);

/// The token as text for messages (at most 40 characters).
std::string token_text(const char* tb, const char* te);
/// The file name of a path (the part after the last '/').
std::string base_name(const std::string& path);

}  // namespace kspd::sparse::Impl
#endif
