#pragma once
// Stands in for NCCL's logger function in plugin tests: records (level, message) pairs.
#include <cstdarg>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

namespace cctune::tuner::testing {

inline std::vector<std::pair<int, std::string>>& captured_log() {
  static std::vector<std::pair<int, std::string>> lines;
  return lines;
}

inline void capture_logger(int level, unsigned long /*flags*/, const char* /*file*/, int /*line*/, const char* fmt, ...) {
  char buffer[4096];
  va_list args;
  va_start(args, fmt);
  std::vsnprintf(buffer, sizeof buffer, fmt, args);
  va_end(args);
  captured_log().emplace_back(level, buffer);
}

inline int count_level(int level) {
  int n = 0;
  for (const auto& [l, m] : captured_log()) n += (l == level);
  return n;
}

inline std::string all_lines() {
  std::string s;
  for (const auto& [l, m] : captured_log()) s += "[" + std::to_string(l) + "] " + m + "\n";
  return s;
}

}  // namespace cctune::tuner::testing
