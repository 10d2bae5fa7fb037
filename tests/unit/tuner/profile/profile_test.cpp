// The profile parser: what it accepts, what it refuses and how it says so, round trips.
#include <gtest/gtest.h>
#include <sys/stat.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>

#include <string>

#include "tuner/profile/profile.hpp"

namespace cctune::tuner {
namespace {

const std::string kFixture = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuner/";

std::string minimal_with_rule(const std::string& rule) {
  return R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "rules": [)" + rule + "]}";
}

const std::string kGoodRule =
    R"({"collective": "allreduce", "nranks": 8, "nnodes": 1, "min_bytes": 0, "max_bytes": 1023, "algo": "ring", "proto": "ll"})";

std::string error_of(const std::string& text) {
  ProfileResult r = parse_profile(text);
  EXPECT_FALSE(r.profile.has_value()) << text;
  EXPECT_FALSE(r.error.empty());
  return r.error;
}

// Issue 15 item 13: CCTUNE_PROFILE naming a FIFO blocked NCCL's init for ever.
TEST(ProfileLoad, FifoAndDeviceAreRefusedAtOnce) {
  const std::string fifo = (std::filesystem::temp_directory_path() / ("cctune-profile-fifo-" + std::to_string(::getpid()))).string();
  ASSERT_EQ(::mkfifo(fifo.c_str(), 0600), 0);
  const auto start = std::chrono::steady_clock::now();
  const ProfileResult r = load_profile(fifo);
  EXPECT_FALSE(r.profile.has_value());
  EXPECT_NE(r.error.find("not a regular file"), std::string::npos) << r.error;
  EXPECT_FALSE(load_profile("/dev/zero").profile.has_value());
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(1));
  std::filesystem::remove(fifo);
}

TEST(ProfileParse, ReadsEveryFieldOfTheFixture) {
  ProfileResult r = load_profile(kFixture + "unit_profile.json");
  ASSERT_TRUE(r.profile) << r.error;
  const Profile& p = *r.profile;
  EXPECT_EQ(p.provenance.nccl_version, "2.28.3");
  EXPECT_EQ(p.provenance.topology_fingerprint, "9f2c4e");
  EXPECT_EQ(p.provenance.results, "results/h200.json");
  EXPECT_EQ(p.env.at("NCCL_MIN_CTAS"), "32");
  ASSERT_EQ(p.rules.size(), 5u);
  const ProfileRule& r1 = p.rules[1];
  EXPECT_EQ(r1.collective, Collective::AllReduce);
  EXPECT_EQ(r1.nranks, 8);
  EXPECT_EQ(r1.nnodes, 1);
  EXPECT_EQ(r1.min_bytes, 1048576u);
  EXPECT_EQ(r1.max_bytes, 67108863u);
  EXPECT_EQ(r1.algorithm, Algorithm::Ring);
  EXPECT_EQ(r1.protocol, Protocol::Simple);
  EXPECT_EQ(r1.channels, 32);
  EXPECT_DOUBLE_EQ(r1.expected_speedup, 1.12);
  EXPECT_EQ(p.rules[2].max_bytes, UINT64_MAX);
  EXPECT_EQ(p.rules[3].collective, Collective::AllGather);
  EXPECT_EQ(p.rules[3].protocol, Protocol::LL128);
}

