#include "workload/nccl_log_import.hpp"

#include <exception>

#include "core/error.hpp"
#include "workload/nccl_log_reader.hpp"

namespace cctune::workload {
namespace {

constexpr std::size_t kMaxLine = 64 * 1024;

std::string where(const LogImportOptions& options, long number) {
  return (options.source.empty() ? "" : options.source + " ") + (number > 0 ? "line " + std::to_string(number) : "at its end");
}

// One line through the reader: a line the reader cannot take is skipped and counted, whatever
// went wrong; running past a bound (the reader's, or the builder's on shapes) stops the
// import with a UsageError naming the line.
void read_line(nccl_log::LogReader& reader, std::string_view line, long number, const LogImportOptions& options) {
  ++reader.stats.lines;
  try {
    reader.line(line, number);
  } catch (const Error& e) {
    throw UsageError(where(options, number) + ": " + e.what_only(), e.fix());
  } catch (const std::exception&) {
    reader.skip(number, "the reader could not take it");
  }
}

}  // namespace

bool looks_like_nccl_log(const std::string& head) {
  return head.find(" NCCL INFO ") != std::string::npos || head.starts_with("NCCL INFO ") ||
         head.find("\nNCCL INFO ") != std::string::npos;
}

LogImportStats import_nccl_log(std::istream& in, WorkloadBuilder& builder, const LogImportOptions& options) {
  nccl_log::LogReader reader(builder, options);
  std::string line;
  bool too_long = false;
  long number = 0;
  char c = 0;
  // Lines are read with a bound: a longer one (not NCCL's) is skipped without being held.
  const auto end_line = [&] {
    ++number;
    if (too_long) ++reader.stats.long_lines;
    else read_line(reader, line, number, options);
    line.clear();
    too_long = false;
  };
  while (in.get(c)) {
    if (c != '\n') {
      if (line.size() < kMaxLine) line.push_back(c);
      else too_long = true;
      continue;
    }
    end_line();
  }
  if (too_long || !line.empty()) end_line();
  try {
    reader.finish();
  } catch (const Error& e) {
    throw UsageError(where(options, 0) + ": " + e.what_only(), e.fix());
  }
  return reader.stats;
}

}  // namespace cctune::workload
