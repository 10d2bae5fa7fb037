#pragma once
// One error hierarchy for the whole tool. Messages say what failed, where, and the fix;
// only the app layer turns them into exit codes.
#include <optional>
#include <stdexcept>
#include <string>

namespace cctune {

// Where an error happened; filled in by whoever knows (the app layer knows host and rank).
struct ErrorSite {
  std::string host;
  int rank = -1;
  int device = -1;
};

class Error : public std::runtime_error {
 public:
  Error(std::string what, std::string fix = {});
  const std::string& fix() const noexcept { return fix_; }
  const std::string& what_only() const noexcept { return what_; }
  // "what (on host H, rank R). Fix: ..." on one line. The error's own site, when it has
  // one, wins over `site` (the caller's, which may be another rank's).
  std::string describe(const ErrorSite& site = {}) const;

  // Set by agree_on_errors(): every rank throws this same error, which happened at `site`.
  void set_agreed_site(ErrorSite site) { site_ = std::move(site); }
  bool agreed() const noexcept { return site_.has_value(); }
  const std::optional<ErrorSite>& site() const noexcept { return site_; }
  // Marks an error raised by work only this rank does (rank 0's results file): whatever its
  // kind, the other ranks cannot know of it, so the app layer stops the whole job.
  void mark_rank_local() noexcept { rank_local_ = true; }
  bool rank_local() const noexcept { return rank_local_; }

 private:
  std::string what_;
  std::string fix_;
  std::optional<ErrorSite> site_;
  bool rank_local_ = false;
};

// Bad command line, bad config or input file: the user's input is wrong.
class UsageError : public Error {
  using Error::Error;
};

// Something the environment lacks: a library, a device, permissions, a backend not built.
class EnvironmentError : public Error {
  using Error::Error;
};

// A measurement could not be made (a backend call failed, a worker died).
class RuntimeFailure : public Error {
  using Error::Error;
};

// Every exit code of cctune, the one table the app layer uses; the README's "Exit codes"
// table lists the same (a script may branch on them: keep the values).
namespace exit_code {
inline constexpr int ok = 0;
inline constexpr int failure = 1;      // a measurement failed (RuntimeFailure, a failed config group)
inline constexpr int usage = 2;        // UsageError
inline constexpr int environment = 3;  // EnvironmentError
inline constexpr int regressed = 4;    // cctune verify: the profile is slower than NCCL's default somewhere
inline constexpr int suspects = 5;     // cctune diagnose: it named suspects (a slow GPU, node, NIC/link or path)
// cctune verify / verify --job / tune --job: the pairs ended below the target confidence, or
// (--until-decided) without settling the tolerance: no verdict either way, more pairs needed.
inline constexpr int undecided = 6;
inline constexpr int interrupted_sighup = 129;   // 128 + SIGHUP: the terminal closed
inline constexpr int interrupted_sigint = 130;   // 128 + SIGINT, as shells report it
inline constexpr int interrupted_sigterm = 143;  // 128 + SIGTERM
}  // namespace exit_code

}  // namespace cctune
