#ifndef AMESOS2_KSPD_DECL_HPP
#define AMESOS2_KSPD_DECL_HPP
/// \file Amesos2_Kspd_decl.hpp
/// Amesos2 interface to kspd's supernodal sparse Cholesky (SPD matrices), following the
/// pattern of Amesos2's Tacho interface: the matrix is gathered to rank 0 (ROOTED, full
/// symmetric CSR), analysed and factored there by kspd; right-hand sides are gathered and
/// the solution scattered back. Refactorization (numericFactorization() again, or setA with
/// keep_phase = SYMBFACT) reuses the analysis: new values reach kspd by one scatter.
///
/// Parameters (the sublist "kspd" of the list named "Amesos2", as for every Amesos2 solver;
/// the symmetric solve ignores "Transpose"):
///  - "kspd: threads" (int, default 1; 0 = all cores): workers of the task-parallel factorization
///  - "kspd: ordering" ("metis" | "natural", default "metis")
///  - "kspd: check symmetry" (bool, default false): verify that A equals A^T
///  - "IsContiguous" (bool, default true): global indices are 0..n-1 (else they are compacted)
///
/// Select it with kspd::amesos2::create("kspd", A, X, B) (kspd_amesos2.hpp), which gives every
/// other name to Amesos2::create.

#include <Kokkos_Core.hpp>

#include <string>

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
  typedef Kokkos::View<int*, host_exec_space> host_ordinal_type_array;
  typedef Kokkos::View<size_t*, host_exec_space> host_size_type_array;
  typedef Kokkos::View<scalar_type**, Kokkos::LayoutLeft, host_exec_space> host_solve_array_t;

  /// \warning Do not call directly: use kspd::amesos2::create (or Amesos2-style factories).
  KspdCholesky(Teuchos::RCP<const Matrix> A, Teuchos::RCP<Vector> X, Teuchos::RCP<const Vector> B);
  ~KspdCholesky();

  std::string description() const;

  /// Factor statistics of the last analysis (rank 0; 0 elsewhere).
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

  kspd::amesos2::Engine<scalar_type> engine_;
  kspd::amesos2::EngineSettings settings_;
  bool is_contiguous_ = true;

  // The gathered full CSR (rank 0).
  host_value_type_array host_nzvals_view_;
  host_ordinal_type_array host_cols_view_;
  host_size_type_array host_row_ptr_view_;

  mutable host_solve_array_t xValues_;
  mutable host_solve_array_t bValues_;
};

template <>
struct solver_traits<KspdCholesky> {
  typedef Meta::make_list2<float, double> supported_scalars;
};

}  // namespace Amesos2
#endif
