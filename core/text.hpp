#pragma once
// Text that came from outside (files, argv, the environment, workers' output, peers) on its
// way out: one function per sink, so every path that writes such text uses the same rule.
//   JSON        dump_json()       never throws on bytes that are not UTF-8 (replaced by U+FFFD)
//   terminal    terminal_text()   one line: control characters (C0, DEL, C1) and newlines shown escaped
//   CSV         csv_field()       RFC 4180 quoting, formula starts neutralised (also after separators)
//   HTML        html_text()       markup escaped, control characters shown escaped
//   shell       shell_word()      one word for sh/bash, also safe to print
//   log line    log_text()        terminal_text() capped to a length, for one line of someone else's log
//   Prometheus  prometheus_label_value()  a label value of the text exposition format
// and the UTF-8 helpers they share. Cutting text is done with truncate_utf8(), never substr().
#include <cstddef>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace cctune::text {

// True when `s` is well-formed UTF-8 (no overlong forms, surrogates or code points past U+10FFFF).
bool valid_utf8(std::string_view s);

// `s` with every byte that does not start a well-formed UTF-8 sequence replaced by U+FFFD.
std::string sanitize_utf8(std::string_view s);

// sanitize_utf8(s) cut to at most `max_bytes` bytes on a character boundary; when it was cut,
// `ellipsis` is appended (beyond max_bytes).
std::string truncate_utf8(std::string_view s, std::size_t max_bytes, std::string_view ellipsis = "...");

// j.dump(indent) that replaces invalid UTF-8 in strings instead of throwing type_error.316.
// Use it for every document that may hold outside text.
std::string dump_json(const nlohmann::json& j, int indent = -1);

// A short quote of a JSON value for an error message: dump_json(v) cut on a character
// boundary to at most `max_bytes` ("..." appended when cut).
std::string json_excerpt(const nlohmann::json& v, std::size_t max_bytes = 40);

// `j` with every string (keys too) passed through `f`: to escape a whole document for one
// sink before a printer that formats its fields (topo's tables).
nlohmann::json map_strings(const nlohmann::json& j, std::string (*f)(std::string_view));

// One line for a terminal: valid UTF-8; C0 controls, DEL and C1 controls (U+0080-U+009F,
// which some terminals honour like ESC [) are shown as \n, \r, \t or \xHH, bidirectional
// overrides (U+202E...) as \uHHHH; a backslash stays a backslash. No byte of the result moves
// the cursor, starts an escape sequence or reorders the rest of the line.
std::string terminal_text(std::string_view s);

// terminal_text(s) at most `max_bytes` long (cut on a character boundary, "..." appended):
// for one line of another program's log, such as NCCL's.
std::string log_text(std::string_view s, std::size_t max_bytes);

// One word for a POSIX shell command line that is printed for the user to copy: unchanged
// when it holds only letters, digits and _-./=:,@%+; else in single quotes ('\'' for a
// quote); and where a terminal would need escaping (controls, invalid UTF-8, bidi
// overrides), as bash's $'...' with \xHH for every such byte, so printing it is safe too.
std::string shell_word(std::string_view s);

// One CSV field. Quoted (RFC 4180) when it holds , ; " tab CR or LF, so a reader that splits
// on ',' or ';' sees one cell. Text a spreadsheet would run as a formula (= + - @ at the start,
// or right after one of , ; tab CR LF inside the field, where a reader that ignores quotes
// starts a cell) gets an apostrophe in front of that character, as OWASP advises.
std::string csv_field(std::string_view s);

// Text inside an HTML element or a quoted attribute: & < > " ' as entities, valid UTF-8,
// control characters other than newline and tab shown as \xHH (a raw ESC in a .html file
// fires when the file is cat'ed).
std::string html_text(std::string_view s);

// A label value of Prometheus's text exposition format (0.0.4), without the surrounding
// quotes: valid UTF-8 (invalid bytes replaced by U+FFFD, which the format requires), and
// backslash, double quote and newline escaped as \\, \" and \n, the only escapes the format
// knows. Other controls pass through: the format allows them and promtool accepts them.
std::string prometheus_label_value(std::string_view s);

}  // namespace cctune::text
