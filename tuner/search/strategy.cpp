#include "tuner/search/strategy.hpp"

#include <algorithm>
#include <cmath>
#include <stdexcept>

namespace cctune::tuner::search {
namespace {

bool usable(const std::optional<Measurement>& m) { return m && std::isfinite(m->time_us) && m->time_us > 0; }

std::optional<std::size_t> argmin(const std::vector<std::optional<Measurement>>& row) {
  std::optional<std::size_t> best;
  for (std::size_t c = 0; c < row.size(); ++c)
    if (usable(row[c]) && (!best || row[c]->time_us < row[*best]->time_us)) best = c;
  return best;
}

void add_unique(std::vector<std::size_t>& v, std::size_t x) {
  if (std::find(v.begin(), v.end(), x) == v.end()) v.push_back(x);
}

}  // namespace

std::string to_string(StrategyKind kind) { return kind == StrategyKind::Halving ? "halving" : "exhaustive"; }

std::optional<StrategyKind> parse_strategy(std::string_view text) {
  if (text == "exhaustive") return StrategyKind::Exhaustive;
  if (text == "halving") return StrategyKind::Halving;
  return std::nullopt;
}

std::unique_ptr<Strategy> make_strategy(StrategyKind kind, std::size_t sizes, std::size_t candidates,
                                        const HalvingOptions& options) {
  if (kind == StrategyKind::Halving) return std::make_unique<SuccessiveHalving>(sizes, candidates, options);
  return std::make_unique<Exhaustive>(sizes, candidates, options.full_iterations);
}

Exhaustive::Exhaustive(std::size_t sizes, std::size_t candidates, int iterations)
    : sizes_(sizes), candidates_(candidates), iterations_(iterations),
      results_(sizes, std::vector<std::optional<Measurement>>(candidates)) {
  if (iterations <= 0) throw std::invalid_argument("Exhaustive: iterations must be positive");
  done_ = sizes == 0 || candidates == 0;
}

std::vector<Request> Exhaustive::next() {
  if (issued_) done_ = true;
  if (done_) return {};
  issued_ = true;
  std::vector<Request> batch;
  for (std::size_t s = 0; s < sizes_; ++s)
    for (std::size_t c = 0; c < candidates_; ++c) batch.push_back({s, c, iterations_});
  return batch;
}

void Exhaustive::record(const Request& r, const Measurement& m) { results_.at(r.size_index).at(r.candidate) = m; }

std::optional<std::size_t> Exhaustive::best(std::size_t size_index) const { return argmin(results_.at(size_index)); }

SuccessiveHalving::SuccessiveHalving(std::size_t sizes, std::size_t candidates, HalvingOptions options)
    : sizes_(sizes), candidates_(candidates), options_(options), round_results_(candidates), pruned_(candidates), behind_(candidates, 0.0), best_(sizes) {
  if (options.first_iterations <= 0 || options.middle_iterations <= 0 || options.full_iterations <= 0)
    throw std::invalid_argument("SuccessiveHalving: iterations must be positive");
  if (options.final_keep == 0) throw std::invalid_argument("SuccessiveHalving: final_keep must be at least 1");
  if (candidates == 0) size_ = sizes_;
  // Few candidates: measure them all at full length, there is nothing to save.
  if (candidates_ <= std::max(options_.min_keep, options_.final_keep)) round_ = 2;
  for (std::size_t c = 0; c < candidates_; ++c) batch_.push_back({0, c, 0});
}

std::vector<std::size_t> SuccessiveHalving::ranked(std::size_t limit) const {
  std::vector<std::size_t> order;
  for (std::size_t c = 0; c < candidates_; ++c)
    if (usable(round_results_[c])) order.push_back(c);
  std::stable_sort(order.begin(), order.end(),
                   [&](std::size_t a, std::size_t b) { return round_results_[a]->time_us < round_results_[b]->time_us; });
  std::vector<CostInterval> intervals;
  for (std::size_t c : order)
    intervals.push_back(
        {round_results_[c]->time_us - round_results_[c]->halfwidth_us, round_results_[c]->time_us + round_results_[c]->halfwidth_us});
  std::vector<std::size_t> kept;
  for (std::size_t i : survivors(intervals, limit, options_.overlap_cap)) kept.push_back(order[i]);
  return kept;
}

void SuccessiveHalving::advance() {
  std::vector<std::size_t> next_candidates;
  if (round_ == 2) {
    best_[size_] = argmin(round_results_);
    final_order_ = ranked(candidates_);
    ++size_;
    round_ = candidates_ <= std::max(options_.min_keep, options_.final_keep) ? 2 : 0;
    for (std::size_t c = 0; c < candidates_; ++c)
      if (!pruned_[c] || (options_.always_keep && c == *options_.always_keep)) next_candidates.push_back(c);
  } else if (round_ == 0) {
    if (const auto best = argmin(round_results_); best && options_.prune_factor > 0)
      for (std::size_t c = 0; c < candidates_; ++c) {
        if (!usable(round_results_[c])) continue;
        const double behind = round_results_[c]->time_us / round_results_[*best]->time_us;
        if (behind > options_.prune_factor && behind_[c] > 0 && behind >= behind_[c] * options_.prune_growth) pruned_[c] = true;
        behind_[c] = behind;
      }
    const auto k = std::max(options_.min_keep,
                            static_cast<std::size_t>(std::ceil(static_cast<double>(candidates_) * options_.keep_fraction)));
    next_candidates = ranked(k);
    for (std::size_t i = 0; i < std::min(options_.seeds, final_order_.size()); ++i) add_unique(next_candidates, final_order_[i]);
    round_ = 1;
  } else {
    next_candidates = ranked(options_.final_keep);
    round_ = 2;
  }
  if (options_.always_keep && *options_.always_keep < candidates_ && round_ != 0) add_unique(next_candidates, *options_.always_keep);
  batch_.clear();
  for (std::size_t c : next_candidates) batch_.push_back({size_, c, 0});
  round_results_.assign(candidates_, std::nullopt);
}

std::vector<Request> SuccessiveHalving::next() {
  if (pending_) {
    advance();
    pending_ = false;
  }
  if (finished()) return {};
  const int iterations = round_ == 0 ? options_.first_iterations
                         : round_ == 1 ? options_.middle_iterations
                                       : options_.full_iterations;
  for (Request& r : batch_) {
    r.size_index = size_;
    r.iterations = iterations;
  }
  if (batch_.empty()) {  // nothing could run at this size in the last round
    round_ = 2;
    pending_ = true;
    return next();
  }
  pending_ = true;
  return batch_;
}

void SuccessiveHalving::record(const Request& r, const Measurement& m) {
  if (r.size_index != size_ || r.candidate >= candidates_)
    throw std::invalid_argument("SuccessiveHalving::record: not a request of the current batch");
  round_results_[r.candidate] = m;
}

std::optional<std::size_t> SuccessiveHalving::best(std::size_t size_index) const { return best_.at(size_index); }

SearchTotals run_search(Strategy& strategy, const std::function<Measurement(const Request&)>& measure) {
  SearchTotals totals;
  for (auto batch = strategy.next(); !batch.empty(); batch = strategy.next())
    for (const Request& r : batch) {
      strategy.record(r, measure(r));
      ++totals.measurements;
      totals.iterations += r.iterations;
    }
  return totals;
}

}  // namespace cctune::tuner::search
