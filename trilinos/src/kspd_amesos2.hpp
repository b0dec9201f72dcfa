#ifndef KSPD_AMESOS2_HPP
#define KSPD_AMESOS2_HPP
/// \file kspd_amesos2.hpp
/// kspd's sparse Cholesky as an Amesos2 solver (Amesos2::KspdCholesky, name "kspd").
///
/// \code
///   #include <kspd_amesos2.hpp>
///   auto solver = kspd::amesos2::create<MAT, MV>("kspd", A, X, B);  // any other name: Amesos2::create
///   Teuchos::ParameterList pl("Amesos2");
///   pl.sublist("kspd").set("kspd: threads", 2);
///   solver->setParameters(Teuchos::rcpFromRef(pl));
///   solver->symbolicFactorization().numericFactorization().solve();
///   // new values, same pattern: A->resumeFill(); ...; A->fillComplete();
///   solver->numericFactorization().solve();   // reuses the analysis
/// \endcode
/// Amesos2 13.2's factory has a fixed list of solver names, so kspd::amesos2::create stands in
/// for Amesos2::create: it returns the same Amesos2::Solver interface for every name.

#include <Amesos2.hpp>

#include <cctype>
#include <string>

#include "Amesos2_Kspd_def.hpp"

namespace kspd::amesos2 {

/// True for the names that select kspd ("kspd", "KSPD", "kspd-cholesky", case-insensitive).
inline bool is_kspd_name(std::string s) {
  for (auto& c : s) c = char(std::tolower(static_cast<unsigned char>(c)));
  return s == "kspd" || s == "kspd-cholesky" || s == "kspdcholesky";
}

/// \brief Amesos2::create with kspd added: `name` "kspd" gives Amesos2::KspdCholesky, any
/// other name what Amesos2::create gives.
template <class Matrix, class Vector>
Teuchos::RCP<::Amesos2::Solver<Matrix, Vector>> create(const std::string& name, Teuchos::RCP<const Matrix> A,
                                                       Teuchos::RCP<Vector> X = Teuchos::null,
                                                       Teuchos::RCP<const Vector> B = Teuchos::null) {
  if (is_kspd_name(name)) return Teuchos::rcp(new ::Amesos2::KspdCholesky<Matrix, Vector>(A, X, B));
  return ::Amesos2::create<Matrix, Vector>(name, A, X, B);
}

/// Whether `name` is a solver this build can create (kspd or one of Amesos2's).
inline bool query(const std::string& name) { return is_kspd_name(name) || ::Amesos2::query(name); }

}  // namespace kspd::amesos2
#endif
