#include "core/nccl_settings.hpp"

#include <algorithm>
#include <array>
#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune {

namespace {

constexpr std::array<std::string_view, 5> kOn = {"1", "y", "yes", "t", "true"};
constexpr std::array<std::string_view, 5> kOff = {"0", "n", "no", "f", "false"};

std::string listed(const std::array<std::string_view, 5>& values) {
  std::string out;
  for (const std::string_view v : values) out += (out.empty() ? "" : ", ") + std::string(v);
  return out;
}

}  // namespace

std::optional<bool> parse_register_setting(std::string_view value) noexcept {
  if (std::find(kOn.begin(), kOn.end(), value) != kOn.end()) return true;
  if (std::find(kOff.begin(), kOff.end(), value) != kOff.end()) return false;
  return std::nullopt;
}

std::string register_values_text() { return "on (" + listed(kOn) + ") or off (" + listed(kOff) + ")"; }

std::optional<SettingProblem> group_setting_problem(std::string_view key, std::string_view value) {
  if (!valid_env_name(key) || !is_nccl_setting_name(key))
    return SettingProblem{"is not an NCCL setting", "NCCL_ followed by letters, digits and '_', or " + std::string(kRegisterHookVariable)};
  if (key == "NCCL_TUNER_PLUGIN") return SettingProblem{"is set by cctune itself", "other NCCL_* variables"};
  if (key.ends_with("_PLUGIN") || key.ends_with("_FILE"))
    return SettingProblem{"names a library NCCL loads or a file it reads or writes, which a group may not choose",
                          "set it in your own environment (it reaches every side and worker), not in a group, profile or results file"};
  const std::string is = "is \"" + text::log_text(value, 64) + "\"";
  if (key == "NCCL_NVLS_ENABLE" && value != "0")
    return SettingProblem{is + ": a group may only disable NVLS (\"0\"); NCCL enables it where it can",
                          "NCCL_NVLS_ENABLE=0 to compare with NVLS off, or leave it out"};
  if (key == kRegisterHookVariable && !parse_register_setting(value))
    return SettingProblem{is + ", not a value PyTorch reads as " + register_values_text(), "1 to register the buffers, or 0"};
  return std::nullopt;
}

std::optional<SettingProblem> deployable_setting_problem(std::string_view key, std::string_view value) {
  if (std::optional<SettingProblem> p = group_setting_problem(key, value)) return p;
  if (!portable_env_value(value))
    return SettingProblem{"is \"" + text::log_text(value, 64) + "\", which nccl.env cannot carry unquoted",
                          "letters, digits and _ - . / : , = + @ % ^ only, not empty"};
  return std::nullopt;
}

bool register_buffers_requested(std::optional<std::string_view> value) {
  if (!value) return false;
  if (const std::optional<bool> on = parse_register_setting(*value)) return *on;
  throw UsageError(std::string(kRegisterHookVariable) + "=" + text::log_text(*value, 64) + " is not a value PyTorch reads as " +
                       register_values_text() + " (on: register the buffers with ncclCommRegister)",
                   "set " + std::string(kRegisterHookVariable) + " to 1 or 0, or unset it");
}

}  // namespace cctune
