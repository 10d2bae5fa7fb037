#pragma once
// Printers of a Comparison: an aligned text table for the terminal, CSV and JSON for
// scripts. They format only; matching.hpp computes.
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "app/report/matching.hpp"

namespace cctune::app::report {

void print_text(std::ostream& out, const Comparison& c);
// One row per (table, size, series) and per tuned point; columns in the header line.
void print_csv(std::ostream& out, const Comparison& c);
// Schema "cctune.compare/1" (docs/REPORT.md).
nlohmann::json to_json(const Comparison& c);

// "12.34", "-" and friends, shared by the printers and the HTML report.
std::string format_fixed(double v, int decimals = 2);
// Ratios and speedups: "1.25x"; below 0.1 two significant digits ("0.0061x", never an exponent) so that
// slow runs still show how slow.
std::string format_ratio(double v);

}  // namespace cctune::app::report
