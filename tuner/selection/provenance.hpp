#pragma once
// What a profile records about the conditions its rules were measured under, read from the
// results of the chosen process-level group: the algorithms NCCL offered per communicator
// shape (the tuner plugin steers only where nothing else is offered now) and the NCCL_*
// environment the measuring workers ran with.
#include <map>
#include <string>
#include <vector>

#include "core/results.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {

// The NCCL version the results were measured with (MAJOR.MINOR.PATCH of meta.versions.nccl):
// the profile's, which the plugin compares with the NCCL that loads it. Throws UsageError when
// the results carry none (MPI measurements) or another form.
std::string nccl_version_of(const Results& results);

// Per (collective, nranks, nnodes) of `group`'s NCCL runs: every algorithm any point saw
// offered. Shapes whose points recorded nothing (older results) get no entry.
std::vector<OfferedAlgorithms> offered_algorithms(const Results& results, const std::string& group);

// `group`'s first NCCL run's NCCL_* environment, without the sweep's own plugin variables.
std::map<std::string, std::string> baseline_environment(const Results& results, const std::string& group);

// The variables cctune sets only to measure (its in-executable plugin, emulated hosts), never
// a group's setting.
bool is_sweep_variable(const std::string& key);

}  // namespace cctune::tuner
