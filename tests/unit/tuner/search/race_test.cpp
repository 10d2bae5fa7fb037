// The race's schedule: order by transport, the first round's cap within the budget, rounds for
// the undecided only while they fit, the variants in the chosen group, and the stops.
#include <gtest/gtest.h>

#include <nlohmann/json.hpp>

#include "tuner/search/race.hpp"

namespace cctune::tuner::search {
namespace {

TEST(RaceOrder, ReferenceFirstThenTransportThenNetworkThenAny) {
  const std::vector<RaceArm> arms = {{"channels-32", RaceTier::Any}, {"p2p-net-chunk", RaceTier::Network},
                                     {"default", RaceTier::Any},     {"sockets-4x4", RaceTier::Transport},
                                     {"buffsize", RaceTier::Any},    {"sockets-8x8", RaceTier::Transport}};
  EXPECT_EQ(race_order(arms, "default"),
            (std::vector<std::string>{"default", "sockets-4x4", "sockets-8x8", "p2p-net-chunk", "channels-32", "buffsize"}));
}

TEST(FirstMaxTime, HalfTheBudgetOverGroupsAndPointsWithinBounds) {
  RaceBudget b{120, 0.5, 0};
  // (60 - 11 x 3) / (11 x 5) = 0.49 s a point
  EXPECT_NEAR(first_max_time(b, 11, 5, 3.0), 27.0 / 55.0, 1e-9);
  EXPECT_DOUBLE_EQ(first_max_time(b, 2, 1, 3.0), 0.5);     // never above the space's cap
  EXPECT_DOUBLE_EQ(first_max_time(b, 40, 10, 3.0), 0.01);  // nor below 10 ms, even past the budget
}

RaceState state_after_first_round() {
  RaceState s;
  s.round = 0;
  s.elapsed_s = 40;
  s.max_time_s = 0.25;
  s.reference = s.chosen = "default";
  for (const char* g : {"default", "sockets-4x4", "sockets-8x8", "buffsize"}) s.costs[g] = RoundCost{2.0, 2.5, 5, 0.25};
  return s;
}

TEST(NextRaceRound, UndecidedRaceAgainBesideTheReferenceWithTwiceTheTime) {
  RaceState s = state_after_first_round();
  s.contenders = {"sockets-8x8", "sockets-4x4"};
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 60});
  ASSERT_TRUE(step.next);
  EXPECT_EQ(step.next->round, 1);
  EXPECT_FALSE(step.next->variants);
  EXPECT_DOUBLE_EQ(step.next->max_time_s, 0.5);
  EXPECT_EQ(step.next->groups, (std::vector<std::string>{"default", "sockets-8x8", "sockets-4x4"}));
  EXPECT_NE(step.why.find("2 group(s) still undecided"), std::string::npos) << step.why;
}

TEST(NextRaceRound, TheChosenGroupRacesTooWhileOthersAreUndecided) {
  RaceState s = state_after_first_round();
  s.chosen = "sockets-4x4";
  s.contenders = {"sockets-8x8"};
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 0});
  ASSERT_TRUE(step.next);
  EXPECT_EQ(step.next->groups, (std::vector<std::string>{"default", "sockets-4x4", "sockets-8x8"}));
}

TEST(NextRaceRound, ARoundThatDoesNotFitGoesToTheVariantsShorter) {
  RaceState s = state_after_first_round();
  s.contenders = {"sockets-8x8"};
  s.elapsed_s = 114;  // 6 s left: a round of two groups needs 2 x (2 + 5 x (0.25 + 0.5))
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 10});
  ASSERT_TRUE(step.next);
  EXPECT_TRUE(step.next->variants);
  EXPECT_EQ(step.next->groups, (std::vector<std::string>{"default"}));
  // (6 - 2) / 10 - 0.25 = 0.15 s a point: shorter than the space's 0.5, not below a tenth of it
  EXPECT_NEAR(step.next->max_time_s, 0.15, 1e-9);
}

TEST(NextRaceRound, NoBudgetForTheVariantsStopsAndSaysHowToGetThem) {
  RaceState s = state_after_first_round();
  s.elapsed_s = 119;
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 10});
  EXPECT_FALSE(step.next);
  EXPECT_NE(step.why.find("--budget-s"), std::string::npos) << step.why;
}

TEST(NextRaceRound, DecidedWithTheVariantsDoneStops) {
  RaceState s = state_after_first_round();
  s.variants_done = true;
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 10});
  EXPECT_FALSE(step.next);
  EXPECT_EQ(step.why, "decided");
  s.contenders = {"sockets-8x8"};
  s.elapsed_s = 119;
  EXPECT_NE(next_race_round(s, RaceBudget{120, 0.5, 10}).why.find("undecided"), std::string::npos);
}

