#pragma once
// The types of results.json's own fields (meta, runs[], runs[].points[] and screened[]), checked
// before the typed read of core/results_json.cpp, so that a field of another type, or a missing
// required one, is one line naming it by its path ("runs[0].points[3].collective: expected a
// string, got an integer") in cctune's words, never nlohmann's "[json.exception.type_error.302]
// type must be string, but is number". Values (ranges, names) are still judged by the reader;
// the sections other modules own (topology, net, meta.settings) by theirs.
#include <string>

#include <nlohmann/json.hpp>

namespace cctune {

// Throws UsageError naming the first mistyped or missing field.
void check_results_fields(const nlohmann::json& doc);
// One point (a journal line's), named `where` ("point" under a journal line's position).
void check_point_fields(const nlohmann::json& point, const std::string& where);

}  // namespace cctune
