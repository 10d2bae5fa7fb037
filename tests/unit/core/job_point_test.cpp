// JobPoint's one JSON form (core/job_point.hpp): a plan's call shape in three keys, a job's
// point with its weight in nine, and a bounded reader whose errors name the field.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "core/error.hpp"
#include "core/job_point.hpp"
#include "core/json_fields.hpp"
#include "support/thrown.hpp"

namespace cctune {
namespace {

using nlohmann::json;

// The message; the fix is the reader's (JsonFields'), checked once below.
std::string error_of(const json& j) {
  return testing::thrown_message<UsageError>([&] { read_job_point(JsonFields(j, "points[0]", "the fix")); });
}

JobPoint weighted() { return {Collective::AllGather, DType::BFloat16, 1048576, 8, 2, 3.5, 120.25, true, 4}; }

TEST(JobPointJson, ACallShapeIsThreeKeysAndReadsBack) {
  const JobPoint shape{Collective::ReduceScatter, DType::Float16, 4096};
  const json j = shape;
  EXPECT_EQ(j, (json{{"collective", "reducescatter"}, {"dtype", "float16"}, {"size_bytes", 4096}}));
  EXPECT_EQ(json::parse(j.dump()).get<JobPoint>(), shape);
}

TEST(JobPointJson, AJobsPointCarriesItsWeightAndReadsBack) {
  const json j = weighted();
  EXPECT_EQ(j.size(), 9u);
  EXPECT_EQ(j.at("nranks"), 8);
  EXPECT_EQ(j.at("calls_per_step"), 3.5);
  EXPECT_EQ(json::parse(j.dump()).get<JobPoint>(), weighted());
  EXPECT_EQ(read_job_point(JsonFields(json::parse(j.dump()), "p", "f")), weighted());
}

TEST(JobPointJson, OldRecordsWithoutTheTypeOrTimeReadWithDefaults) {
  json j = weighted();
  j.erase("dtype");
  j.erase("time_us_per_step");
  j.erase("time_estimated");
  j.erase("shapes");
  const JobPoint p = j.get<JobPoint>();
  EXPECT_EQ(p.dtype, DType::Float32);
  EXPECT_EQ(p.time_us_per_step, 0);
  EXPECT_FALSE(p.time_estimated);
  EXPECT_EQ(p.nranks, 8);
}

TEST(JobPointJson, AMalformedPointIsOneLineNamingTheField) {
  json bad = weighted();
  bad["size_bytes"] = "big";
  EXPECT_EQ(error_of(bad), "points[0].size_bytes: expected an integer, got a string");
  bad = weighted();
  bad["collective"] = "allfoo";
  EXPECT_EQ(error_of(bad), "points[0].collective \"allfoo\" is not a collective");
  bad = weighted();
  bad["dtype"] = "float99";
  EXPECT_EQ(error_of(bad), "points[0].dtype \"float99\" is not a data type");
  bad = weighted();
  bad.erase("nnodes");
  EXPECT_EQ(error_of(bad), "points[0].nnodes is missing");
  bad = weighted();
  bad["calls_per_step"] = -1;
  EXPECT_EQ(error_of(bad), "points[0].calls_per_step is not a call count");
  bad = weighted();
  bad["time_us_per_step"] = 1e300;
  EXPECT_EQ(error_of(bad), "points[0].time_us_per_step is not a time");
  bad = weighted();
  bad["nranks"] = 1e12;
  EXPECT_EQ(error_of(bad), "points[0].nranks: expected an integer, got a number");
  EXPECT_EQ(error_of(json::array()), "points[0]: expected an object, got an array");
  EXPECT_EQ(testing::thrown_message<UsageError>([] {
              json{{"collective", 3}}.get<JobPoint>();
            }),
            "job point.collective: expected a string, got an integer");
  EXPECT_EQ(testing::thrown_description<UsageError>([] { read_job_point(JsonFields(json::object(), "p", "the fix")); }),
            "p.collective is missing. Fix: the fix");
}

}  // namespace
}  // namespace cctune
