#include "workload/profiler/production_watch.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <map>
#include <optional>

#include "core/collective.hpp"
#include "core/outliers.hpp"
#include "core/statistics.hpp"
#include "tuner/profile/rule_table.hpp"

namespace cctune::tuner {
namespace {

constexpr double kMaxSizeRatio = 2.0;          // a measurement this far from the shape's size still compares
constexpr double kValuesPerHistogram = 1000.0;  // the histogram as about this many representative values
// A collective's GPU time on a rank that reached it early includes its wait for the others:
// skew, not the link. The watch judges a shape by its faster calls (the upper quartile of
// busbw), which a slow link or a worse configuration slows as much as the rest and a rank's
// waits do not, and only with this many timed calls, so that a short job's few waits cannot
// fill that quartile (a healthy 2-GPU DDP run of 3 calls a shape, all waiting on rank 0, read
// 78-89 % below the sweep).
constexpr std::size_t kWatchMinCalls = 8;
constexpr double kFastQuantile = 0.75;

using Measured = std::vector<std::pair<std::uint64_t, double>>;  // (size in nBytes, busbw GB/s)

bool within_ratio(std::uint64_t a, std::uint64_t b) {
  // The margin keeps exactly kMaxSizeRatio inside whatever the last bit of log() does.
  return a > 0 && b > 0 && std::fabs(std::log(static_cast<double>(a) / static_cast<double>(b))) <= std::log(kMaxSizeRatio) + 1e-9;
}

// The sweep's figure for a shape of `bytes`: the measurement at that size, or between two
// measured sizes the smaller size's (within kMaxSizeRatio), or the larger's where that is
// lower and near too. Busbw grows with size up to the link's limit, so a larger size alone
// would ask more of the shape than the sweep ever showed, and a healthy job between two grid
// sizes would read as slow. Outside the measured sizes the sweep says nothing: nullopt.
// Sorts its own copy: a profile's lists are not checked for order when read.
std::optional<std::pair<std::uint64_t, double>> reference_for(Measured measured, std::uint64_t bytes) {
  std::sort(measured.begin(), measured.end());
  auto hi = std::lower_bound(measured.begin(), measured.end(), bytes, [](const auto& m, std::uint64_t b) { return m.first < b; });
  if (hi == measured.end()) return std::nullopt;
  if (hi->first == bytes) return *hi;
  if (hi == measured.begin()) return std::nullopt;
  const auto lo = std::prev(hi);
  if (!within_ratio(lo->first, bytes)) return std::nullopt;
  return within_ratio(hi->first, bytes) && hi->second < lo->second ? *hi : *lo;
}

// NCCL's defaults as the sweep measured them on a communicator of this shape, per collective.
std::map<Collective, Measured> baseline_for(const Profile& profile, int nranks, int nnodes) {
  std::map<Collective, Measured> out;
  for (const MeasuredBaseline& b : profile.measured_baseline)
    if (b.nranks == nranks && b.nnodes == nnodes) out[b.collective].emplace_back(b.size_bytes, b.busbw_GBps);
  return out;
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
  const std::map<Collective, Measured> baseline = baseline_for(profile, comm.nranks, comm.nnodes);
  if (rules.empty() && baseline.empty()) return out;
  for (const workload::CallStats& s : comm.calls) {
    if (s.shape.kind != workload::CallKind::Collective || s.durations.samples < std::max(kMinGroup, kWatchMinCalls) ||
        s.durations.histogram.empty())
      continue;
    // A rule that covers the shape changed what NCCL runs there: only its own measurement
    // compares (none near: not judged). Elsewhere NCCL's defaults run, as the sweep measured them.
    std::optional<std::pair<std::uint64_t, double>> reference;
    auto kind = workload::WatchReference::Rule;
    if (const RuleChoice* rule = rules.find(s.shape.collective, s.shape.bytes)) {
      if (rule->rule_index < profile.rules.size())
        reference = reference_for(profile.rules[rule->rule_index].measured_busbw_GBps, s.shape.bytes);
    } else if (auto it = baseline.find(s.shape.collective); it != baseline.end()) {
      reference = reference_for(it->second, s.shape.bytes);
      kind = workload::WatchReference::Baseline;
    }
    // A one-rank communicator's busbw is 0 on both sides: there is no shortfall to read.
    if (!reference || reference->second <= 0) continue;
    const std::vector<double> values = live_busbw(s.durations, s.shape.bytes, bus_factor(s.shape.collective, comm.nranks));
    const Typical live = typical_of(values);
    const double fast = quantile(values, kFastQuantile);
    // The sweep's figure stands where diagnose puts the group's median; the job's own spread
    // is the noise a shortfall must exceed.
    const Typical group{reference->second, live.mad, live.count};
    if (!is_slow(fast, group, Better::Higher, OutlierRule{})) continue;
    out.push_back({comm.ranks[0], s.shape.collective, s.shape.bytes, fast, reference->second, reference->first,
                   shortfall(fast, reference->second, Better::Higher), kind});
  }
  return out;
}

std::string watch_warning(const std::string& comm_id, const workload::WatchFinding& f, const std::string& workload_path) {
  const char* measured_with = f.reference == workload::WatchReference::Baseline ? "NCCL's defaults" : "its rule";
  char line[768];
  std::snprintf(line, sizeof line,
                "cctune watch: communicator %s rank %d: %s of %llu bytes runs at %.2f GB/s busbw, %.0f%% below the %.2f GB/s "
                "the profile's sweep measured with %s at %llu bytes (%s)",
                comm_id.c_str(), f.rank, to_string(f.collective).c_str(), static_cast<unsigned long long>(f.bytes), f.live_busbw_GBps,
                100.0 * f.shortfall, f.profile_busbw_GBps, measured_with, static_cast<unsigned long long>(f.profile_bytes),
                workload_path.c_str());
  return line;
}

}  // namespace cctune::tuner
