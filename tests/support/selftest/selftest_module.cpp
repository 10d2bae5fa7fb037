// libcctune-selftest.so: a test-only stand-in for libcctune-nccl.so that needs no GPU. Tests
// select it with CCTUNE_NCCL_MODULE, the variable that names the NCCL module in production,
// so the whole worker path runs as on a GPU node: spawn, pipes, uid relay, heartbeats,
// timeouts, kills, agreement across mpirun ranks, and the sweep control (TunedBackend) that
// steers every operation through the tuner plugin (nccl_like_tuner.hpp).
// Its "collective" sleeps a few microseconds per operation and reports those times; its
// RankComm is local to the worker (every rank is assumed to hold the same values), so
// workers never talk to each other. What it simulates comes from its own environment
// variables (selftest_knobs.hpp, docs/TESTING.md).
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <random>
#include <sstream>
#include <thread>

#include "collectives/arrival_skew.hpp"
#include "collectives/nccl/nccl_module.hpp"
#include "collectives/step_buffers.hpp"
#include "core/error.hpp"
#include "core/units.hpp"
#include "selftest/nccl_like_tuner.hpp"
#include "selftest/selftest_knobs.hpp"

namespace cctune::selftest {
namespace {

// CCTUNE_SELFTEST_CONFIG_FACTORS="ring/simple=0.6,tree/ll/16=1.4": a time factor per config
// that ran (algo/proto, or algo/proto/channels), so tests of the search strategies have a
// known best configuration. Only what the plugin really made NCCL run counts.
double config_factor(const std::string& text, const std::optional<Ran>& ran) {
  if (text.empty() || !ran) return 1.0;
  const std::string base = algo_proto_name(ran->algorithm, ran->protocol);
  const std::string full = base + "/" + std::to_string(ran->channels);
  double factor = 1.0;
  std::stringstream in(text);
  for (std::string item; std::getline(in, item, ',');) {
    const auto eq = item.find('=');
    if (eq == std::string::npos) continue;
    const std::string key = item.substr(0, eq);
    if (key == full) return std::atof(item.c_str() + eq + 1);
    if (key == base) factor = std::atof(item.c_str() + eq + 1);
  }
  return factor;
}

// CCTUNE_TEST_SLOW_RANK in a job of `nranks`: how much longer than the slowed rank's each
// rank's operation lasts (its wait for the late launch); 0 for all when it is off.
double wait_for_slow_rank_us(const SlowRank& slow, int rank, int nranks) {
  if (slow.rank < 0 || slow.rank >= nranks || slow.applies_to(rank)) return 0;
  return slow.delay_us;
}

class SelftestBackend : public CollectiveBackend {
 public:
  SelftestBackend(const Knobs& knobs, int rank, int nranks, bool graph, bool overlap)
      : knobs_(knobs), rank_(rank), tuner_(nranks, 1), graph_(graph), overlap_(overlap),
        late_launch_(knobs.slow_rank.applies_to(rank) && rank < nranks ? knobs.slow_rank.delay_us : 0),
        wait_us_(wait_for_slow_rank_us(knobs.slow_rank, rank, nranks)) {}
  std::string name() const override { return "selftest"; }
  std::string unsupported_reason(const PointSpec&) const override { return {}; }
  void prepare(const PointSpec& spec) override {
    spec_ = spec;
    captured_ = false;
    if (!spec.sequence.empty() && !knobs_.record_step.empty()) record_step(spec.sequence);
  }
  BatchTiming run_batch(const BatchRequest& batch) override {
    // CCTUNE_TEST_SLOW_RANK, as a collective would have it: the slowed rank sleeps before
    // each launch (outside its operation's clock), the others' operations last that much
    // longer (they wait inside it), so every rank's wall batch is slowed alike.
    const auto late = std::chrono::nanoseconds(static_cast<long>(late_launch_ * 1000));
    const bool per_op = batch.kind == BatchKind::PerOp;
    BatchTiming t;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch.n; ++i) {
      if (late.count() > 0) std::this_thread::sleep_for(late);
      const auto s = per_op ? std::chrono::steady_clock::now() : t0;  // wall batches read no clock inside
      std::this_thread::sleep_for(operation_time());
      if (per_op) t.iter_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
    }
    t.wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    t.ran = batch.n;
    t.overlap = overlap_;  // CCTUNE_SELFTEST_OVERLAP_COST: the compute's simulated slowdown
    if (overlap_ && per_op) t.compute_slowdown = 1 + knobs_.overlap_cost;
    return t;
  }
  long count_wrong() override { return 0; }

