#include "core/nccl_settings.hpp"

#include <string>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune {

std::optional<bool> parse_register_setting(std::string_view value) noexcept {
  if (value == "1") return true;
  if (value == "0") return false;
  return std::nullopt;
}

bool register_buffers_requested(std::optional<std::string_view> value) {
  if (!value) return false;
  if (const std::optional<bool> on = parse_register_setting(*value)) return *on;
  throw UsageError(std::string(kRegisterHookVariable) + "=" + text::log_text(*value, 64) +
                       " is neither 1 (register the send and receive buffers with ncclCommRegister) nor 0",
                   "set " + std::string(kRegisterHookVariable) + " to 1 or 0, or unset it");
}

}  // namespace cctune
