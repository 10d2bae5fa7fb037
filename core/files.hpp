#pragma once
#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace cctune {

// The largest file read_file() reads unless told otherwise.
inline constexpr std::size_t max_input_file_bytes = std::size_t{1} << 30;

// Writes `content` to `path` through a temporary created exclusively (mkstemp) in the same
// directory, fsynced and closed with errors checked, then rename(2) and an fsync of the
// directory: `path` is either the old file or the whole new one, even after a power loss.
// Throws EnvironmentError naming the path.
void write_file_atomically(const std::string& path, const std::string& content);
// The same, the file being `pieces` one after the other: a large file made of parts kept
// elsewhere (results.json from its points' cached texts) is written without first copying
// it into one string.
void write_file_atomically(const std::string& path, const std::vector<std::string_view>& pieces);
// Reads a regular file of at most `max_bytes`. Throws EnvironmentError (naming the path)
// when it cannot be read, UsageError when it is not a regular file (a FIFO, /dev/zero) or
// is too large.
std::string read_file(const std::string& path, std::size_t max_bytes = max_input_file_bytes);
// Creates the directory (and parents) and checks that a file can be written there.
// Throws EnvironmentError naming the directory and the fix.
void ensure_writable_directory(const std::string& dir);

// A file that grows while a sweep runs (a CSV of its points): created exclusively (O_EXCL,
// so an existing file or a symlink planted at `path` is refused, never followed or
// truncated), appended to, and fsynced on demand so that what was written before a crash or
// an interruption stays. Move-only; closes its descriptor.
class NewFile {
 public:
  // Throws UsageError "<path> already exists" with `fix_if_exists`, EnvironmentError when
  // the file cannot be created.
  NewFile(const std::string& path, const std::string& fix_if_exists);
  NewFile(NewFile&& other) noexcept;
  NewFile& operator=(NewFile&&) = delete;
  NewFile(const NewFile&) = delete;
  ~NewFile();
  // Throw EnvironmentError naming the path.
  void append(const std::string& text);
  void sync();
  const std::string& path() const { return path_; }

 private:
  std::string path_;
  int fd_ = -1;
};

}  // namespace cctune
