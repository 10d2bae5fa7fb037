#include "tuner/profile/baseline_json.hpp"

#include <cmath>

#include "core/collective_traits.hpp"

namespace cctune::tuner {

void read_measured_baseline(const nlohmann::json& top, std::vector<MeasuredBaseline>& out, std::string& error) {
  auto it = top.find("measured_baseline");
  if (it == top.end() || !error.empty()) return;
  if (!it->is_array() || it->size() > kMaxMeasuredBaseline) {
    error = "profile.measured_baseline must be a list of at most " + std::to_string(kMaxMeasuredBaseline) + " entries";
    return;
  }
  for (std::size_t i = 0; i < it->size(); ++i) {
    const nlohmann::json& e = (*it)[i];
    const std::string path = "profile.measured_baseline[" + std::to_string(i) + "]";
    const auto positive = [&](const char* key) {
      auto f = e.find(key);
      return f != e.end() && f->is_number() && std::isfinite(f->get<double>()) && f->get<double>() > 0;
    };
    // One rank moves nothing over a bus: NCCL's bus factor is 0 there, and so is the figure.
    const auto non_negative = [&](const char* key) {
      auto f = e.find(key);
      return f != e.end() && f->is_number() && std::isfinite(f->get<double>()) && f->get<double>() >= 0;
    };
    const auto count = [&](const char* key) {
      auto f = e.find(key);
      return f != e.end() && f->is_number_unsigned() && f->get<std::uint64_t>() > 0 && f->get<std::uint64_t>() <= (1u << 30);
    };
    if (!e.is_object() || !e.contains("collective") || !e["collective"].is_string() || !count("nranks") || !count("nnodes") ||
        !e.contains("size_bytes") || !e["size_bytes"].is_number_unsigned() || !positive("time_us") || !non_negative("busbw_GBps")) {
      error = path + " must be {collective, nranks, nnodes, size_bytes, time_us, busbw_GBps} with positive counts and times and a bus bandwidth of 0 or more";
      return;
    }
    const auto c = collective_named(e["collective"].get<std::string>());
    if (!c) {
      error = path + ".collective is not a collective cctune knows";
      return;
    }
    out.push_back({*c, static_cast<int>(e["nranks"].get<std::uint64_t>()), static_cast<int>(e["nnodes"].get<std::uint64_t>()),
                   e["size_bytes"].get<std::uint64_t>(), e["time_us"].get<double>(), e["busbw_GBps"].get<double>()});
  }
}

nlohmann::ordered_json measured_baseline_json(const std::vector<MeasuredBaseline>& baseline) {
  nlohmann::ordered_json list = nlohmann::ordered_json::array();
  for (const MeasuredBaseline& b : baseline)
    list.push_back({{"collective", traits(b.collective).name},
                    {"nranks", b.nranks},
                    {"nnodes", b.nnodes},
                    {"size_bytes", b.size_bytes},
                    {"time_us", b.time_us},
                    {"busbw_GBps", b.busbw_GBps}});
  return list;
}

}  // namespace cctune::tuner
