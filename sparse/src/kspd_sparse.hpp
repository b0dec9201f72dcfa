#ifndef KSPD_SPARSE_HPP
#define KSPD_SPARSE_HPP
/// \file kspd_sparse.hpp
/// The sparse module in one include: the supernodal Cholesky (kspd::sparse::SupernodalCholesky),
/// its options, the matrices applications hand it (CscMatrix; CSR/CSC of either triangle, any
/// index type, host or device Views, KokkosSparse::CrsMatrix through make_input), the Matrix
/// Market / Rutherford-Boeing readers, the test-problem generators and symv, the selected
/// inverse (SelectedInverse) and the mixed-precision solver (MixedCholesky). The distributed
/// solver (kspd_sparse_distributed.hpp) needs MPI and is included separately.

#include "kspd_sparse_csc.hpp"
#include "kspd_sparse_generate.hpp"
#include "kspd_sparse_input.hpp"
#include "kspd_sparse_io.hpp"
#include "kspd_sparse_mixed_cholesky.hpp"
#include "kspd_sparse_options.hpp"
#include "kspd_sparse_supernodal_cholesky.hpp"

#endif
