#include "tuner/profile/profile.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <array>
#include <cctype>
#include <charconv>
#include <cmath>
#include <fstream>
#include <limits>
#include <numeric>
#include <sstream>
#include <nlohmann/json.hpp>

#include "core/collective_traits.hpp"
#include "core/json_depth.hpp"
#include "core/nccl_settings.hpp"
#include "core/text.hpp"
#include "tuner/profile/baseline_json.hpp"

namespace cctune::tuner {
namespace {

using nlohmann::json;


// nlohmann's parser is iterative, but deep nesting still costs memory and recursion in
// places we do not control; a profile is at most four levels deep, so refuse early.
constexpr int kMaxNesting = 32;

// Reads fields of one JSON object; the first problem wins and names the field's path.
class FieldReader {
 public:
  FieldReader(const json& object, std::string path, std::string& error) : object_(object), path_(std::move(path)), error_(error) {}

  const json* find(const char* key, bool required) {
    auto it = object_.find(key);
    if (it == object_.end()) {
      if (required) fail(key, "is missing");
      return nullptr;
    }
    return &*it;
  }

  void string(const char* key, std::string& out, bool required) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_string()) return fail(key, "must be a string");
    out = v->get<std::string>();
  }

  void integer(const char* key, std::int64_t lo, std::int64_t hi, int& out, bool required) {
    const json* v = find(key, required);
    if (!v) return;
    if (!v->is_number_integer()) return fail(key, "must be an integer");
    if (v->is_number_unsigned() ? v->get<std::uint64_t>() > static_cast<std::uint64_t>(hi)
                                : (v->get<std::int64_t>() < lo || v->get<std::int64_t>() > hi))
      return fail(key, "must be in [" + std::to_string(lo) + ", " + std::to_string(hi) + "]");
    out = static_cast<int>(v->get<std::int64_t>());
  }

  void byte_count(const char* key, std::uint64_t& out) {
    const json* v = find(key, true);
    if (!v) return;
    if (!v->is_number_unsigned()) return fail(key, "must be an integer in [0, 18446744073709551615]");
    out = v->get<std::uint64_t>();
  }

  void number(const char* key, double& out) {
    const json* v = find(key, false);
    if (!v) return;
    if (!v->is_number()) return fail(key, "must be a number");
    out = v->get<double>();
  }

  void fail(const char* key, const std::string& why) {
    if (error_.empty()) error_ = path_ + "." + key + " " + why;
  }

 private:
  const json& object_;
  std::string path_;
  std::string& error_;
};

// [[size_bytes, busbw_GBps], ...]: optional (profiles before it had none).
constexpr std::size_t kMaxMeasuredPoints = 256;

void read_measured(const json& rule, const std::string& path, std::vector<std::pair<std::uint64_t, double>>& out,
                   std::string& error) {
  auto it = rule.find("measured_busbw_GBps");
  if (it == rule.end() || !error.empty()) return;
  const std::string bad = path + ".measured_busbw_GBps must be a list of at most " + std::to_string(kMaxMeasuredPoints) +
                          " [size_bytes, busbw_GBps] pairs with a positive busbw";
  if (!it->is_array() || it->size() > kMaxMeasuredPoints) return void(error = bad);
  for (const json& p : *it) {
    if (!p.is_array() || p.size() != 2 || !p[0].is_number_unsigned() || !p[1].is_number() ||
        !std::isfinite(p[1].get<double>()) || !(p[1].get<double>() > 0))
      return void(error = bad);
    out.emplace_back(p[0].get<std::uint64_t>(), p[1].get<double>());
  }
}

ProfileRule read_rule(const json& j, std::size_t index, std::string& error) {
  const std::string path = "rules[" + std::to_string(index) + "]";
  ProfileRule rule;
  if (!j.is_object()) {
    error = path + " must be an object";
    return rule;
  }
  FieldReader r(j, path, error);
  std::string collective, algorithm, protocol;
  r.string("collective", collective, true);
  r.integer("nranks", 1, std::numeric_limits<int>::max(), rule.nranks, true);
  r.integer("nnodes", 1, std::numeric_limits<int>::max(), rule.nnodes, true);
  r.byte_count("min_bytes", rule.min_bytes);
  r.byte_count("max_bytes", rule.max_bytes);
  r.string("algo", algorithm, true);
  r.string("proto", protocol, true);
  r.integer("channels", 0, kMaxRuleChannels, rule.channels, false);
  r.number("expected_speedup", rule.expected_speedup);
  read_measured(j, path, rule.measured_busbw_GBps, error);
  if (!error.empty()) return rule;
  if (auto c = parse_profile_collective(collective)) rule.collective = *c;
  else r.fail("collective", "\"" + collective + "\" is not one of allreduce, allgather, reducescatter, broadcast, reduce");
  if (auto a = parse_algorithm(algorithm)) rule.algorithm = *a;
  else r.fail("algo", "\"" + algorithm + "\" is not one of " + algorithm_name_list());
  if (auto p = parse_protocol(protocol)) rule.protocol = *p;
  else r.fail("proto", "\"" + protocol + "\" is not one of " + protocol_name_list());
  return rule;
}

