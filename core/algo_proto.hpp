#pragma once
// NCCL's algorithms and protocols: the one name table of each, with the spellings of
// results, profiles, space files and --configs ("ring", "nvls_tree", "ll128", "simple").
// The enumerator values are NCCL's own indices into the tuner cost table (rows are
// algorithms, columns protocols), so the tuner plugin indexes the table with them directly.
//
// Header-only and allocation-free on purpose: the tuner plugin (libnccl-tuner-cctune.so)
// uses it on NCCL's launch path and links no cctune_core.
//
// NCCL's own choice ("auto") is std::optional's empty state, not an enumerator: an Auto
// value would be an index NCCL's cost table does not have, and every place that indexes the
// table or forces a choice would need to remember to check for it. With std::optional the
// type says where a choice may be left to NCCL (PointConfig) and where it may not (a rule).
#include <array>
#include <cctype>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace cctune {

enum class Algorithm : int { Tree = 0, Ring = 1, CollnetDirect = 2, CollnetChain = 3, Nvls = 4, NvlsTree = 5, Pat = 6 };
enum class Protocol : int { LL = 0, LL128 = 1, Simple = 2 };

inline constexpr int kAlgorithmCount = 7;
inline constexpr int kProtocolCount = 3;

// The wire spelling of "NCCL decides" (an empty std::optional).
inline constexpr std::string_view kAutoName = "auto";

namespace detail {

inline constexpr std::array<std::string_view, kAlgorithmCount> algorithm_names{
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
inline constexpr std::array<std::string_view, kProtocolCount> protocol_names{"ll", "ll128", "simple"};

inline bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) != std::tolower(static_cast<unsigned char>(b[i]))) return false;
  return true;
}

template <std::size_t N>
std::optional<int> find_name(const std::array<std::string_view, N>& names, std::string_view s) noexcept {
  for (std::size_t i = 0; i < N; ++i)
    if (equal_ignoring_case(names[i], s)) return static_cast<int>(i);
  return std::nullopt;
}

template <std::size_t N>
std::string join_names(const std::array<std::string_view, N>& names) {
  std::string out;
  for (std::string_view n : names) out.append(out.empty() ? "" : ", ").append(n);
  return out;
}

}  // namespace detail

inline std::string_view to_string(Algorithm a) noexcept {
  const auto i = static_cast<std::size_t>(a);
  return i < detail::algorithm_names.size() ? detail::algorithm_names[i] : std::string_view{"unknown"};
}
inline std::string_view to_string(Protocol p) noexcept {
  const auto i = static_cast<std::size_t>(p);
  return i < detail::protocol_names.size() ? detail::protocol_names[i] : std::string_view{"unknown"};
}
// "auto" for NCCL's own choice.
inline std::string_view to_string(std::optional<Algorithm> a) noexcept { return a ? to_string(*a) : kAutoName; }
inline std::string_view to_string(std::optional<Protocol> p) noexcept { return p ? to_string(*p) : kAutoName; }

// Case-insensitive, so NCCL's own spellings ("RING", "NVLS_TREE", "Simple", "LL128") parse too.
// nullopt for anything else ("auto" included); never throws (the tuner plugin calls these).
inline std::optional<Algorithm> parse_algorithm(std::string_view s) noexcept {
  if (auto i = detail::find_name(detail::algorithm_names, s)) return static_cast<Algorithm>(*i);
  return std::nullopt;
}
inline std::optional<Protocol> parse_protocol(std::string_view s) noexcept {
  if (auto i = detail::find_name(detail::protocol_names, s)) return static_cast<Protocol>(*i);
  return std::nullopt;
}

// From NCCL's integer index; nullopt when out of range.
inline std::optional<Algorithm> algorithm_from_index(int index) noexcept {
  if (index < 0 || index >= kAlgorithmCount) return std::nullopt;
  return static_cast<Algorithm>(index);
}
inline std::optional<Protocol> protocol_from_index(int index) noexcept {
  if (index < 0 || index >= kProtocolCount) return std::nullopt;
  return static_cast<Protocol>(index);
}

inline const std::array<Algorithm, kAlgorithmCount>& all_algorithms() noexcept {
  static constexpr std::array<Algorithm, kAlgorithmCount> all{Algorithm::Tree,         Algorithm::Ring, Algorithm::CollnetDirect,
                                                              Algorithm::CollnetChain, Algorithm::Nvls, Algorithm::NvlsTree,
                                                              Algorithm::Pat};
  return all;
}
inline const std::array<Protocol, kProtocolCount>& all_protocols() noexcept {
  static constexpr std::array<Protocol, kProtocolCount> all{Protocol::LL, Protocol::LL128, Protocol::Simple};
  return all;
}

// A set of algorithms as a bit mask (bit i: NCCL's algorithm index i). A plain integer on
// purpose: the tuner plugin builds and compares sets on NCCL's launch path without
// allocating, and results carry the same value through the process; names appear only
// where a file is read or written.
using AlgorithmSet = std::uint32_t;
constexpr AlgorithmSet algorithm_bit(Algorithm a) noexcept { return AlgorithmSet{1} << static_cast<int>(a); }
inline constexpr AlgorithmSet kEveryAlgorithm = (AlgorithmSet{1} << kAlgorithmCount) - 1;
constexpr bool contains(AlgorithmSet set, Algorithm a) noexcept { return (set & algorithm_bit(a)) != 0; }

// "ring/simple" ("auto" for a half left to NCCL): how results, tables and logs name a pair.
inline std::string algo_proto_name(std::optional<Algorithm> a, std::optional<Protocol> p) {
  return std::string(to_string(a)).append("/").append(to_string(p));
}

// "tree, ring, collnet_direct, ...", "ll, ll128, simple": for messages that list what is allowed.
inline std::string algorithm_name_list() { return detail::join_names(detail::algorithm_names); }
inline std::string protocol_name_list() { return detail::join_names(detail::protocol_names); }

// A choice as results and worker plans spell it: "auto" is NCCL's own (nullopt), anything
// else must be a known name. Throw UsageError naming the bad value and the valid ones
// (defined in core/algo_proto.cpp, part of cctune_core).
std::optional<Algorithm> parse_algorithm_choice(std::string_view s);
std::optional<Protocol> parse_protocol_choice(std::string_view s);

}  // namespace cctune
