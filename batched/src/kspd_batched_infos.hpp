#ifndef KSPD_BATCHED_INFOS_HPP
#define KSPD_BATCHED_INFOS_HPP
/// \file kspd_batched_infos.hpp
/// Failures of a batched factorization that cannot be missed: a summary of the infos (how
/// many failed, the first one) and require_spd, which throws kspd::NotPositiveDefinite naming
/// the failed matrices. Both fence `exec` and read the infos on the host.

#include <Kokkos_Core.hpp>

#include <sstream>
#include <string>

#include "kspd_compat.hpp"
#include "kspd_error.hpp"
#include "kspd_types.hpp"

namespace kspd::batched {

/// What a batch's infos say.
struct InfoSummary {
  size_type failures = 0;  ///< matrices with infos(b) != 0
  size_type first = -1;    ///< the first of them (-1: none)
  int first_info = 0;      ///< its info (the 1-based column of its first non-positive pivot)
  bool ok() const { return failures == 0; }
};

/// \brief Counts the failed matrices (infos(b) != 0) of a batch and finds the first.
/// Fences `exec` (the infos are written there), then reads infos on the host.
template <class ExecSpace, class InfoView>
InfoSummary summarize_infos(const ExecSpace& exec, const InfoView& infos) {
  static_assert(Kokkos::is_view<InfoView>::value && InfoView::rank == 1, "kspd::batched: infos must be a rank-1 View");
  compat::fence(exec, "kspd::batched::summarize_infos");
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), infos);
  InfoSummary s;
  for (size_type b = 0; b < size_type(h.extent(0)); ++b)
    if (h(b) != 0) {
      if (s.failures++ == 0) {
        s.first = b;
        s.first_info = h(b);
      }
    }
  return s;
}

/// \brief Throws kspd::NotPositiveDefinite (column() = the first failed matrix's info) when any
/// matrix of the batch failed, naming how many, and the first few by index and column.
template <class ExecSpace, class InfoView>
void require_spd(const ExecSpace& exec, const InfoView& infos, const std::string& where) {
  const InfoSummary s = summarize_infos(exec, infos);
  if (s.ok()) return;
  const auto h = Kokkos::create_mirror_view_and_copy(Kokkos::HostSpace(), infos);
  std::ostringstream os;
  os << where << ": " << s.failures << " of " << h.extent(0) << " matrices are not positive definite: ";
  int listed = 0;
  for (size_type b = s.first; b < size_type(h.extent(0)) && listed < 5; ++b)
    if (h(b) != 0) {
      os << (listed++ > 0 ? ", " : "") << "matrix " << b << " (leading minor of order " << h(b) << " fails)";
    }
  if (s.failures > 5) os << ", ...";
  throw NotPositiveDefinite(os.str(), size_type(s.first_info));
}

}  // namespace kspd::batched
#endif
