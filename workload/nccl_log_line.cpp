#include "workload/nccl_log_line.hpp"

#include <cctype>
#include <charconv>

namespace cctune::workload::nccl_log {
namespace {

constexpr std::string_view kInfo = "NCCL INFO ";

bool is_digit(char c) { return c >= '0' && c <= '9'; }
// NCCL prints gethostname()'s bytes as they are: a host named in another script ("héllo"), or
// one a terminal shows cut ("ip……"), is still a host. Bytes of UTF-8 beyond ASCII count.
bool is_host_char(char c) {
  const auto u = static_cast<unsigned char>(c);
  return std::isalnum(u) || c == '-' || c == '_' || c == '.' || u >= 0x80;
}

std::string_view trim_right(std::string_view s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.remove_suffix(1);
  return s;
}

// Where the digits that end `s` begin (s.size() when it ends with none).
std::size_t digits_start(std::string_view s) {
  std::size_t at = s.size();
  while (at > 0 && is_digit(s[at - 1])) --at;
  return at;
}

// "host:pid:tid" at the end of `s`: its start, the end of "host:pid" and the whole key's end.
struct Key {
  std::size_t start, process_end;
};
std::optional<Key> key_at_end(std::string_view s) {
  const std::size_t tid = digits_start(s);
  if (tid == s.size() || tid == 0 || s[tid - 1] != ':') return std::nullopt;
  const std::string_view head = slice(s, 0, tid - 1);
  const std::size_t pid = digits_start(head);
  if (pid == head.size() || pid == 0 || head[pid - 1] != ':') return std::nullopt;
  std::size_t host = pid - 1;
  while (host > 0 && is_host_char(s[host - 1])) --host;
  // An empty host name is NCCL's too (":5202:5683 [0]" where gethostname gave "" in a
  // container, NCCL 2.4): taken at the line's start or after a blank, where no prefix can end.
  if (host == pid - 1 && host > 0 && s[host - 1] != ' ' && s[host - 1] != '\t') return std::nullopt;
  return Key{host, tid - 1};
}

}  // namespace

std::string_view slice(std::string_view text, std::size_t pos, std::size_t n) noexcept {
  if (pos >= text.size()) return {};
  return text.substr(pos, n);  // pos is in range: substr cannot throw
}

std::optional<LineParts> split_line(std::string_view line, bool keyless) {
  std::size_t at = 0;
  while ((at = line.find(kInfo, at)) != std::string_view::npos && at > 0 && line[at - 1] != ' ') at += kInfo.size();
  if (at == std::string_view::npos) {
    // A message pasted without NCCL's key and level ("AllGather: opCount 0 ... comm 0x..."): the
    // caller said the file is NCCL's log, so the line is the message.
    if (!keyless) return std::nullopt;
    const std::size_t start = line.find_first_not_of(" \t");
    return LineParts{{}, {}, start == std::string_view::npos ? std::string_view{} : slice(line, start), true};
  }
  LineParts parts{{}, {}, slice(line, at + kInfo.size())};
  std::string_view before = trim_right(slice(line, 0, at));
  // NCCL's "[<dev>]" between the key and "NCCL INFO".
  if (!before.empty() && before.back() == ']') {
    const std::size_t open = before.rfind('[');
    const std::string_view dev = open == std::string_view::npos ? std::string_view{} : slice(before, open + 1, before.size() - open - 2);
    if (!dev.empty() && digits_start(dev) == 0) before = trim_right(slice(before, 0, open));
  }
  if (const auto key = key_at_end(before)) {
    parts.process = slice(before, key->start, key->process_end - key->start);
    parts.thread = slice(before, key->start);
    return parts;
  }
  if (keyless) return parts;
  return std::nullopt;
}

std::string_view Words::after(std::string_view key) const noexcept {
  for (std::size_t i = 0; i + 1 < count; ++i)
    if (word[i] == key) return word[i + 1];
  return {};
}

std::optional<Words> split_words(std::string_view message) {
  Words w;
  std::size_t at = 0;
  while (at < message.size()) {
    while (at < message.size() && (message[at] == ' ' || message[at] == '\t' || message[at] == '\r')) ++at;
    if (at == message.size()) break;
    std::size_t end = at;
    while (end < message.size() && message[end] != ' ' && message[end] != '\t' && message[end] != '\r') ++end;
    if (w.count == Words::kMaxWords) return std::nullopt;
    w.word[w.count++] = slice(message, at, end - at);
    at = end;
  }
  return w;
}

std::optional<std::uint64_t> to_u64(std::string_view s, int base) noexcept {
  if (base == 16 && s.starts_with("0x")) s.remove_prefix(2);
  if (s.empty()) return std::nullopt;
  std::uint64_t v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, base);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

std::optional<int> to_int(std::string_view s) noexcept {
  if (s.empty()) return std::nullopt;
  int v = 0;
  const auto [end, ec] = std::from_chars(s.data(), s.data() + s.size(), v, 10);
  if (ec != std::errc() || end != s.data() + s.size()) return std::nullopt;
  return v;
}

bool is_hex_id(std::string_view s) noexcept {
  if (!s.starts_with("0x") || s.size() < 3 || s.size() > 34) return false;
  return s.find_first_not_of("0123456789abcdefABCDEF", 2) == std::string_view::npos;
}

}  // namespace cctune::workload::nccl_log
