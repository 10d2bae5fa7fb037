#pragma once
// What cctune keeps of a job's output: the first and the last `keep_bytes` of it, with one
// line in between saying how much was dropped. A job that prints 1 GB (NCCL_DEBUG=TRACE, a
// loop gone wrong) once left a 1.9 GB job.log per pair of runs; its start (the command, NCCL's
// setup) and its end (the error) are what a reader needs. Nothing here blocks on the job or
// grows with its output: the head goes to the file as it comes, the tail stays in a ring of at
// most `keep_bytes`, and a failed write (a full disk) is counted as dropped, never retried.
#include <cstddef>
#include <cstdint>
#include <vector>

namespace cctune::runtime {

class BoundedLog {
 public:
  // `fd`: the log, open for writing (not owned). `keep_bytes` > 0.
  BoundedLog(int fd, std::uint64_t keep_bytes);
  void write(const char* data, std::size_t n);
  // Writes the note and the tail; call once, after the last write().
  void finish();
  std::uint64_t total_bytes() const { return total_; }
  // Not in the log: the middle cut out, plus whatever the file refused.
  std::uint64_t dropped_bytes() const { return dropped_; }

 private:
  // Returns the bytes the file did not take.
  std::size_t to_file(const char* data, std::size_t n);
  void to_ring(const char* data, std::size_t n);

  int fd_;
  std::uint64_t keep_;
  std::uint64_t total_ = 0;
  std::uint64_t head_written_ = 0;
  std::uint64_t dropped_ = 0;
  std::uint64_t ring_seen_ = 0;  // bytes that passed through the ring (the tail and what it pushed out)
  std::vector<char> ring_;       // grows to keep_ bytes, then wraps at ring_start_
  std::size_t ring_start_ = 0;
  bool file_failed_ = false;
};

}  // namespace cctune::runtime
