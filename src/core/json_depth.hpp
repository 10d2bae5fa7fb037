#pragma once
// A nesting limit for JSON that cctune did not write: nlohmann's parser, copies and
// destructors recurse per level, so 100 000 '[' overflow the stack. Every parser of an
// outside file or message checks the text with this before parsing. Header-only and
// dependency-free, so the tuner plugin (built without cctune_core) shares it.
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

}  // namespace cctune
