#include "core/nccl_settings.hpp"

#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune {

std::optional<bool> parse_register_setting(std::string_view value) noexcept {
  for (const std::string_view on : {"1", "y", "yes", "t", "true"})
    if (value == on) return true;
  for (const std::string_view off : {"0", "n", "no", "f", "false"})
    if (value == off) return false;
  return std::nullopt;
}

bool register_buffers_requested(std::optional<std::string_view> value) {
  if (!value) return false;
  if (const std::optional<bool> on = parse_register_setting(*value)) return *on;
  throw UsageError(std::string(kRegisterHookVariable) + "=" + text::log_text(*value, 64) +
                       " is not a value PyTorch reads as on (1, y, yes, t, true: register the buffers with ncclCommRegister) or off (0, n, "
                       "no, f, false)",
                   "set " + std::string(kRegisterHookVariable) + " to 1 or 0, or unset it");
}

}  // namespace cctune
