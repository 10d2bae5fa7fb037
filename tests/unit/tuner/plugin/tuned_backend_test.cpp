// TunedBackend over the real SweepControl, driven by the real measurement engine.
#include <gtest/gtest.h>

#include <memory>

#include "collectives/engine.hpp"
#include "tuner/plugin/tuned_backend.hpp"
#include "core/error.hpp"
#include "fake_nccl_backend.hpp"
#include "support/thread_comm.hpp"

namespace cctune {
namespace {

using testing::FakeNcclBackend;
using tuner::Algorithm;
using tuner::Protocol;

PointSpec spec_for(Collective c, std::uint64_t bytes, PointConfig config = {}, int nranks = 2) {
  PointSpec s;
  s.collective = c;
  s.bytes = collective_bytes(c, bytes, DType::Float32, nranks);
  s.config = std::move(config);
  return s;
}

PointConfig forced(std::string algo, std::string proto, int channels = 0) {
  PointConfig c;
  c.algo = parse_algorithm_choice(algo);
  c.proto = parse_protocol_choice(proto);
  c.channels = channels;
  return c;
}

MeasureSettings quick() {
  MeasureSettings m;
  m.warmup_iters = 1;
  m.batch_iters = 4;
  m.stop.min_iterations = 8;
  m.stop.max_time_s = 0.5;
  m.check = true;
  return m;
}

// A RankComm whose every reduction also reaches the plugin as an 8-byte allreduce, as
// collective control traffic on the same process would: it must not blur a point.
class NoisyComm : public RankComm {
 public:
  NoisyComm(RankComm& inner, tuner::SweepControl& control) : inner_(inner), control_(control) {}
  int rank() const override { return inner_.rank(); }
  int size() const override { return inner_.size(); }
  void barrier() override { noise(); inner_.barrier(); }
  void allreduce_sum(std::span<double> v) override { noise(); inner_.allreduce_sum(v); }
  void allreduce_max(std::span<double> v) override { noise(); inner_.allreduce_max(v); }
  void broadcast(std::string& d, int root) override { inner_.broadcast(d, root); }
  std::vector<std::string> allgather(const std::string& m) override { return inner_.allgather(m); }
  void send(const std::string& d, int p, int t) override { inner_.send(d, p, t); }
  std::string recv(int p, int t) override { return inner_.recv(p, t); }

