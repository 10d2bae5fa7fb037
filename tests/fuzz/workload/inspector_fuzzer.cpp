// libFuzzer target for NCCL Inspector's records, one per line or pretty-printed
// (workload/inspector_import.hpp). Passes when every input reads or raises cctune::Error, and
// what it imports reads back.
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "import_check.hpp"
#include "workload/inspector_import.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  try {
    (void)cctune::workload::looks_like_inspector(text);
    cctune::workload::InspectorReader reader;
    std::istringstream in(text);
    reader.read(in, "fuzz.log");
    cctune::workload::WorkloadBuilder b;
    reader.add_to(b);
    check_round_trip(b.finish("inspector", {"fuzz.log"}));
  } catch (const cctune::Error&) {
  }
  return 0;
}
