#include "runtime/supervisor_tick.hpp"

#include <nlohmann/json.hpp>

#include "core/json_fields.hpp"

namespace cctune::runtime {

void to_json(nlohmann::json& j, const SupervisorTick& t) {
  j = {{"priority", t.priority}, {"error", to_json(t.error)}, {"done", t.done}, {"uid", t.uid}};
}

void from_json(const nlohmann::json& j, SupervisorTick& t) {
  const JsonFields in(j, "supervisor tick", "run the same cctune build on every node");
  t.priority = in.get<int>("priority");
  if (t.priority < 0 || t.priority > 9)
    throw UsageError(in.path("priority") + " is " + std::to_string(t.priority) + ", not in [0, 9]", in.fix());
  t.error = error_record_from_json(in.object("error").raw()).value_or(ErrorRecord{});
  t.done = in.get<bool>("done");
  t.uid = in.get<std::string>("uid");
}

}  // namespace cctune::runtime
