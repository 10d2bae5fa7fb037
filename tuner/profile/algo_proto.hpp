#pragma once
// NCCL's algorithms and protocols with the spellings used in profiles and results.
// The enumerator values are NCCL's own indices into the tuner cost table (rows are
// algorithms, columns protocols), so the tuner plugin indexes the table with them directly.
#include <array>
#include <optional>
#include <string_view>

namespace cctune::tuner {

enum class Algorithm : int { Tree = 0, Ring = 1, CollnetDirect = 2, CollnetChain = 3, Nvls = 4, NvlsTree = 5, Pat = 6 };
enum class Protocol : int { LL = 0, LL128 = 1, Simple = 2 };

inline constexpr int kAlgorithmCount = 7;
inline constexpr int kProtocolCount = 3;

// "ring", "nvls_tree", "ll128", "simple": the profile/results spellings.
std::string_view to_string(Algorithm a) noexcept;
std::string_view to_string(Protocol p) noexcept;

// Case-insensitive, so NCCL's own spellings ("RING", "NVLS_TREE", "Simple", "LL128") parse too.
// nullopt for anything else; never throws (the tuner plugin calls these).
std::optional<Algorithm> parse_algorithm(std::string_view s) noexcept;
std::optional<Protocol> parse_protocol(std::string_view s) noexcept;

// From NCCL's integer index; nullopt when out of range.
std::optional<Algorithm> algorithm_from_index(int index) noexcept;
std::optional<Protocol> protocol_from_index(int index) noexcept;

const std::array<Algorithm, kAlgorithmCount>& all_algorithms() noexcept;
const std::array<Protocol, kProtocolCount>& all_protocols() noexcept;

}  // namespace cctune::tuner