 private:
  void noise() {
    float table[21];
    FakeNcclBackend::fill_costs(Collective::AllReduce, 8, table);
    int channels = 0;
    control_.on_get_coll_info(nccl_abi::kFuncAllReduce, 8, table, 7, 3, &channels);
  }
  RankComm& inner_;
  tuner::SweepControl& control_;
};

TEST(ForcedChoice, ParsesAutoAndForcedConfigs) {
  EXPECT_FALSE(forced_choice(PointConfig{}).has_value());
  const auto c = forced_choice(forced("ring", "simple", 16));
  ASSERT_TRUE(c.has_value());
  EXPECT_EQ(c->algorithm, Algorithm::Ring);
  EXPECT_EQ(c->protocol, Protocol::Simple);
  EXPECT_EQ(c->channels, 16);
  EXPECT_EQ(forced_choice(forced("NVLS_TREE", "LL128"))->algorithm, Algorithm::NvlsTree);
  EXPECT_THROW(forced_choice(forced("ring", "auto")), UsageError);
  EXPECT_THROW(forced_choice(forced("auto", "auto", 8)), UsageError);
  EXPECT_THROW(forced_choice(forced("bogus", "simple")), UsageError);
  EXPECT_THROW(forced_choice(forced("ring", "bogus")), UsageError);
}

TEST(TunedBackend, AutoPointReportsNcclsOwnChoicePerSize) {
  tuner::SweepControl control;
  auto fake = std::make_unique<FakeNcclBackend>(control);
  FakeNcclBackend& f = *fake;
  TunedBackend backend(std::move(fake), control);
  testing::ThreadGroup group(1);
  testing::ThreadComm comm(group, 0);

  PointResult small = measure_point(backend, comm, spec_for(Collective::AllReduce, 1024, {}, 1), quick());
  EXPECT_EQ(small.status, PointStatus::Ok);
  EXPECT_EQ(to_string(small.chosen_algo), "ring");
  EXPECT_EQ(to_string(small.chosen_proto), "ll");
  EXPECT_EQ(small.chosen_channels, 0);
  EXPECT_EQ(control.mode(), tuner::SweepMode::Observe);
  // Observing changed nothing: every operation ran NCCL's own pick.
  for (const auto& r : f.ran) {
    EXPECT_EQ(r.algorithm, static_cast<int>(Algorithm::Ring));
    EXPECT_EQ(r.protocol, static_cast<int>(Protocol::LL));
    EXPECT_EQ(r.channels, 0);
  }
  PointResult big = measure_point(backend, comm, spec_for(Collective::AllReduce, 1 << 24, {}, 1), quick());
  EXPECT_EQ(to_string(big.chosen_algo), "ring");
  EXPECT_EQ(to_string(big.chosen_proto), "simple");
}

TEST(TunedBackend, ForcedPointRunsTheForcedChoiceOnEveryOperationOfEveryRank) {
  testing::run_ranks(2, [](RankComm& comm) {
    tuner::SweepControl control;  // one per rank: ranks are threads here, processes in cctune
    auto fake = std::make_unique<FakeNcclBackend>(control);
    FakeNcclBackend& f = *fake;
    TunedBackend backend(std::move(fake), control);
    NoisyComm noisy(comm, control);
    const PointResult r = measure_point(backend, noisy, spec_for(Collective::AllReduce, 1024, forced("tree", "simple", 16)), quick());
    EXPECT_EQ(r.status, PointStatus::Ok) << r.reason;
    EXPECT_EQ(to_string(r.chosen_algo), "tree");
    EXPECT_EQ(to_string(r.chosen_proto), "simple");
    EXPECT_EQ(r.chosen_channels, 16);
    EXPECT_EQ(r.wrong, 0);
    ASSERT_FALSE(f.ran.empty());
    for (const auto& ran : f.ran) {
      EXPECT_EQ(ran.algorithm, static_cast<int>(Algorithm::Tree));
      EXPECT_EQ(ran.protocol, static_cast<int>(Protocol::Simple));
      EXPECT_EQ(ran.channels, 16);
    }
  });
}

TEST(TunedBackend, UnsupportedForcedChoiceIsSkippedWithNcclsReason) {
  testing::run_ranks(2, [](RankComm& comm) {
    tuner::SweepControl control;
    auto fake = std::make_unique<FakeNcclBackend>(control);
    TunedBackend backend(std::move(fake), control);
    const PointResult r = measure_point(backend, comm, spec_for(Collective::AllGather, 1 << 20, forced("tree", "simple")), quick());
    EXPECT_EQ(r.status, PointStatus::Skipped);
    EXPECT_NE(r.reason.find("tree/simple"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("unsupported"), std::string::npos) << r.reason;
    EXPECT_NE(r.reason.find("allgather"), std::string::npos) << r.reason;
    // The same choice is fine where NCCL supports it.
    const PointResult ok = measure_point(backend, comm, spec_for(Collective::AllReduce, 1 << 20, forced("tree", "simple")), quick());
    EXPECT_EQ(ok.status, PointStatus::Ok) << ok.reason;
  });
}

TEST(TunedBackend, ControlTrafficBetweenBatchesDoesNotSkipAValidForcedPoint) {
  // PAT is valid for reducescatter but not for the 8-byte allreduces NoisyComm adds.
  testing::run_ranks(2, [](RankComm& comm) {
    tuner::SweepControl control;
    auto fake = std::make_unique<FakeNcclBackend>(control);
    TunedBackend backend(std::move(fake), control);
    NoisyComm noisy(comm, control);
    const PointResult r = measure_point(backend, noisy, spec_for(Collective::ReduceScatter, 4096, forced("pat", "simple")), quick());
    EXPECT_EQ(r.status, PointStatus::Ok) << r.reason;
    EXPECT_EQ(to_string(r.chosen_algo), "pat");
  });
}

TEST(TunedBackend, WithoutThePluginForcedPointsAreSkippedNotMismeasured) {
  tuner::SweepControl control;
  auto fake = std::make_unique<FakeNcclBackend>(control);
  fake->consult_plugin = false;
  TunedBackend backend(std::move(fake), control);
  testing::ThreadGroup group(1);
  testing::ThreadComm comm(group, 0);
  const PointResult r = measure_point(backend, comm, spec_for(Collective::AllReduce, 1024, forced("ring", "simple"), 1), quick());
  EXPECT_EQ(r.status, PointStatus::Skipped);
  EXPECT_NE(r.reason.find("NCCL_TUNER_PLUGIN=STATIC_PLUGIN"), std::string::npos) << r.reason;
}

TEST(TunedBackend, GraphReplaysKeepWhatTheCaptureObserved) {
  tuner::SweepControl control;
  auto fake = std::make_unique<FakeNcclBackend>(control);
  fake->graph = true;
  TunedBackend backend(std::move(fake), control);
  testing::ThreadGroup group(1);
  testing::ThreadComm comm(group, 0);
  const PointResult a = measure_point(backend, comm, spec_for(Collective::AllReduce, 1 << 24, {}, 1), quick());
  EXPECT_EQ(to_string(a.chosen_algo), "ring");
  EXPECT_EQ(to_string(a.chosen_proto), "simple");
  const PointResult f = measure_point(backend, comm, spec_for(Collective::AllReduce, 1 << 24, forced("ring", "ll128", 4), 1), quick());
  EXPECT_EQ(f.status, PointStatus::Ok) << f.reason;
  EXPECT_EQ(to_string(f.chosen_proto), "ll128");
  EXPECT_EQ(f.chosen_channels, 4);
}

TEST(TunedBackend, InnerReasonsComeFirstAndPartialChoicesAreSkipped) {
  tuner::SweepControl control;
  TunedBackend backend(std::make_unique<FakeNcclBackend>(control), control);
  EXPECT_EQ(backend.unsupported_reason(spec_for(Collective::AllToAll, 1024, forced("ring", "simple"))), "fake: no alltoall");
  // Bad spellings no longer get this far (PointConfig holds enums); a half-forced choice does.
  EXPECT_NE(backend.unsupported_reason(spec_for(Collective::AllReduce, 1024, forced("ring", "auto"))).find("forces only part of the choice"),
            std::string::npos);
  EXPECT_EQ(backend.unsupported_reason(spec_for(Collective::AllReduce, 1024)), "");
}

TEST(TunedBackend, OneRankSkipsForcedPointsWithoutProbing) {
  tuner::SweepControl control;
  auto fake = std::make_unique<FakeNcclBackend>(control);
  FakeNcclBackend& f = *fake;
  TunedBackend backend(std::move(fake), control, 1);
  EXPECT_NE(backend.unsupported_reason(spec_for(Collective::AllReduce, 1024, forced("ring", "simple"), 1)).find("single rank"),
            std::string::npos);
  EXPECT_TRUE(f.ran.empty());
  EXPECT_EQ(backend.unsupported_reason(spec_for(Collective::AllReduce, 1024, {}, 1)), "");
}

TEST(TunedBackend, PointToPointCollectivesAreNeverForced) {
  // Grouped ncclSend/ncclRecv never reach the tuner: a forced config there is skipped with the
  // reason, without a probe; NCCL's own choice runs. Broadcast and reduce are forced as usual.
  tuner::SweepControl control;
  auto fake = std::make_unique<FakeNcclBackend>(control);
  FakeNcclBackend& f = *fake;
  TunedBackend backend(std::move(fake), control, 4);
  for (Collective c : {Collective::SendRecv, Collective::Gather, Collective::Scatter}) {
    const std::string why = backend.unsupported_reason(spec_for(c, 4096, forced("ring", "simple", 2), 4));
    EXPECT_NE(why.find(to_string(c) + " runs on NCCL's point-to-point path; tune it through process-level groups"),
              std::string::npos)
        << why;
    EXPECT_EQ(backend.unsupported_reason(spec_for(c, 4096, {}, 4)), "");
  }
  EXPECT_TRUE(f.ran.empty());
  EXPECT_EQ(point_to_point_forcing_reason(Collective::AllToAll).rfind("alltoall runs on", 0), 0u);
  EXPECT_EQ(point_to_point_forcing_reason(Collective::Broadcast), "");
  EXPECT_EQ(point_to_point_forcing_reason(Collective::Reduce), "");
  for (Collective c : {Collective::Broadcast, Collective::Reduce}) {
    EXPECT_EQ(backend.unsupported_reason(spec_for(c, 4096, forced("ring", "ll"), 4)), "") << to_string(c);
    ASSERT_FALSE(f.ran.empty());
    EXPECT_EQ(f.ran.back().algorithm, static_cast<int>(Algorithm::Ring));
    EXPECT_EQ(f.ran.back().protocol, static_cast<int>(Protocol::LL));
  }
}

TEST(TunedBackend, DestructionSwitchesThePluginOff) {
  tuner::SweepControl control;
  {
    TunedBackend backend(std::make_unique<FakeNcclBackend>(control), control);
    backend.prepare(spec_for(Collective::AllReduce, 1024, forced("ring", "simple")));
    EXPECT_EQ(control.mode(), tuner::SweepMode::Forced);
  }
  EXPECT_EQ(control.mode(), tuner::SweepMode::Off);
}

}  // namespace
}  // namespace cctune
