#include <gtest/gtest.h>

#include <regex>

#include "app/report/svg.hpp"

using namespace cctune::app::svg;

namespace {

int count(const std::string& haystack, const std::string& needle) {
  int n = 0;
  for (auto pos = haystack.find(needle); pos != std::string::npos; pos = haystack.find(needle, pos + needle.size())) ++n;
  return n;
}

std::vector<std::string> labels(const std::vector<Tick>& ticks) {
  std::vector<std::string> out;
  for (const auto& t : ticks) out.push_back(t.label);
  return out;
}

}  // namespace

TEST(Svg, EscapesMarkupCharacters) {
  EXPECT_EQ(escape("a<b & \"c\" 'd'>"), "a&lt;b &amp; &quot;c&quot; &#39;d&#39;&gt;");
  EXPECT_EQ(escape("plain"), "plain");
}

TEST(Svg, Log2TicksThinToPowersOfTwoWithSizeLabels) {
  // 8 B .. 1 MiB is 18 powers of two; every second one (even exponents) keeps 9.
  EXPECT_EQ(labels(log2_ticks(8, 1 << 20)),
            (std::vector<std::string>{"16 B", "64 B", "256 B", "1 KiB", "4 KiB", "16 KiB", "64 KiB", "256 KiB", "1 MiB"}));
  EXPECT_EQ(labels(log2_ticks(1024, 8192)), (std::vector<std::string>{"1 KiB", "2 KiB", "4 KiB", "8 KiB"}));
  // Non powers of two widen to the enclosing powers.
  EXPECT_EQ(labels(log2_ticks(1000, 3000)), (std::vector<std::string>{"512 B", "1 KiB", "2 KiB", "4 KiB"}));
  EXPECT_EQ(labels(log2_ticks(64, 64)), (std::vector<std::string>{"64 B"}));
  // 8 B .. 8 GiB (31 powers) never gives more than the asked number of ticks.
  EXPECT_LE(log2_ticks(8, 8.0 * (1ull << 30), 9).size(), 9u);
  EXPECT_GE(log2_ticks(8, 8.0 * (1ull << 30), 9).size(), 4u);
}

TEST(Svg, LinearTicksUseNiceStepsAndCoverTheRange) {
  auto t = linear_ticks(0, 47);
  EXPECT_EQ(labels(t), (std::vector<std::string>{"0", "10", "20", "30", "40", "50"}));
  t = linear_ticks(0, 0.9);
  EXPECT_EQ(t.front().value, 0);
  EXPECT_GE(t.back().value, 0.9);
  EXPECT_EQ(t[1].label, "0.2");
  t = linear_ticks(0, 0);  // degenerate: still an axis
  EXPECT_GE(t.size(), 2u);
}

TEST(Svg, ScalesMapLinearAndLog2Domains) {
  const Scale lin{0, 10, 100, 0, false};  // y axes run upwards
  EXPECT_DOUBLE_EQ(lin(0), 100);
  EXPECT_DOUBLE_EQ(lin(2.5), 75);
  const Scale lg{8, 1024, 0, 70, true};  // 2^3 .. 2^10 over 70 px: 10 px per power
  EXPECT_DOUBLE_EQ(lg(8), 0);
  EXPECT_DOUBLE_EQ(lg(64), 30);
  EXPECT_DOUBLE_EQ(lg(1024), 70);
  const Scale flat{5, 5, 0, 10, false};
  EXPECT_DOUBLE_EQ(flat(5), 5);
}

