#ifndef KSPD_SPARSE_MPI_DISTRIBUTE_HPP
#define KSPD_SPARSE_MPI_DISTRIBUTE_HPP
/// \file kspd_sparse_mpi_distribute.hpp
/// The distributed solver's input distribution for A given by columns
/// (DistributedColumns: each rank a contiguous column range of the lower triangle): the
/// pattern gathered on every rank (every rank then runs the same analysis), and the values
/// sent to the ranks that own their entries. Collective; a problem found on one rank makes
/// every rank throw the same error (agree).

#include <mpi.h>

#include <cstdint>
#include <vector>

#include "kspd_error.hpp"
#include "kspd_sparse_mpi_chunked.hpp"
#include "kspd_sparse_mpi_error.hpp"

namespace kspd::sparse::Impl {

/// Every rank's columns gathered on every rank: n and the whole pattern (colptr, rowind).
/// Checks that n is the same everywhere and that the ranges are contiguous, ascending with
/// the rank and cover [0, n). Columns: DistributedColumns<Scalar> (already checked locally).
template <class Columns>
void allgather_pattern(MPI_Comm comm, const Columns& A, size_type& n, std::vector<size_type>& colptr,
                       std::vector<size_type>& rowind) {
  int P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  const size_type nloc = A.col_end - A.col_begin;
  std::int64_t mine[4] = {A.n, A.col_begin, A.col_end, A.colptr.back()};
  std::vector<std::int64_t> all(size_t(4 * P));
  KSPD_MPI_SAFE_CALL(MPI_Allgather(mine, 4, MPI_INT64_T, all.data(), 4, MPI_INT64_T, comm));
  n = all[0];
  std::vector<std::int64_t> ccount(size_t(P), 0), cdispl(size_t(P), 0), ecount(size_t(P), 0), edispl(size_t(P), 0);
  for (int r = 0; r < P; ++r) {  // (the same data on every rank: the same throw)
    const std::int64_t* a = all.data() + 4 * r;
    KSPD_REQUIRE(a[0] == n, InvalidArgument,
                 "kspd::sparse::DistributedCholesky::factorize: DistributedColumns::n differs between the ranks: rank "
                     << r << " has n = " << a[0] << ", rank 0 has n = " << n);
    KSPD_REQUIRE(a[1] == (r == 0 ? 0 : all[size_t(4 * r - 2)]) && (r + 1 < P || a[2] == n), InvalidArgument,
                 "kspd::sparse::DistributedCholesky::factorize: column ranges must be contiguous, ascending with the rank "
                 "and cover [0, n = " << n << "); rank " << r << " has [" << a[1] << ", " << a[2] << ")");
    ccount[size_t(r)] = a[2] - a[1];
    ecount[size_t(r)] = a[3];
    if (r > 0) {
      cdispl[size_t(r)] = cdispl[size_t(r - 1)] + ccount[size_t(r - 1)];
      edispl[size_t(r)] = edispl[size_t(r - 1)] + ecount[size_t(r - 1)];
    }
  }
  const size_type nnz = size_type(edispl.back()) + ecount.back();
  std::vector<size_type> lens, mylen;
  agree(comm, [&] {  // (allocation)
    lens.resize(size_t(n));
    colptr.assign(size_t(n + 1), 0);
    rowind.resize(size_t(nnz));
    mylen.resize(size_t(nloc));
  });
  for (size_type j = 0; j < nloc; ++j) mylen[size_t(j)] = A.colptr[size_t(j + 1)] - A.colptr[size_t(j)];
  allgatherv_n(mylen.data(), lens.data(), ccount, cdispl, comm);
  allgatherv_n(A.rowind.data(), rowind.data(), ecount, edispl, comm);
  for (size_type j = 0; j < n; ++j) colptr[size_t(j + 1)] = colptr[size_t(j)] + lens[size_t(j)];
}

/// This rank's values of the entries [p0, p1) of the analysed pattern (entry order) to
/// their owners (owner: per entry of the whole pattern); returns the entries this rank
/// owns, from all ranks, in entry order (the ranks' ranges ascend with the rank).
template <class Scalar>
std::vector<Scalar> route_values(MPI_Comm comm, const Scalar* values, const std::vector<int>& owner, size_type p0,
                                 size_type p1) {
  int P = 1;
  KSPD_MPI_SAFE_CALL(MPI_Comm_size(comm, &P));
  std::vector<std::int64_t> scount(size_t(P), 0), sdispl(size_t(P), 0), rcount(size_t(P), 0), rdispl(size_t(P), 0);
  std::vector<Scalar> sendbuf;
  agree(comm, [&] {
    for (size_type p = p0; p < p1; ++p) ++scount[size_t(owner[size_t(p)])];
    for (int r = 1; r < P; ++r) sdispl[size_t(r)] = sdispl[size_t(r - 1)] + scount[size_t(r - 1)];
    sendbuf.resize(size_t(p1 - p0));
    std::vector<std::int64_t> pos(sdispl);
    for (size_type p = p0; p < p1; ++p) sendbuf[size_t(pos[size_t(owner[size_t(p)])]++)] = values[size_t(p - p0)];
  });
  KSPD_MPI_SAFE_CALL(MPI_Alltoall(scount.data(), 1, MPI_INT64_T, rcount.data(), 1, MPI_INT64_T, comm));
  for (int r = 1; r < P; ++r) rdispl[size_t(r)] = rdispl[size_t(r - 1)] + rcount[size_t(r - 1)];
  std::vector<Scalar> recv;
  agree(comm, [&] { recv.resize(size_t(rdispl.back() + rcount.back())); });
  alltoallv_n(sendbuf.data(), scount, sdispl, recv.data(), rcount, rdispl, comm);
  return recv;
}

}  // namespace kspd::sparse::Impl
#endif
