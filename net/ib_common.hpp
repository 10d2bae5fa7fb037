#pragma once
// Small helpers shared by the ibverbs endpoint's source files (not a public API).
#include <cerrno>
#include <chrono>
#include <cstddef>
#include <cstring>
#include <functional>
#include <string>

#include "core/error.hpp"

namespace cctune::net::ib::detail {

using Clock = std::chrono::steady_clock;

// "call failed: <strerror>"; err 0 means "read errno" (the calls that return a pointer).
inline std::string verbs_error(const std::string& call, int err) {
  return call + " failed: " + std::strerror(err > 0 ? err : errno);
}

// Slots in the registered buffer start on 4 KiB boundaries.
inline constexpr std::size_t slot_align = 4096;
inline std::size_t round_up(std::size_t n) { return (n + slot_align - 1) / slot_align * slot_align; }

// Spin loops ask the clock and the stop flag only every this many empty polls: both cost
// far more than one ibv_poll_cq, and a million spins still take well under a second.
inline constexpr long spin_check_mask = 0xfffff;

// A stop request (SIGINT/SIGTERM) ends a busy wait on the peer at once instead of after
// the transfer timeout (review 2026-11-24 F14); the pair is recorded as failed.
inline void throw_if_stopped(const std::function<bool()>& stop) {
  if (stop && stop()) throw RuntimeFailure("stopped by a signal");
}

}  // namespace cctune::net::ib::detail
