// nccl.env read by the real NCCL through NCCL_CONF_FILE: a helper process loads libnccl,
// calls ncclGetUniqueId (which runs NCCL's initEnv; no GPU needed) and prints what NCCL
// put in its environment. Skipped, with the reason, where no libnccl was found at build time.
#include <gtest/gtest.h>

#include <array>
#include <cstdio>
#include <filesystem>
#include <map>
#include <sstream>
#include <unistd.h>

#include "core/files.hpp"
#include "tuner/export/env_file.hpp"

namespace cctune::tuner {
namespace {

std::map<std::string, std::string> probe(const std::string& conf_file) {
  std::string cmd = "env -i PATH=/usr/bin:/bin HOME=/nonexistent";
  if (!conf_file.empty()) cmd += " NCCL_CONF_FILE='" + conf_file + "'";
  cmd += " '" CCTUNE_NCCL_CONF_PROBE "' '" CCTUNE_TUNING_LIBNCCL "' NCCL_MIN_CTAS NCCL_IB_HCA NCCL_TUNER_PLUGIN CCTUNE_PROFILE 2>&1";
  FILE* p = ::popen(cmd.c_str(), "r");
  std::string out;
  std::array<char, 4096> buf{};
  while (p && std::fgets(buf.data(), buf.size(), p)) out += buf.data();
  if (p) ::pclose(p);
  std::map<std::string, std::string> values;
  std::istringstream in(out);
  std::string line;
  while (std::getline(in, line))
    if (auto eq = line.find('='); eq != std::string::npos) values[line.substr(0, eq)] = line.substr(eq + 1);
  return values;
}

TEST(NcclConfFile, RealNcclReadsTheEnvFile) {
  if (std::string(CCTUNE_TUNING_LIBNCCL).empty()) GTEST_SKIP() << "no libnccl found at configure time (set NCCL_HOME)";
  Profile profile;
  profile.provenance.nccl_version = "2.28.9";
  profile.env = {{"NCCL_MIN_CTAS", "32"}, {"NCCL_IB_HCA", "=mlx5_0:1,mlx5_3:1"}};
  const auto dir = std::filesystem::temp_directory_path() / ("cctune-ncclconf-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  const std::string file = (dir / "nccl.env").string();
  write_file_atomically(file, format_env_file(profile, {"/opt/cctune/lib/libnccl-tuner-cctune.so", "/opt/p/profile.json"}));

  const auto without = probe("");  // control: nothing set without the file
  ASSERT_EQ(without.count("unique_id_rc"), 1u) << "the probe did not run";
  EXPECT_EQ(without.at("NCCL_MIN_CTAS"), "<unset>");
  const auto with = probe(file);
  std::printf("NCCL version code %s\n", with.count("nccl_version") ? with.at("nccl_version").c_str() : "?");
  EXPECT_EQ(with.at("NCCL_MIN_CTAS"), "32");
  EXPECT_EQ(with.at("NCCL_IB_HCA"), "=mlx5_0:1,mlx5_3:1");
  EXPECT_EQ(with.at("NCCL_TUNER_PLUGIN"), "/opt/cctune/lib/libnccl-tuner-cctune.so");
  EXPECT_EQ(with.at("CCTUNE_PROFILE"), "/opt/p/profile.json");
  std::filesystem::remove_all(dir);
}

}  // namespace
}  // namespace cctune::tuner
