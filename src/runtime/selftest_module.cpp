#include "runtime/selftest_module.hpp"

#include <chrono>
#include <random>
#include <sstream>
#include <thread>

#include "core/error.hpp"
#include "core/units.hpp"

namespace cctune::runtime {
namespace {

// CCTUNE_SELFTEST_CONFIG_FACTORS="ring/simple=0.6,tree/ll/16=1.4": a time factor per forced
// config (algo/proto, or algo/proto/channels), so tests of the search strategies have a
// known best configuration.
double config_factor(const std::string& text, const PointConfig& c) {
  if (text.empty()) return 1.0;
  const std::string base = algo_proto_name(c.algo, c.proto);
  const std::string full = base + "/" + std::to_string(c.channels);
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

class SelftestBackend : public CollectiveBackend {
 public:
  explicit SelftestBackend(const SelftestHooks& hooks) : hooks_(hooks) {}
  std::string name() const override { return "selftest"; }
  std::string unsupported_reason(const PointSpec&) const override { return {}; }
  void prepare(const PointSpec& spec) override { spec_ = spec; }
  BatchTiming run_batch(const BatchRequest& batch) override {
    // 2 us plus the size at 20 GB/s: small enough to keep CI fast, size-dependent so
    // results look like a sweep.
    // CCTUNE_SELFTEST_SLOWDOWN (a factor, per config group): lets verify's test see a regression.
    const double factor = hooks_.slowdown * config_factor(hooks_.config_factors, spec_.config);
    const auto op = std::chrono::nanoseconds(static_cast<long>(factor * (2000.0 + static_cast<double>(spec_.bytes.size_bytes) / 20)));
    const bool per_op = batch.kind == BatchKind::PerOp;
    BatchTiming t;
    const auto t0 = std::chrono::steady_clock::now();
    for (int i = 0; i < batch.n; ++i) {
      const auto s = per_op ? std::chrono::steady_clock::now() : t0;  // wall batches read no clock inside
      std::this_thread::sleep_for(op);
      if (per_op) t.iter_us.push_back(std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - s).count());
    }
    t.wall_us = std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - t0).count();
    t.ran = batch.n;
    return t;
  }
  long count_wrong() override { return 0; }

 private:
  SelftestHooks hooks_;
  PointSpec spec_;
};

// Every rank is taken to hold the same values: sums scale by size, max is the identity.
class LocalComm : public RankComm {
 public:
  LocalComm(int rank, int size) : rank_(rank), size_(size) {}
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
};

class SelftestModule : public NcclModule {
 public:
  explicit SelftestModule(const SelftestHooks& hooks) : hooks_(hooks) {}
  int device_count() override { return hooks_.gpus; }
  std::string nccl_version() override { return "selftest"; }
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
    if (!hooks_.init_error.empty()) throw RuntimeFailure("selftest init: " + hooks_.init_error);
    if (setup.device >= device_count())
      throw EnvironmentError("selftest: device " + std::to_string(setup.device) + " does not exist");
    const std::uint64_t memory = hooks_.memory_bytes;
    const std::uint64_t need = setup.max_send_bytes + setup.max_recv_bytes;
    if (need > memory)
      throw EnvironmentError("buffers for the largest point (" + format_size(need) + ") do not fit in GPU " +
                                 std::to_string(setup.device) + "'s free memory (" + format_size(memory) + ")",
                             "lower --max-bytes");
    comm_ = std::make_unique<LocalComm>(setup.rank, setup.nranks);
    return std::make_unique<SelftestBackend>(hooks_);
  }
  RankComm& comm() override {
    if (!comm_) throw RuntimeFailure("selftest: comm() before create_backend()");
    return *comm_;
  }

 private:
  SelftestHooks hooks_;
  std::unique_ptr<LocalComm> comm_;
};

}  // namespace

std::unique_ptr<NcclModule> make_selftest_module(const SelftestHooks& hooks) { return std::make_unique<SelftestModule>(hooks); }

}  // namespace cctune::runtime