TEST(Svg, LinePlotHasOnePathPerSeriesAndOneCirclePerPoint) {
  LinePlot plot;
  plot.id = "busbw-test";
  plot.title = "busbw <allreduce>";
  plot.series.push_back({"shm & co", {{8, 1, "8 B: 1 GB/s", "ring/LL"}, {1024, 2, "1 KiB", ""}, {0, 5, "size 0 cannot be on a log axis", ""}}, false});
  plot.series.push_back({"tcp", {{8, 0.5, "t", ""}, {1024, 1.5, "t", ""}}, true});
  plot.series.push_back({"empty", {}, false});
  const std::string s = render(plot);
  EXPECT_EQ(count(s, "<svg"), 1);
  EXPECT_EQ(count(s, "data-plot=\"busbw-test\""), 1);
  EXPECT_EQ(count(s, "<path class=\"series-line\""), 2);
  EXPECT_EQ(count(s, "<circle data-point"), 4);
  EXPECT_EQ(count(s, "<title>"), 5);  // the plot's own title and one per point
  EXPECT_NE(s.find("data-series=\"shm &amp; co\""), std::string::npos);
  EXPECT_NE(s.find("busbw &lt;allreduce&gt;"), std::string::npos);
  EXPECT_EQ(s.find("<allreduce>"), std::string::npos);
  EXPECT_NE(s.find("stroke-dasharray"), std::string::npos);
  EXPECT_NE(s.find(">ring/LL</text>"), std::string::npos);
  // The first and last points sit at the left and right ends of the plot area.
  EXPECT_NE(s.find("cx=\"70.0\""), std::string::npos);
  EXPECT_NE(s.find("cx=\"560.0\""), std::string::npos);
}

TEST(Svg, LinePlotWithoutDataStillRendersAxes) {
  LinePlot plot;
  plot.id = "nothing";
  const std::string s = render(plot);
  EXPECT_EQ(count(s, "<path"), 0);
  EXPECT_GT(count(s, "class=\"tick\""), 2);
}

TEST(Svg, ReferenceLineAndFixedTop) {
  LinePlot plot;
  plot.id = "pct";
  plot.y_max = 100.0;
  plot.reference_y = 100.0;
  plot.series.push_back({"a", {{8, 50, "", ""}}, false});
  const std::string s = render(plot);
  EXPECT_EQ(count(s, "class=\"reference\""), 1);
  // 50 of 100 is half way between top (34) and bottom (290).
  EXPECT_NE(s.find("cy=\"162.0\""), std::string::npos);
}

TEST(Svg, HeatmapHasOneRectPerMeasuredCell) {
  Heatmap map;
  map.id = "net-0";
  map.title = "pairs";
  map.unit = "GB/s";
  map.row_labels = {"rank 0", "rank 1", "rank 2"};
  map.col_labels = {"0", "1", "2"};
  map.values = {{std::nullopt, 10.0, 20.0}, {std::nullopt, std::nullopt, 5.0}, {}};
  const std::string s = render(map);
  EXPECT_EQ(count(s, "data-cell="), 3);
  EXPECT_EQ(count(s, "class=\"cell-missing\""), 6);
  EXPECT_NE(s.find("data-cell=\"0,2\""), std::string::npos);
  EXPECT_NE(s.find("rank 0 → 2: 20 GB/s"), std::string::npos);
  // The largest value is the darkest colour, the smallest the lightest.
  EXPECT_NE(s.find("<rect data-cell=\"0,2\" x=\"160.0\" y=\"60.0\" width=\"39.0\" height=\"39.0\" fill=\"#08306b\">"), std::string::npos) << s;
  EXPECT_NE(s.find("<rect data-cell=\"1,2\" x=\"160.0\" y=\"100.0\" width=\"39.0\" height=\"39.0\" fill=\"#ebf3ff\">"), std::string::npos);
  EXPECT_NE(s.find("scale: 5 GB/s (light) to 20 GB/s (dark)"), std::string::npos);
}

TEST(Svg, FormatNumber) {
  EXPECT_EQ(format_number(0), "0");
  EXPECT_EQ(format_number(-0.0), "0");
  EXPECT_EQ(format_number(12.3456), "12.3");
  EXPECT_EQ(format_number(1.0 / 0.0), "?");
}
