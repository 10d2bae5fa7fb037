#include "tuner/profile/algo_proto.hpp"

namespace cctune::tuner {

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

}  // namespace cctune::tuner
