// The Prometheus text writer: label escaping against hostile values, name checks, one series
// once, the layout node_exporter's textfile collector reads.
#include "core/prometheus_text.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <cmath>
#include <limits>
#include <stdexcept>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune {
namespace {

using prometheus::Exposition;
using prometheus::MetricType;

TEST(PrometheusLabelValue, EscapesBackslashQuoteAndNewline) {
  EXPECT_EQ(text::prometheus_label_value("plain-host_01"), "plain-host_01");
  EXPECT_EQ(text::prometheus_label_value("a\\b"), "a\\\\b");
  EXPECT_EQ(text::prometheus_label_value("say \"hi\""), "say \\\"hi\\\"");
  EXPECT_EQ(text::prometheus_label_value("two\nlines"), "two\\nlines");
  // A value that tries to close the quote and start a series of its own stays one value.
  EXPECT_EQ(text::prometheus_label_value("x\"} 1\nevil_metric 1\n#"), "x\\\"} 1\\nevil_metric 1\\n#");
  // Backslash first, so an escape in the input cannot become a real one.
  EXPECT_EQ(text::prometheus_label_value("\\n"), "\\\\n");
}

TEST(PrometheusLabelValue, InvalidUtf8IsReplaced) {
  const std::string out = text::prometheus_label_value(std::string("a\xff\xc0z\xed\xa0\x80", 7));
  EXPECT_TRUE(text::valid_utf8(out));
  EXPECT_EQ(out, "a\xEF\xBF\xBD\xEF\xBF\xBDz\xEF\xBF\xBD\xEF\xBF\xBD\xEF\xBF\xBD");
  EXPECT_EQ(text::prometheus_label_value("\xc3\xa9t\xc3\xa9"), "\xc3\xa9t\xc3\xa9");  // valid UTF-8 kept
}

TEST(PrometheusNames, MetricAndLabelNamesAreChecked) {
  EXPECT_TRUE(prometheus::valid_metric_name("cctune_busbw_bytes_per_second"));
  EXPECT_TRUE(prometheus::valid_metric_name("a:b"));
  EXPECT_FALSE(prometheus::valid_metric_name(""));
  EXPECT_FALSE(prometheus::valid_metric_name("1abc"));
  EXPECT_FALSE(prometheus::valid_metric_name("a-b"));
  EXPECT_TRUE(prometheus::valid_label_name("host_a"));
  EXPECT_FALSE(prometheus::valid_label_name("a:b"));
  EXPECT_FALSE(prometheus::valid_label_name("__name__"));
  EXPECT_FALSE(prometheus::valid_label_name("9"));
  EXPECT_FALSE(prometheus::valid_label_name("h\xc3\xa9"));
}

TEST(PrometheusValues, SpelledAsTheFormatWants) {
  EXPECT_EQ(prometheus::format_value(0), "0");
  EXPECT_EQ(prometheus::format_value(1.5), "1.5");
  EXPECT_EQ(prometheus::format_value(123456789012.0), "123456789012");
  EXPECT_EQ(std::stod(prometheus::format_value(1e-7)), 1e-7);
  EXPECT_EQ(prometheus::format_value(std::numeric_limits<double>::infinity()), "+Inf");
  EXPECT_EQ(prometheus::format_value(-std::numeric_limits<double>::infinity()), "-Inf");
  EXPECT_EQ(prometheus::format_value(std::nan("")), "NaN");
}

TEST(PrometheusExposition, FamiliesInOrderWithHelpTypeAndNoTimestamps) {
  Exposition e;
  e.declare("cctune_b", MetricType::Gauge, "B's help, with a \\ backslash");
  e.declare("cctune_a_total", MetricType::Counter, "A");
  e.declare("cctune_unused", MetricType::Gauge, "never sampled");
  EXPECT_TRUE(e.add("cctune_a_total", {}, 3));
  EXPECT_TRUE(e.add("cctune_b", {{"host", "n1"}, {"gpu", ""}, {"bytes", "8"}}, 2.5));
  EXPECT_TRUE(e.add("cctune_b", {{"host", "n\"2"}, {"gpu", "0"}, {"bytes", "8"}}, 1));
  EXPECT_EQ(e.text(),
            "# HELP cctune_b B's help, with a \\\\ backslash\n"
            "# TYPE cctune_b gauge\n"
            "cctune_b{host=\"n1\",bytes=\"8\"} 2.5\n"
            "cctune_b{host=\"n\\\"2\",gpu=\"0\",bytes=\"8\"} 1\n"
            "# HELP cctune_a_total A\n"
            "# TYPE cctune_a_total counter\n"
            "cctune_a_total 3\n");
  EXPECT_EQ(e.samples(), 3u);
}

TEST(PrometheusExposition, ASeriesIsWrittenOnce) {
  Exposition e;
  e.declare("cctune_x", MetricType::Gauge, "x");
  EXPECT_TRUE(e.add("cctune_x", {{"host", "a"}}, 1));
  EXPECT_FALSE(e.add("cctune_x", {{"host", "a"}}, 2));
  EXPECT_TRUE(e.add("cctune_x", {{"host", "b"}}, 2));
  EXPECT_EQ(e.text(), "# HELP cctune_x x\n# TYPE cctune_x gauge\ncctune_x{host=\"a\"} 1\ncctune_x{host=\"b\"} 2\n");
}

// Past the file's series cap nothing more is written, and the file says how many were left out.
TEST(PrometheusExposition, SeriesPastTheCapAreLeftOutAndSaidSo) {
  Exposition e(2);
  e.declare("cctune_x", MetricType::Gauge, "x");
  EXPECT_TRUE(e.add("cctune_x", {{"host", "a"}}, 1));
  EXPECT_TRUE(e.add("cctune_x", {{"host", "b"}}, 1));
  EXPECT_FALSE(e.add("cctune_x", {{"host", "a"}}, 1));  // a duplicate, not left out
  EXPECT_FALSE(e.add("cctune_x", {{"host", "c"}}, 1));
  EXPECT_FALSE(e.add("cctune_x", {{"host", "d"}}, 1));
  EXPECT_EQ(e.left_out(), 2u);
  EXPECT_EQ(e.samples(), 2u);
  EXPECT_NE(e.text().find("# cctune: 2 series left out: more than 2 in one file\n"), std::string::npos);
}

// The duplicate check is a hash lookup: 200 000 series in one family took minutes when each add
// scanned the earlier ones (reliability review N6: 81.6 s at 199 999 shapes); here well under a second.
TEST(PrometheusExposition, DuplicateCheckIsNotQuadratic) {
  Exposition e(1000000);
  e.declare("cctune_x", MetricType::Gauge, "x");
  const auto start = std::chrono::steady_clock::now();
  for (int k = 0; k < 200000; ++k) ASSERT_TRUE(e.add("cctune_x", {{"shape", std::to_string(k)}}, k));
  for (int k = 0; k < 200000; ++k) ASSERT_FALSE(e.add("cctune_x", {{"shape", std::to_string(k)}}, k));
  EXPECT_LT(std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count(), 20.0);
}

TEST(PrometheusExposition, ProgrammingErrorsThrow) {
  Exposition e;
  EXPECT_THROW(e.declare("bad-name", MetricType::Gauge, "x"), std::logic_error);
  EXPECT_THROW(e.declare("cctune_y", MetricType::Gauge, "two\nlines"), std::logic_error);
  e.declare("cctune_x", MetricType::Gauge, "x");
  EXPECT_THROW(e.declare("cctune_x", MetricType::Counter, "again"), std::logic_error);
  EXPECT_THROW(e.add("cctune_undeclared", {}, 1), std::logic_error);
  EXPECT_THROW(e.add("cctune_x", {{"__name__", "v"}}, 1), std::logic_error);
  EXPECT_THROW(e.add("cctune_x", {{"host", "a"}, {"host", "b"}}, 1), std::logic_error);
}

TEST(PrometheusFileName, OnlyNamesTheCollectorReads) {
  EXPECT_NO_THROW(prometheus::check_prom_file_name("/var/lib/node_exporter/cctune.prom"));
  EXPECT_NO_THROW(prometheus::check_prom_file_name("x.prom"));
  EXPECT_THROW(prometheus::check_prom_file_name("metrics.txt"), UsageError);
  EXPECT_THROW(prometheus::check_prom_file_name("dir/.prom"), UsageError);
  EXPECT_THROW(prometheus::check_prom_file_name("cctune.prom/"), UsageError);
  EXPECT_THROW(prometheus::check_prom_file_name("cctune.prom.tmp"), UsageError);
}

}  // namespace
}  // namespace cctune
