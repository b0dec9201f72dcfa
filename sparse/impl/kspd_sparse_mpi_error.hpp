#ifndef KSPD_SPARSE_MPI_ERROR_HPP
#define KSPD_SPARSE_MPI_ERROR_HPP
/// \file kspd_sparse_mpi_error.hpp
/// MPI errors of the distributed solver.
///
/// KSPD_MPI_SAFE_CALL(call): every MPI call of the distributed path goes through it (the
/// library's communicator returns errors: MPI_ERRORS_RETURN); a return other than
/// MPI_SUCCESS throws kspd::sparse::MpiError (a kspd::TplError) with the call's text, MPI's
/// error string, the rank (in MPI_COMM_WORLD) and the source position.
///
/// Agreement: a check or local computation that may fail on some ranks only runs inside
/// agree(comm, f) (collective). When f throws on any rank, every rank throws the same
/// exception (the lowest failing rank's type and message, "found on rank r of P" appended);
/// no rank goes on into a collective the others left. An error inside a collective call
/// itself cannot be agreed on (the other ranks may still be inside it): the callers keep
/// the arguments of collectives valid by checking them first (and chunk large counts).

#include <mpi.h>

#include <cstdint>
#include <exception>
#include <sstream>
#include <string>
#include <vector>

#include "kspd_error.hpp"

namespace kspd::sparse {

/// An MPI call returned an error.
class MpiError : public TplError {
 public:
  MpiError(const std::string& what, int code, int rank) : TplError(what), code_(code), rank_(rank) {}
  int code() const noexcept { return code_; }  ///< MPI's error code (0 when agreed from another rank)
  int rank() const noexcept { return rank_; }  ///< the rank in MPI_COMM_WORLD where the call failed

 private:
  int code_, rank_;
};

namespace Impl {

/// This process's rank in MPI_COMM_WORLD, or -1 outside MPI_Init/MPI_Finalize.
inline int mpi_world_rank() noexcept {
  int init = 0, fin = 0, r = -1;
  if (MPI_Initialized(&init) != MPI_SUCCESS || !init) return -1;
  if (MPI_Finalized(&fin) != MPI_SUCCESS || fin) return -1;
  if (MPI_Comm_rank(MPI_COMM_WORLD, &r) != MPI_SUCCESS) return -1;
  return r;
}

/// Throws MpiError when rc is not MPI_SUCCESS (see KSPD_MPI_SAFE_CALL).
inline void mpi_safe_call(int rc, const char* call, const char* file, int line) {
  if (rc == MPI_SUCCESS) return;
  char msg[MPI_MAX_ERROR_STRING];
  int len = 0;
  if (MPI_Error_string(rc, msg, &len) != MPI_SUCCESS) len = 0;
  const int rank = mpi_world_rank();
  std::ostringstream os;
  os << "kspd::sparse (MPI): " << call << " failed on rank " << rank << ": " << std::string(msg, size_t(len))
     << " (error " << rc << ") [" << file << ':' << line << ']';
  throw MpiError(os.str(), rc, rank);
}

/// Kept for older call sites: what names the call.
inline void mpi_check(int rc, const char* what) { mpi_safe_call(rc, what, "kspd_sparse_mpi", 0); }

}  // namespace Impl
}  // namespace kspd::sparse

/// Checks an MPI call: anything but MPI_SUCCESS throws kspd::sparse::MpiError naming the call.
#define KSPD_MPI_SAFE_CALL(call) ::kspd::sparse::Impl::mpi_safe_call((call), #call, __FILE__, __LINE__)

namespace kspd::sparse::Impl {

/// An exception caught on this rank, in a form that can travel to the other ranks.
struct LocalError {
  enum Kind : std::int64_t {
    None = 0,
    Generic,
    Invalid,
    Dimension,
    Parse,
    NotSpd,
    Singular,
    Tpl,
    OutOfDevice,
    Mpi,
    Other  // not a kspd::Error (std::bad_alloc, ...): rethrown as kspd::Error
  };
  Kind kind = None;
  std::string what;
  double column = 0, pivot = 0;
  explicit operator bool() const { return kind != None; }

  /// Classifies the current exception (call inside a catch block).
  static LocalError current() {
    LocalError e;
    try {
      throw;
    } catch (const NotPositiveDefinite& x) {
      e = {NotSpd, x.what(), double(x.column()), x.pivot()};
    } catch (const SingularMatrix& x) {
      e = {Singular, x.what(), double(x.column()), 0};
    } catch (const ParseError& x) {
      e = {Parse, x.what()};
    } catch (const DimensionMismatch& x) {
      e = {Dimension, x.what()};
    } catch (const InvalidArgument& x) {
      e = {Invalid, x.what()};
    } catch (const MpiError& x) {
      e = {Mpi, x.what()};
    } catch (const OutOfDeviceMemory& x) {
      e = {OutOfDevice, x.what()};
    } catch (const TplError& x) {
      e = {Tpl, x.what()};
    } catch (const Error& x) {
      e = {Generic, x.what()};
    } catch (const std::exception& x) {
      e = {Other, x.what()};
    } catch (...) {
      e = {Other, "unknown exception"};
    }
    return e;
  }
  /// Runs f, returning what it threw (None when nothing).
  template <class F>
  static LocalError capture(F&& f) {
    try {
      f();
    } catch (...) {
      return current();
    }
    return {};
  }
  [[noreturn]] void rethrow() const {
    switch (kind) {
      case NotSpd: throw NotPositiveDefinite(what, size_type(column), pivot);
      case Singular: throw SingularMatrix(what, size_type(column));
      case Parse: throw ParseError(what);
      case Dimension: throw DimensionMismatch(what);
      case Invalid: throw InvalidArgument(what);
      case Mpi: throw MpiError(what, 0, -1);
      case OutOfDevice: throw OutOfDeviceMemory(what);
      case Tpl: throw TplError(what);
      default: throw Error(what);
    }
  }
};

/// Collective: when e is set on any rank, every rank throws the lowest such rank's error,
/// with "(found on rank r of P)" appended; otherwise returns.
inline void agree_error(MPI_Comm comm, const LocalError& e) {
  int rank = 0, P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_rank(comm, &rank));
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  int me = e ? rank : P, root = P;
  KSPD_MPI_SAFE_CALL(MPI_Allreduce(&me, &root, 1, MPI_INT, MPI_MIN, comm));
  if (root == P) return;
  LocalError g = e;
  std::int64_t hdr[2] = {std::int64_t(e.kind), std::int64_t(e.what.size())};
  double num[2] = {e.column, e.pivot};
  KSPD_MPI_SAFE_CALL(MPI_Bcast(hdr, 2, MPI_INT64_T, root, comm));
  KSPD_MPI_SAFE_CALL(MPI_Bcast(num, 2, MPI_DOUBLE, root, comm));
  g.what.resize(size_t(hdr[1]));  // messages are short: one int count
  KSPD_MPI_SAFE_CALL(MPI_Bcast(&g.what[0], int(hdr[1]), MPI_CHAR, root, comm));
  g.kind = LocalError::Kind(hdr[0]);
  g.column = num[0];
  g.pivot = num[1];
  std::ostringstream os;
  os << g.what << " (found on rank " << root << " of " << P << ")";
  g.what = os.str();
  g.rethrow();
}

/// Collective: runs f on every rank; when it throws on any rank, every rank throws the
/// same error (agree_error).
template <class F>
void agree(MPI_Comm comm, F&& f) {
  agree_error(comm, LocalError::capture(f));
}

}  // namespace kspd::sparse::Impl
#endif
