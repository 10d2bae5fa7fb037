#include "core/results_fields.hpp"

#include <initializer_list>
#include <string>

#include "core/error.hpp"
#include "core/json_fields.hpp"

namespace cctune {

using nlohmann::json;

namespace {

constexpr const char* kFix = "pass a results.json written by cctune sweep";

enum class Kind { String, Number, Bool, Object, Array, StringMap, StringList };

struct Field {
  const char* key;
  Kind kind;
  bool required = false;
};

// Present fields must be of their kind (null included: the reader's defaults apply to absent
// fields only); required ones must be present.
void check(const JsonFields& f, std::initializer_list<Field> fields) {
  for (const Field& x : fields) {
    if (!f.has(x.key)) {
      if (x.required) throw UsageError(f.path(x.key) + " is missing", kFix);
      continue;
    }
    const json& v = f.raw().at(x.key);
    const std::string where = f.path(x.key);
    switch (x.kind) {
      case Kind::String: f.read<std::string>(v, where); break;
      case Kind::Number: f.read<double>(v, where); break;
      case Kind::Bool: f.read<bool>(v, where); break;
      case Kind::Object: JsonFields(v, where, kFix); break;
      case Kind::Array: f.array(x.key); break;
      case Kind::StringMap: {
        const JsonFields map(v, where, kFix);
        for (const auto& [key, value] : v.items()) map.read<std::string>(value, map.path(key));
        break;
      }
      case Kind::StringList:
        for (std::size_t i = 0; i < f.array(x.key).size(); ++i) f.read<std::string>(v[i], where + "[" + std::to_string(i) + "]");
        break;
    }
  }
}

void check_point(const JsonFields& p) {
  check(p, {{"collective", Kind::String, true}, {"dtype", Kind::String, true}, {"op", Kind::String}, {"in_place", Kind::Bool},
            {"config", Kind::Object}, {"status", Kind::String, true}, {"reason", Kind::String}, {"stop_reason", Kind::String},
            {"chosen", Kind::Object}, {"ranks", Kind::Object}});
  if (p.has("config")) check(p.object("config"), {{"algo", Kind::String}, {"proto", Kind::String}, {"graph", Kind::Bool}});
  if (p.has("chosen")) check(p.object("chosen"), {{"algo", Kind::String}, {"proto", Kind::String}, {"channels", Kind::Number}});
  if (p.get<std::string>("status") != "ok") return;
  check(p, {{"batch_us", Kind::Number, true}, {"iter_us", Kind::Object, true}, {"algbw_GBps", Kind::Number, true},
            {"busbw_GBps", Kind::Number, true}});
  check(p.object("iter_us"), {{"median", Kind::Number, true}, {"mean", Kind::Number, true}, {"min", Kind::Number, true},
                              {"max", Kind::Number, true}, {"p99", Kind::Number, true}, {"stddev", Kind::Number, true},
                              {"cv", Kind::Number, true}, {"count", Kind::Number, true}});
}

void check_run(const JsonFields& r) {
  check(r, {{"backend", Kind::String, true}, {"group", Kind::String}, {"env", Kind::StringMap}, {"status", Kind::String},
            {"reason", Kind::String}, {"points", Kind::Array, true}, {"screened", Kind::Array}, {"duration_s", Kind::Number},
            {"startup_s", Kind::Number}, {"nccl_env", Kind::StringMap}, {"test_mode", Kind::String}, {"test_shared_gpu", Kind::Number},
            {"places", Kind::Array}});
  for (const char* list : {"points", "screened"})
    for (std::size_t i = 0; r.has(list) && i < r.array(list).size(); ++i) check_point(r.element(list, i));
  for (std::size_t i = 0; r.has("places") && i < r.array("places").size(); ++i) check(r.element("places", i), {{"host", Kind::String}});
}

}  // namespace

void check_point_fields(const json& point, const std::string& where) { check_point(JsonFields(point, where, kFix)); }

void check_results_fields(const json& doc) {
  if (!doc.is_object()) throw UsageError("the top level must be a JSON object", kFix);
  if (doc.contains("schema") && !doc.at("schema").is_string()) throw UsageError("schema must be a string", kFix);
  if (!doc.contains("meta")) throw UsageError("meta is missing", kFix);
  check(JsonFields(doc.at("meta"), "meta", kFix),
        {{"schema", Kind::String, true}, {"argv", Kind::StringList}, {"cctune_version", Kind::String}, {"git_sha", Kind::String},
         {"versions", Kind::StringMap}, {"hostnames", Kind::StringList}, {"start_time", Kind::String}, {"end_time", Kind::String},
         {"status", Kind::String}, {"env", Kind::StringMap}});
  if (!doc.contains("runs")) throw UsageError("runs is missing", kFix);
  const json& runs = doc.at("runs");
  if (!runs.is_array()) throw UsageError("runs must be an array", kFix);
  for (std::size_t i = 0; i < runs.size(); ++i) check_run(JsonFields(runs[i], "runs[" + std::to_string(i) + "]", kFix));
}

}  // namespace cctune
