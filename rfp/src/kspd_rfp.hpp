#ifndef KSPD_RFP_HPP
#define KSPD_RFP_HPP
/// \file kspd_rfp.hpp
/// Everything of kspd::rfp: symmetric matrices in Rectangular Full Packed format.
#include "kspd_rfp_layout.hpp"
#include "kspd_rfp_matrix.hpp"
#include "kspd_rfp_convert.hpp"
#endif
