#pragma once
// The HTML report: one self-contained file (inline CSS and SVG, no scripts, no fetches;
// a Content-Security-Policy forbids any) with topology, busbw/latency plots, fraction of
// the physical limit, tuned-vs-default speedups, the network pair heatmap and problems.
// docs/REPORT.md lists the sections and the data-* attributes tests rely on.
#include <string>
#include <vector>

#include "app/report/matching.hpp"
#include "core/results.hpp"

namespace cctune::app::report {

// For `cctune sweep`: results already in memory; labels may be empty (derived from groups).
// `first_sections`: HTML sections of the caller's own placed before the others (cctune
// diagnose's verdict).
std::string render_report_html(const std::vector<Results>& results, const std::vector<std::string>& labels = {},
                               const std::string& first_sections = {});
// Renders and writes atomically; throws EnvironmentError naming the path.
void write_report(const std::string& path, const std::vector<Results>& results, const std::vector<std::string>& labels = {},
                  const std::string& first_sections = {});

// For `cctune report`: files already loaded and matched (build with allow_disjoint).
std::string render_report_html(const Comparison& c, const std::string& first_sections = {});

}  // namespace cctune::app::report
