#pragma once
// The space a results file was swept over, as meta.settings.space records it: written by the
// sweep (space_settings), seeded by sweep_meta, read by `cctune tune` for the profile's
// provenance. It sits with the run's meta, below both, so tune reads it without the sweep.
#include <string>

#include "core/results.hpp"

namespace cctune::app {

// The name of the space a results file was swept over ("" when none): meta.settings.space as
// space_settings writes it (or a plain name), parsed once (core/result_section.hpp). A record
// of another form is a UsageError of one line naming the field.
std::string space_name_of(const Results& results);
// Puts the space's name in place as the value space_name_of reads, for settings written in
// this process with space_settings (ResultSection::seed).
void seed_space_name(ResultSection& settings, std::string name);

}  // namespace cctune::app
