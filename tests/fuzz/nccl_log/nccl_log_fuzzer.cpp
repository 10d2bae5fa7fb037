// libFuzzer target for NCCL logs (`cctune workload import` reads whatever file it is given).
// Passes when every input imports or raises cctune::Error (the bounds); any other exception,
// a crash or a sanitizer report is a finding. Both ways of reading a line are tried: with
// NCCL's host:pid:tid key required, and with lines without one taken (--format nccl-log).
#include <cstddef>
#include <cstdint>
#include <sstream>
#include <string>

#include "core/error.hpp"
#include "workload/nccl_log_import.hpp"
#include "workload/workload_json.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string text(reinterpret_cast<const char*>(data), size);
  for (const bool keyless : {false, true}) {
    try {
      std::istringstream in(text);
      cctune::workload::WorkloadBuilder builder;
      cctune::workload::import_nccl_log(in, builder, {"fuzz.log", keyless});
      const cctune::workload::Workload w = builder.finish("nccl-log", {"fuzz.log"});
      (void)cctune::workload::to_json(w).dump();  // what import writes next must hold too
    } catch (const cctune::Error&) {
    }
  }
  return 0;
}
