#pragma once
// The report's plots as values, one function per kind; report_html.cpp renders them.
#include <optional>
#include <string>
#include <vector>

#include "app/report/matching.hpp"
#include "app/report/svg.hpp"

namespace cctune::app::report {

// busbw vs size: per series the NCCL-default line (marks where NCCL's algo/proto changes)
// and one dashed line per tuned config (or one "best tuned" line when there are many).
svg::LinePlot busbw_plot(const Comparison& c, const Table& t);
// Time per op of the default points up to 64 KiB; nullopt when no series has two such sizes.
std::optional<svg::LinePlot> latency_plot(const Comparison& c, const Table& t);
// busbw / physical limit in %, for series whose topology gives a limit; `notes` gets one
// line per limit used.
std::optional<svg::LinePlot> limit_plot(const Comparison& c, const Table& t, std::vector<std::string>& notes);
// Speedup of the best tuned point over the default, per size; nullopt without tuned points.
std::optional<svg::LinePlot> speedup_plot(const Comparison& c, const TableKey& key);

}  // namespace cctune::app::report
