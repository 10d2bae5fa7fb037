// The corpus of captures in tests/fixtures/workload/real (flight recorder, Inspector): each
// file beside its sidecar (<file>.sidecar.json: where it came from, the versions, and the
// shapes it should give, written by hand) imports to exactly those shapes.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <set>
#include <sstream>
#include <tuple>

#include "workload/flight_recorder_import.hpp"
#include "workload/inspector_import.hpp"
#include "workload/pickle_decoder.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
const fs::path kCorpus = fs::path(CCTUNE_SOURCE_DIR) / "tests/fixtures/workload/real";

// (communicator, nranks, collective or kind, dtype, count, bytes, calls, duration sum in ns)
using Shape = std::tuple<std::string, int, std::string, std::string, std::uint64_t, std::uint64_t, std::uint64_t, long long>;

std::string slurp(const fs::path& p) {
  std::ifstream in(p, std::ios::binary);
  std::stringstream s;
  s << in.rdbuf();
  return s.str();
}

Workload import(const json& side, const fs::path& file) {
  WorkloadBuilder b;
  const std::string format = side["format"];
  if (format == "inspector") {
    InspectorReader reader;
    std::ifstream in(file);
    reader.read(in, file.string());
    reader.add_to(b);
  } else {
    const std::string data = slurp(file);
    const json dump = format == "flight-recorder-pickle" ? decode_pickle(data, file.string()) : json::parse(data);
    import_flight_recorder(dump, side["rank"].get<int>(), b, file.string());
  }
  return b.finish(format, {file.string()});
}

std::set<Shape> shapes_of(const Workload& w) {
  std::set<Shape> out;
  for (const Communicator& c : w.communicators)
    for (const CallStats& s : c.calls)
      out.emplace(c.id, c.nranks, s.shape.kind == CallKind::Collective ? to_string(s.shape.collective) : to_string(s.shape.kind),
                  to_string(s.shape.dtype), s.shape.count, s.shape.bytes, s.calls, std::llround(s.durations.sum_us * 1000));
  return out;
}

std::set<Shape> expected(const json& side) {
  std::set<Shape> out;
  for (const json& s : side["shapes"])
    out.emplace(s["communicator"], s["nranks"], s.contains("collective") ? s["collective"] : s["kind"], s["dtype"], s["count"], s["bytes"],
                s["calls"], std::llround(s.value("duration_us_sum", 0.0) * 1000));
  return out;
}

TEST(WorkloadCorpus, EveryCaptureGivesItsHandWrittenShapes) {
  int files = 0;
  for (const char* dir : {"flight-recorder", "inspector"}) {
    for (const auto& entry : fs::directory_iterator(kCorpus / dir)) {
      const std::string name = entry.path().filename().string();
      if (!name.ends_with(".sidecar.json")) continue;
      const json side = json::parse(slurp(entry.path()));
      ASSERT_TRUE(side.contains("source") && side.contains("shapes")) << name;
      const fs::path file = entry.path().parent_path() / side["file"].get<std::string>();
      const Workload w = import(side, file);
      EXPECT_EQ(shapes_of(w), expected(side)) << file;
      EXPECT_EQ(workload_from_json(json::parse(to_json(w).dump())), w) << file;
      ++files;
    }
  }
  EXPECT_GE(files, 5);
}

}  // namespace
}  // namespace cctune::workload
