#pragma once
// `-d/--dtype` and `--op` of `cctune sweep`: comma-separated lists, or `all`, checked against
// what the chosen backend can run (collectives/capabilities.hpp) before anything is measured.
#include <string>
#include <vector>

#include "collectives/capabilities.hpp"
#include "core/collective.hpp"

namespace cctune::app {

struct TypeChoice {
  std::vector<DType> dtypes;
  std::vector<ReduceOp> ops;
};

// Resolves "float32,bfloat16" / "sum,max" / "all" for `collectives` on `backend`. A value named
// explicitly that the backend cannot run with some planned collective is a UsageError naming it
// and the fix ("--op avg: the mpi backend has no avg reduction; use --backend nccl or another
// --op"); values that came from `all` are dropped silently instead. Ops only matter when a
// reduction is planned. Throws UsageError for an unknown or empty entry.
TypeChoice resolve_types(const std::string& dtype_text, const std::string& op_text, const std::vector<Collective>& collectives,
                         BackendKind backend);
// The same for data types given as values (a search space's), each judged as if named.
TypeChoice resolve_types(const std::vector<DType>& dtypes, const std::string& op_text, const std::vector<Collective>& collectives,
                         BackendKind backend);

}  // namespace cctune::app