void read_string_map(FieldReader& reader, const char* key, std::map<std::string, std::string>& out) {
  const json* map = reader.find(key, false);
  if (!map) return;
  if (!map->is_object()) return reader.fail(key, "must be an object of strings");
  for (const auto& [k, v] : map->items()) {
    if (!v.is_string()) return reader.fail(key, "value of " + k + " must be a string");
    out[k] = v.get<std::string>();
  }
}

void read_offered(FieldReader& reader, std::vector<OfferedAlgorithms>& out, std::string& error) {
  const json* list = reader.find("offered", false);
  if (!list) return;
  if (!list->is_array() || list->size() > kMaxProfileRules) return reader.fail("offered", "must be an array of at most 100000 entries");
  for (std::size_t i = 0; i < list->size() && error.empty(); ++i) {
    const json& j = (*list)[i];
    const std::string path = "profile.provenance.offered[" + std::to_string(i) + "]";
    if (!j.is_object()) {
      error = path + " must be an object";
      return;
    }
    FieldReader r(j, path, error);
    OfferedAlgorithms o;
    std::string collective;
    r.string("collective", collective, true);
    r.integer("nranks", 1, std::numeric_limits<int>::max(), o.nranks, true);
    r.integer("nnodes", 1, std::numeric_limits<int>::max(), o.nnodes, true);
    const json* algos = r.find("algorithms", true);
    if (!error.empty()) return;
    if (auto c = parse_profile_collective(collective)) o.collective = *c;
    else return r.fail("collective", "\"" + collective + "\" is not a collective a profile can tune");
    if (!algos->is_array()) return r.fail("algorithms", "must be an array of algorithm names");
    for (const json& a : *algos) {
      const auto algorithm = a.is_string() ? parse_algorithm(a.get<std::string>()) : std::nullopt;
      if (!algorithm) return r.fail("algorithms", "holds " + a.dump() + ", not one of " + algorithm_name_list());
      o.algorithms |= algorithm_bit(*algorithm);
    }
    out.push_back(o);
  }
}

Profile read_profile(const json& doc, std::string& error) {
  Profile profile;
  if (!doc.is_object()) {
    error = "the document must be a JSON object";
    return profile;
  }
  FieldReader top(doc, "profile", error);
  std::string schema;
  top.string("schema", schema, true);
  if (error.empty() && schema != kProfileSchema)
    error = "profile.schema is \"" + schema + "\", this cctune reads \"" + std::string(kProfileSchema) + "\"";
  if (!error.empty()) return profile;

  const json* provenance = top.find("provenance", true);
  if (provenance && !provenance->is_object()) top.fail("provenance", "must be an object");
  if (!error.empty()) return profile;
  FieldReader p(*provenance, "profile.provenance", error);
  p.string("nccl_version", profile.provenance.nccl_version, true);
  p.string("topology_fingerprint", profile.provenance.topology_fingerprint, false);
  p.string("space", profile.provenance.space, false);
  p.string("created", profile.provenance.created, false);
  p.string("cctune_version", profile.provenance.cctune_version, false);
  p.string("results", profile.provenance.results, false);
  p.string("test_mode", profile.provenance.test_mode, false);
  read_offered(p, profile.provenance.offered, error);
  read_string_map(p, "baseline_env", profile.provenance.baseline_env);
  read_string_map(top, "env", profile.env);

  const json* rules = top.find("rules", true);
  if (rules && !rules->is_array()) top.fail("rules", "must be an array");
  if (!error.empty()) return profile;
  if (rules->size() > kMaxProfileRules) {
    error = "profile.rules holds " + std::to_string(rules->size()) + " rules, more than the limit of " +
            std::to_string(kMaxProfileRules);
    return profile;
  }
  profile.rules.reserve(rules->size());
  for (std::size_t i = 0; i < rules->size() && error.empty(); ++i) profile.rules.push_back(read_rule((*rules)[i], i, error));
  read_measured_baseline(doc, profile.measured_baseline, error);
  return profile;
}

