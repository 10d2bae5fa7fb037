#pragma once
// Which backend runs which (collective, data type, reduction op), known before anything is
// launched: the sweep refuses a combination a backend lacks with one line naming it and the
// fix, on every rank alike (docs/RESULTS.md, "Data types and ops"). The MPI backend keeps its
// own skip reasons behind this as a fallback. No MPI, CUDA or NCCL header: a pure table.
#include <optional>
#include <string>

#include "core/collective.hpp"

namespace cctune {

enum class BackendKind { Mpi, Nccl };

std::string to_string(BackendKind b);  // "mpi", "nccl"

// Why a backend cannot run one combination: `what` names the option value and the missing
// piece ("--op avg: the mpi backend has no avg reduction"), `fix` says what to use instead.
struct Incapability {
  std::string what;
  std::string fix;
};

// nullopt when `backend` runs collective `c` on `dtype` (with `op`, for reductions: the op of
// a non-reduction is ignored).
std::optional<Incapability> incapability(BackendKind backend, Collective c, DType dtype, ReduceOp op);

}  // namespace cctune
