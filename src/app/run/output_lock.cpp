#include "app/run/output_lock.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>

#include "core/error.hpp"

namespace cctune::app {

namespace fs = std::filesystem;

OutputLock::OutputLock(const std::string& dir, ExistingResults existing, bool resumable) {
  const std::string path = (fs::path(dir) / ".cctune.lock").string();
  // O_NOFOLLOW: a symlink planted at the lock's name is refused, never followed.
  fd_ = ::open(path.c_str(), O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0644);
  if (fd_ < 0)
    throw EnvironmentError("cannot open the lock file " + path + ": " + std::strerror(errno),
                           "check that " + dir + " is a writable directory of yours");
  if (::flock(fd_, LOCK_EX | LOCK_NB) != 0) {
    const int err = errno;
    if (err == EWOULDBLOCK) {
      char pid[32] = {};
      const ssize_t n = ::pread(fd_, pid, sizeof pid - 1, 0);
      const std::string holder = n > 0 ? std::string(pid, static_cast<std::size_t>(n)) : std::string("?");
      ::close(fd_);
      fd_ = -1;
      throw EnvironmentError("another cctune (pid " + holder.substr(0, holder.find('\n')) + ") is writing " + dir,
                             "wait for it to finish, or pass another -o directory");
    }
    if (err != ENOLCK && err != EOPNOTSUPP && err != ENOSYS && err != EINVAL) {
      ::close(fd_);
      fd_ = -1;
      throw EnvironmentError("cannot lock " + path + ": " + std::strerror(err), "pass another -o directory");
    }
  }
  // Who holds it, for the message of the one refused.
  const std::string me = std::to_string(::getpid()) + "\n";
  if (::ftruncate(fd_, 0) == 0 && ::pwrite(fd_, me.data(), me.size(), 0) < 0) {
    // Only the message of a refused second sweep would lack the pid.
  }
  if (existing != ExistingResults::Refuse) return;
  // A measuring command's own results: any of them in DIR is an earlier run's, kept.
  for (const char* name : {"results.json", "diagnosis.json"}) {
    const fs::path earlier = fs::path(dir) / name;
    std::error_code ec;
    if (!fs::exists(earlier, ec)) continue;
    ::close(fd_);
    fd_ = -1;
    throw UsageError(earlier.string() + " exists (an earlier run's results; cctune does not overwrite them)",
                     std::string(resumable ? "continue that sweep with --resume " + dir + ", " : "") +
                         "pass --force to replace it, or pass another -o directory");
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);
}

}  // namespace cctune::app
