#include "core/algo_proto.hpp"

#include "core/error.hpp"

namespace cctune {

std::optional<Algorithm> parse_algorithm_choice(std::string_view s) {
  if (s == kAutoName) return std::nullopt;
  if (auto a = parse_algorithm(s)) return a;
  throw UsageError("unknown NCCL algorithm '" + std::string(s) + "'", "use one of auto, " + algorithm_name_list());
}

std::optional<Protocol> parse_protocol_choice(std::string_view s) {
  if (s == kAutoName) return std::nullopt;
  if (auto p = parse_protocol(s)) return p;
  throw UsageError("unknown NCCL protocol '" + std::string(s) + "'", "use one of auto, " + protocol_name_list());
}

}  // namespace cctune