std::string describe_rule(const ProfileRule& r, std::size_t index) {
  return "rules[" + std::to_string(index) + "] (" + std::string(profile_collective_name(r.collective)) +
         " nranks=" + std::to_string(r.nranks) + " nnodes=" + std::to_string(r.nnodes) + " bytes " +
         std::to_string(r.min_bytes) + ".." + std::to_string(r.max_bytes) + ")";
}

}  // namespace

std::optional<Collective> parse_profile_collective(std::string_view s) noexcept {
  const auto c = collective_named(s);
  return c && is_tunable(*c) ? c : std::nullopt;
}

std::string_view profile_collective_name(Collective c) noexcept {
  // An out-of-range value read from a file must not reach traits()' lookup as a real one.
  if (static_cast<std::size_t>(c) >= collective_table.size() || !is_tunable(c)) return "unsupported";
  return traits(c).name;
}

std::optional<int> nccl_version_code(std::string_view version) noexcept {
  int parts[3] = {0, 0, 0};
  const char* p = version.data();
  const char* end = version.data() + version.size();
  for (int i = 0; i < 3; ++i) {
    auto [next, ec] = std::from_chars(p, end, parts[i]);
    if (ec != std::errc{} || next == p || parts[i] < 0) return std::nullopt;
    p = next;
    if (i < 2) {
      if (p == end || *p != '.') return std::nullopt;
      ++p;
    }
  }
  if (p != end || parts[1] > 99 || parts[2] > 99 || parts[0] > 20000) return std::nullopt;
  // NCCL's NCCL_VERSION(X,Y,Z) for releases since 2.9: X*10000 + Y*100 + Z.
  return parts[0] * 10000 + parts[1] * 100 + parts[2];
}

std::string nccl_version_string(int code) {
  return std::to_string(code / 10000) + "." + std::to_string(code / 100 % 100) + "." + std::to_string(code % 100);
}

bool same_choice(const ProfileRule& a, const ProfileRule& b) {
  return a.collective == b.collective && a.nranks == b.nranks && a.nnodes == b.nnodes && a.min_bytes == b.min_bytes &&
         a.max_bytes == b.max_bytes && a.algorithm == b.algorithm && a.protocol == b.protocol && a.channels == b.channels;
}

bool same_effect(const Profile& a, const Profile& b) {
  return a.env == b.env && std::equal(a.rules.begin(), a.rules.end(), b.rules.begin(), b.rules.end(), same_choice);
}

