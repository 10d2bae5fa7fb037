#include "runtime/line_channel.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "core/error.hpp"

namespace cctune::runtime {

bool LineReader::read_available(std::vector<std::string>& out) {
  constexpr std::size_t per_call_bytes = 4 << 20;
  char buf[65536];
  std::size_t taken = 0;
  while (!eof_ && taken < per_call_bytes) {
    const ssize_t n = ::read(fd_, buf, sizeof buf);
    if (n > 0) {
      buffer_.append(buf, static_cast<std::size_t>(n));
      taken += static_cast<std::size_t>(n);
      split_lines(out);
      continue;
    }
    if (n == 0) {
      eof_ = true;
      break;
    }
    if (errno == EINTR) continue;
    if (errno == EAGAIN || errno == EWOULDBLOCK) break;
    eof_ = true;  // any other error: the pipe is unusable
  }
  return !eof_;
}

void LineReader::split_lines(std::vector<std::string>& out) {
  std::size_t start = 0;
  for (std::size_t nl; !overlong_ && (nl = buffer_.find('\n', start)) != std::string::npos; start = nl + 1) {
    if (nl - start > max_line_) overlong_ = true;
    else if (nl > start) out.push_back(buffer_.substr(start, nl - start));
  }
  buffer_.erase(0, start);
  if (buffer_.size() > max_line_) overlong_ = true;
  if (overlong_) {
    buffer_.clear();
    buffer_.shrink_to_fit();
    eof_ = true;
  }
}

bool write_line(int fd, const std::string& line) {
  const std::string data = line + "\n";
  std::size_t done = 0;
  while (done < data.size()) {
    const ssize_t n = ::write(fd, data.data() + done, data.size() - done);
    if (n > 0) {
      done += static_cast<std::size_t>(n);
    } else if (n < 0 && errno == EINTR) {
      continue;
    } else {
      return false;
    }
  }
  return true;
}

void set_nonblocking(int fd) {
  const int flags = ::fcntl(fd, F_GETFL);
  if (flags < 0 || ::fcntl(fd, F_SETFL, flags | O_NONBLOCK) < 0)
    throw RuntimeFailure(std::string("fcntl(O_NONBLOCK) failed: ") + std::strerror(errno));
}

}  // namespace cctune::runtime
