#pragma once
// Where workers' stdout/stderr go, and what a failure reason quotes from them.
#include <string>

namespace cctune::runtime {

// <output>/workers where it can be made and written (on a node that shares the output
// directory); else a new private directory (mkdtemp, mode 0700) under `scratch_parent`, named
// cctune-workers.XXXXXX: a fixed name in a shared /tmp could be a symlink another user planted.
// Throws EnvironmentError when neither can be made.
std::string make_worker_log_dir(const std::string& output_dir, const std::string& scratch_parent);

// The last `lines` non-empty lines of a file, joined with " | ", each cut to 200 chars.
std::string log_tail(const std::string& path, int lines);

}  // namespace cctune::runtime
