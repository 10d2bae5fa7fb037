#pragma once
// The output directory of a sweep belongs to one sweep at a time: rank 0 holds an exclusive
// flock(2) on DIR/.cctune.lock for the whole run, so a second sweep (or verify) into the same
// -o is refused in one line instead of overwriting the first one's results.json. The lock
// goes with the process (even on SIGKILL), so a crashed sweep never leaves DIR locked.
#include <string>

namespace cctune::app {

// What an existing DIR/results.json means for a new sweep into DIR.
enum class ExistingResults {
  Refuse,   // a plain sweep: keep it (an interrupted one is what --resume needs)
  Resume,   // --resume DIR: it is the sweep's input
  Replace,  // --force, or a command whose results are not resumable (verify)
};

class OutputLock {
 public:
  // Takes the lock and applies `existing`. Throws EnvironmentError when another process
  // holds the lock (naming its pid), UsageError when results.json exists and `existing` is
  // Refuse (naming --resume and --force). File systems without flock (some NFS mounts) are
  // used unlocked.
  OutputLock(const std::string& dir, ExistingResults existing);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace cctune::app
