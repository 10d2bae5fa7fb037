#pragma once
// Newline-delimited messages over a pipe: a non-blocking reader that returns complete
// lines as they arrive, and a writer that writes a whole line or reports the peer gone.
#include <cstddef>
#include <string>
#include <vector>

namespace cctune::runtime {

// The longest line a reader accepts: a worker's messages are a few KiB; a longer line is
// a broken or hostile writer, and buffering it would grow the supervisor without bound.
inline constexpr std::size_t max_line_bytes = 1 << 20;

class LineReader {
 public:
  explicit LineReader(int fd, std::size_t max_line = max_line_bytes) : fd_(fd), max_line_(max_line) {}
  int fd() const { return fd_; }
  // Reads what is available without blocking (the fd is O_NONBLOCK), at most a few MiB per
  // call so a fast writer cannot keep the caller here, and appends every complete line to
  // `out`. Returns false once the writer has closed its end, or sent a line longer than
  // the limit (overlong() then says so and the reader reads no more).
  bool read_available(std::vector<std::string>& out);
  // Stops reading: a process that outlived the writer may hold the pipe open for ever.
  void close_reading() { eof_ = true; }
  bool eof() const { return eof_; }
  bool overlong() const { return overlong_; }
  std::size_t max_line() const { return max_line_; }

 private:
  void split_lines(std::vector<std::string>& out);
  int fd_;
  std::size_t max_line_;
  std::string buffer_;
  bool eof_ = false;
  bool overlong_ = false;
};

// Writes `line` plus '\n' completely (retrying on EINTR / partial writes). False when the
// reader is gone (EPIPE); the caller must have SIGPIPE ignored.
bool write_line(int fd, const std::string& line);

// Sets O_NONBLOCK on fd; throws RuntimeFailure on failure.
void set_nonblocking(int fd);

}  // namespace cctune::runtime