TEST(ProfileParse, FormatThenParseGivesTheSameProfile) {
  ProfileResult r = load_profile(kFixture + "unit_profile.json");
  ASSERT_TRUE(r.profile) << r.error;
  const std::string text = format_profile(*r.profile);
  ProfileResult again = parse_profile(text);
  ASSERT_TRUE(again.profile) << again.error << "\n" << text;
  EXPECT_EQ(*again.profile, *r.profile);
  EXPECT_EQ(text.rfind(R"({
  "schema": "cctune.profile/1",)", 0), 0u) << text;
}

TEST(ProfileParse, OptionalFieldsTakeTheirDefaults) {
  ProfileResult r = parse_profile(minimal_with_rule(kGoodRule));
  ASSERT_TRUE(r.profile) << r.error;
  EXPECT_EQ(r.profile->rules[0].channels, 0);
  EXPECT_DOUBLE_EQ(r.profile->rules[0].expected_speedup, 1.0);
  EXPECT_TRUE(r.profile->env.empty());
}

TEST(ProfileParse, AcceptsNcclSpellingsOfAlgorithmsAndProtocols) {
  ProfileResult r = parse_profile(minimal_with_rule(
      R"({"collective": "allreduce", "nranks": 8, "nnodes": 1, "min_bytes": 0, "max_bytes": 1, "algo": "NVLS_TREE", "proto": "Simple"})"));
  ASSERT_TRUE(r.profile) << r.error;
  EXPECT_EQ(r.profile->rules[0].algorithm, Algorithm::NvlsTree);
  EXPECT_EQ(r.profile->rules[0].protocol, Protocol::Simple);
}

TEST(ProfileParse, RefusesWhatIsNotAProfile) {
  EXPECT_NE(error_of("").find("not valid JSON"), std::string::npos);
  EXPECT_NE(error_of("[1, 2]").find("must be a JSON object"), std::string::npos);
  EXPECT_NE(error_of("{}").find("profile.schema is missing"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/2", "provenance": {}, "rules": []})").find("cctune.profile/1"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/1", "rules": []})").find("provenance is missing"), std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28"}, "rules": []})")
                .find("nccl_version"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "rules": {}})")
                .find("rules must be an array"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "env": {"NCCL_X": 1}, "rules": []})")
                .find("env"),
            std::string::npos);
}

// A profile from elsewhere sets only what a group may set (review R1, J16: LD_PRELOAD, BASH_ENV
// and cctune's own CCTUNE_WORKLOAD_STEPS reached the job through profile.env; J25: a profiler
// plugin path replaced cctune's profiler half). Refused in one line naming the key.
TEST(ProfileParse, EnvTakesOnlyWhatAGroupMaySet) {
  const auto with_env = [](const std::string& key, const std::string& value) {
    return R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3"}, "env": {")" + key + R"(": ")" + value +
           R"("}, "rules": []})";
  };
  EXPECT_TRUE(parse_profile(with_env("NCCL_MIN_CTAS", "32")).profile);
  const std::pair<std::string, std::string> refused[] = {
      {"LD_PRELOAD", "/tmp/marker.so"},   {"BASH_ENV", "/tmp/x.sh"},
      {"CCTUNE_WORKLOAD_STEPS", "7"},     {"NCCL_PROFILER_PLUGIN", "/opt/vendor/libnccl-profiler.so"},
      {"NCCL_TUNER_PLUGIN", "/tmp/t.so"}, {"NCCL_SOCKET_IFNAME", "eth0 eth1"},
  };
  for (const auto& [key, value] : refused) {
    const std::string e = error_of(with_env(key, value));
    EXPECT_NE(e.find("profile.env sets " + key), std::string::npos) << key << ": " << e;
    EXPECT_NE(e.find("refused"), std::string::npos) << e;
    EXPECT_EQ(e.find('\n'), std::string::npos) << e;
  }
}

TEST(ProfileParse, NamesTheBadFieldOfARule) {
  auto with = [](const std::string& field, const std::string& value) {
    std::string rule = kGoodRule;
    const std::string key = "\"" + field + "\": ";
    auto at = rule.find(key);
    if (at == std::string::npos) return minimal_with_rule(rule.substr(0, rule.size() - 1) + ", " + key + value + "}");
    auto end = rule.find_first_of(",}", at);
    return minimal_with_rule(rule.substr(0, at) + key + value + rule.substr(end));
  };
  EXPECT_NE(error_of(with("collective", "\"alltoall\"")).find("rules[0].collective"), std::string::npos);
  EXPECT_NE(error_of(with("algo", "\"butterfly\"")).find("rules[0].algo"), std::string::npos);
  EXPECT_NE(error_of(with("proto", "\"ll64\"")).find("rules[0].proto"), std::string::npos);
  EXPECT_NE(error_of(with("nranks", "0")).find("rules[0].nranks"), std::string::npos);
  EXPECT_NE(error_of(with("nranks", "8.5")).find("rules[0].nranks must be an integer"), std::string::npos);
  EXPECT_NE(error_of(with("nnodes", "9")).find("nnodes must be in [1, nranks]"), std::string::npos);
  EXPECT_NE(error_of(with("min_bytes", "-1")).find("rules[0].min_bytes"), std::string::npos);
  EXPECT_NE(error_of(with("max_bytes", "1e3")).find("rules[0].max_bytes"), std::string::npos);
  EXPECT_NE(error_of(with("max_bytes", "18446744073709551616")).find("rules[0].max_bytes"), std::string::npos);
  EXPECT_NE(error_of(with("min_bytes", "2048")).find("min_bytes is larger than max_bytes"), std::string::npos);
  EXPECT_NE(error_of(with("channels", "65")).find("rules[0].channels"), std::string::npos);
  EXPECT_NE(error_of(with("expected_speedup", "0")).find("expected_speedup"), std::string::npos);
  EXPECT_NE(error_of(minimal_with_rule("7")).find("rules[0] must be an object"), std::string::npos);
}

