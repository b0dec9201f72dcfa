#ifndef AMESOS2_KSPD_DEF_HPP
#define AMESOS2_KSPD_DEF_HPP
/// \file Amesos2_Kspd_def.hpp
/// Definitions of Amesos2::KspdCholesky (see Amesos2_Kspd_decl.hpp).

#include <Teuchos_ParameterList.hpp>
#include <Teuchos_StandardParameterEntryValidators.hpp>

#include <sstream>
#include <stdexcept>

#include "Amesos2_Kspd_decl.hpp"
#include "Amesos2_SolverCore_def.hpp"
#include "Amesos2_Util.hpp"

namespace Amesos2 {

template <class Matrix, class Vector>
KspdCholesky<Matrix, Vector>::KspdCholesky(Teuchos::RCP<const Matrix> A, Teuchos::RCP<Vector> X,
                                           Teuchos::RCP<const Vector> B)
    : SolverCore<Amesos2::KspdCholesky, Matrix, Vector>(A, X, B) {}

template <class Matrix, class Vector>
KspdCholesky<Matrix, Vector>::~KspdCholesky() {}

template <class Matrix, class Vector>
std::string KspdCholesky<Matrix, Vector>::description() const {
  return "kspd supernodal sparse Cholesky (SPD), factored on rank 0";
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::preOrdering_impl() {
  return 0;  // kspd orders (Metis) inside its analysis
}

// Errors on rank 0 reach every rank: the message is broadcast and all ranks throw.
namespace KspdDetail {
template <class Comm>
void throw_on_all_ranks(const Comm& comm, bool root, std::string msg) {
  int len = root ? int(msg.size()) : 0;
  Teuchos::broadcast(comm, 0, &len);
  if (len == 0) return;
  msg.resize(size_t(len));
  Teuchos::broadcast(comm, 0, len, &msg[0]);
  throw std::runtime_error(msg);
}
}  // namespace KspdDetail

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::symbolicFactorization_impl() {
  std::string err;
  if (this->root_) {
    try {
      engine_.analyze(kspd::size_type(this->globalNumRows_), kspd::size_type(host_cols_view_.extent(0)),
                      host_row_ptr_view_.data(), host_cols_view_.data(), host_nzvals_view_.data(), settings_);
    } catch (const std::exception& e) {
      err = std::string("Amesos2::KspdCholesky::symbolicFactorization: ") + e.what();
    }
  }
  KspdDetail::throw_on_all_ranks(*this->getComm(), this->root_, err);
  return 0;
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::numericFactorization_impl() {
  int info = 0;
  std::string err;
  if (this->root_) {
    try {
      info = engine_.factorize(kspd::size_type(this->globalNumRows_), host_row_ptr_view_.data(), host_cols_view_.data(),
                               host_nzvals_view_.data());
    } catch (const std::exception& e) {
      err = std::string("Amesos2::KspdCholesky::numericFactorization: ") + e.what();
    }
    if (info != 0) {
      std::ostringstream os;
      os << "Amesos2::KspdCholesky::numericFactorization: the matrix is not positive definite (column " << info
         << "): " << engine_.message();
      err = os.str();
    }
  }
  KspdDetail::throw_on_all_ranks(*this->getComm(), this->root_, err);
  return 0;
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::solve_impl(const Teuchos::Ptr<MultiVecAdapter<Vector> > X,
                                             const Teuchos::Ptr<const MultiVecAdapter<Vector> > B) const {
  using Teuchos::as;
  const global_size_type ld_rhs = this->root_ ? X->getGlobalLength() : 0;
  const EDistribution dist = is_contiguous_ ? ROOTED : CONTIGUOUS_AND_ROOTED;
  bool bDidAssignX;
  {
    const bool initialize_data = true, do_not_initialize_data = false;
    Util::get_1d_copy_helper_kokkos_view<MultiVecAdapter<Vector>, host_solve_array_t>::do_get(
        initialize_data, B, bValues_, as<size_t>(ld_rhs), dist, this->rowIndexBase_);
    bDidAssignX = Util::get_1d_copy_helper_kokkos_view<MultiVecAdapter<Vector>, host_solve_array_t>::do_get(
        do_not_initialize_data, X, xValues_, as<size_t>(ld_rhs), dist, this->rowIndexBase_);
  }
  std::string err;
  if (this->root_) {
    try {
      // B may be the caller's memory (assigned, not copied): solve in X.
      if (xValues_.data() != bValues_.data()) Kokkos::deep_copy(xValues_, bValues_);
      engine_.solve(xValues_);
    } catch (const std::exception& e) {
      err = std::string("Amesos2::KspdCholesky::solve: ") + e.what();
    }
  }
  KspdDetail::throw_on_all_ranks(*this->getComm(), this->root_, err);
  if (!bDidAssignX)
    Util::put_1d_data_helper_kokkos_view<MultiVecAdapter<Vector>, host_solve_array_t>::do_put(
        X, xValues_, as<size_t>(ld_rhs), dist, this->rowIndexBase_);
  return 0;
}

template <class Matrix, class Vector>
bool KspdCholesky<Matrix, Vector>::matrixShapeOK_impl() const {
  return this->matrixA_->getGlobalNumRows() == this->matrixA_->getGlobalNumCols();
}

template <class Matrix, class Vector>
void KspdCholesky<Matrix, Vector>::setParameters_impl(const Teuchos::RCP<Teuchos::ParameterList>& parameterList) {
  // SolverCore hands over the sublist named after the solver ("kspd") of the "Amesos2" list.
  const Teuchos::ParameterList& pl = *parameterList;
  if (pl.isParameter("kspd: threads")) settings_.options.threads = pl.get<int>("kspd: threads");
  if (pl.isParameter("kspd: ordering")) {
    const std::string o = pl.get<std::string>("kspd: ordering");
    TEUCHOS_TEST_FOR_EXCEPTION(o != "metis" && o != "natural", std::invalid_argument,
                               "Amesos2::KspdCholesky: \"kspd: ordering\" must be \"metis\" or \"natural\", not \"" << o
                                                                                                         << "\"");
    settings_.options.ordering = o == "metis" ? kspd::sparse::Ordering::Metis : kspd::sparse::Ordering::Natural;
  }
  if (pl.isParameter("kspd: check symmetry")) settings_.check_symmetry = pl.get<bool>("kspd: check symmetry");
  if (pl.isParameter("IsContiguous")) is_contiguous_ = pl.get<bool>("IsContiguous");
}

template <class Matrix, class Vector>
Teuchos::RCP<const Teuchos::ParameterList> KspdCholesky<Matrix, Vector>::getValidParameters_impl() const {
  static Teuchos::RCP<const Teuchos::ParameterList> valid_params;
  if (Teuchos::is_null(valid_params)) {
    Teuchos::RCP<Teuchos::ParameterList> pl = Teuchos::parameterList();
    pl->set("kspd: threads", 1, "workers of the task-parallel factorization (0: all cores)");
    pl->set("kspd: ordering", std::string("metis"), "fill-reducing ordering: metis or natural");
    pl->set("kspd: check symmetry", false, "verify that the two triangles of A agree");
    pl->set("IsContiguous", true, "whether the global indices are contiguous (0..n-1)");
    valid_params = pl;
  }
  return valid_params;
}

template <class Matrix, class Vector>
bool KspdCholesky<Matrix, Vector>::loadA_impl(EPhase current_phase) {
  if (current_phase == SOLVE) return false;
  if (this->root_) {
    // Allocate once: a refactorization gathers into the same arrays.
    if (host_nzvals_view_.extent(0) != size_t(this->globalNumNonZeros_))
      host_nzvals_view_ = host_value_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::values"),
                                                this->globalNumNonZeros_);
    if (host_cols_view_.extent(0) != size_t(this->globalNumNonZeros_))
      host_cols_view_ = host_ordinal_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::colind"),
                                                this->globalNumNonZeros_);
    if (host_row_ptr_view_.extent(0) != size_t(this->globalNumRows_ + 1))
      host_row_ptr_view_ = host_size_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::rowptr"),
                                                this->globalNumRows_ + 1);
  } else if (host_row_ptr_view_.extent(0) != 1) {
    // Amesos2 writes rowptr[0] = 0 on every rank: the other ranks need one entry.
    host_row_ptr_view_ = host_size_type_array("kspd::amesos2::rowptr", 1);
  }
  typename host_size_type_array::value_type nnz_ret = 0;
  TEUCHOS_TEST_FOR_EXCEPTION(this->rowIndexBase_ != this->columnIndexBase_, std::runtime_error,
                             "Amesos2::KspdCholesky: row and column maps have different index bases");
  Util::get_crs_helper_kokkos_view<MatrixAdapter<Matrix>, host_value_type_array, host_ordinal_type_array,
                                   host_size_type_array>::do_get(this->matrixA_.ptr(), host_nzvals_view_,
                                                                 host_cols_view_, host_row_ptr_view_, nnz_ret,
                                                                 is_contiguous_ ? ROOTED : CONTIGUOUS_AND_ROOTED,
                                                                 ARBITRARY, this->rowIndexBase_);
  if (this->root_)
    TEUCHOS_TEST_FOR_EXCEPTION(nnz_ret != size_t(this->globalNumNonZeros_), std::runtime_error,
                               "Amesos2::KspdCholesky: gathered " << nnz_ret << " entries, expected "
                                                                  << this->globalNumNonZeros_);
  return true;
}

template <class Matrix, class Vector>
const char* KspdCholesky<Matrix, Vector>::name = "kspd";

}  // namespace Amesos2
#endif
