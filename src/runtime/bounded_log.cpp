#include "runtime/bounded_log.hpp"

#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <string>

namespace cctune::runtime {

BoundedLog::BoundedLog(int fd, std::uint64_t keep_bytes) : fd_(fd), keep_(std::max<std::uint64_t>(keep_bytes, 1)) {}

void BoundedLog::write(const char* data, std::size_t n) {
  total_ += n;
  const std::size_t head = static_cast<std::size_t>(std::min<std::uint64_t>(n, keep_ - std::min(keep_, head_written_)));
  if (head > 0) {
    head_written_ += head;
    dropped_ += to_file(data, head);
  }
  if (n > head) to_ring(data + head, n - head);
}

void BoundedLog::to_ring(const char* data, std::size_t n) {
  ring_seen_ += n;
  const std::size_t cap = static_cast<std::size_t>(keep_);
  if (n >= cap) {  // the chunk alone fills the ring: keep its end
    ring_.assign(data + (n - cap), data + n);
    ring_start_ = 0;
    return;
  }
  while (n > 0 && ring_.size() < cap) {  // still growing: append
    const std::size_t take = std::min(n, cap - ring_.size());
    ring_.insert(ring_.end(), data, data + take);
    data += take, n -= take;
  }
  while (n > 0) {  // full: overwrite the oldest bytes
    const std::size_t take = std::min(n, cap - ring_start_);
    std::copy(data, data + take, ring_.begin() + static_cast<std::ptrdiff_t>(ring_start_));
    ring_start_ = (ring_start_ + take) % cap;
    data += take, n -= take;
  }
}

void BoundedLog::finish() {
  const std::uint64_t cut = ring_seen_ - ring_.size();
  if (cut > 0) {
    const std::string note = "\n[cctune: " + std::to_string(cut) + " bytes of the job's output dropped here; the log keeps the first " +
                             std::to_string(keep_) + " and the last " + std::to_string(ring_.size()) + " bytes]\n";
    to_file(note.data(), note.size());
    dropped_ += cut;
  }
  dropped_ += to_file(ring_.data() + ring_start_, ring_.size() - ring_start_);
  dropped_ += to_file(ring_.data(), ring_start_);
  ring_.clear();
  ring_.shrink_to_fit();
}

std::size_t BoundedLog::to_file(const char* data, std::size_t n) {
  while (n > 0 && !file_failed_) {
    const ssize_t w = ::write(fd_, data, n);
    if (w > 0) {
      data += w, n -= static_cast<std::size_t>(w);
    } else if (w < 0 && errno == EINTR) {
      continue;
    } else {
      file_failed_ = true;  // a full disk or a closed log: the job goes on, its output is counted
    }
  }
  return n;
}

}  // namespace cctune::runtime
