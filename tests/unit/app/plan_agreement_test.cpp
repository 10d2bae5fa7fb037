// Plan agreement (issue 24, F4): ranks with different plans stop together with one line
// naming the first difference; ranks with the same plan go on.
#include "app/run/plan_agreement.hpp"

#include <gtest/gtest.h>

#include <atomic>

#include "app/cli/sweep_options.hpp"
#include "core/error.hpp"
#include "support/thread_comm.hpp"

namespace cctune::app {
namespace {

nlohmann::json plan_for(const std::string& max_bytes, const std::string& collectives = "allreduce") {
  SweepArgs a;
  a.backend = "mpi";
  a.max_bytes = max_bytes;
  a.collectives = collectives;
  return to_json(resolve_sweep(a, false, false));
}

TEST(PlanAgreement, FirstDifferenceNamesTheKeyAndBothValues) {
  const auto d = first_plan_difference(plan_for("4K"), plan_for("1K"));
  EXPECT_EQ(d.key, "sizes_bytes");
  EXPECT_EQ(d.a, "10 entries (last 4096)");
  EXPECT_EQ(d.b, "8 entries (last 1024)");
  const auto c = first_plan_difference(plan_for("1K", "allgather"), plan_for("1K"));
  EXPECT_EQ(c.key, "collectives[0]");
  EXPECT_EQ(c.a, "\"allgather\"");
  EXPECT_EQ(c.b, "\"allreduce\"");
  EXPECT_TRUE(first_plan_difference(plan_for("1K"), plan_for("1K")).key.empty());
  const auto nested = first_plan_difference({{"nccl", {{"gpus", 2}}}}, {{"nccl", {{"gpus", 1}}}, {"x", 1}});
  EXPECT_EQ(nested.key, "nccl.gpus");
  const auto missing = first_plan_difference({{"a", 1}}, {{"a", 1}, {"space", "q"}});
  EXPECT_EQ(missing.key, "space");
  EXPECT_EQ(missing.a, "none");
}

TEST(PlanAgreement, HashIsStableAndSeesEveryKey) {
  EXPECT_EQ(plan_hash(plan_for("1K")), plan_hash(plan_for("1K")));
  EXPECT_NE(plan_hash(plan_for("1K")), plan_hash(plan_for("2K")));
}

TEST(PlanAgreement, EveryRankStopsWithOneLineWhenOneRankDiffers) {
  std::atomic<int> thrown{0};
  std::vector<std::string> lines(3);
  testing::run_ranks(3, [&](RankComm& comm) {
    try {
      agree_on_plan(comm, plan_for(comm.rank() == 1 ? "4K" : "1K"));
    } catch (const UsageError& e) {
      ++thrown;
      lines[static_cast<std::size_t>(comm.rank())] = e.describe();
    }
  });
  EXPECT_EQ(thrown, 3);
  for (const auto& l : lines) {
    EXPECT_EQ(l, lines[0]);
    EXPECT_EQ(l.find('\n'), std::string::npos);
  }
  EXPECT_NE(lines[0].find("plan mismatch: rank 1 has sizes_bytes 10 entries (last 4096), rank 0 has 8 entries (last 1024)"),
            std::string::npos)
      << lines[0];
  EXPECT_NE(lines[0].find("Fix: launch every rank with the same arguments and the same space file"), std::string::npos) << lines[0];
}

TEST(PlanAgreement, SamePlansGoOn) {
  EXPECT_NO_THROW(testing::run_ranks(4, [&](RankComm& comm) { agree_on_plan(comm, plan_for("1K")); }));
}

}  // namespace
}  // namespace cctune::app
