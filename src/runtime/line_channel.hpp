#pragma once
// Newline-delimited messages over a pipe: a non-blocking reader that returns complete
// lines as they arrive, and a writer that writes a whole line or reports the peer gone.
#include <string>
#include <vector>

namespace cctune::runtime {

class LineReader {
 public:
  explicit LineReader(int fd) : fd_(fd) {}
  int fd() const { return fd_; }
  // Reads what is available without blocking (the fd is O_NONBLOCK) and appends every
  // complete line to `out`. Returns false once the writer has closed its end.
  bool read_available(std::vector<std::string>& out);
  bool eof() const { return eof_; }

 private:
  int fd_;
  std::string buffer_;
  bool eof_ = false;
};

// Writes `line` plus '\n' completely (retrying on EINTR / partial writes). False when the
// reader is gone (EPIPE); the caller must have SIGPIPE ignored.
bool write_line(int fd, const std::string& line);

// Sets O_NONBLOCK on fd; throws RuntimeFailure on failure.
void set_nonblocking(int fd);

}  // namespace cctune::runtime
