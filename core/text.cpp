#include "core/text.hpp"

namespace cctune::text {
namespace {

constexpr std::string_view replacement = "\xEF\xBF\xBD";  // U+FFFD

// Length of the well-formed UTF-8 sequence that starts at s[i], or 0 when none does
// (Unicode 15, table 3-7: the second byte's range depends on the first byte).
std::size_t sequence_length(std::string_view s, std::size_t i) {
  const auto b = [&](std::size_t k) { return static_cast<unsigned char>(s[i + k]); };
  const unsigned char c = b(0);
  if (c < 0x80) return 1;
  std::size_t n = 0;
  unsigned char lo = 0x80, hi = 0xBF;
  if (c >= 0xC2 && c <= 0xDF) n = 2;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, lo = c == 0xE0 ? 0xA0 : 0x80, hi = c == 0xED ? 0x9F : 0xBF;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, lo = c == 0xF0 ? 0x90 : 0x80, hi = c == 0xF4 ? 0x8F : 0xBF;
  else return 0;
  if (i + n > s.size()) return 0;
  if (b(1) < lo || b(1) > hi) return 0;
  for (std::size_t k = 2; k < n; ++k)
    if (b(k) < 0x80 || b(k) > 0xBF) return 0;
  return n;
}

void append_hex(std::string& out, unsigned c) {
  static const char digits[] = "0123456789abcdef";
  out += "\\x";
  out += digits[(c >> 4) & 15];
  out += digits[c & 15];
}

// Appends a control character in the visible form terminal_text() and html_text() share.
void append_control(std::string& out, unsigned c) {
  if (c == '\n') out += "\\n";
  else if (c == '\r') out += "\\r";
  else if (c == '\t') out += "\\t";
  else append_hex(out, c);
}

bool is_c1(std::string_view s, std::size_t i, std::size_t n) {
  return n == 2 && static_cast<unsigned char>(s[i]) == 0xC2 && static_cast<unsigned char>(s[i + 1]) <= 0x9F;
}

// Bidirectional formatting characters (U+200E, U+200F, U+202A-U+202E, U+2066-U+2069): they
// reorder what follows on the line, so a shown value could appear to say something else.
bool is_bidi_control(std::string_view s, std::size_t i, std::size_t n) {
  if (n != 3 || static_cast<unsigned char>(s[i]) != 0xE2) return false;
  const auto b1 = static_cast<unsigned char>(s[i + 1]), b2 = static_cast<unsigned char>(s[i + 2]);
  return (b1 == 0x80 && (b2 == 0x8E || b2 == 0x8F || (b2 >= 0xAA && b2 <= 0xAE))) || (b1 == 0x81 && b2 >= 0xA6 && b2 <= 0xA9);
}

void append_code_point(std::string& out, std::string_view s, std::size_t i) {
  static const char digits[] = "0123456789abcdef";
  const unsigned cp = ((static_cast<unsigned char>(s[i]) & 0x0Fu) << 12) | ((static_cast<unsigned char>(s[i + 1]) & 0x3Fu) << 6) |
                      (static_cast<unsigned char>(s[i + 2]) & 0x3Fu);
  out += "\\u";
  for (int shift = 12; shift >= 0; shift -= 4) out += digits[(cp >> shift) & 15];
}

// sanitize_utf8(raw), each character (offset i, length n) handed to `emit`.
template <class Emit>
std::string per_character(std::string_view raw, Emit emit) {
  const std::string s = sanitize_utf8(raw);
  std::string out;
  out.reserve(s.size());
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    emit(out, std::string_view(s), i, n);
    i += n;
  }
  return out;
}

}  // namespace

bool valid_utf8(std::string_view s) {
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) return false;
    i += n;
  }
  return true;
}

std::string sanitize_utf8(std::string_view s) {
  if (valid_utf8(s)) return std::string(s);
  std::string out;
  out.reserve(s.size() + 8);
  for (std::size_t i = 0; i < s.size();) {
    const std::size_t n = sequence_length(s, i);
    if (n == 0) {
      out += replacement;
      ++i;
    } else {
      out.append(s.substr(i, n));
      i += n;
    }
  }
  return out;
}

