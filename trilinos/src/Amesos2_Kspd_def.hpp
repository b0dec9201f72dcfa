#ifndef AMESOS2_KSPD_DEF_HPP
#define AMESOS2_KSPD_DEF_HPP
/// \file Amesos2_Kspd_def.hpp
/// Definitions of Amesos2::KspdCholesky (see Amesos2_Kspd_decl.hpp).

#include <Teuchos_DefaultMpiComm.hpp>
#include <Teuchos_ParameterList.hpp>
#include <Teuchos_StandardParameterEntryValidators.hpp>

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
  return "kspd supernodal sparse Cholesky (SPD), distributed over the matrix's ranks";
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::preOrdering_impl() {
  return 0;  // kspd orders (Metis) inside its analysis
}

namespace KspdDetail {
/// The MPI communicator under a Teuchos one (MPI_COMM_SELF for a serial Teuchos::Comm).
inline MPI_Comm raw_comm(const Teuchos::Comm<int>& comm) {
  const auto* m = dynamic_cast<const Teuchos::MpiComm<int>*>(&comm);
  return m ? (*m->getRawMpiComm())() : MPI_COMM_SELF;
}
/// kspd's errors are agreed by every rank (the engine's collectives): each rank rethrows
/// them as the std::runtime_error Amesos2 users catch, naming the phase.
template <class F>
void in_phase(const char* phase, F&& f) {
  try {
    f();
  } catch (const std::exception& e) {
    throw std::runtime_error(std::string("Amesos2::KspdCholesky::") + phase + ": " + e.what());
  }
}
}  // namespace KspdDetail

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::symbolicFactorization_impl() {
  KspdDetail::in_phase("symbolicFactorization", [&] {
    engine_.analyze(KspdDetail::raw_comm(*this->getComm()), kspd::size_type(this->globalNumRows_),
                    kspd::size_type(row_gids_.size()), row_gids_.data(), row_ptr_.data(), cols_.data(), nzvals_.data(),
                    (long long)this->rowIndexBase_, settings_);
  });
  return 0;
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::numericFactorization_impl() {
  int info = 0;
  KspdDetail::in_phase("numericFactorization", [&] {
    info = engine_.factorize(kspd::size_type(row_gids_.size()), row_ptr_.data(), cols_.data(), nzvals_.data());
  });
  // info is the same on every rank: all of them throw.
  TEUCHOS_TEST_FOR_EXCEPTION(info != 0, std::runtime_error,
                             "Amesos2::KspdCholesky::numericFactorization: the matrix is not positive definite (column "
                                 << info << "): " << engine_.message());
  // The target of B's Export: the rows this rank holds in kspd's solve, by global index. A
  // new Map only when some rank's rows changed (a new analysis).
  std::vector<global_ordinal_type> gids(size_t(engine_.solve_rows()));
  for (size_t l = 0; l < gids.size(); ++l)
    gids[l] = global_ordinal_type(engine_.solve_gid(kspd::size_type(l))) + global_ordinal_type(this->rowIndexBase_);
  int changed = solve_map_.is_null() || size_t(solve_map_->getNodeNumElements()) != gids.size();
  for (size_t l = 0; !changed && l < gids.size(); ++l)
    changed = solve_map_->getGlobalElement(local_ordinal_type(l)) != gids[l];
  int any = 0;
  Teuchos::reduceAll(*this->getComm(), Teuchos::REDUCE_MAX, changed, Teuchos::outArg(any));
  if (any)
    solve_map_ = Teuchos::rcp(new map_type(Tpetra::global_size_t(this->globalNumRows_),
                                           Teuchos::ArrayView<const global_ordinal_type>(gids),
                                           global_ordinal_type(this->rowIndexBase_), this->getComm()));
  return 0;
}

template <class Matrix, class Vector>
std::vector<kspd::size_type> KspdCholesky<Matrix, Vector>::solve_rows_of(const map_type& order) const {
  std::vector<kspd::size_type> idx(order.getNodeNumElements());
  for (size_t k = 0; k < idx.size(); ++k) {
    const auto g = order.getGlobalElement(local_ordinal_type(k)) - global_ordinal_type(this->rowIndexBase_);
    idx[k] = engine_.solve_index(kspd::size_type(g));
    TEUCHOS_TEST_FOR_EXCEPTION(idx[k] < 0 || size_t(idx[k]) >= idx.size(), std::logic_error,
                               "Amesos2::KspdCholesky::solve: row " << g << " is not one of this rank's solve rows");
  }
  return idx;
}

template <class Matrix, class Vector>
int KspdCholesky<Matrix, Vector>::solve_impl(const Teuchos::Ptr<MultiVecAdapter<Vector> > X,
                                             const Teuchos::Ptr<const MultiVecAdapter<Vector> > B) const {
  const size_t nrhs = X->getGlobalNumVectors();
  const size_t m = size_t(engine_.solve_rows());
  TEUCHOS_TEST_FOR_EXCEPTION(size_t(B->getGlobalNumVectors()) != nrhs, std::invalid_argument,
                             "Amesos2::KspdCholesky::solve: B has " << B->getGlobalNumVectors() << " columns, X " << nrhs);
  // B's rows -> the ranks that hold them in kspd's solve (Export to solve_map_). Amesos2's
  // adapter skips the Export for one vector on one rank and delivers the rows in B's own
  // order: the delivered order is looked up, not assumed.
  const bool own_order = nrhs == 1 && this->getComm()->getSize() == 1;
  B->get1dCopy_kokkos_view(true, bValues_, m, solve_map_.ptr(), DISTRIBUTED);
  const auto in = solve_rows_of(own_order ? *B->getMap() : *solve_map_);
  if (xValues_.extent(0) != m || xValues_.extent(1) != nrhs)
    xValues_ = host_solve_array_t(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::X"), m, nrhs);
  for (size_t c = 0; c < nrhs; ++c)
    for (size_t k = 0; k < m; ++k) xValues_(size_t(in[k]), c) = bValues_(k, c);
  KspdDetail::in_phase("solve", [&] { engine_.solve(xValues_.data(), kspd::size_type(nrhs)); });
  // And back (Import from solve_map_ into X's map), in the order the adapter expects.
  const auto out = solve_rows_of(own_order ? *X->getMap() : *solve_map_);
  host_solve_array_t Xout(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::Xout"), m, nrhs);
  for (size_t c = 0; c < nrhs; ++c)
    for (size_t k = 0; k < m; ++k) Xout(k, c) = xValues_(size_t(out[k]), c);
  X->put1dData_kokkos_view(Xout, m, solve_map_.ptr(), DISTRIBUTED);
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
  // "IsContiguous" is accepted and not needed: any row map works.
}

template <class Matrix, class Vector>
Teuchos::RCP<const Teuchos::ParameterList> KspdCholesky<Matrix, Vector>::getValidParameters_impl() const {
  static Teuchos::RCP<const Teuchos::ParameterList> valid_params;
  if (Teuchos::is_null(valid_params)) {
    Teuchos::RCP<Teuchos::ParameterList> pl = Teuchos::parameterList();
    pl->set("kspd: threads", 1, "workers of the task-parallel factorization (0: all cores)");
    pl->set("kspd: ordering", std::string("metis"), "fill-reducing ordering: metis or natural");
    pl->set("kspd: check symmetry", false, "verify that the two triangles of A agree");
    pl->set("IsContiguous", true, "accepted for compatibility, not needed: any row map works");
    valid_params = pl;
  }
  return valid_params;
}

template <class Matrix, class Vector>
bool KspdCholesky<Matrix, Vector>::loadA_impl(EPhase current_phase) {
  if (current_phase == SOLVE) return false;
  TEUCHOS_TEST_FOR_EXCEPTION(this->rowIndexBase_ != this->columnIndexBase_, std::runtime_error,
                             "Amesos2::KspdCholesky: row and column maps have different index bases");
  // This rank's rows as they are (the row map itself: no redistribution). Allocated once: a
  // refactorization reads into the same arrays.
  const auto row_map = this->matrixA_->getRowMap();
  const size_t nloc = this->matrixA_->getLocalNumRows(), nnz = this->matrixA_->getLocalNNZ();
  if (nzvals_.extent(0) != nnz)
    nzvals_ = host_value_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::values"), nnz);
  if (cols_.extent(0) != nnz)
    cols_ = host_ordinal_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::colind"), nnz);
  if (row_ptr_.extent(0) != nloc + 1)
    row_ptr_ = host_size_type_array(Kokkos::ViewAllocateWithoutInitializing("kspd::amesos2::rowptr"), nloc + 1);
  global_size_type nnz_ret = 0;
  this->matrixA_->getCrs_kokkos_view(nzvals_, cols_, row_ptr_, nnz_ret, Teuchos::ptrInArg(*row_map), ARBITRARY,
                                     DISTRIBUTED);
  TEUCHOS_TEST_FOR_EXCEPTION(nnz_ret != nnz, std::runtime_error,
                             "Amesos2::KspdCholesky: read " << nnz_ret << " local entries, expected " << nnz);
  row_gids_.resize(nloc);  // less the index base, as getCrs does for the column indices
  for (size_t l = 0; l < nloc; ++l)
    row_gids_[l] = row_map->getGlobalElement(local_ordinal_type(l)) - row_map->getIndexBase();
  return true;
}

template <class Matrix, class Vector>
const char* KspdCholesky<Matrix, Vector>::name = "kspd";

}  // namespace Amesos2
#endif
