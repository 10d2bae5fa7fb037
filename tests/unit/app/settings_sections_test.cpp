// The parts of meta.settings the sweep drivers write beside the plan, read back through their
// owners' typed accessors (issue #23): the space's name and the workload's weights. Absent is
// none; another form is one line naming the field.
#include <gtest/gtest.h>

#include <string>

#include "../runtime/sample_plan.hpp"
#include "app/run/job_run.hpp"
#include "app/run/recorded_space.hpp"
#include "app/sweep/space_sweep.hpp"
#include "app/workload_input/workload_input.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

using nlohmann::json;

Results with_settings(const json& settings) {
  Results r;
  r.meta.settings = ResultSection(settings);
  return r;
}

template <class Read>
std::string refusal(const json& settings, Read read) {
  try {
    read(with_settings(settings));
  } catch (const UsageError& e) {
    EXPECT_FALSE(e.fix().empty());
    EXPECT_EQ(std::string(e.what_only()).find('\n'), std::string::npos);
    return e.what_only();
  }
  return "accepted";
}

TEST(SettingsSections, SpaceNameIsTheRecordsNameOrAPlainName) {
  EXPECT_EQ(space_name_of(with_settings({{"space", {{"name", "default"}, {"source", "builtin"}}}})), "default");
  EXPECT_EQ(space_name_of(with_settings({{"space", "mine"}})), "mine");
  EXPECT_EQ(space_name_of(with_settings(json::object())), "");
  EXPECT_EQ(space_name_of(with_settings(json())), "");
  const auto name = [](const Results& r) { return space_name_of(r); };
  EXPECT_EQ(refusal({{"space", {{"name", true}}}}, name), "meta.settings.space.name: expected a string, got a boolean");
  EXPECT_EQ(refusal({{"space", 5}}, name), "meta.settings.space: expected an object, got an integer");
  EXPECT_EQ(refusal(json::array(), name), "meta.settings: expected an object, got an array");
}

// One point of meta.settings.workload as workload_settings writes it (unsigned, as parsed).
json recorded_point() {
  return {{"collective", "allreduce"}, {"dtype", "bfloat16"},       {"nranks", 8},           {"nnodes", 1},
          {"size_bytes", 1048576u},    {"calls_per_step", 2.0},     {"time_us_per_step", 30.0}, {"time_estimated", false},
          {"shapes", 1}};
}

json recorded_workload(const json& point) {
  return {{"path", "w.json"}, {"sha256", "ab"},        {"nranks", 8},          {"nnodes", 1},
          {"per_step", false}, {"bucketed", false}, {"points", json::array({point})}, {"unplanned", 0}};
}

TEST(SettingsSections, WorkloadWeightsAreTheRecordedPoints) {
  const Results r = with_settings({{"workload", recorded_workload(recorded_point())}});
  const RecordedWorkload* w = recorded_workload_of(r);
  ASSERT_NE(w, nullptr);
  EXPECT_EQ(recorded_workload_of(r), w);  // parsed once
  EXPECT_FALSE(w->per_step);
  ASSERT_EQ(w->weights.size(), 1u);
  EXPECT_EQ(w->weights[0].collective, Collective::AllReduce);
  EXPECT_EQ(w->weights[0].nranks, 8);
  EXPECT_EQ(w->weights[0].nnodes, 1);
  EXPECT_EQ(w->weights[0].size_bytes, 1048576u);
  EXPECT_DOUBLE_EQ(w->weights[0].calls_per_step, 2.0);
  EXPECT_EQ(w->weights[0].dtype, DType::BFloat16);
  EXPECT_EQ(recorded_workload_of(with_settings(json::object())), nullptr);  // no --workload
  EXPECT_EQ(recorded_workload_of(with_settings(json())), nullptr);
}

TEST(SettingsSections, AMalformedWorkloadIsOneLineNamingTheField) {
  const auto weights = [](const Results& r) { return recorded_workload_of(r); };
  json point = recorded_point();
  point["nranks"] = "eight";
  EXPECT_EQ(refusal({{"workload", recorded_workload(point)}}, weights),
            "meta.settings.workload.points[0].nranks: expected an integer, got a string");
  point = recorded_point();
  point["collective"] = "allreduce2";
  EXPECT_EQ(refusal({{"workload", recorded_workload(point)}}, weights),
            "meta.settings.workload.points[0].collective \"allreduce2\" is not a collective");
  EXPECT_EQ(refusal({{"workload", 3}}, weights), "meta.settings.workload: expected an object, got an integer");
  EXPECT_EQ(refusal({{"workload", {{"points", "x"}}}}, weights), "meta.settings.workload.points: expected an array, got a string");
}

// A run's own meta.settings carry their writers' values (nothing in the process parses them
// back), and those values are exactly what a reader of the written JSON gets.
TEST(SettingsSections, SeededSettingsAreWhatTheirReadersParse) {
  runtime::SweepPlan plan = runtime::samples::sample_nccl_plan();
  plan.nccl.test_shared_gpu = 2;
  plan.nccl.groups[0].skips.push_back({Collective::AllReduce, PointConfig{}, "a space's skip"});  // not in the JSON
  workload::WorkloadPlan job;
  job.per_step = false;
  job.points.push_back({Collective::AllReduce, DType::BFloat16, 1048576, 8, 1, 2.0, 30.0, true, 3});
  SettingsParts parts;
  parts.space = {{"name", "default"}, {"source", "builtin"}};
  parts.space_name = "default";
  parts.workload = recorded_workload(recorded_point());
  parts.workload["points"][0] = {{"collective", "allreduce"}, {"dtype", "bfloat16"}, {"nranks", 8},  {"nnodes", 1},
                                 {"size_bytes", 1048576u},    {"calls_per_step", 2.0}, {"time_us_per_step", 30.0},
                                 {"time_estimated", true},    {"shapes", 3}};
  parts.job = &job;
  Results mine;
  mine.meta.settings = settings_section(plan, parts);
  const Results read = with_settings(json::parse(mine.meta.settings.json().dump()));
  EXPECT_EQ(space_name_of(mine), space_name_of(read));
  EXPECT_EQ(test_mode_of(mine), test_mode_of(read));
  EXPECT_EQ(test_mode_of(mine), "shared-gpu");
  ASSERT_NE(recorded_workload_of(mine), nullptr);
  EXPECT_EQ(recorded_workload_of(mine)->weights, recorded_workload_of(read)->weights);
  EXPECT_EQ(recorded_workload_of(mine)->per_step, recorded_workload_of(read)->per_step);
  EXPECT_EQ(runtime::to_json(*runtime::plan_of(mine)), runtime::to_json(*runtime::plan_of(read)));
  EXPECT_TRUE(runtime::plan_of(mine)->nccl.groups[0].skips.empty());
  EXPECT_TRUE(runtime::plan_of(mine)->output_dir.empty());
}

// A seeded value is never parsed: even JSON its parser would refuse reads as the writer's value.
TEST(SettingsSections, ASeededValueIsNotParsedAgain) {
  const ResultSection s = ResultSection::seeded(json("not a plan"), std::string("the writer's"));
  EXPECT_EQ(s.get<std::string>([](const json&) -> std::string { throw UsageError("parsed"); }), "the writer's");
}

}  // namespace
}  // namespace cctune::app
