#pragma once
// cctune.profile/1's optional "measured_baseline": [{collective, nranks, nnodes, size_bytes,
// time_us, busbw_GBps}, ...]. Reading refuses bad entries with one line naming the field.
#include <nlohmann/json.hpp>
#include <string>
#include <vector>

#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// Leaves `out` empty when the document has no "measured_baseline"; sets `error` on a bad one.
void read_measured_baseline(const nlohmann::json& top, std::vector<MeasuredBaseline>& out, std::string& error);
nlohmann::ordered_json measured_baseline_json(const std::vector<MeasuredBaseline>& baseline);

}  // namespace cctune::tuner
