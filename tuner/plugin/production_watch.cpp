#include "tuner/plugin/production_watch.hpp"

#include <cmath>
#include <limits>

#include "core/collective.hpp"
#include "core/outliers.hpp"
#include "tuner/profile/rule_table.hpp"

namespace cctune::tuner {
namespace {

constexpr double kMaxSizeRatio = 2.0;          // a measurement this far from the shape's size still compares
constexpr double kValuesPerHistogram = 1000.0;  // the histogram as about this many representative values

// The measurement nearest to `bytes` on a log scale; nullptr when none is within kMaxSizeRatio.
const std::pair<std::uint64_t, double>* nearest(const std::vector<std::pair<std::uint64_t, double>>& measured, std::uint64_t bytes) {
  const std::pair<std::uint64_t, double>* best = nullptr;
  double best_distance = std::numeric_limits<double>::infinity();
  for (const auto& m : measured) {
    if (m.first == 0 || bytes == 0) continue;
    const double d = std::fabs(std::log(static_cast<double>(m.first) / static_cast<double>(bytes)));
    if (d < best_distance) best = &m, best_distance = d;
  }
  return best && best_distance <= std::log(kMaxSizeRatio) ? best : nullptr;
}

// Busbw per histogram bucket (at the bucket's geometric middle), each bucket weighted by its
// share of the calls.
std::vector<double> live_busbw(const workload::Durations& d, std::uint64_t bytes, double factor) {
  std::uint64_t total = 0;
  for (const auto& [b, n] : d.histogram) total += n;
  std::vector<double> values;
  for (const auto& [b, n] : d.histogram) {
    const double upper = workload::duration_bucket_upper_us(b);
    const double mid_us = b == 0 ? 0.5 : upper * std::exp2(-0.125);
    const double busbw = static_cast<double>(bytes) / (mid_us * 1e3) * factor;
    const auto copies = static_cast<std::size_t>(std::max(1.0, std::round(kValuesPerHistogram * n / static_cast<double>(total))));
    values.insert(values.end(), copies, busbw);
  }
  return values;
}

}  // namespace

std::vector<workload::WatchFinding> watch_communicator(const workload::Communicator& comm, const Profile& profile) {
  std::vector<workload::WatchFinding> out;
  if (comm.ranks.empty()) return out;
  const RuleTable rules = RuleTable::for_communicator(profile, comm.nranks, comm.nnodes);
  if (rules.empty()) return out;
  for (const workload::CallStats& s : comm.calls) {
    if (s.shape.kind != workload::CallKind::Collective || s.durations.samples < kMinGroup || s.durations.histogram.empty()) continue;
    const RuleChoice* rule = rules.find(s.shape.collective, s.shape.bytes);
    if (!rule || rule->rule_index >= profile.rules.size()) continue;
    const auto* reference = nearest(profile.rules[rule->rule_index].measured_busbw_GBps, s.shape.bytes);
    if (!reference) continue;
    const std::vector<double> values = live_busbw(s.durations, s.shape.bytes, bus_factor(s.shape.collective, comm.nranks));
    const Typical live = typical_of(values);
    // The sweep's figure stands where diagnose puts the group's median; the job's own spread
    // is the noise a shortfall must exceed.
    const Typical group{reference->second, live.mad, live.count};
    if (!is_slow(live.median, group, Better::Higher, OutlierRule{})) continue;
    out.push_back({comm.ranks[0], s.shape.collective, s.shape.bytes, live.median, reference->second, reference->first,
                   shortfall(live.median, reference->second, Better::Higher)});
  }
  return out;
}

}  // namespace cctune::tuner
