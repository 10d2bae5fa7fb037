#pragma once
// A restricted reader of Python pickles (protocols 2 to 5) for the flight-recorder dump PyTorch
// writes on a timeout (TORCH_NCCL_DEBUG_INFO_TEMP_FILE; torch's jit Pickler, protocol 2, or
// Python's pickle module). It builds plain values only: dict, list, tuple (as a list), str,
// int, float, bool and None, into the JSON the dump's JSON form holds. Any opcode that would
// import a name or call one (GLOBAL, STACK_GLOBAL, REDUCE, BUILD, INST, OBJ, NEWOBJ, NEWOBJ_EX,
// EXT*, PERSID, BINPERSID), bytes, sets, out-of-band buffers and unknown opcodes are refused
// with one line naming the file, the offset and the opcode. Nothing is ever executed.
// Pure: the caller reads the file.
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cctune::workload {

struct PickleLimits {
  std::size_t values = std::size_t{4} << 20;  // values built, and values in the result (shared ones counted each time)
  int depth = 64;                             // containers nested in the result
};

// Throws UsageError naming `source` for anything but a well-formed pickle of plain values
// within the limits (dict keys must be str or int; int keys become their decimal text).
nlohmann::json decode_pickle(std::string_view data, const std::string& source, const PickleLimits& limits = {});

}  // namespace cctune::workload
