#pragma once
#include <string>

namespace cctune {

// Writes `content` to `path` through a temporary file in the same directory and rename(2).
// Throws EnvironmentError naming the path.
void write_file_atomically(const std::string& path, const std::string& content);
// Throws EnvironmentError (naming the path) when it cannot be read.
std::string read_file(const std::string& path);
// Creates the directory (and parents) and checks that a file can be written there.
// Throws EnvironmentError naming the directory and the fix.
void ensure_writable_directory(const std::string& dir);

}  // namespace cctune
