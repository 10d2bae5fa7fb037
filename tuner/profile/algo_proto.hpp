#pragma once
// NCCL's algorithms and protocols with the spellings used in profiles and results.
// The enumerator values are NCCL's own indices into the tuner cost table (rows are
// algorithms, columns protocols), so the tuner plugin indexes the table with them directly.
#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

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

// A set of algorithms as a bit mask (bit i: NCCL's algorithm index i): no allocation, so the
// tuner plugin can compute and compare sets on the launch path.
using AlgorithmSet = std::uint32_t;
constexpr AlgorithmSet algorithm_bit(Algorithm a) noexcept { return AlgorithmSet{1} << static_cast<int>(a); }
inline constexpr AlgorithmSet kEveryAlgorithm = (AlgorithmSet{1} << kAlgorithmCount) - 1;
// Names in NCCL's index order ("tree", "ring", ...).
std::vector<std::string> algorithm_names(AlgorithmSet set);
// "nvls, nvls_tree"; empty for the empty set.
std::string join_algorithm_names(AlgorithmSet set);
// Unknown names are ignored (they come from files written by other versions).
AlgorithmSet algorithm_set(const std::vector<std::string>& names) noexcept;
const std::array<Protocol, kProtocolCount>& all_protocols() noexcept;

}  // namespace cctune::tuner
