#include <gtest/gtest.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/results_json.hpp"

using namespace cctune;

namespace {
Results sample() {
  Results r;
  r.meta.argv = {"cctune", "sweep"};
  r.meta.versions["mpi"] = "Open MPI v4.1.4";
  r.meta.hostnames = {"a", "b"};
  RunResult run;
  run.backend = "mpi";
  run.group = "default";
  run.nranks = 4;
  run.nnodes = 2;
  PointResult p;
  p.collective = Collective::AllGather;
  p.dtype = DType::Float64;
  p.in_place = true;
  p.size_bytes = 4096;
  p.count = 128;
  p.batch_us = 12.5;
  p.iter_us.median = 12.0;
  p.iter_us.count = 40;
  p.algbw_GBps = 0.3;
  p.busbw_GBps = 0.225;
  p.wrong = 0;
  p.chosen_algo = Algorithm::Ring;
  p.chosen_proto = Protocol::LL;
  p.chosen_channels = 4;
  run.points.push_back(p);
  PointResult s = p;
  s.status = PointStatus::Skipped;
  s.reason = "no float16 in MPI";
  run.points.push_back(s);
  r.runs.push_back(run);
  return r;
}
}  // namespace

TEST(ResultsJson, RoundTripKeepsEverything) {
  const Results r = sample();
  const nlohmann::json j = r;
  EXPECT_EQ(j["schema"], "cctune.results/2");
  const Results back = j.get<Results>();
  ASSERT_EQ(back.runs.size(), 1u);
  ASSERT_EQ(back.runs[0].points.size(), 2u);
  const auto& p = back.runs[0].points[0];
  EXPECT_EQ(p.collective, Collective::AllGather);
  EXPECT_EQ(p.dtype, DType::Float64);
  EXPECT_TRUE(p.in_place);
  EXPECT_EQ(p.size_bytes, 4096u);
  EXPECT_DOUBLE_EQ(p.batch_us, 12.5);
  EXPECT_EQ(p.chosen_algo, Algorithm::Ring);
  EXPECT_EQ(p.chosen_proto, Protocol::LL);
  EXPECT_EQ(back.runs[0].points[1].status, PointStatus::Skipped);
  EXPECT_EQ(back.runs[0].points[1].reason, "no float16 in MPI");
  EXPECT_EQ(nlohmann::json(back), j);
}

TEST(ResultsJson, TestModeIsKeptAndFound) {
  Results r = sample();
  EXPECT_EQ(test_mode_of(r), "");
  EXPECT_FALSE(nlohmann::json(r)["runs"][0].contains("test_mode"));  // a measurement carries no test keys
  r.runs[0].test_mode = test_mode_shared_gpu;
  r.runs[0].test_shared_gpu = 2;
  const nlohmann::json j = r;
  EXPECT_EQ(j["runs"][0]["test_mode"], "shared-gpu");
  EXPECT_EQ(j["runs"][0]["test_shared_gpu"], 2);
  const Results back = j.get<Results>();
  EXPECT_EQ(back.runs[0].test_shared_gpu, 2);
  EXPECT_EQ(test_mode_of(back), "shared-gpu");
  // meta.settings alone marks the file too (a run that never began still was a test).
  Results settings_only = sample();
  settings_only.meta.settings = ResultSection(nlohmann::json{{"test_mode", "shared-gpu"}});
  EXPECT_EQ(test_mode_of(settings_only), "shared-gpu");
}

TEST(ResultsJson, RejectsOtherSchemasAndTruncatedFiles) {
  const auto dir = std::filesystem::temp_directory_path() / ("cctune-rj-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string good = (dir / "good.json").string();
  save_results(sample(), good);
  EXPECT_EQ(load_results(good).runs.size(), 1u);

  const std::string text = nlohmann::json(sample()).dump();
  const std::string truncated = (dir / "truncated.json").string();
  std::ofstream(truncated) << text.substr(0, text.size() / 2);
  try {
    load_results(truncated);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("truncated.json"), std::string::npos);
  }
  nlohmann::json other = nlohmann::json(sample());
  other["schema"] = "cctune.results/99";
  const std::string v99 = (dir / "v99.json").string();
  std::ofstream(v99) << other.dump();
  try {
    load_results(v99);
    FAIL();
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("cctune.results/99"), std::string::npos);
  }
  std::filesystem::remove_all(dir);
}

