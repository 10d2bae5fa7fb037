#pragma once
// workload.json (cctune.workload/1; configs/schema/workload.schema.json, docs/WORKLOAD.md).
#include <nlohmann/json.hpp>

#include "workload/workload.hpp"

namespace cctune::workload {

nlohmann::json to_json(const Workload& w);
// Throws UsageError naming the field ("communicators[0].calls[3].bytes ...") for anything
// that is not a workload this version writes. The text was depth-checked by whoever parsed it.
Workload workload_from_json(const nlohmann::json& j);

}  // namespace cctune::workload
