#pragma once
// When to stop measuring a point: once the median's relative noise is under a target,
// after a minimum number of iterations, or when a time cap is reached. A plain CPU object
// so it is tested without any device; every rank feeds it the same aggregated samples,
// so every rank reaches the same decision.
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace cctune {

// Why a point's measurement ended (results' "stop_reason"). Interrupted: a signal cut it
// short, so it is not a measurement (the engine's callers drop it).
enum class StopReason { Noise, Time, Iterations, Interrupted };
std::string to_string(StopReason r);  // "noise" | "time" | "iterations" | "interrupted"
// Throws UsageError naming the bad value and the valid ones.
StopReason parse_stop_reason(std::string_view s);

struct StopRule {
  long min_iterations = 20;
  long max_iterations = 100000;
  double target_rel_noise = 0.01;  // 1% half-width on the median
  double max_time_s = 2.0;         // per point, measured time included
};

class NoiseCriterion {
 public:
  explicit NoiseCriterion(StopRule rule) : rule_(rule) {}
  void add(double sample_us) { samples_.push_back(sample_us); }
  void add(const std::vector<double>& samples_us) { samples_.insert(samples_.end(), samples_us.begin(), samples_us.end()); }
  // elapsed_s: wall time spent on this point so far (agreed across ranks by the caller).
  bool is_finished(double elapsed_s) const;
  double relative_noise() const;
  const std::vector<double>& samples() const { return samples_; }
  const StopRule& rule() const { return rule_; }
  // Why measuring stopped (Noise, Time or Iterations); nullopt while running.
  std::optional<StopReason> reason(double elapsed_s) const;

 private:
  StopRule rule_;
  std::vector<double> samples_;
};

}  // namespace cctune
