#pragma once
// One escaping function per output format for text that came from input files (labels,
// host names, failure reasons): every printer sends such text through the one for its
// format. HTML has svg::escape (svg.hpp).
#include <string>

namespace cctune::app::report {

// A CSV field (RFC 4180 quoting). Text a spreadsheet would run as a formula (it starts
// with = + - @, a tab or a carriage return) gets a leading apostrophe, as OWASP advises.
inline std::string csv_field(const std::string& s) {
  const bool formula = !s.empty() && std::string("=+-@\t\r").find(s.front()) != std::string::npos;
  // Concatenation rather than insert(0, ...): GCC 12 warns about insert (-Wrestrict, a known
  // false positive, GCC bug 105329).
  const std::string text = formula ? "'" + s : s;
  if (text.find_first_of(",\"\n\r") == std::string::npos) return text;
  std::string out = "\"";
  for (char ch : text) out += ch == '"' ? std::string("\"\"") : std::string(1, ch);
  return out + "\"";
}

// Text for a terminal: control characters other than newline and tab (ESC starts the
// sequences that retitle windows, move the cursor or hide text) are shown as \xHH.
inline std::string terminal_text(const std::string& s) {
  static const char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(s.size());
  for (const char ch : s) {
    const auto c = static_cast<unsigned char>(ch);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      out += "\\x";
      out += digits[c >> 4];
      out += digits[c & 15];
    } else {
      out += ch;
    }
  }
  return out;
}

}  // namespace cctune::app::report
