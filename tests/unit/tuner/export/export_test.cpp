// The exported files, read the way their consumers read them: NCCL_CONF_FILE (mirror of
// NCCL's setEnvFile), bash (`set -a; . nccl.env`, run for real), NCCL's example tuner
// plugin CSV parser (mirror), and the tuner plugin's own profile parser.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <limits>
#include <unistd.h>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/results_json.hpp"
#include "tuner/export/env_file.hpp"
#include "tuner/export/outputs.hpp"
#include "tuner/export/tuner_conf.hpp"
#include "unit/tuner/export/reader_mirrors.hpp"

namespace cctune::tuner {
namespace {

namespace fs = std::filesystem;
using EnvMap = std::map<std::string, std::string>;

// `group`: the process-level group forced in, as tune --job's candidates are. The 8 x H200
// fixture's best group takes SMs, which tune itself withholds (do_no_harm.hpp): the file formats
// are tested on the profile with its environment and rules.
TuneOutputs tuned(const std::string& fixture, const std::string& group = "") {
  TuneOptions o;
  o.space = "default";
  o.force_group = group;
  return tune_results(load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/" + fixture), o);
}

fs::path temp_dir(const std::string& name) {
  fs::path d = fs::temp_directory_path() / ("cctune-tuning-" + name + "-" + std::to_string(::getpid()));
  fs::remove_all(d);
  fs::create_directories(d);
  return d;
}

// Sources the file in a clean bash and returns the environment it ends with.
std::map<std::string, std::string> source_in_bash(const fs::path& file) {
  const std::string cmd = "env -i /bin/bash -c 'set -a; . \"$0\" || exit 9; env' '" + file.string() + "' 2>&1; echo \"rc=$?\"";
  FILE* p = ::popen(cmd.c_str(), "r");
  if (!p) throw std::runtime_error("popen failed");
  std::string out;
  std::array<char, 4096> buf{};
  while (std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  ::pclose(p);
  std::map<std::string, std::string> env;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (auto eq = line.find('='); eq != std::string::npos) env[line.substr(0, eq)] = line.substr(eq + 1);
  return env;
}

TEST(EnvFile, ReadsTheSameInNcclAndBash) {
  Profile profile = tuned("h200x8_allreduce.results.json", "channels-32").profile;
  profile.env["NCCL_IB_HCA"] = "=mlx5_0:1,mlx5_1:1";  // '=' and ',' in a value
  profile.env["NCCL_SOCKET_IFNAME"] = "^lo,docker";
  const std::string text = format_env_file(profile, {"/opt/cctune/lib/libnccl-tuner-cctune.so", "/tmp/out/profile.json"});
  const std::map<std::string, std::string> expected = {
      {"NCCL_MIN_CTAS", "32"},
      {"NCCL_MAX_CTAS", "32"},
      {"NCCL_IB_HCA", "=mlx5_0:1,mlx5_1:1"},
      {"NCCL_SOCKET_IFNAME", "^lo,docker"},
      {"NCCL_TUNER_PLUGIN", "/opt/cctune/lib/libnccl-tuner-cctune.so"},
      {"CCTUNE_PROFILE", "/tmp/out/profile.json"}};

  const auto nccl = test::read_like_nccl_conf(text);
  EXPECT_EQ(EnvMap(nccl.begin(), nccl.end()), expected);
  EXPECT_EQ(nccl.size(), expected.size()) << "a key written twice";

  const fs::path dir = temp_dir("env");
  write_file_atomically((dir / "nccl.env").string(), text);
  const auto bash = source_in_bash(dir / "nccl.env");
  for (const auto& [k, v] : expected) EXPECT_EQ(bash.count(k) ? bash.at(k) : "<unset>", v) << k;
  EXPECT_EQ(bash.count("rc") ? bash.at("rc") : "", "0");
  for (const char* forbidden : {"\"", "'", "export ", " =", "= "}) EXPECT_EQ(text.find(forbidden), std::string::npos) << forbidden;
  fs::remove_all(dir);
}

// Issue 35: a group that wins with the buffer registration switch deploys it like any group
// setting: into the profile's env, nccl.env (as NCCL and bash read it) and back.
TEST(EnvFile, RegistrationSwitchOfTheWinningGroupRoundTrips) {
  const std::string hook = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK";
  Results results = load_results(std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/tuning/h200x8_allreduce.results.json");
  for (RunResult& run : results.runs)
    if (run.group == "channels-32") run.env[hook] = "1";
  TuneOptions o;
  o.space = "default";
  o.force_group = "channels-32";  // it takes SMs too: deployed only where a job race chose it
  const TuneOutputs out = tune_results(results, o);
  ASSERT_EQ(out.profile.env.count(hook), 1u) << "the winning group's switch is not in the profile";
  EXPECT_EQ(out.profile.env.at(hook), "1");

  const fs::path dir = temp_dir("register");
  const OutputPaths paths = write_tune_outputs(out, dir.string(), "/opt/cctune/lib/libnccl-tuner-cctune.so");
  const auto nccl = test::read_like_nccl_conf(read_file(paths.env_file));
  EXPECT_EQ(EnvMap(nccl.begin(), nccl.end()).at(hook), "1");
  const auto bash = source_in_bash(paths.env_file);
  EXPECT_EQ(bash.count(hook) ? bash.at(hook) : "<unset>", "1");
  const ProfileResult back = load_profile(paths.profile);
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(back.profile->env.at(hook), "1");
  fs::remove_all(dir);
}

TEST(EnvFile, RejectsWhatCannotBeWrittenUnquoted) {
  Profile profile = tuned("two_nodes.results.json").profile;
  EXPECT_THROW(format_env_file(profile, {"lib/libnccl-tuner-cctune.so", "/tmp/p.json"}), UsageError);
  EXPECT_THROW(format_env_file(profile, {"/my plugins/libnccl-tuner-cctune.so", "/tmp/p.json"}), UsageError);
  profile.env["NCCL_DEBUG_SUBSYS"] = "INIT;ENV";
  try {
    format_env_file(profile, {"/a/lib.so", "/tmp/p.json"});
    FAIL() << "';' accepted";
  } catch (const UsageError& e) {
    EXPECT_NE(std::string(e.what()).find("NCCL_DEBUG_SUBSYS"), std::string::npos);
  }
  EXPECT_FALSE(portable_env_value(""));
  EXPECT_FALSE(portable_env_value("$HOME"));
  EXPECT_FALSE(portable_env_value("a b"));
  EXPECT_TRUE(portable_env_value("=mlx5_0:1,mlx5_1:1"));
}

// Hardening: a space name is outside input (a space file, or meta.settings.space of a results
// file); one holding a newline put `touch ...` on a line of its own, which `. nccl.env` ran.
TEST(EnvFile, SpaceNameCannotStartALine) {
  Profile profile = tuned("h200x8_allreduce.results.json").profile;
  const fs::path dir = temp_dir("env-injection");
  const fs::path victim = dir / "pwned";
  profile.provenance.space = "x\ntouch " + victim.string() + "\r\n#";
  const std::string text = format_env_file(profile, {"/opt/cctune/lib/libnccl-tuner-cctune.so", "/tmp/out/profile.json"});
  write_file_atomically((dir / "nccl.env").string(), text);
  const auto bash = source_in_bash(dir / "nccl.env");
  EXPECT_EQ(bash.count("rc") ? bash.at("rc") : "", "0");
  EXPECT_FALSE(fs::exists(victim)) << text;
  for (std::size_t at = text.find('\n'); at != std::string::npos; at = text.find('\n', at + 1))
    EXPECT_NE(text.compare(at + 1, 5, "touch"), 0) << text;
  fs::remove_all(dir);
}

TEST(ExampleTunerConf, ParsesLikeNcclsExamplePlugin) {
  const TuneOutputs out = tuned("h200x8_allreduce.results.json", "channels-32");
  const std::string text = format_example_tuner_conf(out.profile, out.rule_observed_channels);
  std::string error;
  const auto lines = test::read_like_example_tuner(text, error);
  ASSERT_TRUE(lines) << error;
  ASSERT_EQ(lines->size(), out.profile.rules.size());
  for (std::size_t i = 0; i < lines->size(); ++i) {
    const auto& l = (*lines)[i];
    const ProfileRule& r = out.profile.rules[i];
    EXPECT_EQ(l.collective, profile_collective_name(r.collective));
    EXPECT_EQ(l.min_bytes, r.min_bytes);
    EXPECT_EQ(l.max_bytes, r.max_bytes);
    EXPECT_EQ(l.algorithm, to_string(r.algorithm));
    EXPECT_EQ(l.protocol, to_string(r.protocol));
    EXPECT_EQ(l.nnodes, r.nnodes);
    EXPECT_EQ(l.nranks, r.nranks);
    EXPECT_EQ(l.pipe_ops, -1);
    EXPECT_EQ(l.reg_buff, -1);
  }
  // Two rules since issue 35 (the 8-512 B ring/ll ch=4 rule no longer clears the tolerance with
  // its interval): ring/simple ch=32 at 4-32 MiB, tree/simple at 128 MiB.
  ASSERT_EQ(lines->size(), 2u);
  EXPECT_EQ((*lines)[0].channels, 32);
  EXPECT_EQ((*lines)[1].channels, 32);  // NCCL's own count there, as observed (the example pre-sets 1)
  EXPECT_EQ((*lines)[1].max_bytes, 128u << 20);  // the largest measured size: no extrapolation

  const TuneOutputs two = tuned("two_nodes.results.json");
  const auto two_lines = test::read_like_example_tuner(format_example_tuner_conf(two.profile, two.rule_observed_channels), error);
  ASSERT_TRUE(two_lines) << error;
  EXPECT_EQ((*two_lines)[0].channels, -1);  // never observed: keep NCCL's (as the example documents it)
  EXPECT_EQ((*two_lines)[1].channels, 16);
}

TEST(Outputs, WritesThreeFilesThatReadBack) {
  const TuneOutputs out = tuned("h200x8_allreduce.results.json");
  const fs::path dir = temp_dir("outputs");
  const OutputPaths paths = write_tune_outputs(out, (dir / "sub").string(), "/opt/cctune/lib/libnccl-tuner-cctune.so");
  EXPECT_EQ(paths.profile, (dir / "sub" / "profile.json").string());
  const ProfileResult back = load_profile(paths.profile);
  ASSERT_TRUE(back.profile) << back.error;
  EXPECT_EQ(*back.profile, out.profile);
  const auto env = test::read_like_nccl_conf(read_file(paths.env_file));
  EXPECT_EQ(EnvMap(env.begin(), env.end()).at("CCTUNE_PROFILE"), paths.profile);
  std::string error;
  EXPECT_TRUE(test::read_like_example_tuner(read_file(paths.tuner_conf), error)) << error;
  // A value that cannot be written fails before anything is replaced.
  TuneOutputs bad = out;
  bad.profile.env["NCCL_SOCKET_IFNAME"] = "eth 0";
  const std::string before = read_file(paths.profile);
  EXPECT_THROW(write_tune_outputs(bad, (dir / "sub").string(), "/x/libnccl-tuner-cctune.so"), UsageError);
  EXPECT_EQ(read_file(paths.profile), before);
  fs::remove_all(dir);
}

TEST(Outputs, FindsThePluginNextToTheExecutable) {
  const fs::path dir = temp_dir("plugin");
  fs::create_directories(dir / "bin");
  bool found = true;
  EXPECT_EQ(find_tuner_plugin((dir / "bin" / "cctune").string(), &found), (dir / "bin" / "lib" / kPluginFileName).string());
  EXPECT_FALSE(found);
  fs::create_directories(dir / "lib");
  std::ofstream(dir / "lib" / kPluginFileName) << "x";
  EXPECT_EQ(find_tuner_plugin((dir / "bin" / "cctune").string(), &found), fs::canonical(dir / "lib" / kPluginFileName).string());
  EXPECT_TRUE(found);
  fs::remove_all(dir);
}

TEST(Outputs, SummaryNamesGroupAndRules) {
  const std::string s = format_tune_summary(tuned("h200x8_allreduce.results.json", "channels-32"), true);
  EXPECT_NE(s.find("process-level group: channels-32 (NCCL_MAX_CTAS=32 NCCL_MIN_CTAS=32)"), std::string::npos) << s;
  EXPECT_NE(s.find("ring/ll"), std::string::npos);
  EXPECT_NE(s.find("tree/simple"), std::string::npos);
  EXPECT_NE(s.find("within noise"), std::string::npos);
}

}  // namespace
}  // namespace cctune::tuner
