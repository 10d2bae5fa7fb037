#pragma once
// A search space (configs/spaces/*.json, schema configs/schema/space.schema.json): what a
// tuning sweep measures. In-process dimensions (algorithms, protocols, channel counts) are
// swept on one communicator; process-level groups (env settings NCCL reads once) each get
// their own workers. docs/TUNING.md "Search spaces".
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "core/algo_proto.hpp"
#include "core/collective.hpp"
#include "core/results.hpp"
#include "core/sizes.hpp"
#include "tuner/search/strategy.hpp"

namespace cctune::tuner {

// Conditions a group needs to be worth running; unmet ones skip it with a reason
// (tuner/space/requirements.cpp says when each is met).
enum class GroupRequirement {
  Net,                // "net": the job spans nodes
  Rdma,               // "rdma": RDMA NICs near the GPUs, and the caller does not turn them off
  Socket,             // "socket": traffic between nodes takes NCCL's socket transport
  SeveralInterfaces,  // "several_interfaces": two or more physical IP interfaces are up
  Pcie,               // "pcie": GPUs of a node that NVLink does not connect
};

struct GroupSpec {
  std::string name;
  std::map<std::string, std::string> env;  // values may be a placeholder: {nearest_nics}, {fastest_interfaces}
  std::vector<GroupRequirement> requires_;
  std::string description;
};

struct MeasureSpec {
  int warmup = 5;
  int min_iters = 20;
  double max_time_s = 0.5;
  double target_noise = 0.01;
};

struct SearchSpace {
  std::string name;
  std::string source;  // file it was read from
  std::string description;
  std::vector<Collective> collectives;
  SizeSequence sizes;
  std::vector<DType> dtypes{DType::Float32};  // "dtype": one name or a list
  std::vector<std::optional<Algorithm>> algorithms;  // nullopt: "auto" (NCCL's own choice)
  std::vector<std::optional<Protocol>> protocols;    // nullopt: "auto"
  std::vector<int> channels;            // 0: NCCL's count
  std::vector<GroupSpec> groups;
  MeasureSpec measure;
  search::StrategyKind strategy = search::StrategyKind::Exhaustive;
};

// The in-process configurations of the space, in file order (algorithms, then protocols,
// then channels): NCCL's own choice pairs "auto" with "auto", forced points pair forced
// values; mixed pairs are not part of the product (the plugin forces (algo, proto) pairs).
std::vector<PointConfig> in_process_configs(const SearchSpace& space, bool graph = false);

std::string to_string(GroupRequirement r);

// Parses and validates; throws UsageError naming `source`, the key and what is allowed.
SearchSpace parse_space(const std::string& json_text, const std::string& source);
// `name_or_path`: a file path (has a '/' or ends in .json), or a name looked up as
// <dir>/<name>.json in `search_dirs` in order. Throws UsageError listing what exists.
SearchSpace load_space(const std::string& name_or_path, const std::vector<std::string>& search_dirs);
// The file load_space would parse: its text and where it came from (a job reads it on one
// rank and hands the text to the others, so that every rank plans from the same bytes).
struct SpaceText {
  std::string text;
  std::string source;
};
// Its one JSON form, {text, source}, for the broadcast; the reader names a missing or mistyped
// field in one line.
void to_json(nlohmann::json& j, const SpaceText& t);
void from_json(const nlohmann::json& j, SpaceText& t);
SpaceText read_space_text(const std::string& name_or_path, const std::vector<std::string>& search_dirs);
// $CCTUNE_SPACES_DIR, then next to the executable (<exe>/../share/cctune/spaces, and
// <exe>/../configs/spaces for a build tree inside the checkout), then the source tree
// (not for an installed tree, which has <exe>/../share/cctune/spaces).
std::vector<std::string> default_space_dirs(const std::string& executable_path);

}  // namespace cctune::tuner
