#include "core/files.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace cctune {
namespace {

std::string why() { return std::strerror(errno); }

// Writes all of `data`, retrying on EINTR and short writes.
bool write_all(int fd, const char* data, std::size_t size) {
  while (size > 0) {
    const ssize_t n = ::write(fd, data, size);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return false;
    data += n;
    size -= static_cast<std::size_t>(n);
  }
  return true;
}

// Makes the rename itself durable: without it a power loss may bring back the old name.
void sync_directory(const std::string& dir) {
  const int fd = ::open(dir.c_str(), O_RDONLY | O_DIRECTORY | O_CLOEXEC);
  if (fd < 0) return;  // some file systems do not open directories; the data is synced already
  ::fsync(fd);
  ::close(fd);
}

}  // namespace

void write_file_atomically(const std::string& path, const std::string& content) {
  write_file_atomically(path, std::vector<std::string_view>{content});
}

void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces) {
  const std::filesystem::path target(path);
  const std::string dir = target.has_parent_path() ? target.parent_path().string() : ".";
  // mkstemp creates the temporary exclusively (O_EXCL, mode 0600): a name planted in the
  // directory, symlink or not, is never followed or overwritten.
  std::string tmp = (std::filesystem::path(dir) / ("." + target.filename().string() + ".tmp.XXXXXX")).string();
  const int fd = ::mkostemp(tmp.data(), O_CLOEXEC);
  if (fd < 0) throw EnvironmentError("cannot create a temporary file next to " + path + ": " + why(), "check the output directory's permissions and free space");
  auto fail = [&](const std::string& what, const std::string& fix) {
    const std::string reason = why();
    ::unlink(tmp.c_str());
    throw EnvironmentError(what + ": " + reason, fix);
  };
  // Readable like any file the user creates (mkstemp makes it 0600).
  const mode_t mask = ::umask(0);
  ::umask(mask);
  ::fchmod(fd, 0666 & ~mask);
  // A late error (NFS, Lustre, a full disk) shows at fsync or close, so both are checked
  // before the rename can replace a good file with a truncated one.
  bool written = true;
  for (const std::string_view piece : pieces) written = written && write_all(fd, piece.data(), piece.size());
  written = written && ::fsync(fd) == 0;
  if (!written) {
    const int saved = errno;
    ::close(fd);
    errno = saved;
    fail("writing " + tmp + " failed", "check free space on the output directory");
  }
  if (::close(fd) != 0) fail("writing " + tmp + " failed", "check free space on the output directory");
  if (std::rename(tmp.c_str(), path.c_str()) != 0) fail("cannot rename " + tmp + " to " + path, "check the output directory's permissions");
  sync_directory(dir);
}

std::string read_file(const std::string& path, std::size_t max_bytes) {
  // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) throw EnvironmentError("cannot read " + path + ": " + why(), "check the path");
  struct stat st {};
  if (::fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd);
    throw UsageError(path + " is not a regular file", "pass a file (not a FIFO, device or directory)");
  }
  if (static_cast<std::uint64_t>(st.st_size) > max_bytes) {
    ::close(fd);
    throw UsageError(path + " is larger than " + std::to_string(max_bytes >> 20) + " MiB", "pass a file written by cctune");
  }
  std::string out;
  char buf[65536];
  for (;;) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      const std::string reason = why();
      ::close(fd);
      throw EnvironmentError("cannot read " + path + ": " + reason, "check the path");
    }
    if (n == 0) break;
    out.append(buf, static_cast<std::size_t>(n));
    if (out.size() > max_bytes) {  // it grew while we read
      ::close(fd);
      throw UsageError(path + " is larger than " + std::to_string(max_bytes >> 20) + " MiB", "pass a file written by cctune");
    }
  }
  ::close(fd);
  return out;
}

void ensure_writable_directory(const std::string& dir) {
  std::error_code ec;
  std::filesystem::create_directories(dir, ec);
  if (ec) throw EnvironmentError("cannot create output directory " + dir + ": " + ec.message(), "choose a writable directory with -o");
  std::string probe = (std::filesystem::path(dir) / ".cctune-write-test.XXXXXX").string();
  const int fd = ::mkostemp(probe.data(), O_CLOEXEC);
  if (fd < 0) throw EnvironmentError("output directory " + dir + " is not writable: " + why(), "choose a writable directory with -o");
  ::close(fd);
  ::unlink(probe.c_str());
}

NewFile::NewFile(const std::string& path, const std::string& fix_if_exists) : path_(path) {
  const mode_t mode = 0666;  // less the umask, like any file the user creates
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
  if (fd_ < 0 && errno == EEXIST) throw UsageError(path + " already exists", fix_if_exists);
  if (fd_ < 0) throw EnvironmentError("cannot create " + path + ": " + why(), "check that its directory exists and is writable");
  const std::filesystem::path target(path);
  sync_directory(target.has_parent_path() ? target.parent_path().string() : ".");
}

NewFile::NewFile(NewFile&& other) noexcept : path_(std::move(other.path_)), fd_(other.fd_) { other.fd_ = -1; }

NewFile::~NewFile() {
  if (fd_ >= 0) ::close(fd_);
}

void NewFile::append(const std::string& text) {
  if (!write_all(fd_, text.data(), text.size())) throw EnvironmentError("writing " + path_ + " failed: " + why(), "check free space");
}

void NewFile::sync() {
  if (::fsync(fd_) != 0) throw EnvironmentError("writing " + path_ + " failed: " + why(), "check free space");
}

}  // namespace cctune
