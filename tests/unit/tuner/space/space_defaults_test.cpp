// `cctune sweep --space S` with size flags typed: each flag replaces its own part of the
// space's sizes (docs/TUNING.md, "A flag you type wins over the space").
#include <gtest/gtest.h>

#include <set>

#include "app/sweep/space_sweep.hpp"
#include "core/error.hpp"

namespace cctune::app {
namespace {

tuner::SearchSpace space_with_sizes(const std::string& sizes_json) {
  return tuner::parse_space(R"({"name": "t", "collectives": ["allreduce"], "sizes": )" + sizes_json +
                                R"(, "algorithms": ["auto"], "protocols": ["auto"], "channels": [0]})",
                            "test.json");
}

// The sizes a sweep would measure after the space and the typed flags are combined.
std::vector<std::uint64_t> sizes_after(const tuner::SearchSpace& space, const std::set<std::string>& typed_flags,
                                       SweepArgs args) {
  const PlanOverrides o = space_overrides(space, [&](const std::string& flag) { return typed_flags.count(flag) > 0; }, args);
  args.backend = "nccl";
  return sizes_of(resolve_sweep(args, true, true, o).space);
}

// Issue 15: found by tests/fuzz/space. A number too large for a double escaped as an
// uncaught nlohmann out_of_range; a factor of 1.000001 from 1 B to 1 TiB made 2.8e7 sizes.
TEST(SpaceFile, HostileNumbersAreUsageErrors) {
  EXPECT_THROW(tuner::parse_space(R"({"schema": 5555555555555555e555555555555555555555555555555, "name": "x"})", "t.json"), UsageError);
  EXPECT_THROW(space_with_sizes(R"({"min": "1", "max": "1T", "factor": 1.000001})"), UsageError);
  EXPECT_THROW(space_with_sizes("[" + std::string(100000, '[') + std::string(100001, ']')), UsageError);
}

TEST(SpaceDefaults, NothingTypedTakesTheSpacesSizes) {
  const auto sizes = sizes_after(space_with_sizes(R"({"min": "1K", "max": "64K", "factor": 8})"), {}, {});
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1024, 8192, 65536}));
}

TEST(SpaceDefaults, TypedMaxKeepsTheSpacesMinAndFactor) {
  SweepArgs a;
  a.max_bytes = "8K";
  const auto sizes = sizes_after(space_with_sizes(R"({"min": "1K", "max": "64K", "factor": 8})"), {"--max-bytes"}, a);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1024, 8192}));
}

TEST(SpaceDefaults, TypedFactorKeepsTheSpacesRange) {
  SweepArgs a;
  a.factor = 4;
  const auto sizes = sizes_after(space_with_sizes(R"({"min": "1K", "max": "16K", "factor": 8})"), {"--step-factor"}, a);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{1024, 4096, 16384}));
}

TEST(SpaceDefaults, TypedListReplacesTheSpacesSizes) {
  SweepArgs a;
  a.sizes = "2M,4M";
  const auto sizes = sizes_after(space_with_sizes(R"({"min": "1K", "max": "16K", "factor": 8})"), {"--sizes"}, a);
  EXPECT_EQ(sizes, (std::vector<std::uint64_t>{2 << 20, 4 << 20}));
}

TEST(SpaceDefaults, TypedRangeNarrowsASpaceList) {
  SweepArgs a;
  a.min_bytes = "2K";
  a.max_bytes = "1M";
  const auto space = space_with_sizes(R"({"list": ["1K", "4K", "64K", "4M"]})");
  EXPECT_EQ(sizes_after(space, {"--min-bytes", "--max-bytes"}, a), (std::vector<std::uint64_t>{4096, 65536}));
  a.min_bytes = "8M";
  a.max_bytes = "16M";
  EXPECT_THROW(sizes_after(space, {"--min-bytes", "--max-bytes"}, a), UsageError);
}

}  // namespace
}  // namespace cctune::app
