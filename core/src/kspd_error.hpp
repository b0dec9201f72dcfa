#ifndef KSPD_ERROR_HPP
#define KSPD_ERROR_HPP
/// \file kspd_error.hpp
/// The error hierarchy. Every exception derives from kspd::Error and carries file and line.

#include <sstream>
#include <stdexcept>
#include <string>

#include "kspd_types.hpp"

namespace kspd {

class Error : public std::runtime_error {
 public:
  explicit Error(const std::string& what) : std::runtime_error(what) {}
};
/// An argument is out of its domain (negative size, bad mode, unsupported layout).
class InvalidArgument : public Error {
 public:
  using Error::Error;
};
/// Operand shapes do not agree.
class DimensionMismatch : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};
/// A leading minor is not positive definite. column() is 1-based (LAPACK's info).
class NotPositiveDefinite : public Error {
 public:
  NotPositiveDefinite(const std::string& what, size_type column, double pivot = 0.0)
      : Error(what), column_(column), pivot_(pivot) {}
  size_type column() const noexcept { return column_; }
  double pivot() const noexcept { return pivot_; }

 private:
  size_type column_;
  double pivot_;
};
/// A triangular factor has an exactly zero diagonal entry (trtri, potri). column() is 1-based.
class SingularMatrix : public Error {
 public:
  SingularMatrix(const std::string& what, size_type column) : Error(what), column_(column) {}
  size_type column() const noexcept { return column_; }

 private:
  size_type column_;
};
/// A vendor library (cuBLAS, cuSOLVER, BLAS/LAPACK) or the CUDA runtime reported failure.
class TplError : public Error {
 public:
  using Error::Error;
};
/// A device allocation failed.
class OutOfDeviceMemory : public TplError {
 public:
  using TplError::TplError;
};
/// A malformed input file (the message names file, line and reason).
class ParseError : public InvalidArgument {
 public:
  using InvalidArgument::InvalidArgument;
};

namespace Impl {
template <class E>
[[noreturn]] void throw_error(const char* file, int line, const std::string& msg) {
  std::ostringstream os;
  os << msg << " [" << file << ':' << line << ']';
  throw E(os.str());
}
}  // namespace Impl

/// Throws ErrorType with the message and the source position when cond is false.
#define KSPD_REQUIRE(cond, ErrorType, msg)                                        \
  do {                                                                            \
    if (!(cond)) {                                                                \
      std::ostringstream kspd_require_os_;                                        \
      kspd_require_os_ << msg;                                                    \
      ::kspd::Impl::throw_error<ErrorType>(__FILE__, __LINE__, kspd_require_os_.str()); \
    }                                                                             \
  } while (0)

/// Turns a potrf/pftrf info into an exception: info > 0 names the failing column.
inline void require_spd(long long info, const std::string& where) {
  if (info > 0) {
    std::ostringstream os;
    os << where << ": the matrix is not positive definite (leading minor of order " << info
       << " fails; column " << info << ", 1-based)";
    throw NotPositiveDefinite(os.str(), info);
  }
  if (info < 0) {
    std::ostringstream os;
    os << where << ": argument " << -info << " had an illegal value";
    throw InvalidArgument(os.str());
  }
}

}  // namespace kspd

#endif