std::string truncate_utf8(std::string_view s, std::size_t max_bytes, std::string_view ellipsis) {
  const std::string clean = sanitize_utf8(s);
  if (clean.size() <= max_bytes) return clean;
  std::size_t end = 0;
  while (end < clean.size()) {
    const std::size_t n = sequence_length(clean, end);
    if (end + n > max_bytes) break;
    end += n;
  }
  return clean.substr(0, end) + std::string(ellipsis);
}

std::string dump_json(const nlohmann::json& j, int indent) {
  return j.dump(indent, ' ', false, nlohmann::json::error_handler_t::replace);
}

std::string json_excerpt(const nlohmann::json& v, std::size_t max_bytes) { return truncate_utf8(dump_json(v), max_bytes); }

nlohmann::json map_strings(const nlohmann::json& j, std::string (*f)(std::string_view)) {
  if (j.is_string()) return f(j.get_ref<const std::string&>());
  if (j.is_array()) {
    nlohmann::json out = nlohmann::json::array();
    for (const auto& e : j) out.push_back(map_strings(e, f));
    return out;
  }
  if (j.is_object()) {
    nlohmann::json out = nlohmann::json::object();
    for (const auto& [k, v] : j.items()) out[f(k)] = map_strings(v, f);
    return out;
  }
  return j;
}

std::string terminal_text(std::string_view raw) {
  return per_character(raw, [](std::string& out, std::string_view s, std::size_t i, std::size_t n) {
    const auto c = static_cast<unsigned char>(s[i]);
    if (c < 0x20 || c == 0x7f) append_control(out, c);
    else if (is_c1(s, i, n)) append_hex(out, static_cast<unsigned char>(s[i + 1]));
    else if (is_bidi_control(s, i, n)) append_code_point(out, s, i);
    else out.append(s.substr(i, n));
  });
}

std::string log_text(std::string_view s, std::size_t max_bytes) {
  return truncate_utf8(terminal_text(s), max_bytes);
}

std::string shell_word(std::string_view s) {
  static constexpr std::string_view plain = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-./=:,@%+";
  if (!s.empty() && s.find_first_not_of(plain) == std::string_view::npos) return std::string(s);
  std::string out;
  if (terminal_text(s) == s) {
    out = "'";
    for (const char c : s) out += c == '\'' ? std::string("'\\''") : std::string(1, c);
    return out + "'";
  }
  out = "$'";
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if (c == '\\' || c == '\'') out += std::string("\\") + ch;
    else if (c < 0x20 || c >= 0x7f) append_hex(out, c);
    else out += ch;
  }
  return out + "'";
}

std::string csv_field(std::string_view raw) {
  const std::string s = sanitize_utf8(raw);
  static constexpr std::string_view separators = ",;\t\r\n";
  static constexpr std::string_view formula_starts = "=+-@";
  std::string text;
  text.reserve(s.size() + 2);
  bool cell_start = true;  // where a reader (quotes honoured or not) may start a cell
  for (const char ch : s) {
    const bool formula = formula_starts.find(ch) != std::string_view::npos || (text.empty() && (ch == '\t' || ch == '\r'));
    if (cell_start && formula) text += '\'';
    text += ch;
    cell_start = separators.find(ch) != std::string_view::npos;
  }
  if (text.find_first_of(",;\"\t\r\n") == std::string::npos) return text;
  std::string out = "\"";
  for (const char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

std::string html_text(std::string_view raw) {
  return per_character(raw, [](std::string& out, std::string_view s, std::size_t i, std::size_t n) {
    const auto c = static_cast<unsigned char>(s[i]);
    switch (c) {
      case '&': out += "&amp;"; break;
      case '<': out += "&lt;"; break;
      case '>': out += "&gt;"; break;
      case '"': out += "&quot;"; break;
      case '\'': out += "&#39;"; break;
      default:
        if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) append_hex(out, c);
        else if (is_c1(s, i, n)) append_hex(out, static_cast<unsigned char>(s[i + 1]));
        else out.append(s.substr(i, n));
    }
  });
}

std::string prometheus_label_value(std::string_view s) {
  const std::string clean = sanitize_utf8(s);
  std::string out;
  out.reserve(clean.size());
  for (const char c : clean) {
    if (c == '\\') out += "\\\\";
    else if (c == '"') out += "\\\"";
    else if (c == '\n') out += "\\n";
    else out += c;
  }
  return out;
}

}  // namespace cctune::text
