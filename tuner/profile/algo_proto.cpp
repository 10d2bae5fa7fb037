#include "tuner/profile/algo_proto.hpp"

#include <cctype>

namespace cctune::tuner {
namespace {

constexpr std::array<std::string_view, kAlgorithmCount> kAlgorithmNames{
    "tree", "ring", "collnet_direct", "collnet_chain", "nvls", "nvls_tree", "pat"};
constexpr std::array<std::string_view, kProtocolCount> protocol_names{"ll", "ll128", "simple"};

bool equal_ignoring_case(std::string_view a, std::string_view b) noexcept {
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

}  // namespace

std::string_view to_string(Algorithm a) noexcept {
  const auto i = static_cast<std::size_t>(a);
  return i < kAlgorithmNames.size() ? kAlgorithmNames[i] : std::string_view{"unknown"};
}

std::string_view to_string(Protocol p) noexcept {
  const auto i = static_cast<std::size_t>(p);
  return i < protocol_names.size() ? protocol_names[i] : std::string_view{"unknown"};
}

std::optional<Algorithm> parse_algorithm(std::string_view s) noexcept {
  if (auto i = find_name(kAlgorithmNames, s)) return static_cast<Algorithm>(*i);
  return std::nullopt;
}

std::optional<Protocol> parse_protocol(std::string_view s) noexcept {
  if (auto i = find_name(protocol_names, s)) return static_cast<Protocol>(*i);
  return std::nullopt;
}

std::optional<Algorithm> algorithm_from_index(int index) noexcept {
  if (index < 0 || index >= kAlgorithmCount) return std::nullopt;
  return static_cast<Algorithm>(index);
}

std::optional<Protocol> protocol_from_index(int index) noexcept {
  if (index < 0 || index >= kProtocolCount) return std::nullopt;
  return static_cast<Protocol>(index);
}

const std::array<Algorithm, kAlgorithmCount>& all_algorithms() noexcept {
  static constexpr std::array<Algorithm, kAlgorithmCount> all{Algorithm::Tree,         Algorithm::Ring, Algorithm::CollnetDirect,
                                                              Algorithm::CollnetChain, Algorithm::Nvls, Algorithm::NvlsTree,
                                                              Algorithm::Pat};
  return all;
}

std::vector<std::string> algorithm_names(AlgorithmSet set) {
  std::vector<std::string> out;
  for (Algorithm a : all_algorithms())
    if (set & algorithm_bit(a)) out.emplace_back(to_string(a));
  return out;
}

std::string join_algorithm_names(AlgorithmSet set) {
  std::string out;
  for (const std::string& name : algorithm_names(set)) out += (out.empty() ? "" : ", ") + name;
  return out;
}

AlgorithmSet algorithm_set(const std::vector<std::string>& names) noexcept {
  AlgorithmSet set = 0;
  for (const std::string& name : names)
    if (auto a = parse_algorithm(name)) set |= algorithm_bit(*a);
  return set;
}

const std::array<Protocol, kProtocolCount>& all_protocols() noexcept {
  static constexpr std::array<Protocol, kProtocolCount> all{Protocol::LL, Protocol::LL128, Protocol::Simple};
  return all;
}

}  // namespace cctune::tuner
