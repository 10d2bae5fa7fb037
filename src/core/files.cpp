#include "core/files.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "core/error.hpp"

namespace cctune {

void write_file_atomically(const std::string& path, const std::string& content) {
  const std::string tmp = path + ".tmp." + std::to_string(::getpid());
  {
    std::ofstream out(tmp, std::ios::binary | std::ios::trunc);
    if (!out) throw EnvironmentError("cannot write " + tmp + ": " + std::strerror(errno), "check the output directory's permissions and free space");
    out << content;
    out.flush();
    if (!out) throw EnvironmentError("writing " + tmp + " failed: " + std::strerror(errno), "check free space on the output directory");
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) {
    const std::string why = std::strerror(errno);
    std::remove(tmp.c_str());
    throw EnvironmentError("cannot rename " + tmp + " to " + path + ": " + why, "check the output directory's permissions");
  }
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw EnvironmentError("cannot read " + path + ": " + std::strerror(errno), "check the path");
  std::ostringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

void ensure_writable_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw EnvironmentError("cannot create output directory " + dir + ": " + ec.message(), "choose a writable directory with -o");
  const std::string probe = (std::filesystem::path(dir) / (".cctune-write-test." + std::to_string(::getpid()))).string();
  std::ofstream out(probe);
  if (!out) throw EnvironmentError("output directory " + dir + " is not writable: " + std::strerror(errno), "choose a writable directory with -o");
  out.close();
  std::filesystem::remove(probe, ec);
}

}  // namespace cctune
