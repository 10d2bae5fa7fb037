#include "net/probe_internal.hpp"

#include <algorithm>

namespace cctune::net::detail {

nlohmann::json pair_entry(const nlohmann::json& endpoints, std::size_t round, int me, int peer,
                          const std::string& transport, const EndpointLabel& label) {
  const bool initiator = me < peer;
  const auto& a = endpoints[static_cast<std::size_t>(initiator ? me : peer)];
  const auto& b = endpoints[static_cast<std::size_t>(initiator ? peer : me)];
  return {{"role", initiator ? "initiator" : "responder"},
          {"round", round},
          {"initiator", a["rank"]},
          {"responder", b["rank"]},
          {"initiator_host", a["host"]},
          {"responder_host", b["host"]},
          {"same_host", a["host"] == b["host"]},
          {"transport", transport},
          {"initiator_endpoint", label(a)},
          {"responder_endpoint", label(b)},
          {"port_rate_Gbps", std::min(a["port_rate_Gbps"].get<double>(), b["port_rate_Gbps"].get<double>())},
          {"error", nullptr}};
}

}  // namespace cctune::net::detail
