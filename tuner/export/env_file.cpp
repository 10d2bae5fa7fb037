#include "tuner/export/env_file.hpp"

#include <algorithm>
#include <cctype>

#include "core/error.hpp"

namespace cctune::tuner {
namespace {

void add_line(std::string& out, const std::string& key, const std::string& value) {
  if (!valid_env_name(key))
    throw UsageError("environment variable name \"" + key + "\" cannot be written to nccl.env",
                     "names are letters, digits and '_', not starting with a digit");
  // No quoting serves all three readers of nccl.env: NCCL_CONF_FILE and docker --env-file
  // take the value verbatim (quotes included), `. nccl.env` splits it at spaces. So refuse.
  const bool path = key == "CCTUNE_PROFILE" || key == "NCCL_TUNER_PLUGIN";
  if (!portable_env_value(value))
    throw UsageError("the value of " + key + " (\"" + value + "\") cannot be written to nccl.env: it holds characters "
                         "outside letters, digits and _-./:,=+@%^, which NCCL_CONF_FILE, docker --env-file and `. nccl.env` "
                         "would read differently",
                     path ? (key == "CCTUNE_PROFILE" ? "pass `cctune tune -o DIR` with a DIR whose absolute path has no spaces or shell characters"
                                                     : "pass `--plugin PATH` with a path that has no spaces or shell characters (copy or link the library there)")
                          : "set the variable to a value without spaces, quotes or shell characters, or leave it out of the sweep's group");
  out += key + "=" + value + "\n";
}

// Comment text comes from files cctune reads (a space's name): one line of printable ASCII,
// so a newline can never start a line that `. nccl.env` would run.
std::string comment_text(std::string_view text) {
  std::string out;
  for (char c : text) out += (c >= 0x20 && c < 0x7f) ? c : '?';
  return out;
}

}  // namespace

std::string format_env_file(const Profile& profile, const EnvFileOptions& options) {
  for (const auto& [what, path] : {std::pair{"NCCL_TUNER_PLUGIN", &options.plugin_path}, {"CCTUNE_PROFILE", &options.profile_path}})
    if (path->empty() || path->front() != '/')
      throw UsageError(std::string(what) + " must be an absolute path, got \"" + *path + "\"", "pass absolute paths");
  std::string out;
  out += "# Written by cctune tune (cctune.profile/1). Use as NCCL_CONF_FILE=<this file>,\n";
  out += "# docker run --env-file <this file>, or: set -a; . <this file>; set +a\n";
  out += "# Measured with NCCL " + comment_text(profile.provenance.nccl_version);
  if (!profile.provenance.space.empty()) out += ", space " + comment_text(profile.provenance.space);
  out += "\n";
  if (!profile.provenance.test_mode.empty())
    out += "# FUNCTIONAL CHECK ONLY: measured in the " + comment_text(profile.provenance.test_mode) +
           " test mode (ranks sharing a GPU over sockets); these settings are no tuning advice\n";
  for (const auto& [key, value] : profile.env) {
    if (key == "NCCL_TUNER_PLUGIN" || key == "CCTUNE_PROFILE") continue;  // ours win, written below
    add_line(out, key, value);
  }
  add_line(out, "NCCL_TUNER_PLUGIN", options.plugin_path);
  add_line(out, "CCTUNE_PROFILE", options.profile_path);
  return out;
}

}  // namespace cctune::tuner
