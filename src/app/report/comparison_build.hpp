#pragma once
// Building a Comparison from its input files, shared by matching.cpp, series.cpp, export.cpp and
// report_html.cpp: labels, the per-series point index, mismatches. Not part of the report API.
#include <map>
#include <utility>
#include <vector>

#include "app/report/matching.hpp"

namespace cctune::app::report {

// Per series: the points at each (table, size), in file order.
using PointIndex = std::vector<std::map<std::pair<TableKey, std::uint64_t>, std::vector<const PointResult*>>>;

std::string file_name(const InputFile& f, std::size_t index);
void assign_labels(Comparison& c, const std::vector<std::string>& requested);
std::vector<std::string> find_mismatches(const Comparison& c, const PointIndex& index);

}  // namespace cctune::app::report
