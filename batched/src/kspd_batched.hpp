#ifndef KSPD_BATCHED_HPP
#define KSPD_BATCHED_HPP
/// \file kspd_batched.hpp
/// kspd::batched: thousands of tiny dense SPD / triangular problems at once.
///  - host level, per operation: strided rank-3 Views (batch first, either layout), arrays of
///    pointers, and variable-size batches (*_vbatched);
///  - device level: `Serial<Op>::invoke` / `Team<Op>::invoke` for use inside user kernels.
#include "kspd_batched_descriptor.hpp"
#include "kspd_batched_gemm.hpp"
#include "kspd_batched_infos.hpp"
#include "kspd_batched_potrf.hpp"
#include "kspd_batched_potrf_jitter.hpp"
#include "kspd_batched_potrf_logdet.hpp"
#include "kspd_batched_potrs.hpp"
#include "kspd_batched_serial.hpp"
#include "kspd_batched_team.hpp"
#include "kspd_batched_trmm.hpp"
#include "kspd_batched_trsm.hpp"
#include "kspd_batched_trtri.hpp"
#endif
