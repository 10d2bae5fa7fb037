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

}  // namespace cctune::app::report
