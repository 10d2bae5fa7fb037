#include <gtest/gtest.h>

#include <chrono>

#include "core/error.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"

using namespace cctune;

TEST(ParseSize, AcceptsNcclTestsSuffixesAsBinaryMultiples) {
  EXPECT_EQ(parse_size("8"), 8u);
  EXPECT_EQ(parse_size("64K"), 65536u);
  EXPECT_EQ(parse_size("1M"), 1048576u);
  EXPECT_EQ(parse_size("8G"), 8ull << 30);
  EXPECT_EQ(parse_size("512KiB"), 512u * 1024);
  EXPECT_EQ(parse_size("2MiB"), 2u << 20);
  EXPECT_EQ(parse_size("1gb"), 1ull << 30);
  EXPECT_EQ(parse_size("16B"), 16u);
}

TEST(ParseSize, RejectsGarbageWithTheFlagName) {
  try {
    parse_size("12Q", "--max-bytes");
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("--max-bytes"), std::string::npos);
    EXPECT_NE(std::string(e.what()).find("12Q"), std::string::npos);
  }
  EXPECT_THROW(parse_size("abc"), UsageError);
  EXPECT_THROW(parse_size(""), UsageError);
  EXPECT_THROW(parse_size("-1"), UsageError);
  EXPECT_THROW(parse_size("99999999999999999999"), UsageError);
  EXPECT_THROW(parse_size("20000000000000T"), UsageError);
}

TEST(FormatSize, UsesBinaryUnits) {
  EXPECT_EQ(format_size(8), "8 B");
  EXPECT_EQ(format_size(1024), "1 KiB");
  EXPECT_EQ(format_size(1536), "1.5 KiB");
  EXPECT_EQ(format_size(8ull << 30), "8 GiB");
}

TEST(FormatDuration, ReadsLikeAHuman) {
  EXPECT_EQ(format_duration(45), "45 s");
  EXPECT_EQ(format_duration(200), "3 min 20 s");
  EXPECT_EQ(format_duration(3900), "1 h 05 min");
}

TEST(SizeSequence, GeometricIncludesBothEnds) {
  SizeSequence s;
  s.min_bytes = 8;
  s.max_bytes = 128;
  s.factor = 2;
  EXPECT_EQ(s.expand(), (std::vector<std::uint64_t>{8, 16, 32, 64, 128}));
  s.factor = 4;
  EXPECT_EQ(s.expand(), (std::vector<std::uint64_t>{8, 32, 128}));
}

TEST(SizeSequence, StepAndList) {
  SizeSequence s;
  s.min_bytes = 100;
  s.max_bytes = 400;
  s.step_bytes = 100;
  EXPECT_EQ(s.expand(), (std::vector<std::uint64_t>{100, 200, 300, 400}));
  SizeSequence l;
  l.list = {64, 8, 64, 1024};
  EXPECT_EQ(l.expand(), (std::vector<std::uint64_t>{8, 64, 1024}));
}

TEST(SizeSequence, RejectsImpossibleRanges) {
  SizeSequence s;
  s.min_bytes = 1024;
  s.max_bytes = 8;
  EXPECT_THROW(s.expand(), UsageError);
  s.min_bytes = 0;
  EXPECT_THROW(s.expand(), UsageError);
  SizeSequence f;
  f.factor = 1.0;
  EXPECT_THROW(f.expand(), UsageError);
}

// Issue 15 item 8: `sweep -b 1 -e 1T -f 1.0000001` allocated gigabytes of sizes before
// failing; the count is now checked first, and an arithmetic step near 2^64 cannot wrap.
TEST(SizeSequence, TooManySizesAreRefusedBeforeAnyIsMade) {
  SizeSequence s;
  s.min_bytes = 1;
  s.max_bytes = parse_size("1T", "-e");
  s.factor = 1.0000001;
  const auto start = std::chrono::steady_clock::now();
  EXPECT_THROW(s.expand(), UsageError);
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::milliseconds(100));
  SizeSequence w;
  w.min_bytes = ~0ull - 10;
  w.max_bytes = ~0ull;
  w.step_bytes = 8;
  EXPECT_EQ(w.expand(), (std::vector<std::uint64_t>{~0ull - 10, ~0ull - 2}));
}

TEST(RoundToGranule, NeverZero) {
  EXPECT_EQ(round_to_granule(8, 32), 32u);
  EXPECT_EQ(round_to_granule(100, 32), 96u);
  EXPECT_EQ(round_to_granule(64, 32), 64u);
}

TEST(Error, DescribeNamesHostRankAndFix) {
  UsageError e("bad thing", "do the other thing");
  ErrorSite site{"node7", 3, -1};
  EXPECT_EQ(e.describe(site), "bad thing (on host node7, rank 3). Fix: do the other thing");
  EXPECT_EQ(e.describe(), "bad thing. Fix: do the other thing");
}
