#ifndef KSPD_DENSE_TEST_OPTIONS_HPP
#define KSPD_DENSE_TEST_OPTIONS_HPP
// The routes of core's dense factorizations (potrf, trtri, lauum, potri) the tests run, real
// and complex alike.

#include <vector>

#include "kspd_core.hpp"

namespace kspd::test {

/// Auto, the vendor, the recursion and the native kernels; the last four force the
/// transposed-copy route of a triangle the vendor sees as 'U' (an upper one column-major, a
/// lower one row-major: complex, W = A^H in 'L'), vendor and recursive, and trtri / lauum as
/// one trsm / trmm on a workspace.
inline std::vector<kspd::DenseOptions> dense_factor_options() {
  constexpr auto on = kspd::Toggle::On;
  return {{kspd::Algo::Auto, 0},
          {kspd::Algo::Vendor, 0},
          {kspd::Algo::Recursive, 8},
          {kspd::Algo::Native, 8},
          {kspd::Algo::Native, 0},
          {kspd::Algo::Vendor, 0, kspd::Blocking::Auto, 0, on},
          {kspd::Algo::Recursive, 8, kspd::Blocking::Auto, 0, on},
          // trtri / lauum (and potri's halves) as one trsm / trmm on a workspace, with and
          // without the transposed copy first
          {kspd::Algo::Auto, 0, kspd::Blocking::Auto, 0, kspd::Toggle::Off, on},
          {kspd::Algo::Recursive, 8, kspd::Blocking::Auto, 0, on, on}};
}

}  // namespace kspd::test
#endif
