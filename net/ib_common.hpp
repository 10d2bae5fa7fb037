#pragma once
// Small helpers shared by the ibverbs endpoint's source files (not a public API).
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <string>

namespace cctune::net::ib::detail {

using Clock = std::chrono::steady_clock;

// "call failed: <strerror>"; err 0 means "read errno" (the calls that return a pointer).
inline std::string verbs_error(const std::string& call, int err) {
  return call + " failed: " + std::strerror(err > 0 ? err : errno);
}

// Slots in the registered buffer start on 4 KiB boundaries.
inline constexpr std::size_t slot_align = 4096;
inline std::size_t round_up(std::size_t n) { return (n + slot_align - 1) / slot_align * slot_align; }

}  // namespace cctune::net::ib::detail
