#pragma once
// One line of NCCL's log, cut into what the importer reads, without trusting any of it: every
// function here returns std::nullopt (or an empty view) on text it cannot read and never throws.
//
// NCCL writes "<host>:<pid>:<tid> [<dev>] NCCL INFO <message>" (src/debug.cc), where <host> is
// the host name up to its first '.'. Other programs put their own text in front of that key:
// NCCL 2.26+ its timestamp (NCCL_DEBUG_TIMESTAMP_LEVELS, "[2025-06-30 14:02:10] "), mpirun
// --tag-output "[1,0]<stdout>:", torchrun "[rank0]:", Ray "(RayWorker pid=1234, ip=10.0.0.1) ".
// The key is found where it sits, right before " [<dev>] NCCL INFO ", whatever comes first.
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>

namespace cctune::workload::nccl_log {

struct LineParts {
  std::string_view process;  // "host:pid"; empty for a line without a key (when allowed)
  std::string_view thread;   // "host:pid:tid"; empty likewise
  std::string_view message;  // what follows "NCCL INFO "
  bool bare = false;         // no "NCCL INFO" in the line: the message is the whole line (keyless only)
};

// The parts of an NCCL INFO line; nullopt for other lines, and for INFO lines without a
// host:pid:tid key unless `keyless` (the caller was told the file is NCCL's log), which also
// takes a line without "NCCL INFO" as a message of its own (pasted bare).
std::optional<LineParts> split_line(std::string_view line, bool keyless);

// `text` from `pos`, at most `n` characters; empty past the end. The only way this code
// slices text it was given.
std::string_view slice(std::string_view text, std::size_t pos, std::size_t n = std::string_view::npos) noexcept;

// Whitespace-separated words of a message, at most kMaxWords (a longer message is not one of
// the lines read here).
struct Words {
  static constexpr std::size_t kMaxWords = 48;
  std::string_view word[kMaxWords];
  std::size_t count = 0;
  std::string_view at(std::size_t i) const noexcept { return i < count ? word[i] : std::string_view{}; }
  // The word after the first word equal to `key`, or empty.
  std::string_view after(std::string_view key) const noexcept;
};
std::optional<Words> split_words(std::string_view message);

// Decimal (or, with base 16, hex with an optional 0x) text that is wholly a number of type T.
std::optional<std::uint64_t> to_u64(std::string_view s, int base = 10) noexcept;
std::optional<int> to_int(std::string_view s) noexcept;

// Ids land in workload.json and on the terminal: NCCL's are hex ("0x" and 1 to 32 digits).
bool is_hex_id(std::string_view s) noexcept;

}  // namespace cctune::workload::nccl_log
