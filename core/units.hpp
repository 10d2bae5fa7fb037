#pragma once
// Byte sizes as users type them (nccl-tests style: 64K, 1M, 8G are binary multiples)
// and as we print them.
#include <cstdint>
#include <string>
#include <string_view>

namespace cctune {

inline constexpr double bytes_per_GB = 1e9;  // bandwidths use decimal GB, as nccl-tests

// Accepts "8", "64K", "1M", "8G", "512KiB", "2MiB", "1GB" (binary multiples throughout,
// as nccl-tests reads sizes). Throws UsageError naming `what` (e.g. "--max-bytes").
std::uint64_t parse_size(std::string_view text, std::string_view what = "size");

// 1048576 -> "1 MiB", 1536 -> "1.5 KiB", 8 -> "8 B".
std::string format_size(std::uint64_t bytes);

// Seconds as a short human duration: "45 s", "3 min 20 s", "1 h 05 min".
std::string format_duration(double seconds);

}  // namespace cctune
