#ifndef AMESOS2_KSPD_DECL_HPP
#define AMESOS2_KSPD_DECL_HPP
/// \file Amesos2_Kspd_decl.hpp
/// Amesos2 interface to kspd's supernodal sparse Cholesky (SPD matrices), distributed: each
/// rank hands the rows it owns to kspd's distributed factorization
/// (kspd::sparse::DistributedCholesky, its column range of the lower triangle; nothing is
/// gathered on one rank), and the right-hand sides move, by a Tpetra Export, from their map
/// to the rows each rank holds in kspd's solve, and back. Refactorization
/// (numericFactorization() again, or setA with keep_phase = SYMBFACT) reuses the analysis.
/// Any row map works: its rows are numbered by position in rank order (identity for a
/// contiguous 0-based map, a compaction otherwise; kspd_amesos2_engine.hpp).
///
/// Parameters (the sublist "kspd" of the list named "Amesos2", as for every Amesos2 solver;
/// the symmetric solve ignores "Transpose"):
///  - "kspd: threads" (int, default 1; 0 = all cores): workers of the task-parallel factorization
///    on each rank
///  - "kspd: ordering" ("metis" | "natural", default "metis")
///  - "kspd: check symmetry" (bool, default false): verify that A equals A^T
///  - "IsContiguous" (bool): accepted for compatibility with Amesos2's other solvers, not
///    needed (any row map works)
///
/// Select it with kspd::amesos2::create("kspd", A, X, B) (kspd_amesos2.hpp), which gives every
/// other name to Amesos2::create.

#include <Kokkos_Core.hpp>

#include <string>
#include <vector>

#include <Tpetra_Map.hpp>

#include "Amesos2_SolverCore.hpp"
#include "Amesos2_SolverTraits.hpp"
#include "kspd_amesos2_engine.hpp"

namespace Amesos2 {

template <class Matrix, class Vector>
class KspdCholesky : public SolverCore<Amesos2::KspdCholesky, Matrix, Vector> {
  friend class SolverCore<Amesos2::KspdCholesky, Matrix, Vector>;

 public:
  /// Name of this solver interface ("kspd").
  static const char* name;

  typedef KspdCholesky<Matrix, Vector> type;
  typedef SolverCore<Amesos2::KspdCholesky, Matrix, Vector> super_type;
  typedef typename super_type::scalar_type scalar_type;
  typedef typename super_type::local_ordinal_type local_ordinal_type;
  typedef typename super_type::global_ordinal_type global_ordinal_type;
  typedef typename super_type::global_size_type global_size_type;

  typedef Kokkos::DefaultHostExecutionSpace host_exec_space;
  typedef Kokkos::View<scalar_type*, host_exec_space> host_value_type_array;
  typedef Kokkos::View<global_ordinal_type*, host_exec_space> host_ordinal_type_array;
  typedef Kokkos::View<global_size_type*, host_exec_space> host_size_type_array;
  typedef Kokkos::View<scalar_type**, Kokkos::LayoutLeft, host_exec_space> host_solve_array_t;

  /// \warning Do not call directly: use kspd::amesos2::create (or Amesos2-style factories).
  KspdCholesky(Teuchos::RCP<const Matrix> A, Teuchos::RCP<Vector> X, Teuchos::RCP<const Vector> B);
  ~KspdCholesky();

  std::string description() const;

  /// nnz(L) of the last successful factorization (every rank).
  kspd::size_type nnz_l() const { return engine_.nnz_l(); }

 private:
  int preOrdering_impl();
  int symbolicFactorization_impl();
  int numericFactorization_impl();
  int solve_impl(const Teuchos::Ptr<MultiVecAdapter<Vector> > X,
                 const Teuchos::Ptr<const MultiVecAdapter<Vector> > B) const;
  bool matrixShapeOK_impl() const;
  void setParameters_impl(const Teuchos::RCP<Teuchos::ParameterList>& parameterList);
  Teuchos::RCP<const Teuchos::ParameterList> getValidParameters_impl() const;
  bool loadA_impl(EPhase current_phase);

  typedef Tpetra::Map<local_ordinal_type, global_ordinal_type, typename super_type::node_type> map_type;

  /// Rows of a right-hand side delivered in `order` (its global indices) -> kspd's solve rows.
  std::vector<kspd::size_type> solve_rows_of(const map_type& order) const;

  kspd::amesos2::Engine<scalar_type> engine_;
  kspd::amesos2::EngineSettings settings_;

  // This rank's rows (CSR, global column indices less the index base).
  host_value_type_array nzvals_;
  host_ordinal_type_array cols_;
  host_size_type_array row_ptr_;
  std::vector<global_ordinal_type> row_gids_;

  // The rows each rank holds in kspd's solve (global indices): the target of B's Export.
  Teuchos::RCP<const map_type> solve_map_;
  mutable host_solve_array_t xValues_;
  mutable host_solve_array_t bValues_;
};

template <>
struct solver_traits<KspdCholesky> {
  typedef Meta::make_list2<float, double> supported_scalars;
};

}  // namespace Amesos2
#endif
