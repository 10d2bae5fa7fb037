#pragma once
// The profiler half's file: $CCTUNE_WORKLOAD/workload.<host>.<pid>.<tag>.json, one per process.
// Host name and pid alone are not unique: containers that share the host's name (host
// networking) each start their job as pid 1, or as the same pid in their own PID namespace,
// and would write one file, each replacing the other's records. The tag, drawn once per
// process from getrandom, tells them apart; the first write creates the file exclusively
// (O_EXCL), so a name another process holds is never replaced: a fresh tag is drawn instead.
// Later writes replace the file atomically (write_file_atomically).
#include <string>

namespace cctune::tuner {

// A tag of 12 lower-case hex digits from getrandom (a mix of clocks and addresses where
// getrandom fails, as in a sandbox that forbids it).
std::string random_file_tag();

class WorkloadFile {
 public:
  using TagSource = std::string (*)();
  // `host` must already be safe in a file name (letters, digits, '-', '.', '_').
  WorkloadFile(std::string directory, std::string host, long pid, TagSource tags = &random_file_tag);
  // Where the file is, or will be (the name changes only if another process took it first).
  const std::string& path() const noexcept { return path_; }
  // The whole file: created exclusively the first time, replaced atomically after. Throws
  // EnvironmentError when it cannot be written. Not thread-safe: the caller serialises writes.
  void write(const std::string& content);

 private:
  void draw_name();
  void create_exclusively();

  std::string directory_, host_, pid_;
  TagSource tags_;
  std::string path_;
  bool created_ = false;
};

}  // namespace cctune::tuner
