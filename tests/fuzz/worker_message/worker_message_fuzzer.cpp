// libFuzzer target for what the supervisor reads from workers: a message line (decode and
// the typed reads the supervisor makes of its point field) and a worker spec with the sweep
// plan in it, as a worker reads them. Every input is accepted or raises cctune::Error, which
// the supervisor turns into a failed group.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "runtime/protocol.hpp"
#include "runtime/sweep_plan.hpp"

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
    const WorkerSpec spec = parse_worker_spec(line);
    (void)to_json(spec);
    (void)to_json(plan_from_json(spec.plan));
  } catch (const cctune::Error&) {
  }
  return 0;
}
