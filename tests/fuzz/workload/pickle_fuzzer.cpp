// libFuzzer target for the restricted pickle decoder (workload/pickle_decoder.hpp) and the
// flight-recorder import of what it decodes. Passes when every input decodes or raises
// cctune::Error; a crash, a sanitizer report, a leak or any other exception is a finding.
#include <cstddef>
#include <cstdint>
#include <string_view>

#include "core/error.hpp"
#include "import_check.hpp"
#include "workload/flight_recorder_import.hpp"
#include "workload/pickle_decoder.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  try {
    const nlohmann::json doc = cctune::workload::decode_pickle(bytes, "fuzz", cctune::workload::PickleLimits{100000, 64});
    cctune::workload::WorkloadBuilder b;
    cctune::workload::import_flight_recorder(doc, 0, b, "fuzz");
    check_round_trip(b.finish("flight-recorder", {"fuzz"}));
  } catch (const cctune::Error&) {
  }
  return 0;
}