// cctune.results/2: per-rank columns and places round-trip, are written one line per column,
// and must match nranks; /1 files (no per-rank data) still load, as /2.
TEST(ResultsJson, PerRankTimingsAndPlaces) {
  Results r = sample();
  r.runs[0].places = {{"a", 0, 0}, {"a", 1, 1}, {"b", 0, 0}, {"b", 1, -1}};
  r.runs[0].points[0].ranks = RankTimings{{12.5, 12.4, 12.6, 12.5}, {12.0, 11.9, 2.0, 12.1}, {10.0, 9.9, 0.0, 10.1}, {0, 0, 100, 0}};
  r.runs[0].points[0].ranks.batch_us[1] = 12.4000000001;  // written to 1 ns
  const auto dir = std::filesystem::temp_directory_path() / ("cctune-rj2-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string path = (dir / "r.json").string();
  save_results(r, path);
  std::ifstream in(path);
  const std::string text((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_NE(text.find("\"batch_us\": [12.5,12.4,12.6,12.5]"), std::string::npos) << text;
  EXPECT_NE(text.find("\"last_pct\": [0.0,0.0,100.0,0.0]"), std::string::npos) << text;
  const Results back = load_results(path);
  EXPECT_EQ(back.runs[0].places, r.runs[0].places);
  r.runs[0].points[0].ranks.batch_us[1] = 12.4;
  EXPECT_EQ(back.runs[0].points[0].ranks, r.runs[0].points[0].ranks);
  EXPECT_TRUE(back.runs[0].points[1].ranks.empty());

  nlohmann::json short_column = r;
  short_column["runs"][0]["points"][0]["ranks"]["last_pct"] = {0, 100};
  EXPECT_THROW(parse_results(short_column.dump(), "r.json"), UsageError);
  nlohmann::json wrong_length = r;
  wrong_length["runs"][0]["nranks"] = 8;
  EXPECT_THROW(parse_results(wrong_length.dump(), "r.json"), UsageError);
  nlohmann::json negative = r;
  negative["runs"][0]["points"][0]["ranks"]["wait_median_us"][0] = -1;
  EXPECT_THROW(parse_results(negative.dump(), "r.json"), UsageError);

  nlohmann::json v1 = sample();
  v1["schema"] = "cctune.results/1";
  v1["meta"]["schema"] = "cctune.results/1";
  const Results old = parse_results(v1.dump(), "old.json");
  EXPECT_EQ(old.meta.schema, "cctune.results/2");
  EXPECT_TRUE(old.runs[0].places.empty());
  EXPECT_TRUE(old.runs[0].points[0].ranks.empty());
  std::filesystem::remove_all(dir);
}

// Names are typed once read: a name cctune does not know is the file's one-line error,
// naming the file, the bad value and the valid ones.
TEST(ResultsJson, RefusesUnknownNamesNamingTheFile) {
  const auto error_of = [](const nlohmann::json& j) {
    try {
      parse_results(j.dump(), "r.json");
    } catch (const UsageError& e) {
      return e.describe();
    }
    return std::string("<no UsageError>");
  };
  nlohmann::json j = sample();
  j["runs"][0]["points"][0]["config"]["algo"] = "butterfly";
  EXPECT_EQ(error_of(j), "r.json: unknown NCCL algorithm 'butterfly'. Fix: use one of auto, tree, ring, collnet_direct, collnet_chain, nvls, nvls_tree, pat");
  j = sample();
  j["runs"][0]["points"][0]["chosen"]["proto"] = "ll64";
  EXPECT_EQ(error_of(j), "r.json: unknown NCCL protocol 'll64'. Fix: use one of auto, ll, ll128, simple");
  j = sample();
  j["runs"][0]["status"] = "done";
  EXPECT_EQ(error_of(j), "r.json: unknown run status 'done'. Fix: use one of ok, failed, interrupted");
  j = sample();
  j["meta"]["status"] = "finished";
  EXPECT_EQ(error_of(j), "r.json: unknown sweep status 'finished'. Fix: use one of running, complete, interrupted, failed");
  j = sample();
  j["runs"][0]["points"][0]["stop_reason"] = "luck";
  EXPECT_EQ(error_of(j), "r.json: unknown stop reason 'luck'. Fix: use one of noise, time, iterations, interrupted");
  // NCCL's own spellings are read as the same names.
  j = sample();
  j["runs"][0]["points"][0]["config"] = {{"algo", "RING"}, {"proto", "Simple"}, {"channels", 0}, {"graph", false}};
  const Results r = parse_results(j.dump(), "r.json");
  EXPECT_EQ(r.runs[0].points[0].config.algo, Algorithm::Ring);
  EXPECT_EQ(r.runs[0].points[0].config.proto, Protocol::Simple);
}

// Inside the process the offered algorithms are a set; names exist only in the file. An NCCL
// newer than this build may offer one it does not know: reading and writing the file back
// keeps that name, and a merge keeps it once.
TEST(ResultsJson, OfferedAlgorithmsKeepNamesThisBuildDoesNotKnow) {
  nlohmann::json j = sample();
  j["runs"][0]["points"][0]["chosen"]["offered"] = {"tree", "ring", "warp9"};
  j["runs"][0]["nccl_offered"] = {{"allgather", {"ring", "nvls", "warp9"}}, {"allreduce", {"tree"}}};
  const Results r = j.get<Results>();
  const AlgorithmOffer& point = r.runs[0].points[0].offered_algos;
  EXPECT_EQ(point.known, algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring));
  EXPECT_EQ(point.unknown, std::vector<std::string>{"warp9"});
  const AlgorithmOffer& run = r.runs[0].nccl_offered.at(Collective::AllGather);
  EXPECT_EQ(run, (AlgorithmOffer{algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls), {"warp9"}}));
  EXPECT_EQ(r.runs[0].nccl_offered.at(Collective::AllReduce), (AlgorithmOffer{algorithm_bit(Algorithm::Tree), {}}));
  EXPECT_EQ(nlohmann::json(r), j);  // the file's names, unchanged

  AlgorithmOffer merged = point;
  merged |= run;
  EXPECT_EQ(merged.known, algorithm_bit(Algorithm::Tree) | algorithm_bit(Algorithm::Ring) | algorithm_bit(Algorithm::Nvls));
  EXPECT_EQ(merged.unknown, std::vector<std::string>{"warp9"});

  // Byte for byte through the file.
  const auto dir = std::filesystem::temp_directory_path() / ("cctune-offer-" + std::to_string(::getpid()));
  std::filesystem::remove_all(dir);
  std::filesystem::create_directories(dir);
  save_results(r, (dir / "a.json").string());
  save_results(load_results((dir / "a.json").string()), (dir / "b.json").string());
  const auto text = [](const std::filesystem::path& p) {
    std::ifstream in(p);
    return std::string(std::istreambuf_iterator<char>(in), {});
  };
  const std::string a = text(dir / "a.json");
  EXPECT_NE(a.find("\"warp9\""), std::string::npos);
  EXPECT_EQ(a, text(dir / "b.json"));
  std::filesystem::remove_all(dir);
}

TEST(ResultsJson, RefusesMalformedOfferedLists) {
  for (const nlohmann::json& bad : {nlohmann::json("ring"), nlohmann::json{"ring", 7}, nlohmann::json{""}}) {
    nlohmann::json j = sample();
    j["runs"][0]["points"][0]["chosen"]["offered"] = bad;
    EXPECT_THROW(j.get<Results>(), UsageError) << bad.dump();
  }
  nlohmann::json j = sample();
  j["runs"][0]["nccl_offered"] = {{"warpcast", {"ring"}}};
  EXPECT_THROW(j.get<Results>(), UsageError);
  j["runs"][0]["nccl_offered"] = {"ring"};
  EXPECT_THROW(j.get<Results>(), UsageError);
}

// Review N15: results.json's own fields (meta, runs, points, screened) of another type, or
// missing, are one usage error in cctune's words; none escapes as nlohmann's
// "[json.exception.type_error.302] type must be string, but is number". Each field and
// container of two fixtures (trimmed to two points a run) is mistyped in turn; the sections
// other readers own (topology, net, meta.settings) are theirs to name.
namespace {

int mistyped_cases = 0;

void expect_named(const nlohmann::json& doc, const std::string& path) {
  ++mistyped_cases;
  try {
    parse_results(doc.dump(), "f.json");
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only().find("json.exception"), std::string::npos) << path << ": " << e.what_only();
  } catch (const std::exception& e) {
    ADD_FAILURE() << path << ": not a usage error: " << e.what();
  }
}

void mistype_each(nlohmann::json& doc, nlohmann::json& node, const std::string& path) {
  const auto try_value = [&](const nlohmann::json& wrong) {
    const nlohmann::json saved = node;
    node = wrong;
    expect_named(doc, path);
    node = saved;
  };
  if (node.is_object()) {
    for (auto& [key, child] : node.items())
      if (path + "." + key != "meta.settings") mistype_each(doc, child, path.empty() ? key : path + "." + key);
    try_value(5);
    try_value(nullptr);
  } else if (node.is_array()) {
    for (std::size_t i = 0; i < node.size(); ++i) mistype_each(doc, node[i], path + "[" + std::to_string(i) + "]");
    try_value("x");
  } else {
    try_value(node.is_string() ? nlohmann::json(7) : nlohmann::json("x"));
    try_value(nullptr);
  }
}

}  // namespace