TEST(NextRaceRound, TheCapStopsDoublingAtEightTimesTheSpaces) {
  RaceState s = state_after_first_round();
  s.contenders = {"sockets-8x8"};
  s.max_time_s = 4.0;  // 8 x 0.5 already
  s.elapsed_s = 0;
  const RaceStep step = next_race_round(s, RaceBudget{1000, 0.5, 0});
  EXPECT_FALSE(step.next);  // no variants planned, and no longer cap to race at
}

TEST(PredictedRoundS, StartupPlusPointsAtTheNewCap) {
  std::map<std::string, RoundCost> costs{{"a", RoundCost{2.0, 3.0, 4, 0.5}}};  // 0.25 s a point beyond the cap
  EXPECT_NEAR(predicted_round_s(costs, {"a", "unknown"}, 1.0), 2.0 + 4 * 1.25, 1e-9);
  EXPECT_NEAR(predicted_round_s(costs, {"a"}, 1.0, 1), 2.0 + 1 * 1.25, 1e-9) << "a focused round: its own point count";
}

JobPoint shape(std::uint64_t bytes) { return JobPoint{Collective::AllReduce, DType::Float32, bytes}; }

// The DDP job over sockets: one 64 MiB bucket carries most of the step, and of the intervals.
TEST(RaceFocus, TheWidestShapesUntilTheyCarryNineTenths) {
  const std::vector<ShapeWidth> w = {{shape(1), 5}, {shape(2), 50}, {shape(3), 15}, {shape(4), 30}};
  EXPECT_EQ(race_focus(w), (std::vector<JobPoint>{shape(2), shape(4), shape(3)})) << "50 + 30 = 80 % < 90 %, + 15 = 95 %";
  EXPECT_EQ(race_focus({{shape(1), 1}, {shape(2), 99}}), std::vector<JobPoint>{shape(2)});
}

TEST(RaceFocus, EveryShapeOrNoWidthIsNoFocus) {
  EXPECT_TRUE(race_focus({{shape(1), 50}, {shape(2), 50}}).empty()) << "both needed: the round measures every shape anyway";
  EXPECT_TRUE(race_focus({{shape(1), 0}, {shape(2), 0}}).empty()) << "no width known: every shape";
  EXPECT_TRUE(race_focus({}).empty());
}

// A round of every shape no longer fits, one on the shape that carries the intervals does.
TEST(NextRaceRound, AFocusedRoundRacesWhereAFullOneWouldNotFit) {
  RaceState s = state_after_first_round();
  s.contenders = {"sockets-8x8", "sockets-4x4"};
  s.elapsed_s = 110;  // 10 s left: 3 groups x (2 + 5 x 0.75) = 17.25 s; focused 3 x (2 + 1 x 0.75) = 8.25 s
  EXPECT_TRUE(next_race_round(s, RaceBudget{120, 0.5, 10}).next->variants);
  s.focus = {shape(64)};
  s.focus_points = 1;
  const RaceStep step = next_race_round(s, RaceBudget{120, 0.5, 10});
  ASSERT_TRUE(step.next);
  EXPECT_FALSE(step.next->variants);
  EXPECT_EQ(step.next->shapes, s.focus);
  EXPECT_NE(step.why.find("on the 1 shape(s) that carry most of their intervals"), std::string::npos) << step.why;
}

TEST(RaceStepJson, RoundTripsARoundAndAStop) {
  const JobPoint heavy{Collective::AllReduce, DType::BFloat16, 67108864};
  const RaceStep go{RaceRound{2, {"default", "sockets-4x4"}, 1.0, true, {heavy}}, "why"};
  const RaceStep back = nlohmann::json(go).get<RaceStep>();
  ASSERT_TRUE(back.next);
  EXPECT_EQ(back.next->round, 2);
  EXPECT_EQ(back.next->groups, go.next->groups);
  EXPECT_DOUBLE_EQ(back.next->max_time_s, 1.0);
  EXPECT_TRUE(back.next->variants);
  EXPECT_EQ(back.next->shapes, std::vector<JobPoint>{heavy});
  EXPECT_EQ(back.why, "why");
  const RaceStep stop = nlohmann::json(RaceStep{std::nullopt, "decided"}).get<RaceStep>();
  EXPECT_FALSE(stop.next);
  EXPECT_EQ(stop.why, "decided");
  EXPECT_THROW((void)nlohmann::json::parse(R"({"why": "x"})").get<RaceStep>(), nlohmann::json::exception);
}

}  // namespace
}  // namespace cctune::tuner::search
