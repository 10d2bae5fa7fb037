#include "runtime/worker_logs.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <deque>
#include <filesystem>
#include <fstream>

#include "core/error.hpp"
#include "core/text.hpp"

namespace cctune::runtime {

std::string make_worker_log_dir(const std::string& output_dir, const std::string& scratch_parent) {
  std::error_code ec;
  const auto dir = std::filesystem::absolute(std::filesystem::path(output_dir) / "workers", ec);
  if (!ec && (std::filesystem::create_directories(dir, ec), !ec) && ::access(dir.c_str(), W_OK) == 0) return dir.string();
  std::string pattern = scratch_parent + "/cctune-workers.XXXXXX";
  if (!::mkdtemp(pattern.data()))
    throw EnvironmentError("cannot create a worker log directory: " + dir.string() + " is not writable and " + scratch_parent +
                               " refused a private one (" + std::strerror(errno) + ")",
                           "make the output directory writable, or set TMPDIR to a writable directory");
  return pattern;
}

std::string log_tail(const std::string& path, int lines) {
  std::ifstream in(path);
  std::deque<std::string> last;
  for (std::string l; std::getline(in, l);) {
    if (l.find_first_not_of(" \t\r") == std::string::npos) continue;
    l = text::truncate_utf8(l, 200);  // on a character boundary: the reason is dumped as JSON
    last.push_back(l);
    if (static_cast<int>(last.size()) > lines) last.pop_front();
  }
  std::string out;
  for (const auto& l : last) out += (out.empty() ? "" : " | ") + l;
  return out;
}

}  // namespace cctune::runtime
