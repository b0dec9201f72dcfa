// Line reader (plain/gzip), buffered writer and token parsers for the sparse readers.
#include "kspd_sparse_io_stream.hpp"

#include <algorithm>
#include <cerrno>
#include <charconv>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <version>

#include "KSPD_Config.hpp"
#include "kspd_error.hpp"

#ifdef KSPD_ENABLE_ZLIB
#include <zlib.h>
#endif

namespace kspd::sparse::Impl {

namespace {
constexpr std::size_t kChunk = std::size_t(1) << 16;         // initial buffer: bytes read at a time
constexpr std::size_t kMaxLine = std::size_t(16) << 20;      // longest line accepted

bool ends_with(const std::string& s, const char* suffix) {
  const std::size_t n = std::strlen(suffix);
  return s.size() >= n && s.compare(s.size() - n, n, suffix) == 0;
}
}  // namespace

void throw_parse_error(const std::string& path, size_type line, const std::string& reason) {
  std::ostringstream os;
  os << path << ':' << line << ": " << reason;
  throw ParseError(os.str());
}

std::string base_name(const std::string& path) {
  const auto k = path.find_last_of('/');
  return k == std::string::npos ? path : path.substr(k + 1);
}

std::string token_text(const char* tb, const char* te) {
  std::string s(tb, std::size_t(te - tb) > 40 ? 40 : std::size_t(te - tb));
  if (te - tb > 40) s += "...";
  for (char& c : s)
    if ((unsigned char)c < 32 || (unsigned char)c > 126) c = '?';
  return s;
}

// ---------------------------------------------------------------------------------------
LineReader::LineReader(const std::string& path) : path_(path) {
  file_ = std::fopen(path.c_str(), "rb");
  if (!file_) {
    std::ostringstream os;
    os << path << ": cannot open: " << std::strerror(errno);
    throw InvalidArgument(os.str());
  }
  unsigned char magic[2] = {0, 0};
  const std::size_t got = std::fread(magic, 1, 2, file_);
  if (std::ferror(file_)) {
    std::ostringstream os;
    os << path << ": cannot read: " << std::strerror(errno);
    std::fclose(file_);
    file_ = nullptr;
    throw InvalidArgument(os.str());
  }
  const bool is_gzip = got == 2 && magic[0] == 0x1f && magic[1] == 0x8b;
  if (is_gzip) {
    std::fclose(file_);
    file_ = nullptr;
#ifdef KSPD_ENABLE_ZLIB
    gzFile g = gzopen(path.c_str(), "rb");
    if (!g) {
      std::ostringstream os;
      os << path << ": cannot open (gzip): " << std::strerror(errno);
      throw InvalidArgument(os.str());
    }
    gzbuffer(g, 1 << 18);
    gz_ = g;
#else
    throw InvalidArgument(path + ": the file is gzip-compressed, but kspd was configured without zlib "
                                 "(install zlib1g-dev and reconfigure, or gunzip it)");
#endif
  } else {
    std::rewind(file_);
  }
  buf_.resize(kChunk + 1);
}

LineReader::~LineReader() {
  if (file_) std::fclose(file_);
#ifdef KSPD_ENABLE_ZLIB
  if (gz_) gzclose(static_cast<gzFile>(gz_));
#endif
}

void LineReader::fail(const std::string& reason) const { throw_parse_error(path_, line_no_, reason); }
void LineReader::fail_at(size_type line, const std::string& reason) const { throw_parse_error(path_, line, reason); }

std::size_t LineReader::fill() {
  if (eof_) return 0;
  if (!pending_error_.empty())
    fail_at(line_no_ + 1 + size_type(std::count(buf_.data() + begin_, buf_.data() + end_, '\n')), pending_error_);
  // Make room: move the unread tail to the front, grow if a single line fills the buffer.
  if (begin_ > 0) {
    std::memmove(buf_.data(), buf_.data() + begin_, end_ - begin_);
    end_ -= begin_;
    begin_ = 0;
  }
  if (buf_.size() - 1 - end_ < kChunk / 2) buf_.resize(2 * buf_.size());  // a long line
  const std::size_t want = buf_.size() - 1 - end_;
  std::size_t got = 0;
  if (file_) {
    got = std::fread(buf_.data() + end_, 1, want, file_);
    if (got < want && std::ferror(file_)) fail_at(line_no_ + 1, std::string("read error: ") + std::strerror(errno));
  } else {
#ifdef KSPD_ENABLE_ZLIB
    gzFile g = static_cast<gzFile>(gz_);
    const int r = gzread(g, buf_.data() + end_, unsigned(want));
    int errnum = Z_OK;
    const char* msg = gzerror(g, &errnum);
    if (r < 0 || (errnum != Z_OK && errnum != Z_STREAM_END)) {
      // Hand out what was decompressed before the damage first, so that the error names
      // the line where the readable data ends.
      const std::string reason = std::string("gzip data is corrupt or truncated (") + (msg ? msg : "zlib error") + ")";
      if (r <= 0) fail_at(line_no_ + 1 + size_type(std::count(buf_.data() + begin_, buf_.data() + end_, '\n')), reason);
      pending_error_ = reason;
    }
    got = r > 0 ? std::size_t(r) : 0;
#endif
  }
  if (got == 0) eof_ = true;
  end_ += got;
  return got;
}

bool LineReader::next(const char*& line, std::size_t& len) {
  std::size_t scan = begin_;
  for (;;) {
    char* nl = static_cast<char*>(std::memchr(buf_.data() + scan, '\n', end_ - scan));
    if (nl || (eof_ && end_ > begin_)) {
      char* b = buf_.data() + begin_;
      char* e = nl ? nl : buf_.data() + end_;
      begin_ = nl ? std::size_t(nl - buf_.data()) + 1 : end_;
      ++line_no_;
      if (e > b && e[-1] == '\r') --e;
      *e = '\0';  // buf_ has one spare byte past end_ for an unterminated last line
      len = std::size_t(e - b);
      if (std::memchr(b, '\0', len)) fail("binary data (a NUL byte) in a text file");
      line = b;
      return true;
    }
    if (eof_) return false;
    if (end_ - begin_ > kMaxLine) fail_at(line_no_ + 1, "line longer than 16 MiB (not a text matrix file?)");
    const std::size_t old = end_ - begin_;
    fill();
    scan = begin_ + old;
  }
}

// ---------------------------------------------------------------------------------------
FileWriter::FileWriter(const std::string& path) : path_(path) {
  if (ends_with(path, ".gz")) {
#ifdef KSPD_ENABLE_ZLIB
    gzFile g = gzopen(path.c_str(), "wb6");
    if (!g) throw InvalidArgument(path + ": cannot open for writing: " + std::strerror(errno));
    gz_ = g;
#else
    throw InvalidArgument(path + ": writing gzip needs zlib (kspd was configured without it)");
#endif
  } else {
    file_ = std::fopen(path.c_str(), "wb");
    if (!file_) throw InvalidArgument(path + ": cannot open for writing: " + std::strerror(errno));
  }
  buf_.reserve(kChunk);
}

FileWriter::~FileWriter() {
  if (file_) std::fclose(file_);
#ifdef KSPD_ENABLE_ZLIB
  if (gz_) gzclose(static_cast<gzFile>(gz_));
#endif
}

void FileWriter::flush() {
  if (buf_.empty()) return;
  bool ok = true;
  if (file_) ok = std::fwrite(buf_.data(), 1, buf_.size(), file_) == buf_.size();
#ifdef KSPD_ENABLE_ZLIB
  if (gz_) ok = gzwrite(static_cast<gzFile>(gz_), buf_.data(), unsigned(buf_.size())) == int(buf_.size());
#endif
  buf_.clear();
  if (!ok) throw InvalidArgument(path_ + ": write failed: " + std::strerror(errno));
}

void FileWriter::write(const char* data, std::size_t len) {
  if (buf_.size() + len > kChunk) flush();
  if (len > kChunk) {
    buf_.assign(data, data + len);
    flush();
    return;
  }
  buf_.insert(buf_.end(), data, data + len);
}

void FileWriter::close() {
  flush();
  bool ok = true;
  if (file_) {
    ok = std::fclose(file_) == 0;
    file_ = nullptr;
  }
#ifdef KSPD_ENABLE_ZLIB
  if (gz_) {
    ok = gzclose(static_cast<gzFile>(gz_)) == Z_OK;
    gz_ = nullptr;
  }
#endif
  if (!ok) throw InvalidArgument(path_ + ": closing the file failed: " + std::strerror(errno));
}

// ---------------------------------------------------------------------------------------
bool parse_int(const char* tb, const char* te, long long& v) {
  if (tb < te && *tb == '+') ++tb;
  if (tb == te) return false;
  const auto r = std::from_chars(tb, te, v, 10);
  return r.ec == std::errc() && r.ptr == te;
}

bool parse_real(const char* tb, const char* te, double& v, bool fortran) {
  if (tb == te) return false;
#if defined(__cpp_lib_to_chars) && __cpp_lib_to_chars >= 201611L
  // Fast path (locale-independent, much faster than strtod). Anything it does not take in
  // full (hex floats, nan/inf, out of range, Fortran exponents) goes the strtod way below.
  {
    const char* b = (*tb == '+' && te - tb > 1 && tb[1] != '-' && tb[1] != '+') ? tb + 1 : tb;
    double w = 0;
    const auto r = std::from_chars(b, te, w, std::chars_format::general);
    if (r.ec == std::errc() && r.ptr == te) {
      v = w;
      return true;
    }
  }
#endif
  char tmp[128];
  const std::size_t n = std::size_t(te - tb);
  if (n + 2 > sizeof(tmp)) return false;
  std::size_t m = 0;
  bool has_exp = false;
  for (std::size_t k = 0; k < n; ++k) {
    char c = tb[k];
    if (fortran && (c == 'D' || c == 'd' || c == 'Q' || c == 'q')) c = 'E';
    if (c == 'E' || c == 'e') has_exp = true;
    // Fortran "1.234-05": a sign after a digit or '.' starts the exponent.
    if (fortran && !has_exp && (c == '+' || c == '-') && m > 0 &&
        ((tmp[m - 1] >= '0' && tmp[m - 1] <= '9') || tmp[m - 1] == '.')) {
      tmp[m++] = 'E';
      has_exp = true;
    }
    tmp[m++] = c;
  }
  tmp[m] = '\0';
  if (tmp[0] == ' ' || tmp[0] == '\t') return false;
  char* end = nullptr;
  errno = 0;
  v = std::strtod(tmp, &end);
  if (end != tmp + m) return false;
  // ERANGE on overflow gives +-HUGE_VAL (= Inf): the caller's finiteness check reports it.
  // Underflow to a subnormal or zero is accepted.
  return true;
}

}  // namespace kspd::sparse::Impl