 private:
  // One operation's duration: 2 us plus the size at 20 GB/s (small enough to keep CI fast,
  // size-dependent so results look like a sweep), times CCTUNE_SELFTEST_SLOWDOWN (verify's
  // regression tests) and the factor of the config that ran, plus the wait for a slowed rank.
  // Like NCCL it asks the tuner at every launch; in graph mode only while capturing.
  // A replayed step (PointSpec::sequence) is one operation: the sum of its calls' times.
  std::chrono::nanoseconds operation_time() {
    if (spec_.sequence.empty()) return std::chrono::nanoseconds(static_cast<long>(call_ns(spec_.collective, spec_.bytes.size_bytes)));
    double ns = 0;
    for (const StepCall& c : spec_.sequence) ns += c.repeats * call_ns(c.collective, c.bytes.size_bytes);
    captured_ = true;
    return std::chrono::nanoseconds(static_cast<long>(ns));
  }
  double call_ns(Collective c, std::uint64_t size_bytes) {
    if (!graph_ || !captured_) ran_ = tuner_.operation(c, size_bytes);
    if (spec_.sequence.empty()) captured_ = true;
    const double factor = knobs_.slowdown * config_factor(knobs_.config_factors, ran_);
    return factor * (2000.0 + static_cast<double>(size_bytes) / 20) + wait_us_ * 1000;
  }
  // CCTUNE_SELFTEST_RECORD_STEP: what the step issues, in order, for the tests to compare
  // with the capture (one file per rank: workers of one host share the prefix). A group is
  // cut into issue units as the NCCL backend cuts it: "group xR begin", its members
  // indented, "group end".
  void record_step(const std::vector<StepCall>& calls) const {
    std::ofstream out(knobs_.record_step + ".rank" + std::to_string(rank_), std::ios::app);
    const auto call = [](const StepCall& c) {
      return to_string(c.collective) + ' ' + to_string(c.dtype) + ' ' + to_string(c.op) + ' ' + std::to_string(c.bytes.param_count);
    };
    for (std::size_t first = 0; first < calls.size();) {
      const std::size_t end = issue_unit_end(calls, first);
      if (calls[first].group < 0) {
        out << call(calls[first]) << " x" << calls[first].repeats << '\n';
      } else {
        out << "group x" << calls[first].repeats << " begin\n";
        for (std::size_t k = first; k < end; ++k) out << "  " << call(calls[k]) << '\n';
        out << "group end\n";
      }
      first = end;
    }
    if (!out) throw RuntimeFailure("selftest: cannot write " + knobs_.record_step);
  }

