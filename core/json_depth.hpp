#pragma once
// Limits for JSON that cctune did not write. A nesting limit: nlohmann's parser, copies and
// destructors recurse per level, so 100 000 '[' overflow the stack. Every parser of an
// outside file or message checks the text with this before parsing. Header-only and
// dependency-free, so the tuner plugin (built without cctune_core) shares it.
#include <cstdio>
#include <string>
#include <string_view>

namespace cctune {

// Deep enough for every file cctune writes (results nest about 8 levels), far below a stack.
inline constexpr int max_json_depth = 64;

// True when arrays/objects nest deeper than `limit` anywhere in `text` (strings are skipped).
inline bool json_nests_deeper_than(std::string_view text, int limit = max_json_depth) noexcept {
  int depth = 0;
  bool in_string = false;
  bool escaped = false;
  for (const char c : text) {
    if (in_string) {
      if (escaped) escaped = false;
      else if (c == '\\') escaped = true;
      else if (c == '"') in_string = false;
      continue;
    }
    if (c == '"') in_string = true;
    else if (c == '[' || c == '{') {
      if (++depth > limit) return true;
    } else if (c == ']' || c == '}') --depth;
  }
  return false;
}

// A floating-point number anywhere in a parsed document that lies outside int's range, as
// `"key" is 1e+30`; empty when there is none. Reading one into an integer field (nlohmann's
// get<int>() casts) is undefined behaviour, and no file or message cctune writes holds such
// a float, so parsers of outside input refuse it (found by the topology and worker-message
// fuzzers: `"rank": 8888...881` read as 8.9e89). A template, so this header stays free of
// nlohmann; call it on a tree already depth-checked.
template <typename Json>
std::string json_float_beyond_int(const Json& doc, const std::string& key = "value") {
  if (doc.is_number_float()) {
    const double v = doc.template get<double>();
    if (v >= -2147483648.0 && v <= 2147483647.0) return {};
    char text[32];
    std::snprintf(text, sizeof text, "%g", v);
    return "\"" + key + "\" is " + text;
  }
  if (doc.is_object()) {
    for (auto it = doc.begin(); it != doc.end(); ++it)
      if (std::string found = json_float_beyond_int(it.value(), it.key()); !found.empty()) return found;
  } else if (doc.is_array()) {
    for (const auto& child : doc)
      if (std::string found = json_float_beyond_int(child, key); !found.empty()) return found;
  }
  return {};
}

}  // namespace cctune