std::string validate_profile(const Profile& profile) {
  if (!nccl_version_code(profile.provenance.nccl_version))
    return "profile.provenance.nccl_version \"" + profile.provenance.nccl_version + "\" is not MAJOR.MINOR.PATCH";
  // A profile may come from someone else (docs/SECURITY.md): its env is applied to the job and
  // to cctune's workers, and written into nccl.env, so it takes exactly what a group may set.
  for (const auto& [key, value] : profile.env)
    if (const std::optional<SettingProblem> p = deployable_setting_problem(key, value))
      return "profile.env sets " + text::log_text(key, 64) + "=" + text::log_text(value, 64) + ", refused: " + text::log_text(key, 64) +
             " " + p->what + " (a profile may set: " + p->fix + ")";
  if (profile.rules.size() > kMaxProfileRules) return "profile.rules holds more than " + std::to_string(kMaxProfileRules) + " rules";
  for (const auto& [key, value] : profile.provenance.baseline_env)
    if (!valid_env_name(key)) return "profile.provenance.baseline_env key \"" + key + "\" is not an environment variable name";
  for (const OfferedAlgorithms& o : profile.provenance.offered)
    if (profile_collective_name(o.collective) == "unsupported" || o.nranks < 1 || o.nnodes < 1 || (o.algorithms & ~kEveryAlgorithm))
      return "profile.provenance.offered holds an entry that is not a (collective, nranks, nnodes, algorithms) a profile can name";
  for (std::size_t i = 0; i < profile.rules.size(); ++i) {
    const ProfileRule& r = profile.rules[i];
    const std::string where = "rules[" + std::to_string(i) + "]";
    if (profile_collective_name(r.collective) == "unsupported") return where + ".collective is not an NCCL collective a profile can tune";
    if (r.nranks < 1) return where + ".nranks must be at least 1";
    if (r.nnodes < 1 || r.nnodes > r.nranks) return where + ".nnodes must be in [1, nranks]";
    if (r.min_bytes > r.max_bytes) return where + ".min_bytes is larger than max_bytes";
    if (!algorithm_from_index(static_cast<int>(r.algorithm))) return where + ".algo is out of range";
    if (!protocol_from_index(static_cast<int>(r.protocol))) return where + ".proto is out of range";
    if (r.channels < 0 || r.channels > kMaxRuleChannels) return where + ".channels must be in [0, 64]";
    if (!std::isfinite(r.expected_speedup) || r.expected_speedup <= 0) return where + ".expected_speedup must be a positive number";
  }
  // Ranges of one (collective, nranks, nnodes) must not overlap: the plugin's lookup is a
  // binary search that assumes disjoint ranges, and an overlap means the exporter is wrong.
  std::vector<std::size_t> order(profile.rules.size());
  std::iota(order.begin(), order.end(), std::size_t{0});
  auto key = [&](std::size_t i) {
    const ProfileRule& r = profile.rules[i];
    return std::tuple(static_cast<int>(r.collective), r.nranks, r.nnodes, r.min_bytes);
  };
  std::sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return key(a) < key(b); });
  for (std::size_t k = 1; k < order.size(); ++k) {
    const ProfileRule& a = profile.rules[order[k - 1]];
    const ProfileRule& b = profile.rules[order[k]];
    if (a.collective == b.collective && a.nranks == b.nranks && a.nnodes == b.nnodes && b.min_bytes <= a.max_bytes)
      return describe_rule(a, order[k - 1]) + " and " + describe_rule(b, order[k]) + " overlap";
  }
  return {};
}

ProfileResult parse_profile(std::string_view json_text) noexcept {
  ProfileResult result;
  try {
    if (json_text.size() > kMaxProfileFileBytes) {
      result.error = "the profile is larger than " + std::to_string(kMaxProfileFileBytes >> 20) + " MiB";
      return result;
    }
    if (json_nests_deeper_than(json_text, kMaxNesting)) {
      result.error = "the profile nests arrays/objects deeper than " + std::to_string(kMaxNesting) + " levels";
      return result;
    }
    json doc;
    try {
      doc = json::parse(json_text.begin(), json_text.end());
    } catch (const json::exception& e) {
      result.error = std::string("not valid JSON: ") + e.what();
      return result;
    }

    std::string error;
    Profile profile = read_profile(doc, error);
    if (error.empty()) error = validate_profile(profile);
    if (!error.empty()) {
      result.error = std::move(error);
      return result;
    }
    result.profile = std::move(profile);
  } catch (const std::exception& e) {
    result.profile.reset();
    result.error = std::string("could not read the profile: ") + e.what();
  } catch (...) {
    result.profile.reset();
    result.error = "could not read the profile (unknown error)";
  }
  return result;
}

ProfileResult load_profile(const std::string& path) noexcept {
  ProfileResult result;
  try {
    // O_NONBLOCK and a regular-file check: a FIFO or device named by CCTUNE_PROFILE must
    // not block NCCL's init or feed it without end.
    const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    if (fd < 0) {
      result.error = "cannot open profile " + path;
      return result;
    }
    struct stat st {};
    if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
      ::close(fd);
      result.error = "profile " + path + " is not a regular file";
      return result;
    }
    std::string text;
    char buffer[65536];
    ssize_t n = 0;
    while ((n = ::read(fd, buffer, sizeof buffer)) > 0 || (n < 0 && errno == EINTR)) {
      if (n > 0) text.append(buffer, static_cast<std::size_t>(n));
      if (text.size() > kMaxProfileFileBytes) {
        ::close(fd);
        result.error = "profile " + path + " is larger than " + std::to_string(kMaxProfileFileBytes >> 20) + " MiB";
        return result;
      }
    }
    ::close(fd);
    if (n < 0) {
      result.error = "cannot read profile " + path;
      return result;
    }
    result = parse_profile(text);
    if (!result.profile) result.error = "profile " + path + ": " + result.error;
  } catch (...) {
    result.profile.reset();
    result.error = "cannot read profile " + path;
  }
  return result;
}

}  // namespace cctune::tuner