TEST(ProfileParse, ReadsWhatWasOfferedAndTheBaselineEnvironment) {
  ProfileResult r = load_profile(kFixture + "nvls_profile.json");
  ASSERT_TRUE(r.profile) << r.error;
  const ProfileProvenance& p = r.profile->provenance;
  ASSERT_EQ(p.offered.size(), 2u);
  EXPECT_EQ(p.offered[0], (OfferedAlgorithms{Collective::AllReduce, 8, 1,
                                             algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring) |
                                                 algorithm_bit(Algorithm::Nvls)}));
  EXPECT_EQ(p.offered[1].algorithms, algorithm_bit(Algorithm::Ring));
  EXPECT_EQ(p.baseline_env, (std::map<std::string, std::string>{{"NCCL_DEBUG", "WARN"}}));
  const ProfileResult back = parse_profile(format_profile(*r.profile));
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(*back.profile, *r.profile);
  // Absent, the offer is the one every earlier cctune measured under: NVLS off.
  EXPECT_TRUE(load_profile(kFixture + "unit_profile.json").profile->provenance.offered.empty());
  EXPECT_EQ(kUnrecordedOffer & algorithm_bit(Algorithm::Nvls), 0u);
  EXPECT_NE(kUnrecordedOffer & algorithm_bit(Algorithm::Ring), 0u);
}

TEST(ProfileParse, NamesTheBadFieldOfAnOfferedEntry) {
  const std::string head = R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3", "offered": [)";
  const std::string tail = R"(]}, "rules": []})";
  EXPECT_NE(error_of(head + R"({"collective": "allreduce", "nranks": 8, "nnodes": 1, "algorithms": ["warp"]})" + tail)
                .find("profile.provenance.offered[0].algorithms holds \"warp\""),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"collective": "allreduce", "nranks": 8, "algorithms": []})" + tail)
                .find("profile.provenance.offered[0].nnodes is missing"),
            std::string::npos);
  EXPECT_NE(error_of(head + R"({"collective": "alltoall", "nranks": 8, "nnodes": 1, "algorithms": []})" + tail)
                .find("offered[0].collective"),
            std::string::npos);
  EXPECT_NE(error_of(R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3", "baseline_env": {"A": 1}}, "rules": []})")
                .find("baseline_env"),
            std::string::npos);
}

TEST(ProfileParse, RefusesOverlappingRangesOfOneShape) {
  ProfileResult r = load_profile(kFixture + "overlapping_profile.json");
  ASSERT_FALSE(r.profile);
  EXPECT_NE(r.error.find("overlap"), std::string::npos) << r.error;
  EXPECT_NE(r.error.find("overlapping_profile.json"), std::string::npos) << r.error;
}

TEST(ProfileParse, SameRangesForOtherShapesDoNotOverlap) {
  const std::string a = kGoodRule;
  std::string b = kGoodRule;
  b.replace(b.find("\"nranks\": 8"), 11, "\"nranks\": 4");
  std::string c = kGoodRule;
  c.replace(c.find("allreduce"), 9, "allgather");
  ProfileResult r = parse_profile(minimal_with_rule(a + "," + b + "," + c));
  EXPECT_TRUE(r.profile) << r.error;
}

