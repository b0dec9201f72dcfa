#ifndef KSPD_AMESOS2_ENGINE_HPP
#define KSPD_AMESOS2_ENGINE_HPP
/// \file kspd_amesos2_engine.hpp
/// The one place where the Amesos2 adapter calls kspd's sparse Cholesky. The adapter hands it
/// the gathered CSR of the full symmetric matrix and host right-hand sides; when the sparse
/// API changes (execution-space-first factorize returning info, device solves), only this
/// file changes.

#include <type_traits>
#include <Kokkos_Core.hpp>

#include <cstdint>
#include <memory>
#include <string>

#include "kspd_error.hpp"
#include "kspd_sparse_input.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"

namespace kspd::amesos2 {

/// Settings the adapter reads from its Teuchos::ParameterList.
struct EngineSettings {
  sparse::Options options;             ///< ordering, threads, ...
  bool check_symmetry = false;         ///< verify that the two triangles agree
};

/// kspd's sparse Cholesky behind the three Amesos2 phases (host data, rank 0 only).
template <class Scalar>
class Engine {
 public:
  /// Symbolic phase: the CSR of the full symmetric matrix (0-based, any order within rows).
  template <class Offset, class Index>
  void analyze(size_type n, size_type nnz, const Offset* rowptr, const Index* colind, const Scalar* values,
               const EngineSettings& s) {
    sparse::InputFormat fmt;
    fmt.compression = sparse::Compression::Csr;
    fmt.stored = sparse::Stored::Full;
    fmt.check_symmetry = s.check_symmetry;
    input_ = sparse::make_input(n, nnz, rowptr, colind, values, fmt);
    pattern_hash_ = hash_pattern(n, rowptr, colind);
    chol_ = std::make_unique<sparse::SupernodalCholesky<Scalar, Kokkos::DefaultHostExecutionSpace>>(s.options);
    chol_->analyze(input_.matrix());
    factored_ = false;
  }

  /// Numeric phase: new values of the analysed pattern, in the same CSR entry order (the
  /// pattern is passed again and checked: a changed one is an error, not a wrong factor).
  /// \return 0, or the 1-based column (input numbering) where A is not positive definite.
  template <class Offset, class Index>
  int factorize(size_type n, const Offset* rowptr, const Index* colind, const Scalar* values) {
    KSPD_REQUIRE(chol_ != nullptr, InvalidArgument, "kspd::amesos2::Engine::factorize: call analyze first");
    KSPD_REQUIRE(n == input_.n() && hash_pattern(n, rowptr, colind) == pattern_hash_, InvalidArgument,
                 "kspd::amesos2: the matrix pattern differs from the analysed one; call symbolicFactorization()");
    input_.update_values(values);
    factored_ = false;
    using Exec = typename std::remove_reference_t<decltype(*chol_)>::execution_space;
    const int info = chol_->factorize(Exec(), input_.matrix());
    if (info != 0) {
      try {
        chol_->require_spd();
      } catch (const NotPositiveDefinite& e) {
        message_ = e.what();
      }
      return info;
    }
    factored_ = true;
    return 0;
  }

  /// Solves A X = X in place; X is a host n x nrhs View (LayoutLeft).
  template <class XView>
  void solve(const XView& X) const {
    KSPD_REQUIRE(factored_, InvalidArgument, "kspd::amesos2::Engine::solve: the factorization failed or was not done");
    using Exec = typename std::remove_reference_t<decltype(*chol_)>::execution_space;
    chol_->solve(Exec(), X);
  }

  size_type nnz_l() const { return chol_ ? chol_->analysis_stats().nnz_l : 0; }
  const std::string& message() const { return message_; }

 private:
  /// FNV-1a over n, the row offsets and the column indices (entry order matters: the value
  /// map follows it).
  template <class Offset, class Index>
  static std::uint64_t hash_pattern(size_type n, const Offset* rowptr, const Index* colind) {
    std::uint64_t h = 1469598103934665603ull;
    auto mix = [&h](std::uint64_t v) { h = (h ^ v) * 1099511628211ull; };
    mix(std::uint64_t(n));
    if (n == 0) return h;
    for (size_type i = 0; i <= n; ++i) mix(std::uint64_t(rowptr[i]));
    const size_type nnz = size_type(rowptr[n]);
    for (size_type k = 0; k < nnz; ++k) mix(std::uint64_t(colind[k]));
    return h;
  }

  std::uint64_t pattern_hash_ = 0;
  sparse::SymmetricInput<Scalar> input_;
  std::unique_ptr<sparse::SupernodalCholesky<Scalar, Kokkos::DefaultHostExecutionSpace>> chol_;
  bool factored_ = false;
  std::string message_;
};

}  // namespace kspd::amesos2
#endif
