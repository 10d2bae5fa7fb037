// Every real NCCL log in tests/fixtures/workload/real/nccl-log/ imports with the numbers its
// manifest gives, counted by hand from the lines (issue 34).
#include <gtest/gtest.h>

#include <fstream>
#include <map>
#include <nlohmann/json.hpp>

#include "workload/nccl_log_import.hpp"

namespace cctune::workload {
namespace {

const std::string kCorpus = std::string(CCTUNE_SOURCE_DIR) + "/tests/fixtures/workload/real/nccl-log/";

// (collective or send/recv, dtype, count) -> (bytes, nranks, calls summed over communicators).
using Shapes = std::map<std::tuple<std::string, std::string, std::uint64_t>, std::tuple<std::uint64_t, int, std::uint64_t>>;

Shapes shapes_of(const Workload& w) {
  Shapes out;
  for (const Communicator& c : w.communicators)
    for (const CallStats& s : c.calls) {
      const std::string name = s.shape.kind == CallKind::Collective ? to_string(s.shape.collective) : to_string(s.shape.kind);
      auto& [bytes, nranks, calls] = out[{name, to_string(s.shape.dtype), s.shape.count}];
      bytes = s.shape.bytes;
      nranks = c.nranks;
      calls += s.calls;
    }
  return out;
}

struct Result {
  LogImportStats stats;
  Workload workload;
};

Result import_file(const std::string& name, bool keyless) {
  std::ifstream in(kCorpus + name);
  EXPECT_TRUE(in.good()) << name;
  WorkloadBuilder b;
  Result r;
  r.stats = import_nccl_log(in, b, {name, keyless});
  r.workload = b.finish("nccl-log", {name});
  return r;
}

TEST(NcclLogCorpus, EveryFileGivesItsHandWrittenNumbers) {
  std::ifstream in(kCorpus + "manifest.json");
  const nlohmann::json manifest = nlohmann::json::parse(in);
  ASSERT_GE(manifest.at("files").size(), 8u);
  for (const auto& entry : manifest.at("files")) {
    const std::string name = entry.at("file");
    ASSERT_FALSE(entry.at("url").get<std::string>().empty()) << name;
    const auto& expect = entry.at("expect");
    const Result r = import_file(name, false);
    EXPECT_EQ(r.stats.call_lines, expect.at("call_lines").get<long>()) << name;
    EXPECT_EQ(r.stats.skipped_lines, expect.at("skipped_lines").get<long>()) << name;
    if (expect.contains("skipped_lines_keyless")) {
      EXPECT_EQ(import_file(name, true).stats.skipped_lines, expect.at("skipped_lines_keyless").get<long>()) << name;
    }
    if (expect.contains("communicators")) {
      EXPECT_EQ(r.workload.communicators.size(), expect.at("communicators").get<std::size_t>()) << name;
    }
    if (expect.contains("groups")) {
      std::size_t groups = 0;
      for (const Communicator& c : r.workload.communicators) groups += c.groups.size();
      EXPECT_EQ(groups, expect.at("groups").get<std::size_t>()) << name;
    }
    Shapes want;
    for (const auto& s : expect.at("shapes"))
      want[{s.at(0).get<std::string>(), s.at(1).get<std::string>(), s.at(2).get<std::uint64_t>()}] = {
          s.at(3).get<std::uint64_t>(), s.at(4).get<int>(), s.at(5).get<std::uint64_t>()};
    EXPECT_EQ(shapes_of(r.workload), want) << name;
  }
}

}  // namespace
}  // namespace cctune::workload
