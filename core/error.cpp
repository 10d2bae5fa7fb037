#include "core/error.hpp"

#include <sstream>

namespace cctune {

Error::Error(std::string what, std::string fix)
    : std::runtime_error(what), what_(std::move(what)), fix_(std::move(fix)) {}

std::string Error::describe(const ErrorSite& caller_site) const {
  const ErrorSite& site = site_ ? *site_ : caller_site;
  std::ostringstream out;
  out << what_;
  if (!site.host.empty() || site.rank >= 0) {
    out << " (";
    if (!site.host.empty()) out << "on host " << site.host;
    if (site.rank >= 0) out << (site.host.empty() ? "" : ", ") << "rank " << site.rank;
    if (site.device >= 0) out << ", device " << site.device;
    out << ")";
  }
  if (!fix_.empty()) out << ". Fix: " << fix_;
  return out.str();
}

}  // namespace cctune
