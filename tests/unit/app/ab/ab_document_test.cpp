// The A/B family's one row layout, verdict line and document (app/ab/ab_row.hpp,
// app/ab/ab_document.hpp): what every A/B command's output file and terminal line say.
#include <gtest/gtest.h>

#include "app/ab/ab_document.hpp"

namespace cctune::app {
namespace {

AbRow faster_row() {
  AbRow r;
  r.rounds = 4;
  r.a_median_us = 76241;
  r.b_median_us = 21247;
  r.speedup = 3.413;
  r.ci_low = 2.865;
  r.ci_high = 4.245;
  r.ci_confidence = 0.875;
  r.verdict = Verdict::Faster;
  return r;
}

TEST(AbRowJson, TheVerdictBlockInTheRowsUnit) {
  const nlohmann::json j = verdict_json(faster_row(), AbUnit::Ms);
  EXPECT_DOUBLE_EQ(j.at("default_ms").get<double>(), 76.241);
  EXPECT_DOUBLE_EQ(j.at("profile_ms").get<double>(), 21.247);
  EXPECT_FALSE(j.contains("default_us"));
  EXPECT_EQ(j.at("verdict"), "faster");
  EXPECT_EQ(j.at("rounds"), 4);
  EXPECT_DOUBLE_EQ(j.at("ci_confidence").get<double>(), 0.875);
  EXPECT_EQ(j.at("more_pairs"), 0);
  EXPECT_EQ(j.at("note"), "");
  const nlohmann::json us = verdict_json(faster_row(), AbUnit::Us);
  EXPECT_DOUBLE_EQ(us.at("default_us").get<double>(), 76241);
  EXPECT_FALSE(us.contains("default_ms"));
}

// A shape a failed group left unmeasured still has a row: confirmation.json's reader (cctune
// tune) reads its speedup and interval, and its verdict keeps the rule out.
TEST(AbRowJson, AnUnmeasuredRowSaysSoWithAZeroSpeedup) {
  const nlohmann::json j = to_json(AbEntry{std::nullopt, AbUnit::Us, {{"collective", "allreduce"}, {"size_bytes", 1024}}});
  EXPECT_EQ(j.at("verdict"), "unmeasured");
  EXPECT_EQ(j.at("rounds"), 0);
  EXPECT_EQ(j.at("speedup"), 0.0);
  EXPECT_EQ(j.at("ci_low"), 0.0);
  EXPECT_EQ(j.at("ci_high"), 0.0);
  EXPECT_EQ(j.at("collective"), "allreduce");
  EXPECT_FALSE(j.contains("default_us"));
}

TEST(AbRowJson, TheCommandsKeysComeWithTheVerdictsWinning) {
  const nlohmann::json j = to_json(AbEntry{faster_row(), AbUnit::Ms, {{"candidate", "tuned-default"}, {"verdict", "mine"}}});
  EXPECT_EQ(j.at("candidate"), "tuned-default");
  EXPECT_EQ(j.at("verdict"), "faster");
}

TEST(AbVerdictLine, OneLineForEveryCommand) {
  EXPECT_EQ(verdict_line(faster_row(), AbUnit::Ms),
            "NCCL defaults 76.241 ms -> profile 21.247 ms (-72.1 %); speedup 3.413 [2.865, 4.245] (88 % interval) over 4 pairs: faster");
  AbRow r = faster_row();
  r.verdict = Verdict::Undecided;
  r.note = "too few pairs";
  EXPECT_EQ(verdict_line(r, AbUnit::Us),
            "NCCL defaults 76241.00 us -> profile 21247.00 us (-72.1 %); speedup 3.413 [2.865, 4.245] (88 % interval) over 4 pairs: "
            "undecided  # too few pairs");
}

TEST(AbDocumentJson, SharedKeysRowsAndStepUnderTheirKeys) {
  AbDocument doc{.schema = "cctune.tune_job/1",
                 .subject = "s",
                 .method = ab_method("the job's step"),
                 .rounds = 6,
                 .tolerance = 0.02,
                 .rows_key = "standings",
                 .step_key = "winner"};
  doc.rows.push_back({faster_row(), AbUnit::Ms, {{"candidate", "a"}}});
  doc.step = AbEntry{faster_row(), AbUnit::Ms, {{"candidate", "a"}}};
  doc.extra = {{"status", "complete"}, {"schema", "overridden"}};
  const nlohmann::json j = to_json(doc);
  EXPECT_EQ(j.at("schema"), "cctune.tune_job/1") << "the document's own keys win over the command's";
  EXPECT_EQ(j.at("status"), "complete");
  EXPECT_EQ(j.at("rounds"), 6);
  EXPECT_DOUBLE_EQ(j.at("tolerance").get<double>(), 0.02);
  EXPECT_NE(j.at("method").get<std::string>().find("timed: the job's step"), std::string::npos);
  EXPECT_EQ(j.at("standings").size(), 1u);
  EXPECT_FALSE(j.contains("rows"));
  EXPECT_EQ(j.at("winner").at("candidate"), "a");
}

TEST(AbDocumentJson, NoRowsKeyWhenTheCommandHasNoRowsAndNoStepWithoutAVerdict) {
  AbDocument doc{.schema = "cctune.verify_job/1", .rows_key = {}};
  const nlohmann::json j = to_json(doc);
  EXPECT_FALSE(j.contains("rows"));
  EXPECT_FALSE(j.contains("job_step"));
  AbDocument verify{.schema = "cctune.verify/1"};
  EXPECT_TRUE(to_json(verify).at("rows").empty()) << "verify with no row still says so";
}

}  // namespace
}  // namespace cctune::app
