#ifndef KSPD_RFP_HPP
#define KSPD_RFP_HPP
/// \file kspd_rfp.hpp
/// Everything of kspd::rfp: symmetric and complex Hermitian matrices in Rectangular Full
/// Packed format.
#include "kspd_rfp_layout.hpp"
#include "kspd_rfp_matrix.hpp"
#include "kspd_rfp_convert.hpp"
#include "kspd_rfp_tfsm.hpp"
#include "kspd_rfp_pftrf.hpp"
#include "kspd_rfp_pftri.hpp"
#include "kspd_rfp_sfrk.hpp"
#include "kspd_rfp_sfmm.hpp"
#include "kspd_rfp_lansf.hpp"
#include "kspd_rfp_pfcon.hpp"
#include "kspd_rfp_hfrk.hpp"
#include "kspd_rfp_lanhf.hpp"
#include "kspd_rfp_logdet.hpp"
#include "kspd_rfp_inverse_diag.hpp"
#include "kspd_rfp_pftrf_jitter.hpp"
#include "kspd_rfp_pfsv_mixed.hpp"
#endif
