#pragma once
// One name table per enum that travels as text (results, worker messages, rank agreement):
// its to_string and parse both read the table, so the two cannot drift apart.
#include <array>
#include <optional>
#include <string>
#include <string_view>
#include <utility>

#include "core/error.hpp"

namespace cctune {

template <class E, std::size_t N>
using NameTable = std::array<std::pair<E, std::string_view>, N>;

template <class E, std::size_t N>
std::string name_of(const NameTable<E, N>& table, E value) {
  for (const auto& [v, name] : table)
    if (v == value) return std::string(name);
  return "unknown";
}

// nullopt for a name not in the table (exact spelling).
template <class E, std::size_t N>
std::optional<E> find_named(const NameTable<E, N>& table, std::string_view name) noexcept {
  for (const auto& [v, n] : table)
    if (n == name) return v;
  return std::nullopt;
}

// "ok, failed, interrupted".
template <class E, std::size_t N>
std::string name_list(const NameTable<E, N>& table) {
  std::string out;
  for (const auto& entry : table) out.append(out.empty() ? "" : ", ").append(entry.second);
  return out;
}

// Throws UsageError "unknown <what> '<name>'", "use one of <names>".
template <class E, std::size_t N>
E parse_named(const NameTable<E, N>& table, std::string_view name, std::string_view what) {
  if (auto v = find_named(table, name)) return *v;
  throw UsageError("unknown " + std::string(what) + " '" + std::string(name) + "'", "use one of " + name_list(table));
}

}  // namespace cctune
