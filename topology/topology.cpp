#include "topology/topology.hpp"

#include <cctype>

namespace cctune::topo {

std::string normalize_pci_bus_id(const std::string& bus_id) {
  std::string s;
  for (char c : bus_id) s += static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  // Domain is everything before the second-to-last ':'; NVML writes 8 digits.
  auto last = s.rfind(':');
  if (last == std::string::npos || last == 0) return s;
  auto first = s.rfind(':', last - 1);
  if (first == std::string::npos) return "0000:" + s;  // "1b:00.0"
  std::string domain = s.substr(0, first);
  while (domain.size() > 4 && domain[0] == '0') domain.erase(0, 1);
  while (domain.size() < 4) domain.insert(0, "0");
  return domain + s.substr(first);
}

}  // namespace cctune::topo
