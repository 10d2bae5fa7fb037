// The plan's JSON pair: what `cctune sweep` writes (results.json's settings, a worker's spec)
// reads back as the same plan, and a plan that is not one is refused with the key named.
#include "runtime/sweep_plan.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "core/error.hpp"
#include "core/sizes.hpp"
#include "runtime/plan_check.hpp"
#include "runtime/protocol.hpp"
#include "sample_plan.hpp"

namespace cctune::runtime {
namespace {

// The sample plan with everything the JSON carries set: forced configs, halving, test mode.
SweepPlan nccl_plan() {
  SweepPlan plan = samples::sample_nccl_plan();
  plan.nccl.configs = {PointConfig{}, PointConfig{Algorithm::Ring, Protocol::Simple, 16, false},
                       PointConfig{Algorithm::Tree, Protocol::LL, 0, false}};
  plan.nccl.strategy = tuner::search::StrategyKind::Halving;
  plan.nccl.test_shared_gpu = 2;
  return plan;
}

void expect_same(const SweepPlan& a, const SweepPlan& b) {
  EXPECT_EQ(a.backend, b.backend);
  EXPECT_EQ(collectives_of(a.space), collectives_of(b.space));
  EXPECT_EQ(sizes_of(a.space), sizes_of(b.space));
  EXPECT_EQ(dtypes_of(a.space), dtypes_of(b.space));
  EXPECT_EQ(a.space.ops, b.space.ops);
  EXPECT_EQ(a.space.placements, b.space.placements);
  EXPECT_EQ(a.space.impls, b.space.impls);
  EXPECT_EQ(a.measure.batch_iters, b.measure.batch_iters);
  EXPECT_EQ(a.measure.warmup_iters, b.measure.warmup_iters);
  EXPECT_EQ(a.measure.check, b.measure.check);
  EXPECT_EQ(a.measure.stop.min_iterations, b.measure.stop.min_iterations);
  EXPECT_EQ(a.measure.stop.max_time_s, b.measure.stop.max_time_s);
  EXPECT_EQ(a.measure.stop.target_rel_noise, b.measure.stop.target_rel_noise);
  EXPECT_EQ(a.nccl.gpus, b.nccl.gpus);
  ASSERT_EQ(a.nccl.groups.size(), b.nccl.groups.size());
  for (std::size_t i = 0; i < a.nccl.groups.size(); ++i) {
    EXPECT_EQ(a.nccl.groups[i].label, b.nccl.groups[i].label);
    EXPECT_EQ(a.nccl.groups[i].env, b.nccl.groups[i].env);
  }
  EXPECT_EQ(a.nccl.emulate_nodes, b.nccl.emulate_nodes);
  EXPECT_EQ(a.nccl.point_timeout_s, b.nccl.point_timeout_s);
  EXPECT_EQ(a.nccl.group_timeout_s, b.nccl.group_timeout_s);
  EXPECT_EQ(a.nccl.graph, b.nccl.graph);
  EXPECT_EQ(a.nccl.test_shared_gpu, b.nccl.test_shared_gpu);
  EXPECT_EQ(a.nccl.configs, b.nccl.configs);
  EXPECT_EQ(a.nccl.strategy, b.nccl.strategy);
  ASSERT_EQ(a.skips.size(), b.skips.size());
  for (std::size_t i = 0; i < a.skips.size(); ++i) {
    EXPECT_EQ(a.skips[i].collective, b.skips[i].collective);
    EXPECT_EQ(a.skips[i].config, b.skips[i].config);
    EXPECT_EQ(a.skips[i].reason, b.skips[i].reason);
  }
}

TEST(SweepPlanJson, RoundTripsAnNcclPlanWithItsGroupSkips) {
  SweepPlan plan = nccl_plan();
  plan.skips = {{Collective::AllGather, plan.nccl.configs[2], "NCCL has no tree allgather"}};
  const nlohmann::json j = to_json(plan);
  expect_same(plan_from_json(j), plan);
  // The text a worker gets, through its spec line.
  WorkerSpec spec;
  spec.plan = j;
  expect_same(plan_from_json(parse_worker_spec(to_json(spec).dump()).plan), plan);
  EXPECT_EQ(to_json(plan_from_json(j)), j);
}

TEST(SweepPlanJson, ResultsSettingsKeepTheirKeys) {
  // meta.settings of results.json: the plan without worker-only keys.
  SweepPlan plan = nccl_plan();
  nlohmann::json j = to_json(plan);
  EXPECT_FALSE(j.contains("skips"));
  EXPECT_EQ(j["test_mode"], "shared-gpu");
  EXPECT_EQ(j["nccl"]["search"], "halving");
  EXPECT_EQ(j["nccl"]["groups"][1]["env"]["NCCL_P2P_DISABLE"], "1");
  EXPECT_EQ(j["nccl"]["configs"].size(), 3u);
  plan.nccl.groups[0].skips = {{Collective::AllReduce, PointConfig{}, "r"}};
  EXPECT_EQ(to_json(plan)["nccl"]["groups"][0]["skipped_configs"], 1);
  const nlohmann::json mpi = to_json(samples::sample_mpi_plan());
  EXPECT_FALSE(mpi.contains("nccl"));
  EXPECT_FALSE(mpi.contains("test_mode"));
  EXPECT_EQ(mpi["backend"], "mpi");
  expect_same(plan_from_json(mpi), samples::sample_mpi_plan());
}

// Issue #23: results are read through runtime::plan_of, the plan parsed once from the section
// as written, the parts other modules add beside it (space, workload) left to their owners.
TEST(SweepPlanJson, PlanOfResultsIsTheRecordedPlanOrOneLineNamingTheKey) {
  Results r;
  nlohmann::json settings = to_json(nccl_plan());
  settings["space"] = {{"name", "default"}};
  r.meta.settings = ResultSection(settings);
  const SweepPlan* plan = plan_of(r);
  ASSERT_NE(plan, nullptr);
  expect_same(*plan, nccl_plan());
  EXPECT_EQ(plan_of(r), plan);  // parsed once
  EXPECT_EQ(r.meta.settings.json(), settings);  // written back as held
  r.meta.settings = ResultSection();
  EXPECT_EQ(plan_of(r), nullptr);  // no settings recorded
  auto refusal = [](const nlohmann::json& written) {
    Results bad;
    bad.meta.settings = ResultSection(written);
    try {
      plan_of(bad);
    } catch (const UsageError& e) {
      EXPECT_FALSE(e.fix().empty());
      EXPECT_EQ(std::string(e.what_only()).find('\n'), std::string::npos);
      return std::string(e.what_only());
    }
    return std::string("accepted");
  };
  nlohmann::json typo = to_json(samples::sample_mpi_plan());
  typo["iters"] = "twenty";
  EXPECT_EQ(refusal(typo), "meta.settings is not a sweep's plan: sweep plan: \"iters\" is \"twenty\", not a whole number in [1, 2147483647]");
  EXPECT_EQ(refusal(nlohmann::json::array()), "meta.settings is not a sweep's plan: sweep plan: \"backend\" is missing");
  EXPECT_EQ(refusal(nlohmann::json::object()), "meta.settings is not a sweep's plan: sweep plan: \"backend\" is missing");
}

TEST(SweepPlanJson, RootTravelsOnlyWithRootedCollectives) {
  SweepPlan plan = samples::sample_mpi_plan();
  EXPECT_FALSE(to_json(plan).contains("root"));  // allreduce, allgather, reducescatter
  samples::grid_of(plan).collectives = {Collective::AllReduce, Collective::Gather};
  plan.space.root = 2;
  const nlohmann::json two = to_json(plan);
  EXPECT_EQ(two["root"], 2);
  EXPECT_EQ(plan_from_json(two).space.root, 2);
  EXPECT_FALSE(plan_from_json(two).space.all_roots);
  plan.space.all_roots = true;
  const nlohmann::json all = to_json(plan);
  EXPECT_EQ(all["root"], "all");
  EXPECT_TRUE(plan_from_json(all).space.all_roots);
  nlohmann::json bad = two;
  bad["root"] = -1;
  EXPECT_THROW(plan_from_json(bad), UsageError);
}

TEST(SweepPlanJson, MalformedPlansAreRefusedNamingTheKey) {
  const nlohmann::json good = to_json(nccl_plan());
  EXPECT_EQ(samples::plan_refusal(good), "accepted");
  auto with = [&](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(pointer)] = value;
    return samples::plan_refusal(j);
  };
  auto without = [&](const std::string& key) {
    nlohmann::json j = good;
    j.erase(key);
    return samples::plan_refusal(j);
  };
  EXPECT_NE(samples::plan_refusal({{"collectives", 3}}).find("\"backend\" is missing"), std::string::npos);
  EXPECT_NE(samples::plan_refusal(nlohmann::json::array()).find("\"backend\" is missing"), std::string::npos);
  EXPECT_NE(without("dtype").find("\"dtype\" is missing"), std::string::npos);
  EXPECT_NE(with("/backend", "auto").find("\"backend\""), std::string::npos);
  EXPECT_NE(with("/collectives", 3).find("\"collectives\""), std::string::npos);
  EXPECT_NE(with("/collectives/0", "allscatter").find("unknown collective 'allscatter'"), std::string::npos);
  EXPECT_NE(with("/dtype", "float128").find("\"dtype\""), std::string::npos);
  EXPECT_NE(with("/placements/0", "sideways").find("\"placements\""), std::string::npos);
  EXPECT_NE(with("/iters", 0).find("\"iters\""), std::string::npos);
  EXPECT_NE(with("/iters", "7").find("\"iters\""), std::string::npos);
  EXPECT_NE(with("/warmup_iters", -1).find("\"warmup_iters\""), std::string::npos);
  EXPECT_NE(with("/check", 1).find("\"check\""), std::string::npos);
  EXPECT_NE(with("/max_time_s", 0).find("\"max_time_s\""), std::string::npos);
  EXPECT_NE(with("/target_noise", "x").find("\"target_noise\""), std::string::npos);
  EXPECT_NE(with("/nccl/search", "random").find("\"search\" is \"random\""), std::string::npos);
  EXPECT_NE(with("/nccl/emulate_nodes", 0).find("\"emulate_nodes\""), std::string::npos);
  EXPECT_NE(with("/nccl/test_shared_gpu", 17).find("\"test_shared_gpu\""), std::string::npos);
  EXPECT_NE(with("/nccl/groups/0/env", 3).find("\"env\""), std::string::npos);
  EXPECT_NE(with("/nccl/configs/0", 3).find("sweep plan:"), std::string::npos);
  EXPECT_NE(with("/skips", nlohmann::json::parse(R"([{"collective": "allreduce"}])")).find("\"config\" is missing"), std::string::npos);
  EXPECT_NE(without("nccl").find("\"nccl\" is missing"), std::string::npos);
}

TEST(SweepPlanJson, OutOfRangeSizesAndNumbersAreRefused) {
  const nlohmann::json good = to_json(nccl_plan());
  auto with = [&](const std::string& pointer, const nlohmann::json& value) {
    nlohmann::json j = good;
    j[nlohmann::json::json_pointer(pointer)] = value;
    return samples::plan_refusal(j);
  };
  EXPECT_NE(with("/sizes_bytes", nlohmann::json::array()).find("\"sizes_bytes\" must be a list of 1 to 100000"), std::string::npos);
  EXPECT_NE(with("/sizes_bytes/0", 0).find("not a size of at least 1 byte"), std::string::npos);
  EXPECT_NE(with("/sizes_bytes/0", -8).find("not a size of at least 1 byte"), std::string::npos);
  EXPECT_NE(with("/sizes_bytes/0", 8.5).find("not a size of at least 1 byte"), std::string::npos);
  EXPECT_NE(with("/sizes_bytes", std::vector<std::uint64_t>(max_size_count + 1, 8)).find("\"sizes_bytes\""), std::string::npos);
  // A float beyond int anywhere is refused before any field is read (get<int> would be UB).
  EXPECT_NE(with("/iters", 1e30).find("\"iters\" is 1e+30, out of range"), std::string::npos);
  EXPECT_NE(with("/nccl/gpus", 8888888888888888888.0).find("\"gpus\" is"), std::string::npos);
  EXPECT_NE(with("/iters", 4294967296LL).find("\"iters\""), std::string::npos);
  // Too many points to enumerate: 2 collectives x 100000 sizes x 30 configs x 2 placements.
  nlohmann::json j = good;
  std::vector<std::uint64_t> many(max_size_count);
  for (std::size_t i = 0; i < many.size(); ++i) many[i] = i + 1;
  j["sizes_bytes"] = many;
  j["nccl"]["configs"] = std::vector<nlohmann::json>(30, good["nccl"]["configs"][0]);
  EXPECT_NE(samples::plan_refusal(j).find("more than 10000000 points"), std::string::npos) << samples::plan_refusal(j);
  j["nccl"]["configs"] = std::vector<nlohmann::json>(3, good["nccl"]["configs"][0]);
  EXPECT_EQ(samples::plan_refusal(j), "accepted");
}

TEST(SweepPlanJson, WorkerSpecLinesAreDepthAndSyntaxChecked) {
  WorkerSpec spec;
  spec.plan = to_json(nccl_plan());
  const std::string line = to_json(spec).dump();
  EXPECT_NO_THROW(parse_worker_spec(line));
  EXPECT_THROW(parse_worker_spec(line.substr(0, line.size() / 2)), UsageError);  // bad JSON
  EXPECT_THROW(parse_worker_spec("{\"group\": 5e555}"), UsageError);            // a number JSON cannot hold
  // A plan nested 100 000 levels deep would overflow nlohmann's recursive parser.
  std::string deep = R"({"group":"g","nranks":1,"rank":0,"device":0,"plan":)" + std::string(100000, '[') + std::string(100000, ']') + "}";
  try {
    parse_worker_spec(deep);
    ADD_FAILURE() << "a too deep spec was accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(e.what_only().find("nests deeper than 64 levels"), std::string::npos) << e.what_only();
  }
}

}  // namespace
}  // namespace cctune::runtime

