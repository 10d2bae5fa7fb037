#pragma once
// What one supervisor tells the others at each agreement tick of a config group
// (GroupRunner::agree in group_runner.cpp): every supervisor gathers all of them (allgather_as)
// and acts on the same view: hand out NCCL's unique id, end the group when all are done, or
// stop it with the most telling failure.
#include <string>

#include <nlohmann/json_fwd.hpp>

#include "core/error_record.hpp"

namespace cctune::runtime {

struct SupervisorTick {
  int priority = 9;   // its worst local failure, group_runner.cpp's Priority (9: none)
  ErrorRecord error;  // that failure's kind, reason and fix
  bool done = false;  // all its workers finished the group
  std::string uid;    // NCCL's unique id from the supervisor of rank 0's worker, until handed out; else empty
};

// Its one JSON form. The reader is bounded: a missing or mistyped field, or a priority out of
// [0, 9], is a UsageError of one line naming the field; the error record reads as
// error_record_from_json does (nothing in it throws).
void to_json(nlohmann::json& j, const SupervisorTick& t);
void from_json(const nlohmann::json& j, SupervisorTick& t);

}  // namespace cctune::runtime
