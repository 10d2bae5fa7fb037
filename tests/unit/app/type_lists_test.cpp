// Several data types and ops in one sweep: `-d a,b`, `--op a,b` and `all`, resolved against
// what the backend runs (collectives/capabilities), enumerated as one series per combination,
// and carried in the plan's JSON (one value stays a string, as older results have it).
#include <gtest/gtest.h>

#include "runtime/sections.hpp"
#include "app/cli/sweep_options.hpp"
#include "collectives/capabilities.hpp"
#include "core/error.hpp"
#include "runtime/worker_plan.hpp"

namespace cctune::app {
namespace {

SweepArgs mpi_args(const std::string& dtypes, const std::string& ops, const std::string& collectives = "all") {
  SweepArgs a;
  a.backend = "mpi";
  a.dtype = dtypes;
  a.op = ops;
  a.collectives = collectives;
  a.sizes = "64,1K";
  return a;
}

std::string refusal(const SweepArgs& a) {
  try {
    resolve_sweep(a, true, true);
  } catch (const UsageError& e) {
    return e.what_only() + "; " + e.fix();
  }
  return "accepted";
}

TEST(TypeLists, ListsBecomeOneSeriesPerCombination) {
  const SweepPlan plan = resolve_sweep(mpi_args("int32,float32", "sum,max"), false, false);
  EXPECT_EQ(dtypes_of(plan.space), (std::vector<DType>{DType::Int32, DType::Float32}));
  EXPECT_EQ(plan.space.ops, (std::vector<ReduceOp>{ReduceOp::Sum, ReduceOp::Max}));
  const auto points = runtime::enumerate_points(plan, 4);
  // 3 reductions x 2 dtypes x 2 ops + 6 others x 2 dtypes, each 2 sizes x 2 placements.
  ASSERT_EQ(points.size(), (3u * 4u + 6u * 2u) * 4u);
  const std::vector<runtime::PointBlock> blocks = runtime::point_blocks(plan, points);
  EXPECT_EQ(blocks.size(), 24u);
  std::vector<runtime::SectionKey> sections;
  for (const PointSpec& p : points)
    if (sections.empty() || sections.back() != runtime::section_of(p)) sections.push_back(runtime::section_of(p));
  ASSERT_EQ(sections.size(), 24u);
  EXPECT_EQ(runtime::section_suffix(sections[0]), ", int32, op sum");
  EXPECT_EQ(runtime::section_suffix(sections[1]), ", int32, op max");
  EXPECT_EQ(runtime::section_suffix(sections[3]), ", float32, op max");
  EXPECT_EQ(runtime::section_suffix(sections[4]), ", int32");  // allgather: no op
  // Block i of point_index is the i-th section.
  EXPECT_EQ(runtime::section_of(points[runtime::point_index(plan, blocks[3], 1, 0, 1)]), sections[3]);
  for (const PointSpec& p : points)
    if (!is_reduction(p.collective)) {
      EXPECT_EQ(p.op, ReduceOp::Sum);  // carried, ignored
    }
}

TEST(TypeLists, OneValueStaysAStringInTheJsonAndListsRoundTrip) {
  const SweepPlan one = resolve_sweep(mpi_args("float32", "sum"), false, false);
  const nlohmann::json j1 = runtime::to_json(one);
  EXPECT_EQ(j1["dtype"], "float32");
  EXPECT_EQ(j1["op"], "sum");
  const SweepPlan two = resolve_sweep(mpi_args("int32,float64", "max,min"), false, false);
  const nlohmann::json j2 = runtime::to_json(two);
  EXPECT_EQ(j2["dtype"], (nlohmann::json{"int32", "float64"}));
  EXPECT_EQ(dtypes_of(runtime::plan_from_json(j2).space), dtypes_of(two.space));
  EXPECT_EQ(runtime::plan_from_json(j2).space.ops, two.space.ops);
  nlohmann::json twice = j2;
  twice["dtype"] = {"int32", "int32"};
  EXPECT_THROW(runtime::plan_from_json(twice), UsageError);
  twice["dtype"] = nlohmann::json::array();
  EXPECT_THROW(runtime::plan_from_json(twice), UsageError);
}

TEST(TypeLists, AllDropsWhatTheBackendLacksSilently) {
  const SweepPlan mpi = resolve_sweep(mpi_args("all", "all"), false, false);
  const std::vector<DType> mpi_types = dtypes_of(mpi.space);
  EXPECT_EQ(mpi_types.size(), all_dtypes().size() - 4);  // no float16, bfloat16, fp8
  EXPECT_EQ(std::count(mpi_types.begin(), mpi_types.end(), DType::BFloat16), 0);
  EXPECT_EQ(std::count_if(mpi_types.begin(), mpi_types.end(), is_fp8), 0);
  EXPECT_EQ(mpi.space.ops, (std::vector<ReduceOp>{ReduceOp::Sum, ReduceOp::Prod, ReduceOp::Max, ReduceOp::Min}));
  SweepArgs nccl = mpi_args("all", "all");
  nccl.backend = "nccl";
  const SweepPlan n = resolve_sweep(nccl, true, true);
  EXPECT_EQ(dtypes_of(n.space), all_dtypes());
  EXPECT_EQ(n.space.ops, all_reduce_ops());
}

TEST(TypeLists, NamedCombinationsABackendLacksAreOneLineUsageErrors) {
  EXPECT_EQ(refusal(mpi_args("float32", "avg")), "--op avg: the mpi backend has no avg reduction; use --backend nccl or another --op");
  EXPECT_EQ(refusal(mpi_args("float32,bfloat16", "sum")),
            "-d bfloat16: the mpi backend has no bfloat16 type (MPI has no portable one); use --backend nccl or another -d");
  EXPECT_NE(refusal(mpi_args("nonsense", "sum")).find("-d/--dtype: unknown data type 'nonsense'"), std::string::npos);
  EXPECT_NE(refusal(mpi_args("float32", "sum,mean")).find("--op: unknown reduction op 'mean'"), std::string::npos);
  EXPECT_NE(refusal(mpi_args(",", "sum")).find("names nothing"), std::string::npos);
  // avg matters only where a reduction is planned.
  EXPECT_EQ(refusal(mpi_args("float32", "avg", "allgather,alltoall")), "accepted");
  SweepArgs nccl = mpi_args("bfloat16", "avg");
  nccl.backend = "nccl";
  EXPECT_EQ(refusal(nccl), "accepted");
}

TEST(Capabilities, MpiLacksHalfAndFp8TypesAndAvgNcclRunsEverything) {
  for (DType t : all_dtypes())
    for (ReduceOp op : all_reduce_ops())
      for (Collective c : all_collectives()) {
        EXPECT_FALSE(incapability(BackendKind::Nccl, c, t, op)) << to_string(c) << " " << to_string(t) << " " << to_string(op);
        const bool half = t == DType::Float16 || t == DType::BFloat16 || is_fp8(t);
        const bool mpi_lacks = half || (is_reduction(c) && op == ReduceOp::Avg);
        EXPECT_EQ(incapability(BackendKind::Mpi, c, t, op).has_value(), mpi_lacks) << to_string(c) << " " << to_string(t);
      }
}

}  // namespace
}  // namespace cctune::app