  Knobs knobs_;
  int rank_ = 0;
  NcclLikeTuner tuner_;
  bool graph_ = false;
  bool overlap_ = false;
  bool captured_ = false;
  std::optional<Ran> ran_;
  double late_launch_ = 0;  // us this rank sleeps before each launch (it is the slowed rank)
  double wait_us_ = 0;      // us each of its operations waits for the slowed rank
  PointSpec spec_;
};

// Every rank is taken to hold the same values: sums scale by size, max is the identity.
// The one exception is the engine's gather of per-rank rows (collectives/arrival_skew.hpp),
// which it models: every rank is like this one, except under CCTUNE_TEST_SLOW_RANK, where
// the others wait the delay per operation for the slowed rank, which arrives last at every
// operation. (Identical ranks could not show a straggler; workers never talk to each other.)
class LocalComm : public RankComm {
 public:
  LocalComm(int rank, int size, SlowRank slow) : rank_(rank), size_(size), slow_(slow) {}
  std::vector<double> allgather_values(std::span<const double> mine) override {
    std::vector<double> all;
    if (mine.size() != RankRow::width) {
      for (int r = 0; r < size_; ++r) all.insert(all.end(), mine.begin(), mine.end());
      return all;
    }
    const RankRow me = unpack_row(mine);
    const bool slowed = slow_.rank >= 0 && slow_.rank < size_;
    const double base_us = me.iter_median_us - wait_for_slow_rank_us(slow_, rank_, size_);
    all.resize(RankRow::width * static_cast<std::size_t>(size_));
    for (int r = 0; r < size_; ++r) {
      RankRow row = me;
      row.wait_median_us = wait_for_slow_rank_us(slow_, r, size_);
      row.iter_median_us = base_us + row.wait_median_us;
      row.last_pct = slowed ? (slow_.applies_to(r) ? 100.0 : 0.0) : me.last_pct;
      pack_row(row, std::span<double>(all).subspan(RankRow::width * static_cast<std::size_t>(r), RankRow::width));
    }
    return all;
  }
  int rank() const override { return rank_; }
  int size() const override { return size_; }
  void barrier() override {}
  void allreduce_sum(std::span<double> v) override {
    for (auto& x : v) x *= size_;
  }
  void allreduce_max(std::span<double>) override {}
  void broadcast(std::string&, int) override {}
  std::vector<std::string> allgather(const std::string& mine) override { return std::vector<std::string>(size_, mine); }
  void send(const std::string&, int, int) override { throw RuntimeFailure("selftest RankComm has no point-to-point"); }
  std::string recv(int, int) override { throw RuntimeFailure("selftest RankComm has no point-to-point"); }

 private:
  int rank_, size_;
  SlowRank slow_;
};

class SelftestModule : public NcclModule {
 public:
  SelftestModule() : knobs_(read_knobs()) {}
  int device_count() override { return knobs_.gpus; }
  std::string nccl_version() override { return knobs_.nccl_version; }
  std::string cuda_versions() override { return "none (selftest)"; }
  std::string pci_bus_id(int) override { return ""; }
  std::string new_unique_id_hex() override {
    std::random_device rd;
    static const char* hex = "0123456789abcdef";
    std::string s(256, '0');
    for (auto& c : s) c = hex[rd() % 16];
    return s;
  }
  std::unique_ptr<CollectiveBackend> create_backend(const NcclWorkerSetup& setup) override {
    if (setup.unique_id_hex.size() != 256)
      throw RuntimeFailure("selftest: unique id of " + std::to_string(setup.unique_id_hex.size()) + " hex digits, expected 256");
    // As NCCL's init fails on a bad setting (an interface that does not exist): only the workers
    // whose environment holds it, so a config group carrying it fails and the others run.
    if (const auto eq = knobs_.refused_setting.find('='); eq != std::string::npos) {
      const char* now = std::getenv(knobs_.refused_setting.substr(0, eq).c_str());
      if (now && knobs_.refused_setting.substr(eq + 1) == now)
        throw RuntimeFailure("selftest init: ncclInvalidUsage: " + knobs_.refused_setting + " refused");
    }
    if (setup.device >= device_count())
      throw EnvironmentError("selftest: device " + std::to_string(setup.device) + " does not exist");
    const std::uint64_t memory = knobs_.memory_bytes;
    const std::uint64_t need = setup.max_send_bytes + setup.max_recv_bytes;
    if (need > memory)
      throw EnvironmentError("buffers for the largest point (" + format_size(need) + ") do not fit in GPU " +
                                 std::to_string(setup.device) + "'s free memory (" + format_size(memory) + ")",
                             "lower --max-bytes");
    comm_ = std::make_unique<LocalComm>(setup.rank, setup.nranks, knobs_.slow_rank);
    return std::make_unique<SelftestBackend>(knobs_, setup.rank, setup.nranks, setup.graph, setup.overlap);
  }
  RankComm& comm() override {
    if (!comm_) throw RuntimeFailure("selftest: comm() before create_backend()");
    return *comm_;
  }

 private:
  Knobs knobs_;
  std::unique_ptr<LocalComm> comm_;
};

}  // namespace
}  // namespace cctune::selftest

// The factory the worker's module loader looks up, as in libcctune-nccl.so. A malformed
// CCTUNE_TEST_SLOW_RANK throws UsageError here, which the worker reports as a load failure.
extern "C" __attribute__((visibility("default"))) cctune::NcclModule* cctune_nccl_module_create() {
  return new cctune::selftest::SelftestModule();
}
