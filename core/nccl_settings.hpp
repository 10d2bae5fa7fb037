#pragma once
// Which environment variables cctune treats as NCCL settings: what a config group may set, what
// a run records as the NCCL environment its workers ran with (results' nccl_env) and what
// `cctune tune` writes into nccl.env. That is every NCCL_* variable plus exactly one other:
// PyTorch's TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK, the one switch that registers a job's
// buffers with NCCL (ncclCommRegister). cctune's NCCL worker honours it too, so one variable
// carries buffer registration from a sweep's group to a deployed PyTorch job (docs/TUNING.md).
// Header-only predicate (tuner/profile uses core without linking it); the parser is in the .cpp.
#include <optional>
#include <string>
#include <string_view>

namespace cctune {

inline constexpr std::string_view kRegisterHookVariable = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK";

// NCCL_* or kRegisterHookVariable. Not any other TORCH_* variable: cctune measures nothing else
// of PyTorch's, so a group setting one would claim a gain it never measured.
inline bool is_nccl_setting_name(std::string_view key) noexcept { return key.starts_with("NCCL_") || key == kRegisterHookVariable; }

// The values PyTorch's getCvarBool reads (c10d/Utils.hpp): "1", "y", "yes", "t", "true" -> true;
// "0", "n", "no", "f", "false" -> false; any other text -> nullopt (PyTorch fails on it too). So a
// caller's environment that PyTorch reads as on registers cctune's buffers too, never fails them.
std::optional<bool> parse_register_setting(std::string_view value) noexcept;
// Those values, for a message: "on (1, y, yes, t, true) or off (0, n, no, f, false)".
std::string register_values_text();

// The worker's decision, from the variable's value in its environment (nullopt: unset): whether
// to register its send and receive buffers. Throws UsageError naming the variable for a value
// parse_register_setting refuses.
bool register_buffers_requested(std::optional<std::string_view> value);

}  // namespace cctune
