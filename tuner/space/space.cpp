#include "tuner/space/space.hpp"

#include "core/sizes.hpp"

#include <algorithm>
#include <array>
#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <set>

#include "core/error.hpp"
#include "core/files.hpp"
#include "core/install_layout.hpp"
#include "core/json_depth.hpp"
#include "core/json_fields.hpp"
#include "core/nccl_settings.hpp"
#include "core/sizes.hpp"
#include "core/units.hpp"
#include "tuner/export/env_file.hpp"
#include "tuner/profile/algo_proto.hpp"
#include "tuner/profile/profile.hpp"

namespace cctune::tuner {
namespace {

using nlohmann::json;
namespace fs = std::filesystem;

// Every message: "space file F: key K: what is wrong; allowed: ...".
class SpaceReader {
 public:
  explicit SpaceReader(std::string source) : source_(std::move(source)) {}

  [[noreturn]] void fail(const std::string& key, const std::string& what, const std::string& allowed) const {
    throw UsageError("space file " + source_ + ": key \"" + key + "\": " + what,
                     allowed.empty() ? "fix the file (configs/schema/space.schema.json describes it)" : "allowed: " + allowed);
  }

  void only_keys(const json& obj, const std::string& where, const std::vector<std::string>& allowed) const {
    if (!obj.is_object()) fail(where, "must be an object", "an object with keys " + join(allowed));
    for (const auto& [k, v] : obj.items())
      if (std::find(allowed.begin(), allowed.end(), k) == allowed.end())
        fail(where.empty() ? k : where + "." + k, "unknown key", join(allowed));
  }

  std::vector<std::string> strings(const json& v, const std::string& key, const std::vector<std::string>& allowed) const {
    if (!v.is_array() || v.empty()) fail(key, "must be a non-empty array of strings", join(allowed));
    std::vector<std::string> out;
    for (const json& e : v) {
      if (!e.is_string()) fail(key, "holds a non-string " + e.dump(), join(allowed));
      std::string s = e.get<std::string>();
      if (!allowed.empty() && std::find(allowed.begin(), allowed.end(), s) == allowed.end())
        fail(key, "\"" + s + "\" is not allowed", join(allowed));
      if (std::find(out.begin(), out.end(), s) != out.end()) fail(key, "\"" + s + "\" is listed twice", join(allowed));
      out.push_back(s);
    }
    return out;
  }

  std::uint64_t size(const json& v, const std::string& key) const {
    if (v.is_number_unsigned()) return v.get<std::uint64_t>();
    if (!v.is_string()) fail(key, "must be a size such as 8, \"64K\", \"1M\", \"8G\"", "integers or strings like \"64K\"");
    try {
      return parse_size(v.get<std::string>(), key);
    } catch (const Error& e) {
      fail(key, e.what_only(), "integers or strings like \"8\", \"64K\", \"1M\", \"8G\"");
    }
  }

  double number(const json& v, const std::string& key, double lo, double hi) const {
    if (!v.is_number() || v.get<double>() < lo || v.get<double>() > hi)
      fail(key, "must be a number in [" + fmt(lo) + ", " + fmt(hi) + "], got " + v.dump(), "");
    return v.get<double>();
  }

  static std::string join(const std::vector<std::string>& v) {
    std::string s;
    for (const auto& x : v) s += (s.empty() ? "" : ", ") + x;
    return s;
  }
  static std::string fmt(double x) {
    std::string s = std::to_string(x);
    s.erase(s.find_last_not_of('0') + 1);
    if (!s.empty() && s.back() == '.') s.pop_back();
    return s;
  }

