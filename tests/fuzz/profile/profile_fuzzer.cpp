// libFuzzer target for the profile parser (the tuner plugin parses whatever file
// CCTUNE_PROFILE names inside users' jobs). Beyond "no crash, no sanitizer report":
// a parsed profile must be valid, survive format -> parse unchanged, and its lookup table
// must find each rule at both ends of its range.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string_view>

#include "tuner/profile/profile.hpp"
#include "tuner/profile/rule_table.hpp"

namespace {

void require(bool condition) {
  if (!condition) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace cctune::tuner;
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const ProfileResult result = parse_profile(text);
  if (!result.profile) {
    require(!result.error.empty());
    return 0;
  }
  const Profile& profile = *result.profile;
  require(result.error.empty());
  require(validate_profile(profile).empty());

  const ProfileResult again = parse_profile(format_profile(profile));
  require(again.profile.has_value());
  require(*again.profile == profile);

  for (std::size_t i = 0; i < profile.rules.size() && i < 64; ++i) {
    const ProfileRule& rule = profile.rules[i];
    const RuleTable table = RuleTable::for_communicator(profile, rule.nranks, rule.nnodes);
    for (std::uint64_t bytes : {rule.min_bytes, rule.max_bytes}) {
      const RuleChoice* found = table.find(rule.collective, bytes);
      require(found != nullptr && found->rule_index == i);
    }
  }
  return 0;
}
