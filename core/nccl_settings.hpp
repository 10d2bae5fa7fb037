#pragma once
// Which environment variables cctune treats as NCCL settings: what a config group may set, what
// a run records as the NCCL environment its workers ran with (results' nccl_env) and what
// `cctune tune` writes into nccl.env. That is every NCCL_* variable plus exactly one other:
// PyTorch's TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK, the one switch that registers a job's
// buffers with NCCL (ncclCommRegister). cctune's NCCL worker honours it too, so one variable
// carries buffer registration from a sweep's group to a deployed PyTorch job (docs/TUNING.md).
// Header-only predicates (tuner/profile uses core without linking it); the rest is in the .cpp.
#include <algorithm>
#include <cctype>
#include <optional>
#include <string>
#include <string_view>

namespace cctune {

inline constexpr std::string_view kRegisterHookVariable = "TORCH_NCCL_USE_TENSOR_REGISTER_ALLOCATOR_HOOK";

// NCCL_* or kRegisterHookVariable. Not any other TORCH_* variable: cctune measures nothing else
// of PyTorch's, so a group setting one would claim a gain it never measured.
inline bool is_nccl_setting_name(std::string_view key) noexcept { return key.starts_with("NCCL_") || key == kRegisterHookVariable; }

// An environment variable name: letters, digits and '_', not starting with a digit.
inline bool valid_env_name(std::string_view name) noexcept {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name[0]))) return false;
  return std::all_of(name.begin(), name.end(), [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; });
}

// True when bash, docker and NCCL read `value` identically written unquoted in nccl.env
// (tuner/export/env_file.hpp): letters, digits and _ - . / : , = + @ % ^ only, not empty.
inline bool portable_env_value(std::string_view value) noexcept {
  constexpr std::string_view extra = "_-./:,=+@%^";
  return !value.empty() && std::all_of(value.begin(), value.end(), [&](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || extra.find(c) != std::string_view::npos;
  });
}

// What a config group (a space file's group or `--env-group`) may not set, the one rule both
// apply before any worker starts: a name that is no NCCL setting, NCCL_TUNER_PLUGIN (cctune sets
// it), NCCL_NVLS_ENABLE other than 0 (NVLS is NCCL's to enable), a registration value PyTorch
// would refuse, and any NCCL_*_PLUGIN or NCCL_*_FILE: those name a library NCCL loads into the
// job or a file it reads or writes, so a group (which may come from someone else's space file,
// profile or results) could run code or write anywhere through them. The caller's own
// environment may set them: it reaches every side and worker. The value's characters are the
// caller's to check (a space file's placeholders are filled in later). nullopt when fine.
struct SettingProblem {
  std::string what;  // to follow the key's name: "is not an NCCL setting", "is \"1\": ..."
  std::string fix;   // what is allowed instead
};
std::optional<SettingProblem> group_setting_problem(std::string_view key, std::string_view value);

// The same rule for a setting that is already a value, not a placeholder: a profile's env, a
// results file's group env, `--env-group`. group_setting_problem, and a value nccl.env can carry
// unquoted (portable_env_value). Every path from a file into an environment goes through it.
std::optional<SettingProblem> deployable_setting_problem(std::string_view key, std::string_view value);

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
