#pragma once
// What every workload fuzzer checks after an import: the workload it gives is one its own
// reader takes back unchanged (the writer never writes what the reader refuses).
#include <cstdlib>
#include <nlohmann/json.hpp>

#include "workload/workload_json.hpp"

inline void check_round_trip(const cctune::workload::Workload& w) {
  const nlohmann::json written = nlohmann::json::parse(cctune::workload::to_json(w).dump());
  if (!(cctune::workload::workload_from_json(written) == w)) std::abort();
}
