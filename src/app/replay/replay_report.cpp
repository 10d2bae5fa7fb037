#include "app/replay/replay_report.hpp"

#include <algorithm>
#include <cstdio>
#include <map>

namespace cctune::app {
namespace {

double median_of(std::vector<double> v) {
  v.erase(std::remove_if(v.begin(), v.end(), [](double x) { return !(x > 0); }), v.end());
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  const std::size_t n = v.size();
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

nlohmann::json ms_list(const std::vector<double>& us) {
  nlohmann::json out = nlohmann::json::array();
  for (double x : us) out.push_back(x > 0 ? nlohmann::json(x / 1000) : nlohmann::json(nullptr));
  return out;
}

}  // namespace

ReplayTimes collect_replay_times(const Results& results, int rounds, bool with_profile) {
  ReplayTimes t;
  t.default_us.assign(static_cast<std::size_t>(rounds), 0.0);
  if (with_profile) t.profile_us.assign(static_cast<std::size_t>(rounds), 0.0);
  std::map<std::string, int> round_of;  // label -> runs seen so far: the round index
  for (const auto& run : results.runs) {
    const bool is_default = run.group == "default";
    if (!is_default && !(with_profile && run.group == "profile")) continue;
    const int round = round_of[run.group]++;
    if (round >= rounds) continue;
    t.nranks = run.nranks, t.nnodes = run.nnodes;
    std::vector<double>& v = is_default ? t.default_us : t.profile_us;
    if (run.status != RunStatus::Ok) t.failures.push_back(run.group + " round " + std::to_string(round + 1) + ": " + run.reason);
    for (const auto& p : run.points) {
      if (p.status == PointStatus::Ok && p.iter_us.median > 0)
        v[static_cast<std::size_t>(round)] = p.iter_us.median;
      else if (p.status != PointStatus::Ok)
        t.failures.push_back(run.group + " round " + std::to_string(round + 1) + ": " + p.reason);
    }
  }
  return t;
}

ReplayVerdict judge_replay(const ReplayTimes& t, const AbOptions& options) {
  ReplayVerdict v;
  v.default_ms = median_of(t.default_us) / 1000;
  v.profile_ms = median_of(t.profile_us) / 1000;
  std::vector<double> ok;
  for (double x : t.default_us)
    if (x > 0) ok.push_back(x / 1000);
  if (!ok.empty()) v.default_interval = median_interval(ok, options.confidence);
  if (!t.profile_us.empty()) {
    AbSamples s;
    s.a_us = t.default_us;
    s.b_us = t.profile_us;
    v.ab = analyze_pair(s, options);
    v.compared = v.ab.rounds > 0;
  }
  return v;
}

std::string step_time_line(const ReplayVerdict& v, bool with_profile) {
  char line[256];
  if (!with_profile) {
    std::snprintf(line, sizeof line, "step time: NCCL defaults %.3f ms (%.0f%% CI [%.3f, %.3f] ms over rounds)", v.default_ms,
                  100 * v.default_interval.confidence, v.default_interval.low, v.default_interval.high);
  } else if (!v.compared) {
    std::snprintf(line, sizeof line, "step time: NCCL defaults %.3f ms -> profile %.3f ms (no round measured both)", v.default_ms,
                  v.profile_ms);
  } else {
    return "step time: " + verdict_line(v.ab, AbUnit::Ms);
  }
  return line;
}

AbDocument replay_document(const workload::ReplayStep& step, const ReplayTimes& t, const ReplayVerdict& v, double tolerance,
                           bool with_profile) {
  nlohmann::json calls = nlohmann::json::array();
  for (const auto& c : step.calls) {
    nlohmann::json j = {{"communicator", c.communicator}, {"collective", to_string(c.shape.collective)},
                        {"dtype", to_string(c.shape.dtype)}, {"count", c.shape.count}, {"bytes", c.shape.bytes}, {"repeats", c.repeats}};
    if (c.shape.op) j["op"] = to_string(*c.shape.op);
    if (c.shape.root) j["root"] = *c.shape.root;
    if (c.group >= 0) j["group"] = c.group;
    calls.push_back(std::move(j));
  }
  AbDocument doc{.schema = "cctune.replay/1",
                 .subject = with_profile ? "the captured step replayed: NCCL's defaults against the profile"
                                         : "the captured step replayed under NCCL's defaults",
                 .method = ab_method("per round, the median time of the replayed step"),
                 .rounds = static_cast<int>(t.default_us.size()),
                 .tolerance = tolerance,
                 .rows_key = {},
                 .step_key = "step"};
  doc.extra = {{"nranks", t.nranks},
               {"nnodes", t.nnodes},
               {"capture_order", step.capture_order},
               {"calls", calls},
               {"notes", step.notes},
               {"default_step_ms", ms_list(t.default_us)},
               {"default_median_ms", v.default_ms},
               {"failures", t.failures}};
  if (!with_profile) {
    doc.extra["default_ci_ms"] = {v.default_interval.low, v.default_interval.high};
    doc.extra["ci_confidence"] = v.default_interval.confidence;
    return doc;
  }
  doc.extra["profile_step_ms"] = ms_list(t.profile_us);
  doc.extra["profile_median_ms"] = v.profile_ms;
  doc.extra["regressed"] = v.compared && v.ab.verdict == Verdict::Slower;
  doc.step = AbEntry{v.compared ? std::optional(v.ab) : std::nullopt, AbUnit::Ms};
  return doc;
}

}  // namespace cctune::app
