// The writer never writes what its reader refuses (reliability review N11): every importer's
// output on every real capture in tests/fixtures, written by to_json and read back by
// workload_from_json, is the same workload. On 8646a77 the reader took no part in the importers'
// checks (negative ranks, roots outside the communicator, durations of 1e308 went through).
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "workload/flight_recorder_import.hpp"
#include "workload/inspector_import.hpp"
#include "workload/nccl_log_import.hpp"
#include "workload/workload_json.hpp"

namespace cctune::workload {
namespace {

namespace fs = std::filesystem;
const fs::path kCaptures = fs::path(CCTUNE_SOURCE_DIR) / "tests/fixtures/workload/captures-h100-torch2.11-nccl2.28.9";

void expect_round_trip(const Workload& w, const std::string& what) {
  ASSERT_FALSE(w.communicators.empty()) << what;
  const nlohmann::json written = nlohmann::json::parse(to_json(w).dump());
  Workload back;
  ASSERT_NO_THROW(back = workload_from_json(written)) << what;
  EXPECT_EQ(back, w) << what;
}

TEST(WorkloadRoundTrip, EveryImportersOutputReadsBack) {
  for (const char* job : {"ddp", "fsdp", "alltoall", "grouped"}) {
    const fs::path dir = kCaptures / job;
    WorkloadBuilder logs, dumps;
    for (int r : {0, 1}) {
      std::ifstream log(dir / ("nccl.rank" + std::to_string(r) + ".log"));
      import_nccl_log(log, logs);
      std::ifstream dump(dir / ("flight.rank" + std::to_string(r) + ".json"));
      import_flight_recorder(nlohmann::json::parse(dump), r, dumps, "flight.rank" + std::to_string(r) + ".json");
    }
    expect_round_trip(logs.finish("nccl-log", {"nccl.rank0.log"}), std::string(job) + " nccl-log");
    expect_round_trip(dumps.finish("flight-recorder", {"flight.rank0.json"}), std::string(job) + " flight-recorder");
  }
  InspectorReader inspector;
  for (const auto& f : fs::directory_iterator(kCaptures / "ddp/inspector/dump")) {
    std::ifstream in(f.path());
    inspector.read(in, f.path().string());
  }
  WorkloadBuilder b;
  inspector.add_to(b);
  expect_round_trip(b.finish("inspector", {"dump"}), "inspector");
}

}  // namespace
}  // namespace cctune::workload
