#include "core/json_fields.hpp"

#include <limits>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune {

using nlohmann::json;

namespace {
std::string kind_of(const json& v) {
  if (v.is_number_integer()) return "an integer";
  if (v.is_number_float()) return "a number";
  if (v.is_string()) return "a string";
  if (v.is_boolean()) return "a boolean";
  if (v.is_array()) return "an array";
  if (v.is_object()) return "an object";
  return "null";
}
}  // namespace

JsonFields::JsonFields(const json& object, std::string where, std::string fix)
    : object_(object), where_(std::move(where)), fix_(std::move(fix)) {
  if (!object_.is_object()) wrong_type(object_, where_, "an object");
}

const json* JsonFields::find(std::string_view key) const {
  const auto it = object_.find(key);
  return it == object_.end() ? nullptr : &*it;
}

const json& JsonFields::at(std::string_view key) const {
  const json* v = find(key);
  if (!v) throw UsageError(path(key) + " is missing", fix_);
  return *v;
}

void JsonFields::wrong_type(const json& value, const std::string& where, const char* expected) const {
  throw UsageError(where + ": expected " + expected + ", got " + kind_of(value), fix_);
}

void JsonFields::not_a(std::string_view key, const std::string& name, const char* what) const {
  throw UsageError(path(key) + " \"" + text::terminal_text(name) + "\" is not " + what, fix_);
}

const json& JsonFields::array(std::string_view key) const {
  const json& v = at(key);
  if (!v.is_array()) wrong_type(v, path(key), "an array");
  return v;
}

JsonFields JsonFields::element(std::string_view key, std::size_t i) const {
  const json& a = array(key);
  if (i >= a.size()) throw UsageError(path(key) + " has " + std::to_string(a.size()) + " elements, element " + std::to_string(i) + " is missing", fix_);
  return JsonFields(a[i], path(key) + "[" + std::to_string(i) + "]", fix_);
}

template <>
std::string JsonFields::read<std::string>(const json& value, const std::string& where) const {
  if (!value.is_string()) wrong_type(value, where, "a string");
  return value.get<std::string>();
}

template <>
bool JsonFields::read<bool>(const json& value, const std::string& where) const {
  if (!value.is_boolean()) wrong_type(value, where, "a boolean");
  return value.get<bool>();
}

template <>
long JsonFields::read<long>(const json& value, const std::string& where) const {
  if (value.is_number_unsigned() && value.get<std::uint64_t>() > static_cast<std::uint64_t>(std::numeric_limits<long>::max()))
    wrong_type(value, where, "an integer in range");
  if (!value.is_number_integer()) wrong_type(value, where, "an integer");
  return value.get<long>();
}

template <>
int JsonFields::read<int>(const json& value, const std::string& where) const {
  const long v = read<long>(value, where);
  if (v < std::numeric_limits<int>::min() || v > std::numeric_limits<int>::max()) wrong_type(value, where, "an integer in range");
  return static_cast<int>(v);
}

template <>
std::uint64_t JsonFields::read<std::uint64_t>(const json& value, const std::string& where) const {
  if (value.is_number_unsigned()) return value.get<std::uint64_t>();
  if (!value.is_number_integer()) wrong_type(value, where, "an integer");
  // A parsed file holds non-negative integers as unsigned; values built in code may be signed.
  if (value.get<std::int64_t>() < 0) wrong_type(value, where, "a non-negative integer");
  return static_cast<std::uint64_t>(value.get<std::int64_t>());
}

template <>
double JsonFields::read<double>(const json& value, const std::string& where) const {
  if (!value.is_number()) wrong_type(value, where, "a number");
  return value.get<double>();
}

}  // namespace cctune