 private:
  std::string source_;
};

const std::vector<std::string> kTopKeys = {"schema", "name", "description", "collectives", "sizes", "dtype", "algorithms",
                                           "protocols", "channels", "groups", "measure", "strategy"};
const std::vector<std::string> kCollectives = {"allreduce", "allgather", "reducescatter", "broadcast", "reduce",
                                              "alltoall",  "sendrecv",  "gather",        "scatter"};
// "auto" and core's names (core/algo_proto.hpp), in NCCL's index order.
template <class Enum, std::size_t N>
std::vector<std::string> choice_names(const std::array<Enum, N>& all) {
  std::vector<std::string> out{std::string(kAutoName)};
  for (Enum e : all) out.emplace_back(to_string(e));
  return out;
}
const std::vector<std::string> kAlgorithms = choice_names(all_algorithms());
const std::vector<std::string> kProtocols = choice_names(all_protocols());
const std::vector<std::string> kDtypes = {"int8", "uint8", "int32", "uint32", "int64", "uint64", "float16", "float32", "float64", "bfloat16",
                                         "float8e4m3", "float8e5m2"};
const std::vector<std::string> kRequirements = {"net", "rdma", "socket", "several_interfaces", "pcie"};
const std::vector<std::string> kPlaceholders = {"{nearest_nics}", "{fastest_interfaces}"};

GroupRequirement requirement_of(const std::string& name) {
  if (name == "net") return GroupRequirement::Net;
  if (name == "rdma") return GroupRequirement::Rdma;
  if (name == "socket") return GroupRequirement::Socket;
  if (name == "several_interfaces") return GroupRequirement::SeveralInterfaces;
  return GroupRequirement::Pcie;  // r.strings admitted only kRequirements
}

SizeSequence read_sizes(const SpaceReader& r, const json& j) {
  r.only_keys(j, "sizes", {"min", "max", "factor", "list"});
  SizeSequence s;
  if (j.contains("list")) {
    if (j.contains("min") || j.contains("max") || j.contains("factor"))
      r.fail("sizes", "gives both a list and min/max/factor", "either {\"list\": [...]} or {\"min\", \"max\", \"factor\"}");
    const json& list = j.at("list");
    if (!list.is_array() || list.empty()) r.fail("sizes.list", "must be a non-empty array of sizes", "");
    if (list.size() > max_size_count)  // the same cap as the command line's sizes
      r.fail("sizes.list", "has " + std::to_string(list.size()) + " sizes, more than " + std::to_string(max_size_count),
             "at most " + std::to_string(max_size_count) + " sizes, or min/max/factor");
    for (const json& e : list) s.list.push_back(r.size(e, "sizes.list"));
    for (std::size_t i = 1; i < s.list.size(); ++i)
      if (s.list[i] <= s.list[i - 1]) r.fail("sizes.list", "sizes must be strictly increasing", "");
  } else {
    if (!j.contains("min") || !j.contains("max")) r.fail("sizes", "needs min and max (or a list)", "");
    s.min_bytes = r.size(j.at("min"), "sizes.min");
    s.max_bytes = r.size(j.at("max"), "sizes.max");
    if (s.min_bytes == 0 || s.min_bytes > s.max_bytes) r.fail("sizes", "min must be in [1, max]", "");
    if (j.contains("factor")) s.factor = r.number(j.at("factor"), "sizes.factor", 1.000001, 1024);
    try {
      s.expand();  // counts the sizes before anything plans with them
    } catch (const UsageError& e) {
      r.fail("sizes", e.what_only(), "a larger factor");
    }
  }
  return s;
}

// Optional text. j.value() would throw nlohmann's type_error, not a UsageError, on a
// description that is not a string (found by the space fuzzer).
std::string description_of(const SpaceReader& r, const json& j, const std::string& where) {
  const auto it = j.find("description");
  if (it == j.end()) return {};
  if (!it->is_string()) r.fail(where, "must be a string", "a sentence in quotes");
  return it->get<std::string>();
}

GroupSpec read_group(const SpaceReader& r, const json& j, std::size_t index) {
  const std::string where = "groups[" + std::to_string(index) + "]";
  r.only_keys(j, where, {"name", "env", "requires", "description"});
  GroupSpec g;
  if (!j.contains("name") || !j.at("name").is_string()) r.fail(where + ".name", "is missing or not a string", "");
  g.name = j.at("name").get<std::string>();
  const bool name_ok = !g.name.empty() && g.name.size() <= 64 && std::all_of(g.name.begin(), g.name.end(), [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '_' || c == '.';
  });
  if (!name_ok) r.fail(where + ".name", "\"" + g.name + "\" is not a group name", "letters, digits, '-', '_', '.', at most 64");
  g.description = description_of(r, j, where + ".description");
  if (j.contains("env")) {
    const json& env = j.at("env");
    if (!env.is_object()) r.fail(where + ".env", "must be an object of strings", "");
    for (const auto& [k, v] : env.items()) {
      if (!v.is_string()) r.fail(where + ".env." + k, "must be a string", "strings such as \"8388608\"");
      const std::string value = v.get<std::string>();
      if (const std::optional<SettingProblem> p = group_setting_problem(k, value)) r.fail(where + ".env." + k, p->what, p->fix);
      const bool placeholder = std::find(kPlaceholders.begin(), kPlaceholders.end(), value) != kPlaceholders.end();
      if (!placeholder && !portable_env_value(value))
        r.fail(where + ".env." + k, "value \"" + value + "\" cannot be written to nccl.env unquoted",
               "letters, digits and _ - . / : , = + @ % ^, or one of " + SpaceReader::join(kPlaceholders));
      g.env[k] = value;
    }
  }
  if (j.contains("requires"))
    for (const std::string& s : r.strings(j.at("requires"), where + ".requires", kRequirements))
      g.requires_.push_back(requirement_of(s));
  return g;
}

// "dtype": one name, or a list of distinct names (each is measured, as `-d a,b`).
std::vector<DType> read_dtypes(SpaceReader& r, const json& d) {
  if (!d.is_string() && !(d.is_array() && !d.empty()))
    r.fail("dtype", "must be a string or a non-empty list of strings", SpaceReader::join(kDtypes));
  std::vector<DType> out;
  for (const json& e : d.is_string() ? json::array({d}) : d) {
    const std::string name = e.is_string() ? e.get<std::string>() : e.dump();
    if (!e.is_string() || std::find(kDtypes.begin(), kDtypes.end(), name) == kDtypes.end())
      r.fail("dtype", name + " is not allowed", SpaceReader::join(kDtypes));
    if (std::find(out.begin(), out.end(), parse_dtype(name)) != out.end()) r.fail("dtype", name + " is listed twice", "");
    out.push_back(parse_dtype(name));
  }
  return out;
}

}  // namespace

std::vector<PointConfig> in_process_configs(const SearchSpace& space, bool graph) {
  std::vector<PointConfig> out;
  for (const std::optional<Algorithm>& a : space.algorithms)
    for (const std::optional<Protocol>& p : space.protocols)
      for (int ch : space.channels)
        if (a.has_value() == p.has_value()) out.push_back(PointConfig{a, p, ch, graph});
  return out;
}

std::string to_string(GroupRequirement r) {
  switch (r) {
    case GroupRequirement::Net: return "net";
    case GroupRequirement::Rdma: return "rdma";
    case GroupRequirement::Socket: return "socket";
    case GroupRequirement::SeveralInterfaces: return "several_interfaces";
    case GroupRequirement::Pcie: return "pcie";
  }
  return "?";
}

SearchSpace parse_space(const std::string& json_text, const std::string& source) {
  SpaceReader r(source);
  if (json_nests_deeper_than(json_text))
    throw UsageError("space file " + source + " nests arrays/objects deeper than " + std::to_string(max_json_depth) + " levels",
                     "a space file is a flat object of lists; see configs/spaces/");
  json j;
  try {
    j = json::parse(json_text);
  } catch (const json::exception& e) {  // parse_error, and out_of_range for a number like 5e555
    throw UsageError("space file " + source + " is not valid JSON: " + e.what(), "fix the JSON syntax");
  }
  if (const std::string bad = json_float_beyond_int(j); !bad.empty())
    throw UsageError("space file " + source + ": " + bad + ", out of range", "use sizes as strings (\"8G\") or integers");
  r.only_keys(j, "", kTopKeys);
  SearchSpace s;
  s.source = source;
  if (j.contains("schema") && j.at("schema") != "cctune.space/1")
    r.fail("schema", "is " + j.at("schema").dump(), "\"cctune.space/1\"");
  if (!j.contains("name") || !j.at("name").is_string()) r.fail("name", "is missing or not a string", "a short name");
  s.name = j.at("name").get<std::string>();
  s.description = description_of(r, j, "description");
  for (const char* required : {"collectives", "sizes", "algorithms", "protocols"})
    if (!j.contains(required)) r.fail(required, "is missing", "");
  for (const std::string& c : r.strings(j.at("collectives"), "collectives", kCollectives)) s.collectives.push_back(parse_collective(c));
  s.sizes = read_sizes(r, j.at("sizes"));
  if (j.contains("dtype")) s.dtypes = read_dtypes(r, j.at("dtype"));
  for (const std::string& a : r.strings(j.at("algorithms"), "algorithms", kAlgorithms)) s.algorithms.push_back(parse_algorithm_choice(a));
  for (const std::string& p : r.strings(j.at("protocols"), "protocols", kProtocols)) s.protocols.push_back(parse_protocol_choice(p));
  if (j.contains("channels")) {
    const json& ch = j.at("channels");
    if (!ch.is_array() || ch.empty()) r.fail("channels", "must be a non-empty array of integers", "0 (NCCL's count) to 64");
    for (const json& c : ch) {
      if (!c.is_number_integer() || c.get<long>() < 0 || c.get<long>() > kMaxRuleChannels)
        r.fail("channels", c.dump() + " is not a channel count", "integers 0 (NCCL's count) to 64");
      if (std::find(s.channels.begin(), s.channels.end(), c.get<int>()) != s.channels.end())
        r.fail("channels", c.dump() + " is listed twice", "");
      s.channels.push_back(c.get<int>());
    }
  } else {
    s.channels = {0};
  }
  if (std::find(s.algorithms.begin(), s.algorithms.end(), std::nullopt) == s.algorithms.end() ||
      std::find(s.protocols.begin(), s.protocols.end(), std::nullopt) == s.protocols.end() ||
      std::find(s.channels.begin(), s.channels.end(), 0) == s.channels.end())
    r.fail("algorithms", "NCCL's default (algorithm \"auto\", protocol \"auto\", channels 0) is missing",
           "spaces always measure NCCL's default: tuning only switches away from it beyond noise");
  if (j.contains("groups")) {
    const json& groups = j.at("groups");
    if (!groups.is_array() || groups.empty()) r.fail("groups", "must be a non-empty array of groups", "");
    std::set<std::string> names;
    for (std::size_t i = 0; i < groups.size(); ++i) {
      GroupSpec g = read_group(r, groups[i], i);
      if (!names.insert(g.name).second) r.fail("groups[" + std::to_string(i) + "].name", "\"" + g.name + "\" is used twice", "unique names");
      s.groups.push_back(std::move(g));
    }
  } else {
    s.groups.push_back({"default", {}, {}, "NCCL defaults"});
  }
  if (j.contains("measure")) {
    const json& m = j.at("measure");
    r.only_keys(m, "measure", {"warmup", "min_iters", "max_time_s", "target_noise"});
    if (m.contains("warmup")) s.measure.warmup = static_cast<int>(r.number(m.at("warmup"), "measure.warmup", 0, 10000));
    if (m.contains("min_iters")) s.measure.min_iters = static_cast<int>(r.number(m.at("min_iters"), "measure.min_iters", 1, 1e6));
    if (m.contains("max_time_s")) s.measure.max_time_s = r.number(m.at("max_time_s"), "measure.max_time_s", 0.001, 3600);
    if (m.contains("target_noise")) s.measure.target_noise = r.number(m.at("target_noise"), "measure.target_noise", 1e-4, 0.5);
  }
  if (j.contains("strategy")) {
    const json& st = j.at("strategy");
    const auto kind = st.is_string() ? search::parse_strategy(st.get<std::string>()) : std::nullopt;
    if (!kind) r.fail("strategy", "is " + st.dump(), "\"exhaustive\", \"halving\"");
    s.strategy = *kind;
  }
  return s;
}

SearchSpace load_space(const std::string& name_or_path, const std::vector<std::string>& search_dirs) {
  const SpaceText t = read_space_text(name_or_path, search_dirs);
  return parse_space(t.text, t.source);
}

void to_json(nlohmann::json& j, const SpaceText& t) { j = {{"text", t.text}, {"source", t.source}}; }

void from_json(const nlohmann::json& j, SpaceText& t) {
  const JsonFields f(j, "space text", "run the same cctune build on every node");
  t.text = f.get<std::string>("text");
  t.source = f.get<std::string>("source");
}

SpaceText read_space_text(const std::string& name_or_path, const std::vector<std::string>& search_dirs) {
  const bool is_path = name_or_path.find('/') != std::string::npos ||
                       (name_or_path.size() > 5 && name_or_path.substr(name_or_path.size() - 5) == ".json");
  if (is_path) return {read_file(name_or_path), name_or_path};
  std::set<std::string> known;
  for (const std::string& dir : search_dirs) {
    const fs::path p = fs::path(dir) / (name_or_path + ".json");
    std::error_code ec;
    if (fs::is_regular_file(p, ec)) return {read_file(p.string()), p.string()};
    for (const auto& e : fs::directory_iterator(dir, ec))
      if (e.path().extension() == ".json") known.insert(e.path().stem().string());
  }
  std::string list;
  for (const auto& k : known) list += (list.empty() ? "" : ", ") + k;
  std::string dirs;
  for (const auto& d : search_dirs) dirs += (dirs.empty() ? "" : ", ") + d;
  throw UsageError("no search space named \"" + name_or_path + "\" (looked in " + (dirs.empty() ? "no directory" : dirs) + ")",
                   list.empty() ? "pass a path to a space file, or set CCTUNE_SPACES_DIR" : "use one of: " + list + ", or a path to a space file");
}

std::vector<std::string> default_space_dirs(const std::string& executable_path) {
  std::vector<std::string> dirs;
  if (const char* env = std::getenv("CCTUNE_SPACES_DIR"); env && *env) dirs.emplace_back(env);
  for (std::string& d : data_dirs(executable_path, "spaces")) dirs.push_back(std::move(d));
  return dirs;
}

}  // namespace cctune::tuner
