#pragma once
// A CollectiveBackend that behaves towards the tuner plugin as NCCL does: each operation
// builds a cost table, lets SweepControl see and change it, and "runs" the cheapest entry
// >= 0 with the channel count the plugin returned. It records what ran, so tests can tell
// whether the forced choice really reached the operation.
#include <vector>

#include "collectives/backend.hpp"
#include "tuner/plugin/cost_table.hpp"
#include "tuner/plugin/nccl_tuner_abi.hpp"
#include "tuner/plugin/sweep_control.hpp"

namespace cctune::testing {

struct Ran {
  int algorithm = -1, protocol = -1, channels = 0;
};

class FakeNcclBackend : public CollectiveBackend {
 public:
  explicit FakeNcclBackend(tuner::SweepControl& control) : control_(control) {}

  bool consult_plugin = true;  // false: as if NCCL had no tuner plugin loaded
  bool graph = false;          // true: the plugin is consulted only when a point is "captured"
  std::vector<Ran> ran;

  std::string name() const override { return "fake-nccl"; }
  std::string unsupported_reason(const PointSpec& spec) const override {
    return spec.collective == Collective::AllToAll ? "fake: no alltoall" : "";
  }
  void prepare(const PointSpec& spec) override {
    spec_ = spec;
    captured_ = false;
  }
  BatchTiming run_batch(const BatchRequest& batch) override {
    BatchTiming t;
    for (int i = 0; i < batch.n; ++i) {
      if (!graph || !captured_) last_ = operation();
      ran.push_back(last_);
      if (batch.kind == BatchKind::PerOp) t.iter_us.push_back(10.0);
    }
    captured_ = true;
    t.wall_us = 10.0 * batch.n;
    t.ran = batch.n;
    return t;
  }
  long count_wrong() override { return 0; }

  // NCCL-like costs: small sizes favour LL, large Simple; Tree cannot do allgather or
  // reducescatter; PAT only allgather/reducescatter; NVLS and CollNet never (-1).
  static void fill_costs(Collective c, std::uint64_t bytes, float* table) {
    for (int i = 0; i < 7 * 3; ++i) table[i] = nccl_abi::kIgnoreCost;
    const bool small = bytes < 65536;
    auto set = [&](tuner::Algorithm a, tuner::Protocol p, float v) { table[static_cast<int>(a) * 3 + static_cast<int>(p)] = v; };
    using tuner::Algorithm;
    using tuner::Protocol;
    set(Algorithm::Ring, Protocol::LL, small ? 5 : 50);
    set(Algorithm::Ring, Protocol::LL128, small ? 7 : 30);
    set(Algorithm::Ring, Protocol::Simple, small ? 12 : 20);
    if (c == Collective::AllReduce) {
      set(Algorithm::Tree, Protocol::LL, small ? 6 : 60);
      set(Algorithm::Tree, Protocol::Simple, small ? 14 : 25);
    } else {
      set(Algorithm::Pat, Protocol::Simple, small ? 9 : 40);
    }
  }

 private:
  Ran operation() {
    float table[7 * 3];
    fill_costs(spec_.collective, spec_.bytes.size_bytes, table);
    int channels = 0;
    if (consult_plugin)
      control_.on_get_coll_info(func(spec_.collective), spec_.bytes.size_bytes, table, 7, 3, &channels);
    const auto pick = tuner::CostTable(table, 7, 3).cheapest();
    return Ran{pick->algorithm, pick->protocol, channels};
  }
  static int func(Collective c) {
    switch (c) {
      case Collective::AllGather: return nccl_abi::kFuncAllGather;
      case Collective::ReduceScatter: return nccl_abi::kFuncReduceScatter;
      case Collective::Broadcast: return nccl_abi::kFuncBroadcast;
      case Collective::Reduce: return nccl_abi::kFuncReduce;
      default: return nccl_abi::kFuncAllReduce;
    }
  }

  tuner::SweepControl& control_;
  PointSpec spec_;
  bool captured_ = false;
  Ran last_;
};

}  // namespace cctune::testing