TEST(ResultsJson, EveryMistypedFieldIsAUsageErrorInOurWords) {
  for (const char* name : {"failed_group.json", "nccl_tuned.json"}) {
    std::ifstream in(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/results/" + name);
    nlohmann::json doc = nlohmann::json::parse(in);
    doc.erase("topology");
    doc.erase("net");
    for (auto& run : doc["runs"])
      if (run["points"].size() > 2) run["points"].erase(run["points"].begin() + 2, run["points"].end());
    ASSERT_NO_THROW(parse_results(doc.dump(), name));
    for (auto& [key, child] : doc.items()) mistype_each(doc, child, key);
  }
  EXPECT_GT(mistyped_cases, 200);
  nlohmann::json doc = nlohmann::json::parse(std::ifstream(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/results/failed_group.json"));
  doc["runs"][0]["points"][0]["collective"] = 5;
  try {
    parse_results(doc.dump(), "f.json");
    ADD_FAILURE() << "accepted";
  } catch (const UsageError& e) {
    EXPECT_EQ(e.what_only(), "f.json: runs[0].points[0].collective: expected a string, got an integer");
  }
}

TEST(ResultsJson, OverlapFiguresRoundTripAndAreChecked) {
  Results r = sample();
  PointResult& p = r.runs[0].points[0];
  p.overlap = PointOverlap{6, 1.25, 8, 2.5};
  PointResult alone = p;
  alone.overlap.reset();
  r.runs[0].points.push_back(alone);
  const nlohmann::json j = r;
  EXPECT_EQ(j["runs"][0]["points"][0]["overlap"],
            (nlohmann::json{{"rounds", 6}, {"compute_slowdown", 1.25}, {"compute_us", 8.0}, {"compute_halfwidth_us", 2.5}}));
  EXPECT_FALSE(j["runs"][0]["points"].back().contains("overlap"));  // absent, not null: old outputs unchanged
  const Results back = parse_results(j.dump(), "r.json");
  EXPECT_EQ(back.runs[0].points[0].overlap, p.overlap);
  EXPECT_FALSE(back.runs[0].points.back().overlap);
  for (const nlohmann::json& bad :
       {nlohmann::json{{"rounds", 1}, {"compute_slowdown", 0}, {"compute_us", 1}},
        nlohmann::json{{"rounds", 1}, {"compute_slowdown", "1.2"}, {"compute_us", 1}},
        nlohmann::json{{"rounds", 1}, {"compute_slowdown", 1.2}},
        nlohmann::json{{"rounds", -1}, {"compute_slowdown", 1.2}, {"compute_us", 1}},
        nlohmann::json{{"rounds", 1}, {"compute_slowdown", 1.2}, {"compute_us", 1}, {"compute_halfwidth_us", -1}}}) {
    nlohmann::json mangled = j;
    mangled["runs"][0]["points"][0]["overlap"] = bad;
    EXPECT_THROW(parse_results(mangled.dump(), "r.json"), UsageError) << bad.dump();
  }
  // Written before the spread was recorded: nothing is proven about it, the whole compute_us.
  nlohmann::json older = j;
  older["runs"][0]["points"][0]["overlap"].erase("compute_halfwidth_us");
  EXPECT_DOUBLE_EQ(parse_results(older.dump(), "r.json").runs[0].points[0].overlap->compute_halfwidth_us, 8.0);
}
