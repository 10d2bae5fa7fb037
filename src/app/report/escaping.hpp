#pragma once
// The report's names for the escaping functions of core/text.hpp (one per sink: CSV,
// terminal; HTML goes through svg::escape, which is text::html_text).
#include "core/text.hpp"

namespace cctune::app::report {

using text::csv_field;
using text::terminal_text;

}  // namespace cctune::app::report
