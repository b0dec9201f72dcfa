#ifndef KSPD_SPARSE_GENERATE_HPP
#define KSPD_SPARSE_GENERATE_HPP
/// \file kspd_sparse_generate.hpp
/// Embedded SPD test problems (so the solver needs no download) and the symmetric
/// matrix-vector product used to build right-hand sides with a known solution.
///
/// All generators number the grid points lexicographically, p = i + nx*(j + ny*k), and
/// return the lower triangle in CscMatrix form with 64-bit counts. They count every column
/// first (colptr), then fill, so memory is exactly the output (no triplets, nothing O(n^2)).

#include <vector>

#include "kspd_sparse_csc.hpp"
#include "kspd_types.hpp"

namespace kspd::sparse {

/// \brief 5-point Laplacian on an nx x ny grid with Dirichlet boundary (n = nx*ny).
/// Diagonal 4, neighbours -1. SPD for every nx, ny >= 1 (strictly diagonally dominant on
/// boundary rows, irreducible). nnz (lower) = n + (nx-1)*ny + nx*(ny-1).
/// \throw InvalidArgument if nx or ny is negative.
template <class Scalar>
CscMatrix<Scalar> laplacian_2d(size_type nx, size_type ny);

/// \brief 7-point Laplacian on an nx x ny x nz grid with Dirichlet boundary (n = nx*ny*nz).
/// Diagonal 6, neighbours -1. nnz (lower) = n + (nx-1)ny nz + nx(ny-1)nz + nx ny(nz-1).
template <class Scalar>
CscMatrix<Scalar> laplacian_3d(size_type nx, size_type ny, size_type nz);

/// \brief 3-D linear elasticity on nx x ny x nz nodes: 3 degrees of freedom per node
/// (dof = 3*p + c), 27-point node coupling with dense 3x3 blocks (n = 3*nx*ny*nz).
///
/// How it is built (and why it is SPD for every size): the nodes are the interior nodes
/// of a grid of (nx+1) x (ny+1) x (nz+1) trilinear (Q1) brick elements (edges 1, 1.25, 0.8)
/// of an isotropic material (E = 1, nu = 0.3), with every boundary node clamped
/// (homogeneous Dirichlet). The 24x24 element stiffness is integrated exactly with 2x2x2
/// Gauss points; the assembled stiffness restricted to the free nodes is SPD because the
/// strain energy vanishes only for rigid motions and the only rigid motion that is zero on
/// the clamped boundary is zero. Every interior node thus sees the same 27 blocks K_d,
/// d in {-1,0,1}^3 (K_{-d} = K_d^T). The displacements are then expressed in a fixed
/// rotated frame R (an orthogonal change of variables, A' = (I (x) R) A (I (x) R)^T, still
/// SPD), so that every 3x3 block is dense, as for a mesh not aligned with the axes; without
/// the rotation (and with a cubic element) symmetry makes some block entries exactly zero.
/// nnz (lower) = 6*N + 9*E, N = nx*ny*nz, E = number of neighbour pairs in the 27-point
/// stencil = sum over the 13 offsets d > 0 of prod_k (n_k - |d_k|) (terms <= 0 dropped).
template <class Scalar>
CscMatrix<Scalar> elasticity_3d(size_type nx, size_type ny, size_type nz);

/// Exact stored (lower) entry counts of the generators, for reports and pre-allocation.
size_type laplacian_2d_nnz(size_type nx, size_type ny);
size_type laplacian_3d_nnz(size_type nx, size_type ny, size_type nz);
size_type elasticity_3d_nnz(size_type nx, size_type ny, size_type nz);

/// \brief y = A x for the symmetric A whose lower triangle is stored in A (host).
/// x and y hold A.n entries and must not overlap. Accumulates in double.
template <class Scalar>
void symv(const CscMatrix<Scalar>& A, const Scalar* x, Scalar* y);
template <class Scalar>
void symv(const CscMatrix<Scalar>& A, const std::vector<Scalar>& x, std::vector<Scalar>& y);

/// \brief Right-hand sides with a known solution: returns B = A X, where X is column-major
/// A.n x nrhs (X.size() == A.n * nrhs). \throw DimensionMismatch on a wrong X size.
template <class Scalar>
std::vector<Scalar> known_solution_rhs(const CscMatrix<Scalar>& A, const std::vector<Scalar>& X,
                                       size_type nrhs = 1);

/// \brief Checks the CscMatrix invariants (colptr monotone from 0, rows in [j, n) sorted and
/// unique per column, array sizes). \throw InvalidArgument naming the first violation.
template <class Scalar>
void check_csc(const CscMatrix<Scalar>& A);

}  // namespace kspd::sparse
#endif
