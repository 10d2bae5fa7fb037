// libFuzzer target for what the supervisor reads from workers: a message line (decode and
// the typed reads the supervisor makes of its point field) and a worker spec. Every input
// is accepted or raises cctune::Error, which the supervisor turns into a failed group.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "runtime/protocol.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cctune::runtime;
  const std::string line(reinterpret_cast<const char*>(data), size);
  try {
    const Message m = decode(line);
    (void)encode(m);
    if (m.type == MessageType::Point || m.type == MessageType::Progress) (void)message_point(m);
  } catch (const cctune::Error&) {
  }
  try {
    if (!cctune::json_nests_deeper_than(line)) {
      const auto j = nlohmann::json::parse(line, nullptr, /*allow_exceptions=*/false);
      if (!j.is_discarded()) (void)to_json(worker_spec_from_json(j));
    }
  } catch (const cctune::Error&) {
  }
  return 0;
}
