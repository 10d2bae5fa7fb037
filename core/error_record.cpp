#include "core/error_record.hpp"

#include <climits>

namespace cctune {
namespace {

std::string text_of(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

// An int field, or nullopt when absent or not a whole number within int.
std::optional<int> whole(const nlohmann::json& j, const char* key) {
  const auto it = j.find(key);
  if (it == j.end() || !it->is_number_integer()) return std::nullopt;
  const long long v = it->get<long long>();
  if (v < INT_MIN || v > INT_MAX) return std::nullopt;
  return static_cast<int>(v);
}

}  // namespace

ErrorRecord record_of(const std::exception& e) {
  if (const auto* error = dynamic_cast<const Error*>(&e)) return {error_kind_of(e), error->what_only(), error->fix(), error->site()};
  return {ErrorKind::Failure, e.what(), {}, std::nullopt};
}

nlohmann::json to_json(const ErrorRecord& r) {
  nlohmann::json j = {{"kind", to_string(r.kind)}, {"message", r.message}, {"fix", r.fix}};
  if (r.site) {
    j["host"] = r.site->host;
    j["rank"] = r.site->rank;
    j["device"] = r.site->device;
  }
  return j;
}

std::optional<ErrorRecord> error_record_from_json(const nlohmann::json& j) noexcept {
  try {
    if (!j.is_object() || !j.contains("message") || !j["message"].is_string()) return std::nullopt;
    ErrorRecord r;
    r.kind = parse_error_kind(text_of(j, "kind")).value_or(ErrorKind::Failure);
    r.message = j["message"].get<std::string>();
    r.fix = text_of(j, "fix");
    if (const auto rank = whole(j, "rank"); rank && j.contains("host")) r.site = ErrorSite{text_of(j, "host"), *rank, whole(j, "device").value_or(-1)};
    return r;
  } catch (...) {  // a bad_alloc, or an integer beyond int: no record
    return std::nullopt;
  }
}

void rethrow(const ErrorRecord& r) { throw_error(r.kind, r.message, r.fix, r.site); }

}  // namespace cctune
