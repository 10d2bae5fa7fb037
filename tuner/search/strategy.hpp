#pragma once
// Search strategies as pure logic, in ask/tell form: the strategy says which (size,
// candidate, iterations) to measure next; the caller measures (a live NCCL sweep, or a
// synthetic function in tests) and records the result. Candidates and sizes are indices
// into the caller's own lists. No I/O, no clocks, no randomness.
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "tuner/search/survivors.hpp"

namespace cctune::tuner::search {

// How a sweep chooses what to measure: the one spelling for --strategy, space files, the
// worker's plan and results.json ("exhaustive", "halving").
enum class StrategyKind { Exhaustive, Halving };
std::string to_string(StrategyKind kind);
// nullopt for any other text; callers name their input in the error ("use exhaustive or halving").
std::optional<StrategyKind> parse_strategy(std::string_view text);
inline constexpr const char* strategy_names = "exhaustive or halving";

struct Request {
  std::size_t size_index = 0;
  std::size_t candidate = 0;
  int iterations = 0;  // timed iterations to spend on this measurement
};

// A measurement: median time and the half-width of its confidence interval. A time that
// is not finite or <= 0 means "could not run" (the candidate is dropped at that size).
struct Measurement {
  double time_us = 0;
  double halfwidth_us = 0;
};

class Strategy {
 public:
  virtual ~Strategy() = default;
  // The next batch to measure (each request once, any order); empty when finished.
  // Every request of a batch must be recorded before next() is called again.
  virtual std::vector<Request> next() = 0;
  virtual void record(const Request& request, const Measurement& m) = 0;
  virtual bool finished() const = 0;
  // The chosen candidate at a size and its last measurement; nullopt when nothing ran there.
  virtual std::optional<std::size_t> best(std::size_t size_index) const = 0;
};

// The reference: every candidate at every size, `iterations` each.
class Exhaustive : public Strategy {
 public:
  Exhaustive(std::size_t sizes, std::size_t candidates, int iterations);
  std::vector<Request> next() override;
  void record(const Request& request, const Measurement& m) override;
  bool finished() const override { return done_; }
  std::optional<std::size_t> best(std::size_t size_index) const override;

 private:
  std::size_t sizes_, candidates_;
  int iterations_;
  bool issued_ = false, done_ = false;
  std::vector<std::vector<std::optional<Measurement>>> results_;  // [size][candidate]
};

struct HalvingOptions {
  int full_iterations = 100;   // the last round: as long as the exhaustive reference
  int first_iterations = 4;    // the first round: every candidate, briefly
  int middle_iterations = 15;  // the middle round
  double keep_fraction = 0.25; // share of candidates kept after the first round
  std::size_t min_keep = 3;    // ...but at least this many
  std::size_t final_keep = 2;  // candidates measured at full length
  // Survivors of a cut also include candidates whose interval overlaps the last kept
  // one's (noise protection), up to this factor times the nominal number (survivors.hpp).
  double overlap_cap = default_overlap_cap;
  std::size_t seeds = 2;       // best candidates of the previous size skip the first cut
  // A candidate screened this many times slower than the best, and clearly further behind than
  // at the size before, is not screened at the sizes after it (0: never). Falling further behind as
  // sizes grow is a bandwidth loss (LL at hundreds of MiB, few channels), which only grows;
  // a latency loser catches up instead and stays in. Screening those losers was most of the
  // fast strategy's time on 2xH200.
  double prune_factor = 2.0;
  double prune_growth = 1.25;  // "further behind": by this factor since the size before (noise-proof)
  std::optional<std::size_t> always_keep;  // e.g. NCCL's "auto": measured at full length
};

// Successive halving per size, sizes in order: all candidates briefly, the best few longer,
// the best two at full length; the previous size's winners are seeded into the next size's
// middle round, since neighbouring sizes tend to share a winner.
class SuccessiveHalving : public Strategy {
 public:
  SuccessiveHalving(std::size_t sizes, std::size_t candidates, HalvingOptions options = {});
  std::vector<Request> next() override;
  void record(const Request& request, const Measurement& m) override;
  bool finished() const override { return size_ >= sizes_; }
  std::optional<std::size_t> best(std::size_t size_index) const override;

 private:
  std::vector<std::size_t> ranked(std::size_t limit) const;  // this round's survivors
  void advance();

  std::size_t sizes_, candidates_;
  HalvingOptions options_;
  std::size_t size_ = 0;
  int round_ = 0;
  bool pending_ = false;
  std::vector<Request> batch_;
  std::vector<std::optional<Measurement>> round_results_;  // [candidate], this round
  std::vector<std::size_t> final_order_;                   // previous size, best first
  std::vector<bool> pruned_;                               // [candidate]: no longer screened
  std::vector<double> behind_;                             // [candidate]: screened time / best, last size
  std::vector<std::optional<std::size_t>> best_;
};

// A strategy of `kind` over `sizes` x `candidates`. Exhaustive measures everything for
// `options.full_iterations`; the other options are successive halving's.
std::unique_ptr<Strategy> make_strategy(StrategyKind kind, std::size_t sizes, std::size_t candidates,
                                        const HalvingOptions& options = {});

struct SearchTotals {
  std::size_t measurements = 0;  // recorded requests
  long iterations = 0;           // sum of their iterations: the time a sweep spends
};

// Drives `strategy` to the end with `measure`.
SearchTotals run_search(Strategy& strategy, const std::function<Measurement(const Request&)>& measure);

}  // namespace cctune::tuner::search
