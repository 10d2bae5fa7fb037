#include "runtime/worker_plan.hpp"

#include <algorithm>

#include "core/error.hpp"
#include "core/results_json.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"

namespace cctune::runtime {

WorkerPlan worker_plan_from_json(const nlohmann::json& j) {
  try {
    WorkerPlan p;
    for (const auto& c : j.at("collectives")) p.collectives.push_back(parse_collective(c.get<std::string>()));
    p.sizes = j.at("sizes_bytes").get<std::vector<std::uint64_t>>();
    p.dtype = parse_dtype(j.at("dtype").get<std::string>());
    p.op = parse_reduce_op(j.at("op").get<std::string>());
    for (const auto& pl : j.at("placements")) p.placements.push_back(pl.get<std::string>() == "in");
    p.measure.batch_iters = j.at("iters").get<int>();
    p.measure.warmup_iters = j.at("warmup_iters").get<int>();
    p.measure.check = j.at("check").get<bool>();
    p.measure.stop.min_iterations = j.at("min_iters").get<long>();
    p.measure.stop.max_time_s = j.at("max_time_s").get<double>();
    p.measure.stop.target_rel_noise = j.at("target_noise").get<double>();
    if (j.contains("configs"))
      for (const auto& c : j["configs"]) p.configs.push_back(c.get<PointConfig>());
    if (p.configs.empty()) p.configs.push_back(PointConfig{});
    const std::string search = j.value("search", "exhaustive");
    if (search != "exhaustive" && search != "halving") throw UsageError("unknown search strategy \"" + search + "\" in worker spec", "use exhaustive or halving");
    p.search = search == "halving" ? SearchKind::Halving : SearchKind::Exhaustive;
    for (const auto& k : j.value("skips", nlohmann::json::array()))
      p.skips.push_back({parse_collective(k.at("collective").get<std::string>()), k.at("config").get<PointConfig>(),
                         k.at("reason").get<std::string>()});
    return p;
  } catch (const nlohmann::json::exception& e) {
    throw UsageError(std::string("malformed sweep plan in worker spec: ") + e.what(), "supervisor and worker must be the same cctune build");
  }
}

std::vector<PointSpec> enumerate_points(const WorkerPlan& plan, int nranks) {
  std::vector<PointSpec> out;
  for (auto c : plan.collectives)
    for (auto size : plan.sizes)
      for (const auto& config : plan.configs)
        for (bool in_place : plan.placements) {
          PointSpec s;
          s.collective = c;
          s.dtype = plan.dtype;
          s.op = plan.op;
          s.in_place = in_place;
          // As the MPI sweep: at least one element per rank for gather/scatter-like collectives.
          s.bytes = collective_bytes(c, round_to_granule(size, request_granule(c, plan.dtype, nranks)), plan.dtype, nranks);
          s.config = config;
          out.push_back(s);
        }
  return out;
}

std::size_t point_index(const WorkerPlan& plan, std::size_t c, std::size_t s, std::size_t k, std::size_t p) {
  return ((c * plan.sizes.size() + s) * plan.configs.size() + k) * plan.placements.size() + p;
}

const SkipRule* planned_skip(const WorkerPlan& plan, const PointSpec& spec) {
  for (const SkipRule& r : plan.skips)
    if (r.collective == spec.collective && r.config == spec.config) return &r;
  return nullptr;
}

std::string describe(const PointSpec& s) {
  std::string d = to_string(s.collective) + " " + format_size(s.bytes.size_bytes) + (s.in_place ? " in-place" : " out-of-place");
  if (!s.config.is_default())
    d += " " + algo_proto_name(s.config.algo, s.config.proto) + "/" + (s.config.channels ? std::to_string(s.config.channels) + "ch" : "auto-ch");
  return d;
}

std::pair<std::uint64_t, std::uint64_t> largest_buffers(const std::vector<PointSpec>& points, DType dtype) {
  std::uint64_t send = 0, recv = 0;
  for (const auto& p : points) {
    send = std::max(send, p.bytes.send_count * dtype_size(dtype));
    recv = std::max(recv, p.bytes.recv_count * dtype_size(dtype));
  }
  return {send, recv};
}

}  // namespace cctune::runtime
