#pragma once
// Typed reads of one JSON object's fields, for the sections of a results file that other
// modules write (net, topology, meta.settings). A missing field or one of the wrong type
// is a UsageError of one line that names the field by its path ("net.pairs[0].initiator:
// expected an integer, got a string") and carries the reader's fix; nlohmann's own
// type_error.302 never reaches the user.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include <nlohmann/json.hpp>

#include "core/error.hpp"

namespace cctune {

class JsonFields {
 public:
  // `where` names the object ("net", "net.pairs[2]"); throws unless `object` is one.
  JsonFields(const nlohmann::json& object, std::string where, std::string fix);

  // Required fields: absent, null or of another type throw.
  template <class T>
  T get(std::string_view key) const {
    return read<T>(at(key), path(key));
  }
  // Optional fields: absent or null give nullopt; present with another type throws.
  template <class T>
  std::optional<T> get_optional(std::string_view key) const {
    const nlohmann::json* v = find(key);
    if (!v || v->is_null()) return std::nullopt;
    return read<T>(*v, path(key));
  }
  bool has(std::string_view key) const { return find(key) != nullptr; }
  // A required name read by `parse` (parse_collective, parse_dtype, ...): a name it refuses is
  // a UsageError naming the field and the value ("x.collective \"allfoo\" is not a collective").
  template <class Parse>
  auto get_parsed(std::string_view key, Parse parse, const char* what) const {
    const std::string name = get<std::string>(key);
    try {
      return parse(name);
    } catch (const UsageError&) {
      not_a(key, name, what);
    }
  }

  // A required member that must be an object / an array.
  JsonFields object(std::string_view key) const { return JsonFields(at(key), path(key), fix_); }
  const nlohmann::json& array(std::string_view key) const;
  // Element `i` of an array member, itself an object.
  JsonFields element(std::string_view key, std::size_t i) const;

  const nlohmann::json& raw() const { return object_; }
  const std::string& where() const { return where_; }
  const std::string& fix() const { return fix_; }
  std::string path(std::string_view key) const { return where_ + "." + std::string(key); }

  // `value` as T, or a UsageError naming `where`.
  template <class T>
  T read(const nlohmann::json& value, const std::string& where) const;

 private:
  const nlohmann::json* find(std::string_view key) const;
  const nlohmann::json& at(std::string_view key) const;
  [[noreturn]] void not_a(std::string_view key, const std::string& name, const char* what) const;
  [[noreturn]] void wrong_type(const nlohmann::json& value, const std::string& where, const char* expected) const;

  const nlohmann::json& object_;
  std::string where_;
  std::string fix_;
};

template <>
std::string JsonFields::read<std::string>(const nlohmann::json& value, const std::string& where) const;
template <>
bool JsonFields::read<bool>(const nlohmann::json& value, const std::string& where) const;
template <>
int JsonFields::read<int>(const nlohmann::json& value, const std::string& where) const;
template <>
long JsonFields::read<long>(const nlohmann::json& value, const std::string& where) const;
template <>
std::uint64_t JsonFields::read<std::uint64_t>(const nlohmann::json& value, const std::string& where) const;
template <>
double JsonFields::read<double>(const nlohmann::json& value, const std::string& where) const;

}  // namespace cctune
