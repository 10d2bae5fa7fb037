#include "core/units.hpp"

#include <cctype>
#include <cmath>
#include <cstdio>
#include <limits>

#include "core/error.hpp"

namespace cctune {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  for (char& c : out) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return out;
}

int shift_for_suffix(const std::string& suffix) {
  if (suffix.empty() || suffix == "b") return 0;
  static const char* const units[] = {"k", "m", "g", "t"};
  for (int i = 0; i < 4; ++i) {
    const std::string u = units[i];
    if (suffix == u || suffix == u + "b" || suffix == u + "ib") return 10 * (i + 1);
  }
  return -1;
}

}  // namespace

std::uint64_t parse_size(std::string_view text, std::string_view what) {
  const std::string original(text);
  auto bad = [&](const std::string& why) {
    return UsageError(std::string(what) + " '" + original + "' is not a size: " + why,
                      "write bytes as 8, 64K, 1M, 8G or 512KiB");
  };
  std::size_t pos = 0;
  while (pos < text.size() && std::isspace(static_cast<unsigned char>(text[pos]))) ++pos;
  std::size_t digits_begin = pos;
  while (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) ++pos;
  if (pos == digits_begin) throw bad("it does not start with a number");
  if (pos - digits_begin > 19) throw bad("the number is too large");
  std::uint64_t value = std::stoull(std::string(text.substr(digits_begin, pos - digits_begin)));
  std::string suffix = lower(text.substr(pos));
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.back()))) suffix.pop_back();
  while (!suffix.empty() && std::isspace(static_cast<unsigned char>(suffix.front()))) suffix.erase(0, 1);
  const int shift = shift_for_suffix(suffix);
  if (shift < 0) throw bad("unknown unit '" + suffix + "'");
  if (shift > 0 && value > (std::numeric_limits<std::uint64_t>::max() >> shift)) throw bad("the size overflows 64 bits");
  return value << shift;
}

std::string format_size(std::uint64_t bytes) {
  static const char* const names[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  int unit = 0;
  double value = static_cast<double>(bytes);
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char buf[32];
  if (unit == 0 || value == std::floor(value))
    std::snprintf(buf, sizeof buf, "%.0f %s", value, names[unit]);
  else
    std::snprintf(buf, sizeof buf, "%.3g %s", value, names[unit]);
  return buf;
}

std::string format_duration(double seconds) {
  char buf[48];
  if (seconds < 0 || !std::isfinite(seconds)) return "?";
  const long s = std::lround(seconds);
  if (s < 60) std::snprintf(buf, sizeof buf, "%ld s", s);
  else if (s < 3600) std::snprintf(buf, sizeof buf, "%ld min %02ld s", s / 60, s % 60);
  else std::snprintf(buf, sizeof buf, "%ld h %02ld min", s / 3600, (s % 3600) / 60);
  return buf;
}

}  // namespace cctune
