// --p2p-impl from the command line to the points: parsing, the plan's JSON, and the variants
// enumerate_points makes of NCCL's alltoall, gather and scatter (never of MPI's or the others).
#include <gtest/gtest.h>

#include <map>

#include "app/cli/sweep_options.hpp"
#include "core/error.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::runtime {
namespace {

app::SweepArgs args(const std::string& backend, const std::string& impl) {
  app::SweepArgs a;
  a.backend = backend;
  a.collectives = "allreduce,alltoall,gather,scatter,sendrecv";
  a.sizes = "4K";
  a.placement = "out";
  a.p2p_impl = impl;
  return a;
}

SweepPlan nccl_plan(const std::string& impl) { return app::resolve_sweep(args("nccl", impl), true, true); }

std::map<std::pair<Collective, std::optional<P2pImpl>>, int> variants(const SweepPlan& plan) {
  std::map<std::pair<Collective, std::optional<P2pImpl>>, int> n;
  for (const PointSpec& s : enumerate_points(plan, 2)) ++n[{s.collective, s.impl}];
  return n;
}

TEST(P2pImplPlan, DefaultIsNativeWithFallbackOnTheThreeOnly) {
  const SweepPlan plan = nccl_plan("native");
  EXPECT_EQ(runtime::p2p_impl_of(plan.space), P2pImplChoice::Native);
  for (const PointSpec& s : enumerate_points(plan, 2)) {
    EXPECT_EQ(s.impl.has_value(), has_two_impls(s.collective)) << to_string(s.collective);
    if (s.impl) {
      EXPECT_EQ(*s.impl, P2pImpl::Native);
      EXPECT_TRUE(s.impl_fallback);  // where the loaded NCCL lacks it: grouped, recorded as such
    }
  }
  EXPECT_EQ(app::SweepArgs{}.p2p_impl, "native");
}

TEST(P2pImplPlan, BothMakesTwoVariantsThatNeverFallBack) {
  const auto n = variants(nccl_plan("both"));
  for (Collective c : {Collective::AllToAll, Collective::Gather, Collective::Scatter}) {
    EXPECT_EQ(n.at({c, P2pImpl::Native}), 1) << to_string(c);
    EXPECT_EQ(n.at({c, P2pImpl::Grouped}), 1) << to_string(c);
  }
  EXPECT_EQ(n.at({Collective::AllReduce, std::nullopt}), 1);
  EXPECT_EQ(n.at({Collective::SendRecv, std::nullopt}), 1);
  EXPECT_EQ(n.size(), 8u);
  for (const PointSpec& s : enumerate_points(nccl_plan("both"), 2)) EXPECT_FALSE(s.impl_fallback);
}

TEST(P2pImplPlan, GroupedAndMpiPlans) {
  for (const auto& [variant, count] : variants(nccl_plan("grouped"))) {
    const auto& [c, impl] = variant;
    EXPECT_EQ(impl, has_two_impls(c) ? std::optional(P2pImpl::Grouped) : std::nullopt) << to_string(c);
    EXPECT_EQ(count, 1);
  }
  // MPI has one implementation of each: no variants, no field.
  const SweepPlan mpi = app::resolve_sweep(args("mpi", "both"), false, false);
  for (const PointSpec& s : enumerate_points(mpi, 2)) EXPECT_FALSE(s.impl.has_value()) << to_string(s.collective);
}

TEST(P2pImplPlan, UnknownValueIsAOneLineUsageError) {
  EXPECT_THROW(app::resolve_sweep(args("mpi", "fastest"), false, false), UsageError);  // MPI too
  try {
    nccl_plan("fastest");
    FAIL() << "accepted --p2p-impl fastest";
  } catch (const UsageError& e) {
    const std::string what = e.describe();
    EXPECT_NE(what.find("--p2p-impl 'fastest'"), std::string::npos) << what;
    EXPECT_NE(what.find("native, grouped or both"), std::string::npos) << what;
    EXPECT_EQ(what.find('\n'), std::string::npos) << what;
  }
}

TEST(P2pImplPlan, JsonHoldsOnlyANonDefaultChoiceAndRoundTrips) {
  EXPECT_FALSE(to_json(nccl_plan("native")).at("nccl").contains("p2p_impl"));  // earlier settings still match
  for (const char* impl : {"grouped", "both"}) {
    const nlohmann::json j = to_json(nccl_plan(impl));
    EXPECT_EQ(j.at("nccl").at("p2p_impl"), impl);
    EXPECT_EQ(runtime::p2p_impl_of(plan_from_json(j).space), parse_p2p_impl_choice(impl));
  }
  EXPECT_EQ(runtime::p2p_impl_of(plan_from_json(to_json(nccl_plan("native"))).space), P2pImplChoice::Native);
  nlohmann::json bad = to_json(nccl_plan("both"));
  bad["nccl"]["p2p_impl"] = "native-ish";
  EXPECT_THROW(plan_from_json(bad), UsageError);
}

}  // namespace
}  // namespace cctune::runtime
