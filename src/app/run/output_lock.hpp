#pragma once
// The output directory of a sweep belongs to one sweep at a time: rank 0 holds an exclusive
// flock(2) on DIR/.cctune.lock for the whole run, so a second sweep (or verify) into the same
// -o is refused in one line instead of overwriting the first one's results.json. The lock
// goes with the process (even on SIGKILL), so a crashed sweep never leaves DIR locked.
#include <string>

namespace cctune::app {

// What an existing DIR/results.json means for a new sweep into DIR.
enum class ExistingResults {
  Refuse,   // every command without --force: keep it (an interrupted sweep's is what --resume needs)
  Resume,   // sweep --resume DIR: it is the sweep's input
  Replace,  // --force
};

class OutputLock {
 public:
  // Takes the lock and applies `existing`. Throws EnvironmentError when another process
  // holds the lock (naming its pid), UsageError when results.json or diagnosis.json exists and
  // `existing` is Refuse (naming --force, and --resume when `resumable`: a sweep's). File
  // systems without flock (some NFS mounts) are used unlocked.
  OutputLock(const std::string& dir, ExistingResults existing, bool resumable = false);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace cctune::app
