// libFuzzer target for PyTorch flight-recorder dumps in JSON (workload/flight_recorder_import.hpp).
// Passes when every input imports or raises cctune::Error, and what it imports reads back.
#include <cstddef>
#include <cstdint>
#include <string>

#include "core/error.hpp"
#include "core/json_depth.hpp"
#include "import_check.hpp"
#include "workload/flight_recorder_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  if (cctune::json_nests_deeper_than(text)) return 0;  // the reader refuses these before parsing
  const nlohmann::json doc = nlohmann::json::parse(text, nullptr, false);
  if (doc.is_discarded()) return 0;
  try {
    cctune::workload::WorkloadBuilder b;
    cctune::workload::import_flight_recorder(doc, 0, b, "fuzz_rank0.json");
    check_round_trip(b.finish("flight-recorder", {"fuzz_rank0.json"}));
  } catch (const cctune::Error&) {
  }
  return 0;
}
