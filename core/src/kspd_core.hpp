#ifndef KSPD_CORE_HPP
#define KSPD_CORE_HPP
/// \file kspd_core.hpp
/// Everything in core/: tags, errors, index types, dense BLAS-3 and LAPACK on Views.
#include "KSPD_Config.hpp"
#include "kspd_compat.hpp"
#include "kspd_dense.hpp"
#include "kspd_dense_inverse_diag.hpp"
#include "kspd_dense_logdet.hpp"
#include "kspd_error.hpp"
#include "kspd_lapack.hpp"
#include "kspd_runtime.hpp"
#include "kspd_tags.hpp"
#include "kspd_types.hpp"
#endif
