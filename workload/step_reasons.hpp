#pragma once
// Why a communicator's calls show no step, in words a user can act on (find_step's NoStep):
// `cctune verify --job` and `tune --job` print them when a run cannot be timed
// (src/app/job/job_sides.cpp), and `cctune workload import` when a capture shows no steps.
// Each says what the calls showed (the period they repeat and where it breaks, in call
// numbers over everything the communicator issued, and the shapes there), and each fix names
// more than --steps where more applies. Pure.
#include <cstdint>
#include <vector>

#include "workload/step_cadence.hpp"
#include "workload/step_search.hpp"

namespace cctune::workload::step_reasons {

// A region of units read as steps of `units_per_step` units each.
struct Reading {
  step_search::Region region;
  std::uint64_t units_per_step = 1;
};

NoStep no_calls();
// No sequence of up to kMaxStepCalls calls comes twice in a row; names a longer period that
// does, where one does.
NoStep no_repeat(const CadenceInput& in, const std::vector<std::uint32_t>& s);
NoStep too_few_steps(const CadenceInput& in, const std::vector<std::uint32_t>& s, const Reading& rd, std::uint64_t steps);
NoStep clock_went_back(const CadenceInput& in, std::uint64_t from_call, std::uint64_t to_call);
// --steps (CadenceInput::steps) that the calls contradict.
NoStep more_steps_than_calls(const CadenceInput& in);
NoStep steps_disagree(const CadenceInput& in, const step_search::Region& repeating);
NoStep steps_not_close(const CadenceInput& in, std::uint64_t period, std::uint64_t left);
NoStep told_step_too_long(const CadenceInput& in, const Reading& rd);

}  // namespace cctune::workload::step_reasons