TEST(ProfileParse, RefusesDeepNestingBeforeParsing) {
  std::string deep(100000, '[');
  EXPECT_NE(error_of(deep).find("deeper"), std::string::npos);
  // Brackets inside strings do not count.
  ProfileResult r = parse_profile(R"({"schema": "cctune.profile/1", "provenance": {"nccl_version": "2.28.3", "space": "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[["}, "rules": []})");
  EXPECT_TRUE(r.profile) << r.error;
}

TEST(ProfileParse, MissingFileNamesThePath) {
  ProfileResult r = load_profile("/nonexistent/cctune/profile.json");
  ASSERT_FALSE(r.profile);
  EXPECT_NE(r.error.find("/nonexistent/cctune/profile.json"), std::string::npos);
}

TEST(ProfileParse, MalformedFixtureIsAnErrorNotACrash) {
  ProfileResult r = load_profile(kFixture + "malformed_profile.json");
  ASSERT_FALSE(r.profile);
  EXPECT_NE(r.error.find("not valid JSON"), std::string::npos) << r.error;
}

TEST(NcclVersion, CodesAsNcclGetVersionReturnsThem) {
  EXPECT_EQ(nccl_version_code("2.28.3"), 22803);
  EXPECT_EQ(nccl_version_code("2.28.9"), 22809);
  EXPECT_EQ(nccl_version_code("2.9.6"), 20906);
  EXPECT_FALSE(nccl_version_code("2.28"));
  EXPECT_FALSE(nccl_version_code("2.28.3-1"));
  EXPECT_FALSE(nccl_version_code("v2.28.3"));
  EXPECT_FALSE(nccl_version_code(""));
  EXPECT_EQ(nccl_version_string(22809), "2.28.9");
}

TEST(AlgoProto, NamesRoundTripAndMatchNcclIndices) {
  for (Algorithm a : all_algorithms()) EXPECT_EQ(parse_algorithm(to_string(a)), a);
  for (Protocol p : all_protocols()) EXPECT_EQ(parse_protocol(to_string(p)), p);
  EXPECT_EQ(static_cast<int>(Algorithm::Ring), 1);  // NCCL_ALGO_RING
  EXPECT_EQ(static_cast<int>(Algorithm::Pat), 6);   // NCCL_ALGO_PAT
  EXPECT_EQ(static_cast<int>(Protocol::Simple), 2);  // NCCL_PROTO_SIMPLE
  EXPECT_FALSE(algorithm_from_index(7));
  EXPECT_FALSE(protocol_from_index(-1));
}

// tune --job races no candidate twice: two profiles that steer NCCL alike are one, whatever
// their measurements say; a different choice or range is another.
TEST(SameEffect, ComparesTheChoicesNotTheMeasurements) {
  Profile a;
  a.env = {{"NCCL_MIN_NCHANNELS", "16"}};
  a.rules.push_back({Collective::AllReduce, 8, 1, 1024, 65536, Algorithm::Ring, Protocol::LL, 4, 1.2, {{1024, 3.5}}});
  Profile b = a;
  b.rules[0].expected_speedup = 1.7;
  b.rules[0].measured_busbw_GBps.clear();
  b.provenance.nccl_version = "2.28.3";
  EXPECT_TRUE(same_choice(a.rules[0], b.rules[0]));
  EXPECT_TRUE(same_effect(a, b));
  b.rules[0].channels = 8;
  EXPECT_FALSE(same_choice(a.rules[0], b.rules[0]));
  EXPECT_FALSE(same_effect(a, b));
  b = a;
  b.rules[0].max_bytes = 131072;
  EXPECT_FALSE(same_effect(a, b)) << "another byte range is another rule";
  b = a;
  b.env.clear();
  EXPECT_FALSE(same_effect(a, b)) << "the env is part of what a profile does";
  b = a;
  b.rules.push_back(a.rules[0]);
  EXPECT_FALSE(same_effect(a, b)) << "one more rule";
}

}  // namespace
}  // namespace cctune::tuner
