#include "app/agreement.hpp"

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace cctune::app {

void agree_on_errors(RankComm& comm, const std::function<void()>& check) {
  nlohmann::json mine = nullptr;
  try {
    check();
  } catch (const UsageError& e) {
    mine = {{"kind", "usage"}, {"what", e.what_only()}, {"fix", e.fix()}};
  } catch (const EnvironmentError& e) {
    mine = {{"kind", "environment"}, {"what", e.what_only()}, {"fix", e.fix()}};
  }
  const auto all = comm.allgather(mine.dump());
  for (std::size_t r = 0; r < all.size(); ++r) {
    const auto j = nlohmann::json::parse(all[r]);
    if (j.is_null()) continue;
    const std::string what = j["what"].get<std::string>() + (r == 0 ? "" : " (reported by rank " + std::to_string(r) + ")");
    if (j["kind"] == "usage") throw UsageError(what, j["fix"]);
    throw EnvironmentError(what, j["fix"]);
  }
}

}  // namespace cctune::app