namespace cctune::runtime {
namespace {

// Issue 24 F16: infinite or NaN seconds passed every `<` test and then failed in the worker
// with "supervisor and worker must be the same cctune build". check_plan, which the command
// line, the space, verify, diagnose and plan_from_json share, names the flag and the key.
TEST(CheckPlan, NonFiniteSecondsNameTheFlagAndTheKey) {
  auto error_of = [](const SweepPlan& p) {
    try {
      check_plan(p);
    } catch (const UsageError& e) {
      return e.describe();
    }
    return std::string("accepted");
  };
  SweepPlan p = samples::sample_nccl_plan();
  EXPECT_EQ(error_of(p), "accepted");
  p.nccl.point_timeout_s = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of(p).find("--point-timeout (point_timeout_s) is inf, not a finite number above 0"), std::string::npos) << error_of(p);
  EXPECT_EQ(error_of(p).find("same cctune build"), std::string::npos);
  p.nccl.point_timeout_s = 60;
  p.nccl.group_timeout_s = std::nan("");
  EXPECT_NE(error_of(p).find("--group-timeout (group_timeout_s) is nan"), std::string::npos) << error_of(p);
  p.nccl.group_timeout_s = 0;
  p.measure.stop.max_time_s = std::numeric_limits<double>::infinity();
  EXPECT_NE(error_of(p).find("--max-time (max_time_s) is inf"), std::string::npos) << error_of(p);
  p.measure.stop.max_time_s = 1;
  samples::grid_of(p).sizes.assign(max_size_count + 1, 8);
  EXPECT_NE(error_of(p).find("--sizes (sizes_bytes) holds 100001 sizes, not 1 to 100000"), std::string::npos) << error_of(p);
}

}  // namespace
}  // namespace cctune::runtime
